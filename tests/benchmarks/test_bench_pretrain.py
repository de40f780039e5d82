"""benchmarks/bench_pretrain.py: one and two workers, or fp32 and bf16, through the same files, the command as users
run it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_the_steady_rate_leaves_out_the_first_files(benchmark_module, tmp_path):
    steady_rate = benchmark_module("bench_pretrain").steady_rate
    csv = tmp_path / "metrics.csv"
    csv.write_text("step,samples,time_s\n1,8,5.0\n2,16,6.0\n3,24,7.0\n4,32,9.0\n")
    assert steady_rate(csv, 16) == (16 / 3.0, 16)  # from 16 files at 6 s to 32 files at 9 s
    with pytest.raises(SystemExit, match="fewer than 40 files"):
        steady_rate(csv, 40)


@pytest.mark.slow
def test_one_round_times_both_worker_counts_on_the_same_files(corpus, tmp_path):
    out = tmp_path / "scaling.json"
    proc = subprocess.run([sys.executable, str(BENCHMARKS / "bench_pretrain.py"), "--corpus", str(corpus),
                           "--preset", "tiny", "--files", "16", "--batch-size", "2", "--skip-files", "4",
                           "--rounds", "1", "--json", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(out.read_text())
    one, two = result["rounds"][0]["this"]["runs"]
    assert (one["workers"], one["steps"], two["workers"], two["steps"]) == (1, 8, 2, 4)
    assert one["files_timed"] == two["files_timed"] == 12
    assert result["this"]["scaling_2_over_1_median"] == pytest.approx(two["files_per_s"] / one["files_per_s"],
                                                                      rel=1e-2)
    assert "2 over 1" in proc.stdout


@pytest.mark.slow
def test_one_round_times_fp32_and_bf16_on_the_same_files(corpus, tmp_path):
    out = tmp_path / "precision.json"
    proc = subprocess.run([sys.executable, str(BENCHMARKS / "bench_pretrain.py"), "--corpus", str(corpus),
                           "--preset", "tiny", "--files", "16", "--batch-size", "2", "--skip-files", "4",
                           "--rounds", "1", "--vary", "precision", "--workers", "1", "--json", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(out.read_text())
    fp32, bf16 = result["rounds"][0]["this"]["runs"]
    assert (fp32["precision"], fp32["steps"], bf16["precision"], bf16["steps"]) == ("fp32", 8, "bf16", 8)
    assert result["this"]["bf16_over_fp32_median"] == pytest.approx(bf16["files_per_s"] / fp32["files_per_s"],
                                                                     rel=1e-2)
    assert "bf16 over fp32" in proc.stdout
