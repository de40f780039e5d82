"""LS-CAT harness lines -> lscat rows, on the output of real processes."""

from __future__ import annotations

import sys

from collectors.lscat_lines import harness_rows, parse_line, parse_output
from mirtune.measure.records import point_id
from mirtune.measure.sandbox import RunLimits, run_once


def test_parse_lscat_and_extended_lines():
    p = parse_line("[12345.6,(16,16),(240,240)]")
    assert p.block == (16, 16) and p.matrix == (240, 240) and abs(p.ms_per_launch - 0.0123456) < 1e-12
    q = parse_line("[2000.000,(1,64),(496,496)] checksum=0xabc reps=7 batches=0.002,0.0021,0.0019")
    assert q.checksum == "0xabc" and q.reps == 7 and q.batches_ms == [0.002, 0.0021, 0.0019]
    e = parse_line("[error,(32,32),(240,240)] cudaErrorLaunchOutOfResources")
    assert e.us_per_1000 is None and e.error == "cudaErrorLaunchOutOfResources"
    for bad in ("kernel_ms: 1.0", "[nan,(1,1),(2,2)]", "[-3,(1,1),(2,2)]", "[1,(1,1)]", ""):
        assert parse_line(bad) is None


def printing(lines: list[str], exit_code: int = 0, sleep: float = 0.0) -> list[str]:
    code = f"import sys, time\nfor l in {lines!r}: print(l, flush=True)\ntime.sleep({sleep})\nsys.exit({exit_code})"
    return [sys.executable, "-c", code]


def rows_of(cmd: list[str], timeout: float = 30.0) -> dict[tuple[int, tuple[int, int]], dict]:
    run = run_once(cmd, limits=RunLimits(timeout_s=timeout, limit_address_space=False))
    rows = harness_rows(program="fam/k1", program_path="/x/fam/k1", program_sha256="s" * 64, run=run,
                        matrices=[240, 496], blocks=[(16, 16), (8, 8), (1, 64)], columns={"family": "fam"})
    assert len(rows) == 6 and all(r["family"] == "fam" for r in rows)
    return {(r["input_size"], (r["block_x"], r["block_y"])): r for r in rows}


def test_rows_ok_wrong_crash_and_missing():
    rows = rows_of(printing([
        "[1000,(16,16),(240,240)] checksum=0x1 reps=3 batches=0.001,0.001,0.001",
        "[500,(8,8),(240,240)] checksum=0x1 reps=3 batches=0.0005,0.0006,0.0005",
        "[700,(1,64),(240,240)] checksum=0x2",
        "[error,(16,16),(496,496)] cudaErrorInvalidConfiguration",
        "[900,(8,8),(496,496)] checksum=0x9",
    ]))
    ok = rows[(240, (8, 8))]
    assert ok["status"] == "ok" and ok["reported_median"] == 500e-6 and ok["reported"] == [0.0005, 0.0006, 0.0005]
    assert ok["point_id"] == point_id("lscat", "fam/k1", "s" * 64, 240, {"block_x": 8, "block_y": 8}, False)
    assert rows[(240, (16, 16))]["is_default"] and rows[(240, (16, 16))]["status"] == "ok"
    assert rows[(240, (1, 64))]["status"] == "wrong_output"
    assert rows[(496, (16, 16))]["status"] == "crash" and "InvalidConfiguration" in rows[(496, (16, 16))]["reason"]
    assert rows[(496, (8, 8))]["status"] == "unsupported"       # no clean default to compare with
    assert rows[(496, (1, 64))]["status"] == "wrong_output"     # never printed, the process ended cleanly


def test_a_harness_that_dies_or_hangs_leaves_its_printed_points():
    died = rows_of(printing(["[1000,(16,16),(240,240)] checksum=0x1"], exit_code=3))
    assert died[(240, (16, 16))]["status"] == "ok"
    assert died[(240, (8, 8))]["status"] == "crash" and "status 3" in died[(240, (8, 8))]["reason"]
    hung = rows_of(printing(["[1000,(16,16),(240,240)]"], sleep=60), timeout=1.0)
    assert hung[(240, (16, 16))]["status"] == "ok"
    assert hung[(496, (8, 8))]["status"] == "timeout"


def test_parse_output_keeps_the_last_of_a_repeated_point():
    pts = parse_output("noise\n[1,(8,8),(240,240)]\n[2,(8,8),(240,240)]\n")
    assert len(pts) == 1 and pts[0].us_per_1000 == 2.0
