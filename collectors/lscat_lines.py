"""LS-CAT's harness output, one line per point, turned into the `lscat` sweep's rows.

An LS-CAT `main.cu` loops over matrix sizes and block shapes itself and prints, per point,
`[<microseconds for 1000 launches>,(BX,BY),(XSIZE,YSIZE)]`. mirtune's generated kernels (collectors/cudagen.py)
print the same line with optional fields after it (` checksum=0x... reps=R batches=ms,ms,ms`), and
`[error,(BX,BY),(X,Y)] <CUDA error>` for a block they cannot launch. `harness_rows` makes one row per expected
(matrix, block) point of one run of one kernel: `ok`, `wrong_output` (a checksum other than the default block's at
the same size, or no line for the point), `crash` (the launch failed, or the process died before the point),
`timeout`, or `unsupported` (no clean default block to compare against). `reported_median` is milliseconds per
launch, as in the rows of `mirtune collect lscat`, so the same loaders read both.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from collectors.lscat import DEFAULT_BLOCK, SWEEP
from mirtune.measure.records import point_id
from mirtune.measure.sandbox import ProcessRun
from mirtune.tasks.measured import spread
_LINE = re.compile(r"^\[\s*(?P<t>[-+0-9.eE]+|error)\s*,\s*\(\s*(?P<bx>\d+)\s*,\s*(?P<by>\d+)\s*\)\s*,"
                   r"\s*\(\s*(?P<x>\d+)\s*,\s*(?P<y>\d+)\s*\)\s*\](?P<rest>.*)$")


@dataclass
class HarnessPoint:
    """One printed point: the block and matrix, the time (None for an error line) and the optional fields."""

    block: tuple[int, int]
    matrix: tuple[int, int]
    us_per_1000: float | None
    error: str | None = None
    checksum: str | None = None
    reps: int | None = None
    batches_ms: list[float] = field(default_factory=list)

    @property
    def ms_per_launch(self) -> float | None:
        """Milliseconds per launch (LS-CAT prints microseconds for 1000 launches)."""
        return None if self.us_per_1000 is None else self.us_per_1000 * 1e-6


def parse_line(line: str) -> HarnessPoint | None:
    """One harness line as a point; None for a line that is not one (anything else a program prints)."""
    m = _LINE.match(line.strip())
    if m is None:
        return None
    block, matrix, rest = (int(m["bx"]), int(m["by"])), (int(m["x"]), int(m["y"])), m["rest"].strip()
    if m["t"] == "error":
        return HarnessPoint(block, matrix, None, error=rest or "launch failed")
    try:
        t = float(m["t"])
    except ValueError:
        return None
    if not t > 0:
        return None
    fields = dict(kv.split("=", 1) for kv in rest.split() if "=" in kv)
    batches: list[float] = []
    try:
        batches = [float(v) for v in fields.get("batches", "").split(",") if v]
        reps = int(fields["reps"]) if "reps" in fields else None
    except ValueError:
        reps = None
    return HarnessPoint(block, matrix, t, checksum=fields.get("checksum"), reps=reps, batches_ms=batches)


def parse_output(stdout: str) -> list[HarnessPoint]:
    """Every point line of a harness's standard output, in order (a point printed twice: the last wins)."""
    found: dict[tuple[tuple[int, int], tuple[int, int]], HarnessPoint] = {}
    for line in stdout.splitlines():
        p = parse_line(line)
        if p is not None:
            found[(p.matrix, p.block)] = p
    return list(found.values())


def _process_reason(run: ProcessRun) -> tuple[str, str]:
    if run.timed_out:
        return "timeout", "the harness ran past its time limit; process group killed before this point"
    if run.signal is not None:
        return "crash", f"the harness was killed by {run.signal} before this point"
    if run.exit_code:
        last = (run.stderr.strip().splitlines() or [""])[-1][:200]
        return "crash", f"the harness exited with status {run.exit_code} before this point" + (f": {last}" if last else "")
    return "wrong_output", "the harness printed no line for this point"


def harness_rows(*, program: str, program_path: str, program_sha256: str, run: ProcessRun,
                 matrices: Sequence[int], blocks: Sequence[tuple[int, int]], columns: Mapping[str, Any],
                 reported_key: str = "us_per_1000_launches") -> list[dict[str, Any]]:
    """One row per (matrix, block) point expected from one run of one kernel's harness (see the module doc).

    `columns` are added to every row (host, build, run settings). Rows follow the `lscat` sweep's schema, so the
    point ids are those `mirtune collect lscat` gives the same (kernel, matrix, block)."""
    printed = {(p.matrix[0], p.block): p for p in parse_output(run.stdout) if p.matrix[0] == p.matrix[1]}
    rows = []
    for m in matrices:
        ref = printed.get((m, DEFAULT_BLOCK))
        ref_ok = ref is not None and ref.error is None
        for bx, by in [DEFAULT_BLOCK] + [b for b in blocks if b != DEFAULT_BLOCK]:
            is_default = (bx, by) == DEFAULT_BLOCK
            p = printed.get((m, (bx, by)))
            row: dict[str, Any] = {
                "point_id": point_id(SWEEP, program, program_sha256, m, {"block_x": bx, "block_y": by}, is_default),
                "sweep": SWEEP, "program": program, "program_path": program_path, "program_sha256": program_sha256,
                "input_size": m, "is_default": is_default, "block_x": bx, "block_y": by, "block_threads": bx * by,
                "matrix_x": m, "matrix_y": m, "reported_key": reported_key, "exit_code": run.exit_code,
                "signal": run.signal, "reference_checksum": ref.checksum if ref_ok and ref is not None else None,
                **columns}
            if p is None:
                row["status"], row["reason"] = _process_reason(run)
            elif p.error is not None:
                row["status"], row["reason"] = "crash", f"launch failed: {p.error}"[:300]
            elif not is_default and not ref_ok:
                row["status"] = "unsupported"
                row["reason"] = "no reference: the default block (16,16) " + (
                    "was not printed" if ref is None else f"failed ({ref.error})")
            elif not is_default and ref is not None and ref.checksum != p.checksum:
                row["status"], row["reason"] = "wrong_output", f"checksum {p.checksum} != the default's {ref.checksum}"
            else:
                row["status"], row["reason"] = "ok", ""
            if p is not None and p.error is None:
                times = p.batches_ms or [p.ms_per_launch]
                row.update({"checksum": p.checksum, "reported": times, "cv": spread(times),
                            "reported_median": p.ms_per_launch})
            rows.append(row)
    return rows
