"""Pre-train MIREncoder on one GPU without Ray: pack a corpus here, train there, make the model folder here.

    python scripts/pretrain_gpu.py pack CORPUS build/gpu/corpus.pack          # here: 35k modules -> ~20 MB
    python3 scripts/pretrain_gpu.py train build/gpu/corpus.pack --preset small --seconds 200 --out $OUT/small
    python scripts/pretrain_gpu.py finish RETURNED/small --corpus CORPUS --out build/encoder-gpu-small

The GPU machine has PyTorch and PyG but no Ray, no clang and no network, and a call carries at most 64 MiB, so
the corpus travels as one lzma file of its distinct token rows (statements and node texts repeat across modules:
each is stored once) plus per-module indices and edges. `train` runs the very model and objectives of
`mirtune pretrain` (mirtune.pretrain.train's held-out evaluation, mirtune.pretrain.checkpoints' model and format) in one process,
bf16 autocast, a DataLoader of CPU workers building the batches, a cosine schedule over the steps that fit the
time budget (measured on the first steps, recorded so that a resumed run keeps the schedule), a held-out
evaluation every `--eval-every` steps, and a checkpoint written at the deadline. What comes back is split into
files of at most 15 MiB (the tool's limit is 16 MiB a file). `--resume CKPT` continues a returned checkpoint:
weights, step, schedule and curves, and the AdamW moments when they came back (the paper preset's do not fit in
what a call returns, so its moments restart: said in the state as `moments_restarted`).
`finish` turns a returned checkpoint into a mirtune model folder (config, weights, tokenizer, provenance with
the corpus description, metrics.csv, heldout.csv, learning_curves.png).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import lzma
import math
import sys
import tarfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PACK_FORMAT = "mirtune-gpu-pack-1"
CHUNK = 15 * 2**20
SPLITS = ("train", "heldout")


# ------------------------------------------------------------------------------------------------ pack
def pack(corpus: Path, out: Path, max_train: int | None = None) -> dict[str, Any]:
    """Write CORPUS's samples (both splits) and tokenizer facts to one lzma file; returns its summary.
    `max_train` keeps every k-th training module so that the file fits what a call carries."""
    import pyarrow.parquet as pq

    from mirtune.ir.tokenizer import IRTokenizer

    tokenizer = IRTokenizer.load(corpus / "tokenizer.json")
    seq_len = tokenizer.seq_len
    rows_index: dict[bytes, int] = {}
    table: list[np.ndarray] = []

    def index_of(ids: np.ndarray) -> np.ndarray:
        mat = np.asarray(ids, dtype=np.int16).reshape(-1, seq_len)
        out = np.empty(len(mat), dtype=np.int32)
        for i, r in enumerate(mat):
            key = r.tobytes()
            j = rows_index.get(key)
            if j is None:
                j = rows_index[key] = len(table)
                table.append(r)
            out[i] = j
        return out

    arrays: dict[str, np.ndarray] = {}
    counts = {}
    for split in SPLITS:
        files = sorted((corpus / "samples" / f"split={split}").glob("*.parquet"))
        total = sum(pq.ParquetFile(f).metadata.num_rows for f in files)
        keep_every = total / max_train if split == "train" and max_train and total > max_train else 1.0
        seen = 0
        stmt, node, ntype, edges = [], [], [], []
        for f in files:
            t = pq.read_table(f, columns=["stmt_ids", "node_ids", "node_type", "edges"]).to_pydict()
            for s, n, ty, e in zip(t["stmt_ids"], t["node_ids"], t["node_type"], t["edges"]):
                seen += 1
                if int((seen - 1) / keep_every) == int(seen / keep_every) and keep_every > 1:
                    continue
                stmt.append(index_of(np.asarray(s)))
                node.append(index_of(np.asarray(n)))
                ntype.append(np.asarray(ty, dtype=np.int8))
                edges.append(np.asarray(e, dtype=np.int32).reshape(-1, 4))
        counts[split] = len(stmt)
        for name, parts in (("stmt", stmt), ("node", node), ("ntype", ntype), ("edges", edges)):
            arrays[f"{split}.{name}"] = np.concatenate(parts) if parts else np.zeros((0,), np.int32)
            arrays[f"{split}.{name}_off"] = np.cumsum([0] + [len(p) for p in parts]).astype(np.int64)
    tokens = np.stack(table) if table else np.zeros((0, seq_len), np.int16)
    _check_padding(tokens, tokenizer.pad_id)
    lengths = (tokens != tokenizer.pad_id).sum(1).astype(np.uint8)
    arrays["tokens_flat"] = tokens[tokens != tokenizer.pad_id] if len(tokens) else np.zeros(0, np.int16)
    arrays["tokens_len"] = lengths
    meta = {"format": PACK_FORMAT, "seq_len": seq_len, "vocab_size": tokenizer.vocab_size,
            "pad_id": tokenizer.pad_id, "unk_id": tokenizer.unk_id, "cls_id": tokenizer.cls_id,
            "sep_id": tokenizer.sep_id, "mask_id": tokenizer.mask_id, "modules": counts,
            "distinct_rows": int(len(tokens)), "corpus": str(corpus)}
    buf = io.BytesIO()
    np.savez(buf, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8), **arrays)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(lzma.compress(buf.getvalue(), preset=6))
    return {**meta, "bytes": out.stat().st_size}


def _check_padding(tokens: np.ndarray, pad_id: int) -> None:
    """Padding is only ever at the end of a row (what `pack` relies on to store rows without it)."""
    nz = tokens != pad_id
    if len(tokens) and (np.diff(nz.astype(np.int8), axis=1) > 0).any():
        raise SystemExit("pretrain_gpu: a token row has padding before a token; cannot pack it")


class Packed:
    """A packed corpus in memory: per-module arrays shaped as mirtune.model.samples.sample_arrays makes them."""

    def __init__(self, path: Path) -> None:
        data = np.load(io.BytesIO(lzma.decompress(path.read_bytes())))
        self.meta = json.loads(bytes(data["meta"]).decode())
        if self.meta.get("format") != PACK_FORMAT:
            raise SystemExit(f"pretrain_gpu: {path} is not a {PACK_FORMAT} file")
        L, pad = self.meta["seq_len"], self.meta["pad_id"]
        lengths = data["tokens_len"].astype(np.int64)
        table = np.full((len(lengths), L), pad, dtype=np.int16)
        table[np.arange(L)[None, :] < lengths[:, None]] = data["tokens_flat"]
        self.table = table
        self.arrays = {k: data[k] for k in data.files if "." in k}

    def count(self, split: str) -> int:
        return len(self.arrays[f"{split}.stmt_off"]) - 1

    def sample(self, split: str, i: int) -> dict[str, np.ndarray]:
        a = self.arrays

        def part(name: str) -> np.ndarray:
            off = a[f"{split}.{name}_off"]
            return a[f"{split}.{name}"][off[i]:off[i + 1]]

        return {"stmt_ids": self.table[part("stmt")].astype(np.int64),
                "node_ids": self.table[part("node")].astype(np.int64),
                "node_type": part("ntype").astype(np.int64),
                "edges": part("edges").astype(np.int64).reshape(-1, 4), "id": f"{split}-{i}"}


# ----------------------------------------------------------------------------------------------- train
class _Batches:
    """Module indices -> collated IRBatch with its sampled non-edges, built in DataLoader workers (statements
    subsampled per file): the GPU step then does no per-graph work on the host."""

    def __init__(self, packed: Packed, split: str, max_statements: int, seed: int) -> None:
        self.packed, self.split, self.max_statements, self.seed = packed, split, max_statements, seed

    def __call__(self, indices: list[int]) -> Any:
        import torch

        from mirtune.model.encoder import collate
        from mirtune.model.objectives import sample_negatives

        rng = np.random.default_rng([self.seed, *indices[:4]])
        samples = []
        for i in indices:
            s = self.packed.sample(self.split, int(i))
            n = s["stmt_ids"].shape[0]
            if n > self.max_statements:
                s["stmt_ids"] = s["stmt_ids"][np.sort(rng.choice(n, self.max_statements, replace=False))]
            samples.append(s)
        batch = collate(samples)
        batch.negatives = sample_negatives(batch, torch.Generator().manual_seed(int(rng.integers(2**62))))
        return batch


def _epoch_batches(n: int, batch_size: int, seed: int, epoch: int) -> list[list[int]]:
    order = np.random.default_rng([seed, epoch]).permutation(n)
    return [order[i:i + batch_size].tolist() for i in range(0, n - batch_size + 1, batch_size)]


def _save(out: Path, net: Any, optimizer: Any, state: dict[str, Any], weights_dtype: str, moments: bool) -> None:
    """The checkpoint (mirtune.pretrain.checkpoints' format) as a tar split into files of at most CHUNK bytes."""
    import torch

    from mirtune.model.io import canonical_state, save_tensors, write_json
    from mirtune.pretrain.checkpoints import save_checkpoint

    tmp = out / "ckpt"
    tmp.mkdir(parents=True, exist_ok=True)
    if moments:
        save_checkpoint(tmp, net, optimizer, state)
    else:
        dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[weights_dtype]
        tensors = canonical_state(net.encoder, "encoder.")
        tensors.update(canonical_state(net.heads, "heads."))
        save_tensors(tmp / "model.safetensors",
                     {k: v.to(dtype) if v.is_floating_point() else v for k, v in tensors.items()})
        write_json(tmp / "trainer_state.json", state)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for f in sorted(tmp.iterdir()):
            tar.add(f, arcname=f.name)
    data = buf.getvalue()
    for old in out.glob("checkpoint.tar.*"):
        old.unlink()
    for k in range(0, max(1, math.ceil(len(data) / CHUNK))):
        (out / f"checkpoint.tar.{k:02d}").write_bytes(data[k * CHUNK:(k + 1) * CHUNK])
    for f in tmp.iterdir():
        f.unlink()
    tmp.rmdir()


def _write_profile(profiler: Any, path: Path, steps: int) -> None:
    """Where the profiled steps' time went: the operators by self CPU time (the host's share) and, on a GPU, by
    self CUDA time, with the wall time per step."""
    events = profiler.key_averages()
    parts = [f"{steps} steps profiled\n", events.table(sort_by="self_cpu_time_total", row_limit=30)]
    if any(getattr(e, "self_device_time_total", 0) for e in events):
        parts.append(events.table(sort_by="self_device_time_total", row_limit=30))
    path.write_text("\n".join(parts))


def unpack_checkpoint(folder: Path, dest: Path) -> Path:
    """Join folder/checkpoint.tar.NN and extract it into dest (a checkpoint folder); returns dest."""
    parts = sorted(folder.glob("checkpoint.tar.*"))
    if not parts:
        raise SystemExit(f"pretrain_gpu: no checkpoint.tar.* in {folder}")
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(b"".join(p.read_bytes() for p in parts)), mode="r") as tar:
        tar.extractall(dest, filter="data")
    return dest


def train(args: argparse.Namespace) -> int:
    import contextlib

    import torch

    from mirtune.model.config import EncoderConfig, preset
    from mirtune.pretrain.checkpoints import load_checkpoint, make_model
    from mirtune.pretrain.train import _lr_factor, _mean_metrics, evaluate

    t_start = time.monotonic()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    log = open(out / "train.log", "a")

    def say(msg: str) -> None:
        line = f"[{time.monotonic() - t_start:7.1f}s] {msg}"
        print(line, flush=True)
        log.write(line + "\n")
        log.flush()

    packed = Packed(Path(args.pack))
    m = packed.meta
    cfg: EncoderConfig = preset(args.preset)
    import dataclasses

    cfg = dataclasses.replace(cfg, vocab_size=m["vocab_size"], seq_len=m["seq_len"], pad_id=m["pad_id"],
                              unk_id=m["unk_id"], cls_id=m["cls_id"], sep_id=m["sep_id"], mask_id=m["mask_id"],
                              n_special=max(m["pad_id"], m["unk_id"], m["cls_id"], m["sep_id"], m["mask_id"]) + 1)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(args.seed)
    net = make_model(cfg)
    optimizer = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=0.01)
    state: dict[str, Any] = {"step": 0, "samples": 0, "epoch": 0, "time_s": 0.0, "history": [], "heldout": [],
                             "restarts": 0, "planned_steps": 0, "preset": args.preset, "batch_size": args.batch_size,
                             "lr": args.lr, "device": torch.cuda.get_device_name() if device.type == "cuda" else "cpu"}
    if args.resume:
        ckpt = unpack_checkpoint(Path(args.resume), out / "resumed")
        moments = (ckpt / "optimizer.safetensors").is_file()
        state = load_checkpoint(ckpt, net, optimizer if moments else None)
        state["restarts"] = state.get("restarts", 0) + 1
        state["moments_restarted"] = not moments
        say(f"resumed at step {state['step']} of {state['planned_steps']} (moments {'kept' if moments else 'restarted'})")
    net.to(device)
    for s in optimizer.state.values():
        for k, v in s.items():
            if isinstance(v, torch.Tensor) and k != "step":
                s[k] = v.to(device)
    if device.type == "cuda":
        net.encoder.text.group_tokens = args.group_tokens
    n_params = sum(p.numel() for p in net.encoder.parameters())
    say(f"{args.preset}: {n_params / 1e6:.1f}M encoder parameters on {state['device']}; "
        f"{packed.count('train')} train / {packed.count('heldout')} held-out modules, "
        f"{m['distinct_rows']} distinct token rows")
    use_amp = device.type == "cuda"
    autocast = (lambda: torch.autocast("cuda", dtype=torch.bfloat16)) if use_amp else None
    heldout = [packed.sample("heldout", i) for i in range(min(args.eval_samples, packed.count("heldout")))]
    make = _Batches(packed, "train", args.max_statements, args.seed)
    deadline = t_start + args.seconds
    window: list[tuple[dict[str, float], int]] = []
    last_eval = last_log = time.monotonic()
    warm_t0: float | None = None

    def lr_now(step: int) -> float:
        total = state["planned_steps"] or 10**9
        return args.lr * _lr_factor(step, total, max(1, total // 20) if state["planned_steps"] else 50)

    net.train()
    profiler, profiled_from = None, 0
    first_step = state["step"]

    def stop_profile() -> None:
        nonlocal profiler
        profiler.__exit__(None, None, None)
        _write_profile(profiler, out / "profile.txt", state["step"] - profiled_from)
        say(f"profiled steps {profiled_from + 1}-{state['step']}: {out / 'profile.txt'}")
        profiler = None
        args.profile_steps = 0
    stop = False
    while not stop:
        batches = _epoch_batches(packed.count("train"), args.batch_size, args.seed, state["epoch"])
        # where the checkpoint left this pass (mirtune.pretrain.train's `epoch_batches`; `batch_in_epoch` in
        # checkpoints of this script before 2026-12-03); the batches before it are not built again
        skip = state.pop("batch_in_epoch", state.get("epoch_batches", 0))
        state["epoch_batches"] = skip
        loader = torch.utils.data.DataLoader(batches[skip:], batch_size=None, collate_fn=make, num_workers=args.workers,
                                             prefetch_factor=4 if args.workers else None,
                                             persistent_workers=False)
        for k, b in enumerate(loader, start=skip):
            t0 = time.perf_counter()
            step = state["step"]
            if profiler is None and args.profile_steps and step == first_step + args.profile_from:
                profiler = torch.profiler.profile(record_shapes=False, activities=[
                    torch.profiler.ProfilerActivity.CPU, *([torch.profiler.ProfilerActivity.CUDA] if use_amp else [])])
                profiler.__enter__()
                profiled_from = step
            for g in optimizer.param_groups:
                g["lr"] = lr_now(step)
            gen = torch.Generator().manual_seed(args.seed * 1_000_003 + step)
            b = b.to(device)
            with autocast() if autocast else contextlib.nullcontext():
                loss, metrics = net(b, gen)
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            optimizer.step()
            state["step"] = step + 1
            state["epoch_batches"] = k + 1
            state["samples"] += b.num_files
            state["time_s"] += time.perf_counter() - t0
            if profiler is not None and state["step"] == profiled_from + args.profile_steps:
                stop_profile()
            window.append((metrics, 1))
            if state["step"] == 20:
                warm_t0 = time.monotonic()
            if state["step"] == 60 and not state["planned_steps"]:
                rate = 40 / max(time.monotonic() - (warm_t0 or t_start), 1e-6)
                budget = deadline - time.monotonic() - args.reserve
                state["planned_steps"] = int(state["step"] + rate * budget * 0.93)  # evaluations take some time
                say(f"{rate:.1f} steps/s ({rate * args.batch_size:.0f} files/s): planning "
                    f"{state['planned_steps']} steps")
            if state["step"] % args.log_every == 0:
                mean = _mean_metrics(window)
                window = []
                row = {"step": state["step"], "epoch": state["epoch"], "samples": state["samples"],
                       "time_s": round(state["time_s"], 2), "lr": lr_now(state["step"]), **mean}
                state["history"].append(row)
                now = time.monotonic()
                rate = args.log_every * args.batch_size / max(now - last_log, 1e-6)
                last_log = now
                say(f"step {state['step']}/{state['planned_steps']} loss {mean['loss']:.3f} "
                    f"mlm_acc {mean['mlm_accuracy']:.3f} match_acc {mean['match_accuracy']:.3f} "
                    f"{rate:.0f} files/s")
            done = bool(state["planned_steps"]) and state["step"] >= state["planned_steps"]
            late = time.monotonic() > deadline - args.reserve
            if done or late or time.monotonic() - last_eval > args.eval_seconds:
                ev = evaluate(net, heldout, args.batch_size, device, autocast=autocast)
                state["heldout"].append({"step": state["step"], **ev})
                say(f"held-out at step {state['step']}: loss {ev.get('loss', float('nan')):.3f} "
                    f"mlm_acc {ev.get('mlm_accuracy', float('nan')):.3f} "
                    f"match_acc {ev.get('match_accuracy', float('nan')):.3f}")
                last_eval = time.monotonic()
            if done or late:
                stop = True
                break
        if not stop:
            state["epoch"] += 1
            state["epoch_batches"] = 0
    if profiler is not None:  # the run ended inside the profiled steps: what was profiled
        stop_profile()
    state["wall_s"] = round(time.monotonic() - t_start, 1)
    _save(out, net, optimizer, state, args.weights_dtype, moments=not args.no_moments)
    say(f"saved step {state['step']} ({state['samples']} files seen, {state['epoch']} epochs) to {out}")
    return 0


# ----------------------------------------------------------------------------------------------- finish
def finish(args: argparse.Namespace) -> int:
    import torch

    from mirtune.ir.tokenizer import IRTokenizer
    from mirtune.model.config import preset
    from mirtune.pretrain.checkpoints import load_checkpoint, make_model, save_checkpoint
    from mirtune.pretrain.train import TrainConfig, _count_rows, _finish

    corpus = Path(args.corpus)
    ckpt = unpack_checkpoint(Path(args.returned), Path(args.out) / "checkpoint")
    state = json.loads((ckpt / "trainer_state.json").read_text())
    tokenizer = IRTokenizer.load(corpus / "tokenizer.json")
    enc_cfg = preset(state["preset"], tokenizer)
    net = make_model(enc_cfg)
    load_checkpoint(ckpt, net, None)  # bf16 weights are cast to the model's fp32 here
    fp32 = Path(args.out) / "checkpoint-fp32"
    save_checkpoint(fp32, net, torch.optim.AdamW(net.parameters()), state)
    n_train = _count_rows(corpus / "samples" / "split=train")
    n_heldout = _count_rows(corpus / "samples" / "split=heldout")
    tc = TrainConfig(corpus=str(corpus), out=args.out, preset=state["preset"], gpus=True,
                     batch_size=state["batch_size"], lr=state["lr"],
                     command=["scripts/pretrain_gpu.py", "train", "--preset", state["preset"], "on",
                              state.get("device", "?")])
    res = _finish(tc, enc_cfg, tokenizer, corpus, n_train, n_heldout, fp32, Path(args.out),
                  float(state.get("wall_s", 0.0)), None)
    prov_path = Path(args.out) / "provenance.json"
    prov = json.loads(prov_path.read_text())
    prov["training"].update(device=state.get("device"), planned_steps=state.get("planned_steps"),
                            moments_restarted=state.get("moments_restarted", False),
                            wall_s_on_device=state.get("wall_s"))
    if args.sources_manifest:
        manifest = Path(args.sources_manifest)
        prov["corpus"]["sources_manifest"] = {"path": str(manifest),
                                              "sha256": hashlib.sha256(manifest.read_bytes()).hexdigest()}
    prov_path.write_text(json.dumps(prov, indent=2, sort_keys=True) + "\n")
    print(f"model folder {res.out} (step {res.steps}, {state['samples']} files seen)")
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    a = sub.add_parser("pack", help="CORPUS -> one lzma file for the GPU machine")
    a.add_argument("corpus")
    a.add_argument("out")
    a.add_argument("--max-train", type=int, default=None, metavar="N", help="keep about N training modules")
    t = sub.add_parser("train", help="train on a packed corpus until --seconds, then save")
    t.add_argument("pack")
    t.add_argument("--out", required=True)
    t.add_argument("--preset", default="small")
    t.add_argument("--seconds", type=float, default=200.0, help="time budget from process start")
    t.add_argument("--reserve", type=float, default=20.0, help="seconds kept for the last evaluation and saving")
    t.add_argument("--batch-size", type=int, default=32)
    t.add_argument("--lr", type=float, default=1e-3)
    t.add_argument("--max-statements", type=int, default=256)
    t.add_argument("--eval-samples", type=int, default=512)
    t.add_argument("--eval-seconds", type=float, default=30.0)
    t.add_argument("--log-every", type=int, default=50)
    t.add_argument("--workers", type=int, default=8)
    from mirtune.model.encoder import GPU_GROUP_TOKENS

    t.add_argument("--group-tokens", type=int, default=GPU_GROUP_TOKENS,
                   help="on a GPU, run statements in groups of this many padded positions")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--profile-steps", type=int, default=0, metavar="N",
                   help="run N steps under torch.profiler; the table goes to OUT/profile.txt")
    t.add_argument("--profile-from", type=int, default=10, metavar="K",
                   help="steps run before profiling starts (warm-up; default 10)")
    t.add_argument("--resume", default=None, metavar="RETURNED", help="a folder holding checkpoint.tar.NN")
    t.add_argument("--weights-dtype", default="bf16", choices=("bf16", "fp16", "fp32"))
    t.add_argument("--no-moments", action="store_true", help="return weights only (for presets too large)")
    f = sub.add_parser("finish", help="a returned checkpoint -> a mirtune model folder")
    f.add_argument("returned")
    f.add_argument("--corpus", required=True)
    f.add_argument("--out", required=True)
    f.add_argument("--sources-manifest", default=None, metavar="FILE",
                   help="the corpus's source manifest (e.g. datasets/corpus/gcc-sources.json.gz), recorded by hash")
    args = p.parse_args(argv)
    if args.cmd == "pack":
        info = pack(Path(args.corpus), Path(args.out), args.max_train)
        print(json.dumps({k: v for k, v in info.items()}, indent=1))
        return 0
    return train(args) if args.cmd == "train" else finish(args)


if __name__ == "__main__":
    sys.exit(main())
