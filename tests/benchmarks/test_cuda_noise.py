"""benchmarks/cuda_noise.py: the noise of the GPU block-size data, from kernels measured twice."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from collectors.lscat import COLUMNS
from mirtune.measure.records import schema_for

REPO = Path(__file__).resolve().parents[2]


def _rows(folder: Path, times: dict[tuple[str, int], float]) -> Path:
    """Rows of the lscat sweep: (program, block_x) -> ms per launch, all at matrix 240, block_y 1."""
    folder.mkdir()
    rows = [{"sweep": "lscat", "program": p, "input_size": 240, "block_x": bx, "block_y": 1, "status": "ok",
             "is_default": bx == 16, "reported_median": t, "program_path": p, "program_sha256": "s"}
            for (p, bx), t in times.items()]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema_for(COLUMNS)), folder / "part.parquet")
    return folder


def test_noise_compares_the_best_block_of_two_runs(benchmark_module, tmp_path):
    noise = benchmark_module("cuda_noise").noise
    first = _rows(tmp_path / "a", {("k", 16): 1.0, ("k", 8): 0.9, ("j", 16): 1.0, ("j", 8): 2.0})
    again = _rows(tmp_path / "b", {("k", 16): 0.8, ("k", 8): 0.9, ("j", 16): 1.0, ("j", 8): 2.0})
    r = noise(first, again)
    assert r["kernels"] == 2 and r["points"] == 4 and r["groups"] == 2
    assert r["same_best_block"] == 0.5                   # k's best moved from 8 to 16, j's stayed at 16
    assert abs(r["first_best_share_of_second_oracle"] - (0.8 / 0.9) ** 0.5) < 1e-12
    assert abs(r["worst_group_share"] - 0.8 / 0.9) < 1e-12


def test_the_committed_figures_are_what_the_data_gives(benchmark_module):
    noise = benchmark_module("cuda_noise").noise
    r = noise(REPO / "datasets" / "cuda-h200", REPO / "datasets" / "cuda-h200-repeats")
    saved = json.loads((REPO / "benchmarks" / "results" / "cuda_noise_h200.json").read_text())
    assert {k: v for k, v in r.items() if k not in ("data", "repeats")} == \
        {k: v for k, v in saved.items() if k not in ("data", "repeats")}
