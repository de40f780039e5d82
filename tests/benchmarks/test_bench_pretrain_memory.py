"""benchmarks/bench_pretrain_memory.py: the run's steps are read from its metrics.csv, and a short run of the
command reports its workers' memory."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_last_step_reads_the_metrics_as_they_grow(benchmark_module, tmp_path):
    last_step = benchmark_module("bench_pretrain_memory").last_step
    csv = tmp_path / "metrics.csv"
    assert last_step(csv) == 0  # not written yet
    csv.write_text("step,samples\n")
    assert last_step(csv) == 0
    csv.write_text("step,samples\n20,160\n40,320\n")
    assert last_step(csv) == 40


def test_growth_is_the_slope_not_the_last_sample(benchmark_module):
    """Memory handed back just before the last sample must not read as shrinking: the slope over all samples."""
    summary = benchmark_module("bench_pretrain_memory").summary
    # +1 MB a step, every fifth sample taken just after memory was handed back (300 MB lower), the last one too
    samples = [[10 * i, 1000 + 10 * i - (300 if i % 5 == 4 else 0)] for i in range(25)]
    r = summary(samples)
    assert samples[-1][1] < samples[0][1] and 60 < r["growth_mb_per_100_steps"] < 120
    assert (r["rss_anon_mb_max"], r["from_step"], r["to_step"]) == (1230, 0, 240)


@pytest.mark.slow
def test_a_short_run_reports_its_workers_memory(corpus, tmp_path):
    out = tmp_path / "memory.json"
    proc = subprocess.run([sys.executable, str(BENCHMARKS / "bench_pretrain_memory.py"), "--corpus", str(corpus),
                           "--steps", "60", "--skip-steps", "20", "--every", "0.5", "--json", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    r = json.loads(out.read_text())["this"]
    assert 20 <= r["from_step"] < r["to_step"] <= 60 and r["rss_anon_mb_first_quarter"] > 50
    assert "MB per 100 steps" in proc.stdout
