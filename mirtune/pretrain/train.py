"""Distributed pre-training of MIREncoder on Ray Train: data parallel over N workers, CPU or GPU.

The driver (`pretrain`) reads a corpus folder (tokenizer.json + samples/split=train|heldout Parquet shards,
see samples.py) and starts a `TorchTrainer`. A corpus that fits in memory goes to the object store once and
each worker takes a cost-balanced share of every global batch; a larger one streams as Ray Data shards
(batches.py). Each worker runs the three objectives on its batches under DDP (gloo on CPUs,
nccl with mixed precision on GPUs), and every K steps rank 0 evaluates the held-out split and reports a
checkpoint to the run's storage path (checkpoints.py: safetensors and JSON only).

`FailureConfig(max_failures)` replaces a worker that dies: the worker group restarts from the latest
checkpoint, so at most K steps are lost. `--resume` re-attaches to the same storage path and run name and
continues from the newest checkpoint that loads: the driver checks them before training starts, says which one
it uses, and moves the ones that do not load into `corrupt-checkpoints-<time>/` beside the run (never deleted).
When none loads it stops with one line, unless `--restart` asks to start over from step 0 (the old run is then
moved into `pretrain-set-aside-<time>/`). At the end the driver writes the model (io.py format),
metrics.csv, heldout.csv and learning_curves.png into the output folder (report.py). A restart continues as if
never interrupted: the step count, the learning rate schedule, the per-step random masks (seeded by step)
and the data order (the checkpoint keeps the batches of the current pass already trained on, and the pass is
taken up there; a corpus streamed by Ray Data skips that many batches of its pass, which are the same ones
as far as Ray Data reads the shard in the same order).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import math
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from mirtune.errors import Interrupted, MirtuneError, UsageError
from mirtune.pretrain.checkpoints import (RUN_NAME, checkpoint_dirs, checkpoint_step, latest_checkpoint_dir,
                                          load_checkpoint, make_model, restore, save_checkpoint, set_aside,
                                          usable_checkpoint)
from mirtune.pretrain.report import CSV_FIELDS, METRIC_KEYS, ProgressPrinter, plot_learning_curves, write_metrics_csv

PRECISIONS = ("auto", "fp32", "bf16")
COLUMNS = ("id", "stmt_ids", "n_stmt", "node_ids", "n_nodes", "node_type", "edges", "n_edges")


@dataclass
class TrainConfig:
    """Everything a pre-training run needs; the driver passes it to every worker as a dict."""

    corpus: str
    out: str
    preset: str = "small"
    workers: int = 1
    gpus: bool = False
    precision: str = "auto"             # auto (GPUs: bf16 or fp16 autocast; CPUs: fp32), fp32, or bf16 autocast
    steps: int = 2000
    batch_size: int = 8                 # files per worker per step
    lr: float = 5e-4
    warmup_steps: int | None = None     # default: 5% of the steps
    weight_decay: float = 0.01
    grad_clip: float = 1.0
    checkpoint_every: int = 200
    eval_every: int | None = None       # default: at every checkpoint; 0: only at the end
    eval_samples: int = 256             # held-out files evaluated
    log_every: int = 10
    max_statements: int = 256           # statements per file per step (a random, ordered subset)
    seed: int = 0
    modality: str = "both"              # both, or text / graph alone (the paper's ablations)
    storage: str | None = None          # checkpoint storage path; default OUT/checkpoints
    resume: bool = False
    restart: bool = False               # start over from step 0, moving an existing run's checkpoints aside
    max_failures: int = 3
    cpus_per_worker: float = 1.0
    cache_mb: int = 2048                # a streamed corpus: keep a worker's shard in memory up to this size (MB)
    materialize_mb: int = 1024          # a corpus up to this size (MB on disk) is held whole; else streamed
    address: str | None = None
    command: list[str] = field(default_factory=list)
    trace_dir: str | None = None        # tests: workers write their pid, each executed step and its files here
    step_delay_s: float = 0.0           # tests: slow each step down

    def validate(self) -> None:
        for name in ("workers", "steps", "batch_size", "checkpoint_every", "log_every", "max_statements",
                     "eval_samples"):
            if getattr(self, name) < 1:
                raise UsageError(f"--{name.replace('_', '-')} must be at least 1")
        if self.cpus_per_worker <= 0:
            raise UsageError("--cpus-per-worker must be positive")
        if self.max_failures < 0:
            raise UsageError("--max-failures must be 0 or more")
        if self.precision not in PRECISIONS:
            raise UsageError(f"--precision must be one of {', '.join(PRECISIONS)}, got {self.precision!r}")

    @property
    def storage_path(self) -> Path:
        return Path(self.storage).resolve() if self.storage else (Path(self.out) / "checkpoints").resolve()


# ============================================================================= argument parsing
def add_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `mirtune pretrain` and jobs/pretrain.py."""
    p.add_argument("--corpus", required=True, help="corpus folder (tokenizer.json, samples/split=train|heldout)")
    p.add_argument("--out", required=True, help="output folder: model, metrics.csv, learning_curves.png")
    p.add_argument("--preset", default="small", help="model preset: small (default), medium, paper, tiny")
    p.add_argument("--workers", type=int, default=1, help="data-parallel workers (default 1)")
    p.add_argument("--gpus", action="store_true", help="one GPU per worker, nccl, mixed precision")
    p.add_argument("--precision", default="auto", choices=PRECISIONS,
                   help="auto (default: bf16 or fp16 autocast on GPUs, fp32 on CPUs), fp32, or bf16 autocast "
                        "(on a CPU it pays where the CPU has native bf16: avx512_bf16 or AMX)")
    p.add_argument("--resume", action="store_true", help="continue from the latest checkpoint in the storage path")
    p.add_argument("--restart", action="store_true",
                   help="start over from step 0 over an existing run (with --resume: only when none of its "
                        "checkpoints loads); the old checkpoints are moved aside, never deleted")
    p.add_argument("--steps", type=int, default=2000, help="optimizer steps (default 2000)")
    p.add_argument("--batch-size", type=int, default=8, help="files per worker per step (default 8)")
    p.add_argument("--lr", type=float, default=5e-4, help="peak learning rate (default 5e-4)")
    p.add_argument("--checkpoint-every", type=int, default=200, metavar="K", help="steps between checkpoints")
    p.add_argument("--eval-every", type=int, default=None, metavar="K",
                   help="steps between held-out evaluations (default: at each checkpoint; 0: only at the end)")
    p.add_argument("--eval-samples", type=int, default=256, help="held-out files to evaluate (default 256)")
    p.add_argument("--log-every", type=int, default=10, help="steps between progress lines (default 10)")
    p.add_argument("--max-statements", type=int, default=256, help="statements per file per step (default 256)")
    p.add_argument("--storage", help="checkpoint storage path (default OUT/checkpoints; a shared folder on a cluster)")
    p.add_argument("--max-failures", type=int, default=3, help="worker failures tolerated (default 3)")
    p.add_argument("--cpus-per-worker", type=float, default=1.0, help="CPUs reserved per worker (default 1)")
    p.add_argument("--modality", default="both", choices=("both", "text", "graph"),
                   help="both (default), or pre-train a text-only (MLM) or graph-only (auto-encoding) encoder")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--address", help="Ray cluster address (default: $RAY_ADDRESS, else a private local cluster)")


def config_from_args(args: argparse.Namespace, command: list[str] | None = None) -> TrainConfig:
    cfg = TrainConfig(corpus=args.corpus, out=args.out, preset=args.preset, workers=args.workers, gpus=args.gpus,
                      precision=args.precision,
                      steps=args.steps, batch_size=args.batch_size, lr=args.lr,
                      checkpoint_every=args.checkpoint_every, eval_every=args.eval_every,
                      eval_samples=args.eval_samples, log_every=args.log_every,
                      max_statements=args.max_statements, seed=args.seed, modality=args.modality,
                      storage=args.storage,
                      resume=args.resume, restart=getattr(args, "restart", False), max_failures=args.max_failures, cpus_per_worker=args.cpus_per_worker,
                      address=args.address, command=list(command if command is not None else sys.argv))
    cfg.validate()
    return cfg


# ===================================================================================== worker
def _rows_to_samples(batch: dict[str, Any], seq_len: int, max_statements: int | None,
                     rng: Any = None) -> list[dict[str, Any]]:
    """Numpy batch from Ray Data -> sample_arrays dicts, statements subsampled (order kept) if too many."""
    import numpy as np

    from mirtune.model.samples import sample_arrays

    out = []
    for i in range(len(batch["n_stmt"])):
        row = {k: batch[k][i] for k in COLUMNS if k in batch}
        s = sample_arrays(row, seq_len)
        s["id"] = str(row.get("id", ""))
        if max_statements and s["stmt_ids"].shape[0] > max_statements and rng is not None:
            keep = np.sort(rng.choice(s["stmt_ids"].shape[0], max_statements, replace=False))
            s["stmt_ids"] = s["stmt_ids"][keep]
        out.append(s)
    return out


def _data_position(state: dict[str, Any], per_epoch: int | None) -> int:
    """The batch of pass `state["epoch"]` a (resumed) run starts at: where its checkpoint left the pass. A
    checkpoint written before the position was kept resumes where the same run without interruptions would be
    (its steps in that pass, wrapped into the following passes when the pass length is known); such runs
    restarted every pass from its first batch, so a run resumed often kept training on the pass's beginning."""
    position = state.get("epoch_batches")
    if position is None:
        position = sum(1 for row in state.get("history", []) if row.get("epoch") == state["epoch"])
        if per_epoch:
            state["epoch"] += position // per_epoch
            position %= per_epoch
    state["epoch_batches"] = position
    return position


def _lr_factor(step: int, total: int, warmup: int) -> float:
    """Linear warm-up, then cosine decay to 10% of the peak."""
    if step < warmup:
        return (step + 1) / max(1, warmup)
    progress = (step - warmup) / max(1, total - warmup)
    return 0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * min(1.0, progress)))


def _mean_metrics(rows: list[tuple[dict[str, float], int]]) -> dict[str, float]:
    """Weighted mean of metric dicts, NaNs skipped per key."""
    out = {}
    for key in METRIC_KEYS:
        num = den = 0.0
        for m, w in rows:
            v = m.get(key, float("nan"))
            if v is not None and not math.isnan(v):
                num += v * w
                den += w
        out[key] = num / den if den else float("nan")
    return out


def _all_reduce_metrics(metrics: dict[str, float], world: int, device: Any) -> dict[str, float]:
    """Mean of each metric over the workers (NaN where no worker has a value)."""
    if world <= 1:
        return metrics
    import torch
    import torch.distributed as dist

    vals = torch.tensor([metrics.get(k, float("nan")) for k in METRIC_KEYS], dtype=torch.float64)
    have = (~torch.isnan(vals)).double()
    packed = torch.cat([torch.nan_to_num(vals, nan=0.0), have]).to(device)
    dist.all_reduce(packed)
    n = len(METRIC_KEYS)
    sums, counts = packed[:n].cpu(), packed[n:].cpu()
    return {k: (sums[i] / counts[i]).item() if counts[i] > 0 else float("nan") for i, k in enumerate(METRIC_KEYS)}


def evaluate(model: Any, samples: list[dict[str, Any]], batch_size: int, device: Any, seed: int = 12345,
             autocast: Any = None) -> dict[str, float]:
    """Held-out metrics with fixed masks and pairs (the same for every call)."""
    import contextlib

    import torch

    from mirtune.model.encoder import collate

    if not samples:
        return {}
    net = model.module if hasattr(model, "module") else model
    was_training = net.training
    net.eval()
    g = torch.Generator().manual_seed(seed)
    rows = []
    try:
        with torch.no_grad(), (autocast() if autocast else contextlib.nullcontext()):
            for i in range(0, len(samples), batch_size):
                chunk = samples[i:i + batch_size]
                if len(chunk) < 2 and rows:
                    break  # matching needs two files; a trailing single file adds little
                batch = collate(chunk).to(device)
                _, metrics = net(batch, g)
                rows.append((metrics, len(chunk)))
    finally:
        net.train(was_training)
    return _mean_metrics(rows)


@dataclass
class _Worker:
    """What one Ray Train worker trains with: its config and place in the group, model, optimizer and run state."""

    tc: TrainConfig
    enc_cfg: Any
    rank: int
    world: int
    device: Any
    net: Any                            # the model itself
    model: Any                          # net, or its DDP wrapper when there are several workers
    optimizer: Any
    scheduler: Any
    state: dict[str, Any]               # step, samples, epoch, epoch_batches, time_s, history, heldout, restarts
    resumed: bool                       # state came from a checkpoint
    autocast: Callable[[], Any] | None  # mixed precision (--precision), else None
    scaler: Any
    trace: Path | None
    progress_queue: Any
    tables: dict[str, Any] | None       # the corpus in the object store, or None: Ray Data shards
    heldout_samples: list[dict[str, Any]] | None = None  # read on first use


@dataclass
class _Window:
    """The steps since the last progress line: their metrics, samples and start time, for the samples/s rate."""

    rows: list[tuple[dict[str, float], int]] = field(default_factory=list)
    samples: int = 0
    start: float = field(default_factory=time.perf_counter)


def train_loop(config: dict[str, Any]) -> None:
    """The per-worker training function run by TorchTrainer."""
    w = _start_worker(config)
    source = _train_source(w)
    position = _start_position(w, source)
    window = _Window()
    w.model.train()
    while w.state["step"] < w.tc.steps:
        _train_pass(w, source, position, window)
        position = 0


def _start_worker(config: dict[str, Any]) -> _Worker:
    """This worker's model, optimizer and schedule on its device, restored from a checkpoint when Ray hands one."""
    import ray.train
    import ray.train.torch
    import torch

    from mirtune.model.config import EncoderConfig

    tc = TrainConfig(**config["train"])
    enc_cfg = EncoderConfig.from_dict(config["encoder"])
    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    if not tc.gpus:
        torch.set_num_threads(max(1, int(tc.cpus_per_worker)))
    device = ray.train.torch.get_device()
    net, optimizer, scheduler = _build_model(tc, enc_cfg)
    state, resumed = _restore_checkpoint(Path(config["storage"]), net, optimizer, scheduler)
    _move_to_device(net, optimizer, device)
    model = ray.train.torch.prepare_model(net, move_to_device=False) if world > 1 else net
    autocast, scaler = _mixed_precision(tc)
    return _Worker(tc=tc, enc_cfg=enc_cfg, rank=rank, world=world, device=device, net=net, model=model,
                   optimizer=optimizer, scheduler=scheduler, state=state, resumed=resumed, autocast=autocast,
                   scaler=scaler, trace=_start_trace(tc, rank), progress_queue=config.get("progress_queue"),
                   tables=config.get("tables"))


def _build_model(tc: TrainConfig, enc_cfg: Any) -> tuple[Any, Any, Any]:
    """A fresh model (seeded, so every worker starts from the same weights), its AdamW and learning-rate schedule."""
    import torch

    torch.manual_seed(tc.seed)
    net = make_model(enc_cfg)
    optimizer = torch.optim.AdamW(net.parameters(), lr=tc.lr, weight_decay=tc.weight_decay)
    warmup = tc.warmup_steps if tc.warmup_steps is not None else max(1, tc.steps // 20)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: _lr_factor(s, tc.steps, warmup))
    return net, optimizer, scheduler


def _restore_checkpoint(storage: Path, net: Any, optimizer: Any, scheduler: Any) -> tuple[dict[str, Any], bool]:
    """The run state, with weights, moments and schedule, from Ray's checkpoint if it hands one (True), else step 0."""
    import ray.train

    restored = restore(ray.train.get_checkpoint(), storage, net, optimizer)
    if restored is None:
        return {"step": 0, "samples": 0, "epoch": 0, "time_s": 0.0, "history": [], "heldout": [], "restarts": 0}, False
    restored["restarts"] = restored.get("restarts", 0) + 1
    scheduler.last_epoch = restored["step"] - 1
    scheduler.step()  # sets the learning rate of the restored step
    return restored, True


def _move_to_device(net: Any, optimizer: Any, device: Any) -> None:
    """Put the model and the optimizer's moments on the worker's device (on a GPU, in few large statement chunks)."""
    import torch

    net.to(device)
    if device.type == "cuda" and net.encoder.text is not None:
        from mirtune.model.encoder import GPU_GROUP_TOKENS

        net.encoder.text.group_tokens = GPU_GROUP_TOKENS  # few large statement chunks: StatementEncoder.forward
    for s in optimizer.state.values():  # moments follow the parameters to the device
        for k, v in s.items():
            if isinstance(v, torch.Tensor) and k != "step":
                s[k] = v.to(device)


def _mixed_precision(tc: TrainConfig) -> tuple[Callable[[], Any] | None, Any]:
    """Autocast and gradient scaler for `tc.precision`: on GPUs bf16 where supported, else fp16 with a scaler;
    on CPUs bf16 only when asked for (its matrix products run natively on CPUs with avx512_bf16 or AMX);
    (None, None) for fp32."""
    import torch

    on_gpu = tc.gpus and torch.cuda.is_available()
    if tc.precision == "fp32" or (tc.precision == "auto" and not on_gpu):
        return None, None
    if not on_gpu:
        return (lambda: torch.autocast("cpu", dtype=torch.bfloat16)), None
    amp_dtype = torch.bfloat16 if tc.precision == "bf16" or torch.cuda.is_bf16_supported() else torch.float16
    scaler = torch.amp.GradScaler("cuda") if amp_dtype == torch.float16 else None
    return (lambda: torch.autocast("cuda", dtype=amp_dtype)), scaler


def _start_trace(tc: TrainConfig, rank: int) -> Path | None:
    """For tests: the trace folder, where this worker writes its pid now and its steps and files as it trains."""
    trace = Path(tc.trace_dir) if tc.trace_dir else None
    if trace is not None:
        trace.mkdir(parents=True, exist_ok=True)
        (trace / f"worker-{rank}-{os.getpid()}.pid").write_text(str(os.getpid()))
    return trace


def _train_source(w: _Worker) -> Any:
    """This worker's training batches: its share of the in-memory corpus, or its Ray Data shard when streamed."""
    import ray
    import ray.train

    from mirtune.pretrain.batches import InMemoryCorpus, StreamedShard

    tc = w.tc
    if w.tables is not None:
        return InMemoryCorpus(ray.get(w.tables["train"]), tc.batch_size, w.rank, w.world, tc.seed, tc.max_statements)
    return StreamedShard(ray.train.get_dataset_shard("train"), tc.batch_size, tc.cache_mb * 2**20,
                         seed=tc.seed + w.rank, world=w.world)


def _start_position(w: _Worker, source: Any) -> int:
    """The batch of the current pass to start at: where a resumed run's checkpoint left it (and it says so)."""
    per_epoch = source.batches_per_epoch()
    position = _data_position(w.state, per_epoch)
    if w.resumed:
        _send(w, "note", {"line": f"mirtune pretrain: taking up pass {w.state['epoch'] + 1} at batch {position + 1}"
                                  + (f" of {per_epoch}" if per_epoch else "")})
    return position


def _train_pass(w: _Worker, source: Any, position: int, window: _Window) -> None:
    """Train on the current pass from batch `position` until the pass or the run ends, then count the pass done."""
    n_batches = 0
    for batch, n_global in source.epoch(w.state["epoch"], start=position):
        n_batches += 1
        w.state["epoch_batches"] = position + n_batches  # where a resumed run takes up this pass
        metrics = _train_step(w, batch, n_global)
        window.samples += n_global
        window.rows.append((metrics, 1))
        _trace_step(w, batch)
        _append_history(w, metrics)
        done = w.state["step"] >= w.tc.steps
        _report_progress(w, window, done)
        paused = time.perf_counter()
        _maybe_evaluate(w, final=done)
        if _checkpoint_due(w, done):
            _save_checkpoint(w, metrics)
        window.start += time.perf_counter() - paused  # rates exclude evaluations and checkpoints
        if done:
            break
    if n_batches == 0 and position == 0:
        raise MirtuneError("the training split gave this worker no samples; use fewer workers or a larger corpus")
    if w.state["step"] < w.tc.steps:
        w.state["epoch"] += 1
        w.state["epoch_batches"] = 0


def _train_step(w: _Worker, batch: dict[str, Any], n_global: int) -> dict[str, float]:
    """One optimizer step on this worker's batch (subsets and masks seeded by seed, rank and step, so reruns match)."""
    import contextlib

    import numpy as np
    import torch

    from mirtune.model.encoder import collate

    t0 = time.perf_counter()
    step = w.state["step"]
    rng = np.random.default_rng([w.tc.seed, w.rank, step])
    samples = _rows_to_samples(batch, w.enc_cfg.seq_len, w.tc.max_statements, rng)
    gen = torch.Generator().manual_seed(int(rng.integers(2**62)))
    b = collate(samples).to(w.device)
    with w.autocast() if w.autocast else contextlib.nullcontext():
        loss, metrics = w.model(b, gen)
    _apply_gradients(w, loss)
    if w.tc.step_delay_s:
        time.sleep(w.tc.step_delay_s)
    metrics = _all_reduce_metrics(metrics, w.world, w.device)
    w.state["step"] = step + 1
    w.state["samples"] += n_global
    w.state["time_s"] += time.perf_counter() - t0
    return metrics


def _apply_gradients(w: _Worker, loss: Any) -> None:
    """Back-propagate the loss (scaled under fp16), clip the gradients, step the optimizer and the schedule."""
    import torch

    w.optimizer.zero_grad(set_to_none=True)
    if w.scaler is not None:
        w.scaler.scale(loss).backward()
        w.scaler.unscale_(w.optimizer)
        torch.nn.utils.clip_grad_norm_(w.net.parameters(), w.tc.grad_clip)
        w.scaler.step(w.optimizer)
        w.scaler.update()
    else:
        loss.backward()
        torch.nn.utils.clip_grad_norm_(w.net.parameters(), w.tc.grad_clip)
        w.optimizer.step()
    w.scheduler.step()


def _trace_step(w: _Worker, batch: dict[str, Any]) -> None:
    """For tests: log the step just trained and this worker's files in it to the trace folder."""
    if w.trace is None:
        return
    with open(w.trace / f"files-{w.rank}.log", "a") as f:
        f.write(f"{w.state['step']} {' '.join(map(str, batch['id']))}\n")
    if w.rank == 0:
        with open(w.trace / "steps.log", "a") as f:
            f.write(f"{w.state['step']}\n")


def _append_history(w: _Worker, metrics: dict[str, float]) -> None:
    """Add the step just trained to the history that checkpoints keep (its samples/s comes with the progress line)."""
    state = w.state
    state["history"].append({"step": state["step"], "epoch": state["epoch"], "samples": state["samples"],
                             "time_s": round(state["time_s"], 3), "lr": w.scheduler.get_last_lr()[0],
                             "samples_per_s": None, **metrics})


def _checkpoint_due(w: _Worker, done: bool) -> bool:
    """Whether the step just trained writes a checkpoint: every `checkpoint_every` steps, and the last one."""
    return w.state["step"] % w.tc.checkpoint_every == 0 or done


def _report_progress(w: _Worker, window: _Window, done: bool) -> None:
    """Every `log_every` steps and at the end: the window's rows and a progress line to the driver, its mean to Ray."""
    import ray.train

    from mirtune.pretrain.memory import release_free_memory

    state = w.state
    if not (state["step"] % w.tc.log_every == 0 or done):
        return
    rate = window.samples / max(time.perf_counter() - window.start, 1e-9)
    for r in state["history"][-len(window.rows):]:
        r["samples_per_s"] = round(rate, 3)
    mean = _mean_metrics(window.rows)
    _send(w, "rows", {"rows": state["history"][-len(window.rows):]})
    _send(w, "progress", {"step": state["step"], "steps": w.tc.steps, "samples_per_s": rate, **mean,
                          "lr": w.scheduler.get_last_lr()[0]})
    window.rows, window.samples, window.start = [], 0, time.perf_counter()
    release_free_memory()  # the heap's free pages back to the system (mirtune.pretrain.memory)
    if not _checkpoint_due(w, done):
        ray.train.report({**_finite(mean), "step": state["step"]})


def _maybe_evaluate(w: _Worker, final: bool) -> None:
    """Rank 0 evaluates the held-out files every `eval_every` steps and at the end (the others wait at a collective)."""
    tc, step = w.tc, w.state["step"]
    eval_every = tc.checkpoint_every if tc.eval_every is None else tc.eval_every
    if w.rank == 0 and ((eval_every and step % eval_every == 0) or final):
        ev = evaluate(w.model, _heldout(w), tc.batch_size, w.device, autocast=w.autocast)
        if ev:
            w.state["heldout"].append({"step": step, **ev})
            _send(w, "heldout", {"step": step, **ev})


def _heldout(w: _Worker) -> list[dict[str, Any]]:
    """The held-out files rank 0 evaluates (at most `eval_samples`), read at the first evaluation and kept."""
    if w.heldout_samples is None:
        w.heldout_samples = _read_heldout(w)
    return w.heldout_samples


def _read_heldout(w: _Worker) -> list[dict[str, Any]]:
    """The first `eval_samples` held-out files, from the object store or the Ray Data shard; none without a split."""
    import numpy as np
    import ray
    import ray.train

    from mirtune.pretrain.batches import ArrowRows

    n, seq_len = w.tc.eval_samples, w.enc_cfg.seq_len
    if w.tables is not None:
        if "heldout" not in w.tables:
            return []
        held = ArrowRows(ray.get(w.tables["heldout"]))
        return _rows_to_samples(held.rows(np.arange(min(held.n, n))), seq_len, None)
    try:
        it = ray.train.get_dataset_shard("heldout")
    except Exception:
        return []
    samples: list[dict[str, Any]] = []
    if it is not None:
        for b in it.iter_batches(batch_size=64, batch_format="numpy"):
            samples.extend(_rows_to_samples(b, seq_len, None))
            if len(samples) >= n:
                break
    return samples[:n]


def _save_checkpoint(w: _Worker, metrics: dict[str, float]) -> None:
    """Report the step to Ray Train with rank 0's checkpoint (the other ranks report none), so a restart loses <= K."""
    import ray.train

    step = w.state["step"]
    if w.rank == 0:
        with tempfile.TemporaryDirectory(prefix="mirtune-ckpt-") as tmp:
            save_checkpoint(Path(tmp), w.net, w.optimizer, w.state)
            ray.train.report({**_finite(metrics), "step": step},
                             checkpoint=ray.train.Checkpoint.from_directory(tmp),
                             checkpoint_dir_name=f"step-{step:08d}")
    else:
        ray.train.report({**_finite(metrics), "step": step}, checkpoint=None,
                         checkpoint_dir_name=f"step-{step:08d}")


def _send(w: _Worker, kind: str, payload: dict[str, Any]) -> None:
    """Rank 0 puts a message on the driver's progress queue; a full or lost queue never stops training."""
    if w.rank == 0 and w.progress_queue is not None:
        try:
            w.progress_queue.put_nowait((kind, payload))
        except Exception:
            pass


def _finite(metrics: dict[str, float]) -> dict[str, float]:
    return {k: v for k, v in metrics.items() if isinstance(v, (int, float)) and math.isfinite(v)}


# ===================================================================================== driver
@dataclass
class PretrainResult:
    out: Path
    steps: int
    heldout: dict[str, float]
    metrics_csv: Path
    plot: Path | None
    checkpoint: Path | None
    wall_s: float
    samples_per_s: float | None


def _corpus_info(corpus: Path) -> tuple[Path, Path | None]:
    if not corpus.is_dir():
        raise UsageError("corpus folder not found", str(corpus))
    if not (corpus / "tokenizer.json").is_file():
        raise UsageError("corpus has no tokenizer.json (build it with `mirtune corpus build`)", str(corpus))
    train = corpus / "samples" / "split=train"
    if not train.is_dir() or not any(train.glob("*.parquet")):
        raise UsageError("corpus has no training shards in samples/split=train/", str(corpus))
    heldout = corpus / "samples" / "split=heldout"
    return train, heldout if heldout.is_dir() and any(heldout.glob("*.parquet")) else None


def held_in_memory(train_dir: Path, materialize_mb: int = TrainConfig.materialize_mb) -> bool:
    """Whether a corpus's training split is small enough to be held whole (batches.InMemoryCorpus, in
    `batches.pass_order`) rather than streamed by Ray Data (its Parquet shards up to `materialize_mb` MB)."""
    return sum(p.stat().st_size for p in train_dir.glob("*.parquet")) <= materialize_mb * 2**20


def _count_rows(folder: Path) -> int:
    import pyarrow.parquet as pq

    return sum(pq.ParquetFile(p).metadata.num_rows for p in sorted(folder.glob("*.parquet")))


def pretrain(tc: TrainConfig) -> PretrainResult:
    """Run (or resume) a pre-training run and write the model and its logs to tc.out."""
    from mirtune.cluster import init_ray
    from mirtune.ir.tokenizer import IRTokenizer
    from mirtune.model.config import preset
    from mirtune.paths import check_output

    tc.validate()
    check_output(tc.out, "dir", "--out")
    if tc.storage:
        check_output(tc.storage, "dir", "--storage")
    corpus = Path(tc.corpus).resolve()
    train_dir, heldout_dir = _corpus_info(corpus)
    tokenizer = IRTokenizer.load(corpus / "tokenizer.json")
    enc_cfg = preset(tc.preset, tokenizer, tc.modality)
    out = Path(tc.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    storage = tc.storage_path
    latest = _prepare_run(tc, storage, enc_cfg)
    n_train, n_heldout = _count_samples(tc, train_dir, heldout_dir)
    init_ray(tc.address)
    tables, datasets = _training_data(tc, train_dir, heldout_dir)
    queue = _progress_queue()
    trainer = _make_trainer(tc, enc_cfg, storage, queue, tables, datasets)
    _announce(tc, enc_cfg, n_train, n_heldout, storage / RUN_NAME)
    start = time.perf_counter()
    result, rate = _fit(trainer, queue, out / "metrics.csv", _resumed_history(latest), storage)
    wall = time.perf_counter() - start
    final = _final_checkpoint(result, storage)
    return _finish(tc, enc_cfg, tokenizer, corpus, n_train, n_heldout, final, out, wall, rate)


def _count_samples(tc: TrainConfig, train_dir: Path, heldout_dir: Path | None) -> tuple[int, int]:
    """The training and held-out samples, checked to give every worker at least one to train on."""
    n_train = _count_rows(train_dir)
    n_heldout = _count_rows(heldout_dir) if heldout_dir else 0
    if n_train < tc.workers:
        raise UsageError(f"the training split has {n_train} samples, fewer than --workers {tc.workers}")
    return n_train, n_heldout


def _training_data(tc: TrainConfig, train_dir: Path,
                   heldout_dir: Path | None) -> tuple[dict[str, Any] | None, dict[str, Any]]:
    """The splits as the workers get them: (tables in the object store, no datasets) or (None, Ray Data datasets)."""
    import ray
    import ray.data

    from mirtune.progress import note

    columns = list(COLUMNS)
    _quiet_ray_data()
    # A corpus that fits comfortably in memory is read here, by the driver, and put in the object store once:
    # every worker reads all of it (zero-copy on its node) and takes a cost-balanced share of each global
    # batch (batches.InMemoryCorpus); no read tasks wait for CPUs that the workers hold, and no Ray Data
    # actors run beside training. A larger corpus streams from its Parquet files (ray.data.read_parquet,
    # one shard per worker), which needs free CPUs.
    splits = {"train": train_dir, **({"heldout": heldout_dir} if heldout_dir else {})}
    if not heldout_dir:
        note("mirtune pretrain: the corpus has no held-out split; no held-out evaluation")
    if held_in_memory(train_dir, tc.materialize_mb):
        tables = {name: ray.put(read_split(folder, columns)) for name, folder in splits.items()}
        return tables, {}
    return None, {name: ray.data.read_parquet(str(folder), partitioning=None).select_columns(columns)
                  for name, folder in splits.items()}


def read_split(folder: Path, columns: list[str]) -> Any:
    """A split's Parquet shards as one Arrow table, in the row order an in-memory run trains on (shards by name),
    one chunk per column so that workers read it in place from the object store (batches.ArrowRows)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    return pa.concat_tables([pq.read_table(f, columns=columns) for f in sorted(folder.glob("*.parquet"))]
                            ).combine_chunks()


def _quiet_ray_data() -> None:
    """No Ray Data progress bars beside the trainer's own progress lines, and no warning that they are off."""
    import ray.data

    data_log = logging.getLogger("ray.data")
    data_log.setLevel(logging.ERROR)  # no "progress bars disabled" warning
    ray.data.DataContext.get_current().enable_progress_bars = False
    data_log.setLevel(logging.WARNING)


def _progress_queue() -> Any:
    """The queue the workers send progress lines and metrics rows on, to the driver's progress printer."""
    import ray
    from ray.util.queue import Queue
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    # The queue lives on the driver's node: on a node that dies mid-run it would take every later progress line
    # and metrics row with it while training goes on.
    here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
    return Queue(actor_options={"num_cpus": 0, "scheduling_strategy": here})


def _make_trainer(tc: TrainConfig, enc_cfg: Any, storage: Path, queue: Any, tables: dict[str, Any] | None,
                  datasets: dict[str, Any]) -> Any:
    """The TorchTrainer that runs `train_loop` on the workers, with failure handling and checkpoints in storage."""
    from ray.train import CheckpointConfig, DataConfig, FailureConfig, RunConfig, ScalingConfig
    from ray.train.torch import TorchConfig, TorchTrainer

    train_dict = dataclasses.asdict(tc)
    loop_config = {"train": train_dict, "encoder": enc_cfg.to_dict(), "progress_queue": queue,
                   "storage": str(storage), "tables": tables}
    return TorchTrainer(
        train_loop,
        train_loop_config=loop_config,
        torch_config=TorchConfig(backend="nccl" if tc.gpus else "gloo"),
        scaling_config=ScalingConfig(num_workers=tc.workers, use_gpu=tc.gpus,
                                     resources_per_worker={"CPU": tc.cpus_per_worker,
                                                           **({"GPU": 1} if tc.gpus else {})}),
        run_config=RunConfig(name=RUN_NAME, storage_path=str(storage),
                             failure_config=FailureConfig(max_failures=tc.max_failures),
                             checkpoint_config=CheckpointConfig(num_to_keep=3)),
        datasets=datasets or None,
        dataset_config=DataConfig(datasets_to_split=["train"]) if datasets else None,
    )


def _precision_name(tc: TrainConfig) -> str:
    """What --precision means on this run's devices, for the first line."""
    if tc.precision == "auto":
        return "mixed precision" if tc.gpus else "fp32"
    return tc.precision


def _announce(tc: TrainConfig, enc_cfg: Any, n_train: int, n_heldout: int, run_dir: Path) -> None:
    """Say what is about to train: preset, samples, workers, steps and where the checkpoints go."""
    from mirtune.progress import note

    note(f"mirtune pretrain: preset {enc_cfg.preset}, {n_train} training / {n_heldout} held-out samples, "
         f"{tc.workers} worker(s) on {'GPU' if tc.gpus else 'CPU'} in {_precision_name(tc)}, {tc.steps} steps of "
         f"{tc.batch_size} x {tc.workers} files; checkpoints in {run_dir}")


def _resumed_history(latest: Path | None) -> list[dict[str, Any]]:
    """The metrics rows of the checkpoint a run resumes from, so that metrics.csv goes on from them; else none."""
    if latest is None:
        return []
    try:
        return json.loads((latest / "trainer_state.json").read_text()).get("history", [])
    except (OSError, json.JSONDecodeError):
        return []


def _fit(trainer: Any, queue: Any, metrics_csv: Path, history: list[dict[str, Any]],
         storage: Path) -> tuple[Any, float | None]:
    """Train, printing progress and writing metrics.csv as it goes; Ctrl-C or a failure becomes one line."""
    with ProgressPrinter(queue, metrics_csv, history) as printer:
        try:
            result = trainer.fit()
        except (KeyboardInterrupt, SystemExit):  # Ctrl-C: Ray Train aborts the run, then exits or raises
            last = latest_checkpoint_dir(storage)
            kept = f"its last checkpoint is {last.name} in {last.parent}" if last else "no checkpoint was written yet"
            raise Interrupted(f"interrupted; {kept}; the same command with --resume continues from there") from None
        except Exception as exc:
            if isinstance(exc, MirtuneError):
                raise
            raise MirtuneError(f"training failed: {_first_line(exc)}; continue with --resume") from None
    return result, printer.last_rate


def _final_checkpoint(result: Any, storage: Path) -> Path:
    """The checkpoint the finished run ends with, where the model is taken from; a failed run stops here."""
    if result.error is not None:
        raise MirtuneError(f"training failed: {_first_line(result.error)}; continue with --resume")
    final = latest_checkpoint_dir(storage)
    if final is None:
        raise MirtuneError("training finished without a checkpoint", str(storage / RUN_NAME))
    return final


def _prepare_run(tc: TrainConfig, storage: Path, enc_cfg: Any) -> Path | None:
    """Decide where training starts, before any work: the checkpoint to resume from (checked to load), or None
    for step 0. Unusable checkpoints and runs started over are moved aside, and every such decision is said."""
    from mirtune.progress import note

    run_dir = storage / RUN_NAME
    has_run = run_dir.is_dir() and any(run_dir.iterdir())
    if not has_run:
        if tc.resume:
            note(f"mirtune pretrain: no checkpoint in {run_dir}; starting from step 0")
        return None
    if not tc.resume and not tc.restart:
        raise UsageError(f"{run_dir} already holds a run; pass --resume to continue it, --restart to start over "
                         "(its checkpoints are moved aside), or choose another --out or --storage")
    checkpoints = checkpoint_dirs(storage)
    if tc.resume:
        if not checkpoints:
            note(f"mirtune pretrain: no checkpoint in {run_dir}; starting from step 0")
            return None
        usable, bad = usable_checkpoint(storage, enc_cfg)
        if usable is not None:
            if bad:
                # Ray's record of its checkpoints names the ones moved away; it goes with them, and the workers
                # then restore from the checkpoint folders themselves (the newest one left is `usable`).
                snapshot = run_dir / "checkpoint_manager_snapshot.json"
                aside = set_aside([b for b, _ in bad] + [snapshot], storage, "corrupt-checkpoints")
                note(f"mirtune pretrain: {len(bad)} newer checkpoint(s) do not load "
                     f"({'; '.join(reason for _, reason in bad)}); moved them to {aside}")
            note(f"mirtune pretrain: resuming from {usable.name} (step {checkpoint_step(usable)})")
            return usable
        reasons = "; ".join(reason for _, reason in bad)
        if not tc.restart:
            raise UsageError(f"none of the {len(bad)} checkpoint(s) in {run_dir} loads ({reasons}); pass --restart "
                             "to start over from step 0 (they are moved aside, not deleted)")
        aside = set_aside([run_dir], storage, "corrupt-checkpoints")
        note(f"mirtune pretrain: none of the {len(bad)} checkpoint(s) loads ({reasons}); moved the run to {aside}; "
             "starting from step 0 (--restart)")
        return None
    aside = set_aside([run_dir], storage, "pretrain-set-aside")
    note(f"mirtune pretrain: moved the previous run ({len(checkpoints)} checkpoint(s)) to {aside}; starting from "
         "step 0 (--restart)")
    return None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    for ln in reversed(lines):  # the root cause is usually last
        if "Error" in ln or "error" in ln:
            return ln.strip()[:300]
    return (lines[0] if lines else type(exc).__name__)[:300]


def _finish(tc: TrainConfig, enc_cfg: Any, tokenizer: Any, corpus: Path, n_train: int, n_heldout: int,
            final: Path, out: Path, wall: float, rate: float | None, exported: bool = False) -> PretrainResult:
    """The model folder OUT from checkpoint `final`: weights, provenance, metrics.csv, heldout.csv, curves.
    `exported`: made by `export_model` from a checkpoint of a run it did not drive, whose hyper-parameters
    it does not know (provenance names the checkpoint instead)."""
    from mirtune.model.io import make_provenance, save_model

    net = make_model(enc_cfg)
    state = load_checkpoint(final, net, None)
    history, heldout = state.get("history", []), state.get("heldout", [])
    metrics_csv = out / "metrics.csv"
    write_metrics_csv(metrics_csv, history, CSV_FIELDS)
    if heldout:
        write_metrics_csv(out / "heldout.csv", heldout, ("step",) + METRIC_KEYS)
    plot = plot_learning_curves(out / "learning_curves.png", history, heldout)
    last_eval = {k: v for k, v in (heldout[-1] if heldout else {}).items()
                 if k != "step" and isinstance(v, float) and math.isfinite(v)}
    rates = [r["samples_per_s"] for r in history if isinstance(r.get("samples_per_s"), (int, float))]
    corpus_desc = {"path": str(corpus), "train_samples": n_train, "heldout_samples": n_heldout}
    desc_file = corpus / "corpus.json"
    if desc_file.is_file():
        try:
            corpus_desc["description"] = json.loads(desc_file.read_text())
        except (OSError, json.JSONDecodeError):
            pass
    seen = {"samples_seen": state.get("samples"), "epochs": state.get("epoch"), "restarts": state.get("restarts", 0),
            "median_samples_per_s": sorted(rates)[len(rates) // 2] if rates else None}
    training = ({"exported_from": str(final.resolve()), **seen} if exported else
                {"workers": tc.workers, "gpus": tc.gpus, "precision": tc.precision,
                 "batch_size_per_worker": tc.batch_size, "lr": tc.lr, "seed": tc.seed, **seen,
                 "wall_s_this_session": round(wall, 1)})
    prov = make_provenance(enc_cfg, tokenizer, corpus=corpus_desc, steps=state["step"], heldout=last_eval,
                           command=tc.command or None, training=training)
    save_model(out, net.encoder, enc_cfg, tokenizer, prov, heads=net.heads)
    return PretrainResult(out, state["step"], last_eval, metrics_csv, plot, final, wall,
                          sorted(rates)[len(rates) // 2] if rates else rate)


def export_model(checkpoint: str | os.PathLike, corpus: str | os.PathLike, out: str | os.PathLike,
                 preset_name: str | None = None, command: list[str] | None = None) -> PretrainResult:
    """A model folder from a checkpoint of a run, finished or not, to try an encoder before its run ends.
    `checkpoint`: a step-NNNNNNNN folder, a run's storage path or its OUT folder (then its newest checkpoint);
    `corpus`: the run's corpus (tokenizer and split sizes). The preset is the one whose shapes the weights have,
    unless `preset_name` says."""
    from mirtune.ir.tokenizer import IRTokenizer
    from mirtune.model.config import MODALITIES, PRESETS, preset
    from mirtune.model.io import WeightsMismatch

    ckpt = Path(checkpoint)
    if not (ckpt / "trainer_state.json").is_file():
        newest = latest_checkpoint_dir(ckpt) or latest_checkpoint_dir(ckpt / "checkpoints")
        if newest is None:
            raise UsageError("no checkpoint here (a step-NNNNNNNN folder, or a run's folder holding them)", str(ckpt))
        ckpt = newest
    corpus = Path(corpus)
    train_dir, heldout_dir = _corpus_info(corpus)
    tokenizer = IRTokenizer.load(corpus / "tokenizer.json")
    tried = []
    for name in [preset_name] if preset_name else list(PRESETS):
        for modality in MODALITIES:
            cfg = preset(name, tokenizer, modality)
            try:
                load_checkpoint(ckpt, make_model(cfg), None)
            except WeightsMismatch:
                tried.append(f"{name}/{modality}")
                continue
            tc = TrainConfig(corpus=str(corpus), out=str(out), preset=name, modality=modality, command=command or [])
            Path(out).mkdir(parents=True, exist_ok=True)
            return _finish(tc, cfg, tokenizer, corpus, _count_rows(train_dir),
                           _count_rows(heldout_dir) if heldout_dir else 0, ckpt, Path(out), 0.0, None, exported=True)
    raise UsageError(f"the checkpoint's weights fit no preset with this corpus's tokenizer (tried {', '.join(tried)})",
                     str(ckpt))


def main(argv: list[str] | None = None) -> int:
    """Entry point of jobs/pretrain.py (`ray job submit -- python jobs/pretrain.py ...`)."""
    p = argparse.ArgumentParser(description="Pre-train MIREncoder on a Ray cluster")
    add_arguments(p)
    args = p.parse_args(argv)
    try:
        res = pretrain(config_from_args(args, ["python", "jobs/pretrain.py", *(argv or sys.argv[1:])]))
    except MirtuneError as exc:
        print(f"pretrain: {exc.line()}", file=sys.stderr)
        return exc.exit_code
    print(summary(res))
    return 0


def summary(res: PretrainResult) -> str:
    held = ", ".join(f"{k} {v:.3f}" for k, v in res.heldout.items() if "loss" not in k)
    rate = f", {res.samples_per_s:.1f} samples/s" if res.samples_per_s else ""
    return (f"pre-trained {res.steps} steps in {res.wall_s:.0f}s{rate}; model in {res.out}"
            + (f"; held-out: {held}" if held else ""))


__all__ = ["TrainConfig", "pretrain", "add_arguments", "config_from_args", "export_model", "main", "summary"]
