"""scripts/collect_cudagen_gpu.py and scripts/merge_gpu_rows.py, run as a user runs them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from mirtune.measure.host import host_info

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "collect_cudagen_gpu.py"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=600)


@pytest.mark.skipif(host_info().gpu_count > 0, reason="this machine has a GPU: the no-GPU refusal cannot be seen")
def test_without_a_gpu_one_line_and_nothing_written(tmp_path: Path):
    p = run("--out", str(tmp_path / "o"))
    assert p.returncode == 2 and p.stderr.count("\n") == 1 and "no GPU" in p.stderr
    assert not (tmp_path / "o").exists()


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed: the kernels cannot be built here")
def test_pipeline_builds_runs_and_writes_rows_then_resumes(tmp_path: Path):
    out = tmp_path / "o"
    p = run("--out", str(out), "--no-gpu-ok", "--max-kernels", "2", "--workers", "2", "--sizes", "2", "--done")
    assert p.returncode == 0, p.stderr
    part = [f for f in out.glob("cudagen-*.parquet") if "repeats" not in f.name]
    assert len(part) == 1 and list(out.glob("cudagen-*-summary.json"))
    t = pq.read_table(part[0]).to_pandas()
    assert len(t) == 2 * 2 * 20 and t["program"].nunique() == 2
    gpu = host_info().gpu_count > 0
    assert set(t["status"]) <= ({"ok", "wrong_output", "crash", "unsupported"} if gpu else {"crash"})
    # the next run continues the order: the two kernels measured are skipped
    p2 = run("--out", str(tmp_path / "o2"), "--no-gpu-ok", "--max-kernels", "1", "--sizes", "1", "--done", str(out))
    assert p2.returncode == 0, p2.stderr
    t2 = pq.read_table(next(f for f in (tmp_path / "o2").glob("cudagen-*.parquet") if "repeats" not in f.name))
    assert not set(t2.column("program").to_pylist()) & set(t["program"])


def test_merge_places_each_file_once(tmp_path: Path):
    sys.path.insert(0, str(REPO / "scripts"))
    from merge_gpu_rows import destination

    d = tmp_path / "datasets"
    assert destination("cudagen-h200-20261127T160000.parquet", d) == d / "cuda-h200" / "cudagen-h200-20261127T160000.parquet"
    assert destination("cudagen-h200-20261127T160000-repeats.parquet", d).parent == d / "cuda-h200-repeats"
    assert destination("cudagen-h200-20261127T160000-summary.json", d).parent == d / "cuda-h200" / "runs"
    assert destination("log.txt", d) is None
