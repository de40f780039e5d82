"""scripts/pretrain_gpu.py as it runs on the GPU machine, here on the CPU: pack, train, resume, finish."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "pretrain_gpu.py"
sys.path.insert(0, str(REPO / "scripts"))

import pretrain_gpu  # noqa: E402


def run(*args: str) -> subprocess.CompletedProcess:
    p = subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    return p


def test_a_packed_corpus_gives_back_every_sample_exactly(corpus: Path, tmp_path: Path):
    pack = tmp_path / "corpus.pack"
    info = json.loads(run("pack", str(corpus), str(pack)).stdout)
    assert info["modules"] == {"train": 16, "heldout": 4}
    packed = pretrain_gpu.Packed(pack)
    rows = pq.read_table(sorted((corpus / "samples" / "split=train").glob("*.parquet"))[0]).to_pylist()
    from mirtune.model.samples import sample_arrays

    first = sample_arrays(rows[0])
    got = packed.sample("train", 0)
    for key in ("stmt_ids", "node_ids", "node_type", "edges"):
        assert np.array_equal(got[key], first[key]), key


def test_train_resume_and_finish_make_a_model_folder_that_loads(corpus: Path, tmp_path: Path):
    pack = tmp_path / "corpus.pack"
    run("pack", str(corpus), str(pack))
    common = ["--preset", "tiny", "--batch-size", "4", "--workers", "1", "--log-every", "1", "--eval-samples", "4",
              "--reserve", "0"]
    run("train", str(pack), "--out", str(tmp_path / "a"), "--seconds", "4", "--profile-steps", "1",
        "--profile-from", "0", *common)
    state_a = json.loads(_member(tmp_path / "a", "trainer_state.json"))
    assert state_a["step"] >= 1 and state_a["heldout"], state_a
    profile = (tmp_path / "a" / "profile.txt").read_text()
    assert profile.startswith("1 steps profiled") and "Self CPU" in profile
    # resume without moments (as the paper preset comes back): the step count goes on
    run("train", str(pack), "--out", str(tmp_path / "b"), "--seconds", "4", "--resume", str(tmp_path / "a"),
        "--no-moments", *common)
    state_b = json.loads(_member(tmp_path / "b", "trainer_state.json"))
    assert state_b["step"] > state_a["step"] and state_b["restarts"] == 1
    # one step is one batch: each checkpoint's place in the passes over the data accounts for every step, so the
    # resumed run took up the pass where the first left it (the position mirtune pretrain --resume reads too)
    per_pass = len(pretrain_gpu._epoch_batches(pretrain_gpu.Packed(pack).count("train"), 4, 0, 0))
    for state in (state_a, state_b):
        assert state["epoch"] * per_pass + state["epoch_batches"] == state["step"], state
    run("finish", str(tmp_path / "b"), "--corpus", str(corpus), "--out", str(tmp_path / "model"))
    from mirtune.model.io import load_model

    loaded = load_model(tmp_path / "model")
    assert loaded.weights_check == "verified" and loaded.provenance["steps"] == state_b["step"]
    assert (tmp_path / "model" / "learning_curves.png").is_file()


def _member(folder: Path, name: str) -> bytes:
    import io
    import tarfile

    data = b"".join(p.read_bytes() for p in sorted(folder.glob("checkpoint.tar.*")))
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        return tar.extractfile(name).read()
