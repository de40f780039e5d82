"""The recorded rows: one schema for every sweep's and tuning's measurements, and one store of them.

A point (`Point`: one configuration of one program at one input size, with a stable id hashing all three) becomes
one row (`point_row`) of the Parquet schema `schema_for(columns)`; rows are written as part files, each atomically
(`PartWriter`), into a folder that one writer at a time holds (`dir_lock`), and read back with one rule, the latest
row of a point id wins (`read_rows`, `compact`). The Ray Data sweep (`collectors.sweep`) and `mirtune tune` both
write and read them here.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

import pyarrow as pa
import pyarrow.parquet as pq

from mirtune.measure.measurement import Measurement
from mirtune.paths import DirLock
from mirtune.tasks.measured import oldest_first

PART_GLOB = "part-*.parquet"
LOCK_NAME = ".mirtune-sweep.lock"


@dataclass
class Point:
    """One configuration of one program at one input size.

    `params` are the configuration columns (also hashed into the id); `env` is how the configuration is
    applied (added to the runner's minimal environment); `columns` are extra row columns (not hashed);
    `power_w` is the power limit to hold during the run (None: leave it alone). `group` names the points
    that share a reference checksum: the one with `is_default` runs first. `variant` tells apart runs of one
    program that differ in how it is run (see `point_id`).
    """

    sweep: str
    program: str
    program_path: str
    program_sha256: str
    input_size: int
    params: dict[str, Any]
    is_default: bool
    env: dict[str, Any]
    build_key: str
    power_w: float | None = None
    args: tuple[str, ...] = ()
    columns: dict[str, Any] = field(default_factory=dict)
    variant: str = ""
    check: Any = None  # a mirtune.measure.check.OutputCheck; None: the `checksum:` line with the sweep's rtol

    @property
    def group(self) -> str:
        return f"{self.program}\x00{self.program_sha256}\x00{self.input_size}\x00{self.variant}"

    @property
    def point_id(self) -> str:
        return point_id(self.sweep, self.program, self.program_sha256, self.input_size, self.params,
                        self.is_default, self.variant)


def point_id(sweep: str, program: str, program_sha256: str, input_size: int, params: Mapping[str, Any],
             is_default: bool, variant: str = "") -> str:
    """Stable id of a point: a hash of the sweep, the program (name and source), the input and the config.
    `variant` (how a user's program is run: its arguments, input files, flags, check) enters only when set, so
    the ids of the collectors' own points never change."""
    d = {"sweep": sweep, "program": program, "sha256": program_sha256, "input": input_size,
         "params": {k: params[k] for k in sorted(params)}, "default": is_default}
    if variant:
        d["variant"] = variant
    blob = json.dumps(d, sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:32]


def run_variant(args: Sequence[str], inputs: Mapping[str, bytes], check: Any, **more: Any) -> str:
    """The `variant` of a user's program: how it is run (arguments, the hashes of its input files, the output
    check as [kind, arg], and `more`), as stable JSON."""
    return json.dumps({"args": list(args),
                       "inputs": {k: hashlib.sha256(v).hexdigest()[:16] for k, v in sorted(inputs.items())},
                       "check": [check.kind, check.arg] if check is not None else None, **more}, sort_keys=True)


MEASUREMENT_COLUMNS: dict[str, pa.DataType] = {
    "status": pa.string(), "reason": pa.string(),
    "median_s": pa.float64(), "runtimes_s": pa.list_(pa.float64()), "warmup_s": pa.list_(pa.float64()),
    "cv": pa.float64(), "checksum": pa.string(), "reference_checksum": pa.string(),
    "exit_code": pa.int64(), "signal": pa.string(), "peak_rss_kib": pa.int64(),
    "user_s": pa.float64(), "sys_s": pa.float64(),
    "cpu_freq_mhz": pa.float64(), "loadavg_1m": pa.float64(), "loadavg_1m_after": pa.float64(),
    "gpu_telemetry": pa.string(), "gpu_power_w_mean": pa.float64(), "gpu_power_w_max": pa.float64(),
    "gpu_sm_clock_mhz": pa.float64(), "gpu_mem_clock_mhz": pa.float64(), "gpu_temp_c_max": pa.float64(),
    "gpu_energy_j": pa.float64(),
}


HOST_COLUMNS: dict[str, pa.DataType] = {
    "host_hostname": pa.string(), "host_cpu_model": pa.string(), "host_cpu_tag": pa.string(),
    "host_logical_cores": pa.int64(), "host_physical_cores": pa.int64(), "host_memory_bytes": pa.int64(),
    "host_gpu_model": pa.string(), "host_gpu_driver": pa.string(), "host_gpu_count": pa.int64(),
    "host_gpu_reason": pa.string(), "host_clang_version": pa.string(), "host_mirtune_version": pa.string(),
    "host_python_version": pa.string(), "host_ray_version": pa.string(), "host_os": pa.string(),
}


def schema_for(columns: Mapping[str, pa.DataType]) -> pa.Schema:
    """The Parquet schema of a sweep's rows: identity, the sweep's own columns, the measurement, the host."""
    fields: list[tuple[str, pa.DataType]] = [
        ("point_id", pa.string()), ("sweep", pa.string()), ("program", pa.string()),
        ("program_path", pa.string()), ("program_sha256", pa.string()), ("input_size", pa.int64()),
        ("is_default", pa.bool_()),
    ]
    fields += list(columns.items())
    fields += list(MEASUREMENT_COLUMNS.items())
    fields += [("repeats", pa.int64()), ("warmup", pa.int64()), ("timeout_s", pa.float64()),
               ("build_key", pa.string()), ("build_s", pa.float64()), ("build_cached", pa.bool_()),
               ("node_id", pa.string()), ("run_start", pa.float64()), ("run_end", pa.float64())]
    fields += list(HOST_COLUMNS.items())
    fields += [("timestamp", pa.string())]
    return pa.schema(fields)


def point_row(point: Point, m: Measurement, build: dict[str, Any], columns: Mapping[str, Any],
        settings: Mapping[str, Any], host: Mapping[str, Any], node_id: str | None) -> dict[str, Any]:
    """The dataset row of one measured point: identity, the point's and the build's columns, the measurement,
    the settings, the host and the time."""
    from mirtune.measure.host import timestamp

    row: dict[str, Any] = {
        "point_id": point.point_id, "sweep": point.sweep, "program": point.program,
        "program_path": point.program_path, "program_sha256": point.program_sha256,
        "input_size": point.input_size, "is_default": point.is_default,
    }
    row.update(point.params)
    row.update(columns)
    row.update(point.columns)
    row.update(m.row())
    row.update({"repeats": settings["repeats"], "warmup": settings["warmup"],
                "timeout_s": settings["limits"].timeout_s, "build_key": point.build_key,
                "build_s": build.get("seconds"), "build_cached": build.get("cached"), "node_id": node_id})
    row.update(host)
    row["timestamp"] = timestamp()
    return row


def read_rows(out_dir: str | os.PathLike) -> "Any":
    """Every row in `out_dir`'s part files as a pandas DataFrame, one row per point id: the latest
    (`mirtune.tasks.measured.oldest_first`, the rule of every reader of these rows)."""
    import pandas as pd

    tables = read_parts(out_dir)
    if not tables:
        return pd.DataFrame()
    df = oldest_first(pa.concat_tables(tables, promote_options="permissive").to_pandas())
    return df.drop_duplicates("point_id", keep="last").reset_index(drop=True)


def read_parts(out_dir: str | os.PathLike) -> list[pa.Table]:
    """The part files of `out_dir` (unreadable ones are skipped with a warning on stderr)."""
    out = []
    for path in sorted(Path(out_dir).glob(PART_GLOB)):
        try:
            out.append(pq.read_table(path))
        except Exception as exc:
            print(f"warning: skipping unreadable {path}: {exc}", file=sys.stderr)
    return out


def compact(out_dir: str | os.PathLike) -> tuple[int, int]:
    """Rewrite the part files of `out_dir` as one (one row per point id, the latest wins); (files before, rows).

    Holds the directory lock, so it never runs beside a sweep writing there. The new file is written (atomically)
    before the old ones are removed; a part file that cannot be read is left alone.
    """
    import pandas as pd

    out = Path(out_dir)
    with dir_lock(out):
        paths, tables = [], []
        for path in sorted(out.glob(PART_GLOB)):
            try:
                tables.append(pq.read_table(path))
                paths.append(path)
            except Exception as exc:
                print(f"warning: leaving unreadable {path}: {exc}", file=sys.stderr)
        if len(paths) < 2:
            return len(paths), sum(t.num_rows for t in tables)
        table = pa.concat_tables(tables, promote_options="permissive")
        keys = pd.DataFrame({"point_id": table.column("point_id").to_pylist(),
                             "timestamp": table.column("timestamp").to_pylist()
                             if "timestamp" in table.column_names else [""] * table.num_rows})
        keys = oldest_first(keys).drop_duplicates("point_id", keep="last")
        table = table.take(pa.array(sorted(keys.index.tolist()), type=pa.int64()))
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        name = f"part-{stamp}-compact-{uuid.uuid4().hex[:8]}.parquet"
        write_kept_parquet(table, out / name)
        for path in paths:
            path.unlink()
        return len(paths), table.num_rows


def write_kept_parquet(table: pa.Table, path: str | os.PathLike) -> Path:
    """Write `table` to `path` atomically, encoded to be kept in git: zstd at level 19, every float column
    byte-stream split (lossless; about a fifth smaller than plain zstd on measured times)."""
    floats = [f.name if pa.types.is_floating(f.type) else f"{f.name}.list.element" for f in table.schema
              if pa.types.is_floating(f.type)
              or (pa.types.is_list(f.type) and pa.types.is_floating(f.type.value_type))]
    split = {name.split(".")[0] for name in floats}
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    pq.write_table(table, tmp, compression="zstd", compression_level=19,
                   use_dictionary=[n for n in table.column_names if n not in split],
                   use_byte_stream_split=floats)
    os.replace(tmp, path)
    return path


def dir_lock(out_dir: str | os.PathLike) -> DirLock:
    """The lock that keeps a second sweep (or tuning) from writing into `out_dir` beside this one."""
    return DirLock(out_dir, LOCK_NAME, "sweep")


class PartWriter:
    """Buffers rows and writes them as new Parquet part files, each atomically (temporary name, rename)."""

    def __init__(self, out_dir: Path, schema: pa.Schema, flush_every: int, flush_seconds: float) -> None:
        self.out_dir, self.schema = out_dir, schema
        self.flush_every, self.flush_seconds = max(1, flush_every), flush_seconds
        self.rows: list[dict[str, Any]] = []
        self.last = time.monotonic()
        self.files: list[Path] = []
        self.written = 0

    def add(self, row: dict[str, Any]) -> None:
        self.rows.append({name: row.get(name) for name in self.schema.names})
        if len(self.rows) >= self.flush_every:
            self.flush()

    def maybe_flush(self) -> None:
        if self.rows and time.monotonic() - self.last >= self.flush_seconds:
            self.flush()

    def flush(self) -> None:
        self.last = time.monotonic()
        if not self.rows:
            return
        table = pa.Table.from_pylist(self.rows, schema=self.schema)
        stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime())
        name = f"part-{stamp}-{uuid.uuid4().hex[:12]}.parquet"
        tmp = self.out_dir / f".{name}.tmp"
        pq.write_table(table, tmp)
        os.replace(tmp, self.out_dir / name)
        self.files.append(self.out_dir / name)
        self.written += len(self.rows)
        self.rows = []
