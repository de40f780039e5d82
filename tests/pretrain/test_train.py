"""Distributed pre-training on Ray Train: a short 2-worker run, resume, and a worker killed mid-run."""

from __future__ import annotations

import csv
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest

from mirtune.errors import MirtuneError, UsageError
from mirtune.model.io import load_model
from mirtune.pretrain.checkpoints import latest_checkpoint_dir, load_checkpoint
from mirtune.pretrain.train import TrainConfig, pretrain

def _config(corpus: Path, out: Path, **kw) -> TrainConfig:
    base = dict(corpus=str(corpus), out=str(out), preset="tiny", workers=2, steps=6, batch_size=4,
                checkpoint_every=3, log_every=3, eval_samples=4, command=["pytest"])
    base.update(kw)
    return TrainConfig(**base)


def _rows(path: Path) -> list[dict[str, str]]:
    with open(path) as f:
        return list(csv.DictReader(f))


def _steps_log(trace: Path) -> list[int]:
    return [int(x) for x in (trace / "steps.log").read_text().split()]


def test_two_workers_write_checkpoints_metrics_plot_and_model(corpus, tmp_path, ray_cluster):
    out, trace = tmp_path / "run", tmp_path / "trace"
    res = pretrain(_config(corpus, out, trace_dir=str(trace)))
    assert res.steps == 6
    # checkpoints every K=3 steps, in safetensors + JSON only
    ckpts = sorted(p.name for p in (out / "checkpoints" / "pretrain").glob("step-*"))
    assert ckpts == ["step-00000003", "step-00000006"]
    files = {p.name for p in (out / "checkpoints" / "pretrain" / "step-00000006").iterdir()}
    assert {"model.safetensors", "optimizer.safetensors", "optimizer.json", "trainer_state.json"} <= files
    assert not [f for f in files if f.endswith((".pt", ".pkl", ".pth"))]
    # two workers ran (one pid file each), rank 0 logged each step once
    assert len(list(trace.glob("worker-0-*.pid"))) == 1 and len(list(trace.glob("worker-1-*.pid"))) == 1
    assert _steps_log(trace) == [1, 2, 3, 4, 5, 6]
    # every loss, accuracy and per-flow AUC per step; 2 workers x 4 files per step
    rows = _rows(out / "metrics.csv")
    assert [int(r["step"]) for r in rows] == [1, 2, 3, 4, 5, 6]
    assert [int(r["samples"]) for r in rows] == [8, 16, 24, 32, 40, 48]
    for key in ("loss", "mlm_loss", "mlm_accuracy", "recon_loss", "auc_control", "auc_data", "auc_call",
                "match_loss", "match_accuracy", "samples_per_s", "lr"):
        assert all(r[key] != "" for r in rows), key
    assert all(0.0 <= float(r["auc_data"]) <= 1.0 for r in rows)
    held = _rows(out / "heldout.csv")
    assert [int(r["step"]) for r in held] == [3, 6]
    png = (out / "learning_curves.png").read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) > 10_000
    # the final model in io.py format, with provenance
    model = load_model(out)
    prov = model.provenance
    assert prov["steps"] == 6 and prov["preset"] == "tiny" and prov["command"] == "pytest"
    assert prov["tokenizer_sha256"] == model.tokenizer.sha256
    assert prov["corpus"]["train_samples"] == 16 and prov["corpus"]["heldout_samples"] == 4
    assert set(prov["heldout_metrics"]) >= {"mlm_accuracy", "match_accuracy", "auc_control", "auc_data", "auc_call"}
    assert prov["training"]["workers"] == 2

    # --resume continues from the latest checkpoint (step 6) up to the new step count; this run streams
    # the corpus with read_parquet (materialize_mb=0), as a corpus too large for the driver would be
    res2 = pretrain(_config(corpus, out, workers=1, steps=8, checkpoint_every=2, resume=True,
                            trace_dir=str(trace), materialize_mb=0))
    assert res2.steps == 8
    assert _steps_log(trace) == [1, 2, 3, 4, 5, 6, 7, 8]
    rows = _rows(out / "metrics.csv")
    assert [int(r["step"]) for r in rows] == list(range(1, 9))
    state = json.loads((latest_checkpoint_dir(out / "checkpoints") / "trainer_state.json").read_text())
    assert state["step"] == 8 and state["samples"] == 48 + 2 * 4

    # without --resume, an existing run is never overwritten
    with pytest.raises(UsageError, match="--resume"):
        pretrain(_config(corpus, out))


def test_a_graph_only_run_trains_and_saves_a_graph_only_encoder(corpus, tmp_path, ray_cluster, capsys):
    out = tmp_path / "graph"
    res = pretrain(_config(corpus, out, workers=1, steps=3, modality="graph"))
    assert res.steps == 3
    rows = _rows(out / "metrics.csv")
    assert all(r["auc_control"] != "" and r["mlm_loss"] in ("", "nan") for r in rows)
    model = load_model(out)
    assert model.config.modality == "graph" and model.encoder.text is None
    assert set(model.provenance["heldout_metrics"]) >= {"auc_control", "auc_data", "auc_call"}
    assert "mlm_accuracy" not in model.provenance["heldout_metrics"]
    err = capsys.readouterr().err
    assert "step 3/3" in err and "auc c/d/k" in err and "mlm" not in err.split("step 3/3")[1].splitlines()[0]


def test_bf16_on_a_cpu_runs_the_matrix_products_in_bf16_and_the_others_stay_fp32():
    import torch

    from mirtune.pretrain.train import _mixed_precision

    autocast, scaler = _mixed_precision(TrainConfig(corpus="c", out="o", precision="bf16"))
    assert scaler is None
    with autocast():
        assert torch.nn.Linear(4, 4)(torch.ones(2, 4)).dtype == torch.bfloat16
    assert _mixed_precision(TrainConfig(corpus="c", out="o")) == (None, None)  # auto on a CPU: fp32
    assert _mixed_precision(TrainConfig(corpus="c", out="o", precision="fp32")) == (None, None)
    with pytest.raises(UsageError, match="--precision must be one of auto, fp32, bf16"):
        TrainConfig(corpus="c", out="o", precision="fp16").validate()


def test_a_bf16_run_on_cpus_trains_and_records_its_precision(corpus, tmp_path, ray_cluster, capsys):
    out = tmp_path / "bf16"
    res = pretrain(_config(corpus, out, workers=1, steps=3, precision="bf16"))
    assert res.steps == 3
    rows = _rows(out / "metrics.csv")
    assert all(0.0 < float(r["loss"]) < 100.0 for r in rows)
    model = load_model(out)
    assert model.provenance["training"]["precision"] == "bf16"
    assert "1 worker(s) on CPU in bf16" in capsys.readouterr().err


def test_a_killed_worker_is_replaced_and_at_most_k_steps_are_lost(corpus, tmp_path, ray_cluster):
    out, trace = tmp_path / "run", tmp_path / "trace"
    k, steps = 4, 12
    cfg = _config(corpus, out, steps=steps, checkpoint_every=k, log_every=4, max_failures=2,
                  step_delay_s=0.3, eval_every=0, trace_dir=str(trace))
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["result"] = pretrain(cfg)
        except BaseException as exc:  # noqa: BLE001 - reported by the test thread
            box["error"] = exc

    thread = threading.Thread(target=run)
    thread.start()
    deadline = time.monotonic() + 240
    killed = None
    while time.monotonic() < deadline and thread.is_alive():
        done = _steps_log(trace) if (trace / "steps.log").exists() else []
        if len(done) >= k + 2:  # past the first checkpoint
            pids = sorted(trace.glob("worker-1-*.pid"))
            killed = int(pids[0].read_text())
            os.kill(killed, signal.SIGKILL)
            break
        time.sleep(0.2)
    assert killed is not None, "training never got past the first checkpoint"
    thread.join(timeout=300)
    assert not thread.is_alive()
    assert "error" not in box, box.get("error")
    res = box["result"]
    assert res.steps == steps
    log = _steps_log(trace)
    assert log[-1] == steps
    # the step sequence went back once, to the last checkpoint: at most K steps were redone
    backs = [(a, b) for a, b in zip(log, log[1:]) if b <= a]
    assert len(backs) == 1
    before, after = backs[0]
    assert (after - 1) % k == 0 and before - (after - 1) <= k
    # a replacement worker started, and the history has each step exactly once
    assert len(list(trace.glob("worker-1-*.pid"))) == 2
    rows = _rows(out / "metrics.csv")
    assert [int(r["step"]) for r in rows] == list(range(1, steps + 1))
    assert load_model(out).provenance["training"]["restarts"] >= 1


def test_bad_corpus_and_corrupt_checkpoint_are_clear_errors(corpus, tmp_path):
    with pytest.raises(UsageError, match="corpus folder not found"):
        pretrain(_config(tmp_path / "nothing", tmp_path / "o"))
    empty = tmp_path / "empty"
    (empty / "samples" / "split=train").mkdir(parents=True)
    (empty / "tokenizer.json").write_text((corpus / "tokenizer.json").read_text())
    with pytest.raises(UsageError, match="no training shards"):
        pretrain(_config(empty, tmp_path / "o"))
    # a truncated checkpoint cannot be loaded and says so in one line
    from mirtune.model.config import preset
    from mirtune.ir.tokenizer import IRTokenizer
    from mirtune.pretrain.checkpoints import make_model, save_checkpoint
    import torch

    cfg = preset("tiny", IRTokenizer.load(corpus / "tokenizer.json"))
    net = make_model(cfg)
    opt = torch.optim.AdamW(net.parameters())
    ck = tmp_path / "ck"
    save_checkpoint(ck, net, opt, {"step": 1})
    data = (ck / "model.safetensors").read_bytes()
    (ck / "model.safetensors").write_bytes(data[:100])
    with pytest.raises(MirtuneError) as err:
        load_checkpoint(ck, make_model(cfg), None)
    assert "corrupt or truncated" in err.value.line() and "\n" not in err.value.line()


# ------------------------------------------------------------ resume with corrupt checkpoints (#18 item 5)
def _fake_run(corpus: Path, storage: Path, steps: tuple[int, ...]) -> list[Path]:
    """Checkpoints of a tiny model at `steps`, as a run would leave them in `storage`."""
    import torch

    from mirtune.ir.tokenizer import IRTokenizer
    from mirtune.model.config import preset
    from mirtune.pretrain.checkpoints import make_model, save_checkpoint

    cfg = preset("tiny", IRTokenizer.load(corpus / "tokenizer.json"))
    dirs = []
    for step in steps:
        net = make_model(cfg)
        d = storage / "pretrain" / f"step-{step:08d}"
        save_checkpoint(d, net, torch.optim.AdamW(net.parameters()), {"step": step, "history": []})
        dirs.append(d)
    return dirs


def _corrupt(ckpt: Path) -> bytes:
    path = ckpt / "model.safetensors"
    path.write_bytes(path.read_bytes()[:200])
    return path.read_bytes()


def test_model_export_makes_a_model_folder_from_a_checkpoint_of_an_unfinished_run(corpus, tmp_path, capsys):
    import numpy as np

    from mirtune.cli import main
    from mirtune.model.io import load_tensors

    dirs = _fake_run(corpus, tmp_path / "run" / "checkpoints", (2, 4))
    out = tmp_path / "model"
    assert main(["model", "export", str(tmp_path / "run"), "--corpus", str(corpus), "--out", str(out)]) == 0
    assert "step-00000004 (step 4" in capsys.readouterr().out
    loaded = load_model(out)
    assert loaded.config.preset == "tiny" and loaded.provenance["steps"] == 4
    assert loaded.provenance["training"]["exported_from"] == str(dirs[1].resolve())
    assert "model export" in loaded.provenance["command"]
    ckpt = load_tensors(dirs[1] / "model.safetensors")
    mine = loaded.encoder.state_dict()
    name = next(k for k in mine if k.endswith("weight"))
    assert np.array_equal(mine[name].numpy(), ckpt[f"encoder.{name}"].numpy())
    # bad input: one line and exit 2, nothing written
    assert main(["model", "export", str(tmp_path / "nothing"), "--corpus", str(corpus), "--out",
                 str(tmp_path / "m2")]) == 2
    err = capsys.readouterr().err
    assert "no checkpoint here" in err and err.count("\n") == 1
    assert main(["model", "export", str(dirs[0]), "--corpus", str(corpus), "--out", str(tmp_path / "m3"),
                 "--preset", "small"]) == 2
    err = capsys.readouterr().err
    assert "fit no preset" in err and err.count("\n") == 1
    assert not (tmp_path / "m2").exists() and not (tmp_path / "m3").exists()


def test_resume_with_every_checkpoint_corrupt_stops_and_keeps_them(corpus, tmp_path, capsys):
    out = tmp_path / "run"
    dirs = _fake_run(corpus, out / "checkpoints", (2, 4))
    kept = [_corrupt(d) for d in dirs]
    with pytest.raises(UsageError) as err:
        pretrain(_config(corpus, out, workers=1, resume=True))
    line = err.value.line()
    assert "\n" not in line and "none of the 2 checkpoint(s)" in line and "--restart" in line
    assert "step-00000004" in line and "step-00000002" in line
    # nothing was moved or deleted, and nothing claimed a resume
    assert [(d / "model.safetensors").read_bytes() for d in dirs] == kept
    assert "resuming" not in capsys.readouterr().err


def test_resume_says_which_checkpoint_it_uses_and_moves_corrupt_ones_aside(corpus, tmp_path, capsys):
    from mirtune.model.config import preset
    from mirtune.ir.tokenizer import IRTokenizer
    from mirtune.pretrain.train import _prepare_run

    out = tmp_path / "run"
    storage = out / "checkpoints"
    good, bad = _fake_run(corpus, storage, (2, 4))
    corrupt_bytes = _corrupt(bad)
    (storage / "pretrain" / "checkpoint_manager_snapshot.json").write_text("{}")
    cfg = preset("tiny", IRTokenizer.load(corpus / "tokenizer.json"))
    assert _prepare_run(_config(corpus, out, resume=True), storage.resolve(), cfg) == good.resolve()
    err = capsys.readouterr().err
    assert "resuming from step-00000002 (step 2)" in err and "step 4" not in err.split("resuming")[1]
    aside = [p for p in storage.iterdir() if p.name.startswith("corrupt-checkpoints-")]
    assert len(aside) == 1 and f"moved them to {aside[0]}" in err
    # the corrupt checkpoint is kept, whole, in the clearly named folder; Ray's record of it went along
    assert (aside[0] / "step-00000004" / "model.safetensors").read_bytes() == corrupt_bytes
    assert (aside[0] / "checkpoint_manager_snapshot.json").is_file()
    assert sorted(p.name for p in (storage / "pretrain").iterdir()) == ["step-00000002"]


def test_restart_moves_the_old_run_aside_never_deleting_it(corpus, tmp_path, capsys):
    from mirtune.model.config import preset
    from mirtune.ir.tokenizer import IRTokenizer
    from mirtune.pretrain.train import _prepare_run

    out = tmp_path / "run"
    storage = (out / "checkpoints").resolve()
    dirs = _fake_run(corpus, storage, (2,))
    _corrupt(dirs[0])
    cfg = preset("tiny", IRTokenizer.load(corpus / "tokenizer.json"))
    assert _prepare_run(_config(corpus, out, resume=True, restart=True), storage, cfg) is None
    err = capsys.readouterr().err
    assert "starting from step 0 (--restart)" in err and "none of the 1 checkpoint(s) loads" in err
    assert not (storage / "pretrain").exists()
    assert len(list(storage.glob("corrupt-checkpoints-*/pretrain/step-00000002/model.safetensors"))) == 1
    # --restart over a good run (no --resume) moves it aside too, and says so
    _fake_run(corpus, storage, (3,))
    assert _prepare_run(_config(corpus, out, restart=True), storage, cfg) is None
    assert "moved the previous run (1 checkpoint(s))" in capsys.readouterr().err
    assert len(list(storage.glob("pretrain-set-aside-*/pretrain/step-00000003/trainer_state.json"))) == 1


def test_resume_past_a_corrupt_checkpoint_really_trains_from_the_older_one(corpus, tmp_path, ray_cluster, capsys):
    out, trace = tmp_path / "run", tmp_path / "trace"
    pretrain(_config(corpus, out, workers=1, steps=4, checkpoint_every=2, eval_every=0, trace_dir=str(trace)))
    assert _steps_log(trace) == [1, 2, 3, 4]
    _corrupt(out / "checkpoints" / "pretrain" / "step-00000004")
    capsys.readouterr()
    res = pretrain(_config(corpus, out, workers=1, steps=6, checkpoint_every=2, eval_every=0, resume=True,
                           trace_dir=str(trace)))
    assert "resuming from step-00000002 (step 2)" in capsys.readouterr().err
    assert res.steps == 6 and _steps_log(trace) == [1, 2, 3, 4, 3, 4, 5, 6]
    assert [int(r["step"]) for r in _rows(out / "metrics.csv")] == [1, 2, 3, 4, 5, 6]
    assert len(list((out / "checkpoints").glob("corrupt-checkpoints-*/step-00000004"))) == 1


def _files_log(trace: Path) -> dict[int, str]:
    """Step -> the files worker 0 trained on at that step (a step run again keeps its last run)."""
    return {int(line.split(" ", 1)[0]): line.split(" ", 1)[1] for line in (trace / "files-0.log").read_text().splitlines()}


def test_a_resumed_run_takes_up_the_pass_where_its_checkpoint_left_it(corpus, tmp_path, ray_cluster, capsys):
    """16 files in batches of 4: a run stopped after 3 steps and resumed trains on the same files at steps 4-6 as a
    run that was never stopped (the 4th batch of the first pass, then the second pass). It used to start the pass
    over, so a run resumed often kept training on the pass's first files."""
    whole, trace_a = tmp_path / "whole", tmp_path / "trace-a"
    pretrain(_config(corpus, whole, workers=1, steps=6, checkpoint_every=3, eval_every=0, trace_dir=str(trace_a)))
    parts, trace_b = tmp_path / "parts", tmp_path / "trace-b"
    pretrain(_config(corpus, parts, workers=1, steps=3, checkpoint_every=3, eval_every=0, trace_dir=str(trace_b)))
    capsys.readouterr()
    pretrain(_config(corpus, parts, workers=1, steps=6, checkpoint_every=3, eval_every=0, resume=True,
                     trace_dir=str(trace_b)))
    assert "taking up pass 1 at batch 4 of 4" in capsys.readouterr().err
    a, b = _files_log(trace_a), _files_log(trace_b)
    assert sorted(b) == [1, 2, 3, 4, 5, 6] and b == a
    assert len({f for step in (1, 2, 3, 4) for f in a[step].split()}) == 16  # the first pass saw every file
    state = json.loads((parts / "checkpoints" / "pretrain" / "step-00000006" / "trainer_state.json").read_text())
    assert (state["epoch"], state["epoch_batches"]) == (1, 2)


def test_ctrl_c_says_where_the_run_stopped_and_how_to_go_on(corpus, tmp_path):
    """Ctrl-C (SIGINT) during `mirtune pretrain`: Ray Train aborts the run; the command then says which checkpoint
    it kept and that --resume continues, in one line, with exit code 130 (it used to end silently)."""
    import subprocess
    import sys

    out = tmp_path / "run"
    cmd = [sys.executable, "-m", "mirtune.cli", "pretrain", "--preset", "tiny", "--corpus", str(corpus),
           "--out", str(out), "--workers", "1", "--steps", "100000", "--batch-size", "4",
           "--checkpoint-every", "2", "--log-every", "2", "--eval-every", "0", "--eval-samples", "4"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and proc.poll() is None:
            if latest_checkpoint_dir(out / "checkpoints") is not None:
                break
            time.sleep(0.5)
        assert proc.poll() is None, proc.communicate()
        assert latest_checkpoint_dir(out / "checkpoints") is not None, "no checkpoint within 240 s"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    own = [ln for ln in err.splitlines() if ln.startswith("mirtune pretrain: interrupted")]
    assert len(own) == 1 and "its last checkpoint is step-" in own[0] and "--resume continues" in own[0], err
    assert "Traceback" not in err
