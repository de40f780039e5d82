"""mirtune.measure.records: the rows kept in git are written losslessly and smaller than plain zstd, and compacting
a folder keeps the latest row of each point."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from mirtune.measure.records import compact, write_kept_parquet


def _measured_like(n: int) -> pa.Table:
    rng = np.random.default_rng(7)
    median = 0.03 * np.exp(rng.normal(0, 0.5, n))
    runs = [list(m * (1 + rng.normal(0, 0.02, 3))) for m in median]
    return pa.table({"point_id": [f"p{i % (n // 2)}" for i in range(n)],
                     "timestamp": [f"2026-11-28T00:00:{i:06d}" for i in range(n)],
                     "status": ["ok"] * n, "vf": rng.integers(1, 64, n), "median_s": median,
                     "runtimes_s": pa.array(runs, pa.list_(pa.float64()))})


def test_kept_parquet_reads_back_equal_and_is_smaller_than_plain_zstd(tmp_path):
    table = _measured_like(4000)
    kept = write_kept_parquet(table, tmp_path / "kept.parquet")
    pq.write_table(table, tmp_path / "plain.parquet", compression="zstd")
    assert pq.read_table(kept).equals(table)
    assert kept.stat().st_size < 0.95 * (tmp_path / "plain.parquet").stat().st_size
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kept.parquet", "plain.parquet"]  # no temporary left


def test_compact_keeps_the_latest_row_of_each_point_in_one_file(tmp_path):
    table = _measured_like(400)
    pq.write_table(table.slice(0, 200), tmp_path / "part-1.parquet")
    pq.write_table(table.slice(200), tmp_path / "part-2.parquet")
    assert compact(tmp_path) == (2, 200)
    (only,) = tmp_path.glob("part-*.parquet")
    rows = pq.read_table(only).to_pandas()
    assert rows["point_id"].is_unique and set(rows["timestamp"]) == set(table.column("timestamp")[200:].to_pylist())
