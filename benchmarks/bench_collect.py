"""The collector's overhead over bare runs of the same binaries.

For a few OpenMP programs at the small input size (and an empty program, which shows the fixed cost per run),
the binary the sweep builds is run N times bare (`subprocess.run`, output captured, nothing else) and N times
through the collector's runner (`mirtune.measure.measurement.measure`, one timed run per call: a private directory,
limits, the launcher, output files, checksum check, telemetry), interleaved run by run in the same process so
that both see the same machine. Three figures per program, medians over the N runs:
- bare: wall seconds of `subprocess.run` around the program;
- collector: wall seconds of the whole `measure` call around the same program (what a point costs);
- recorded: the runtime the collector writes into the dataset (the launcher's time from exec to exit).
overhead = collector / bare, and recorded / bare says whether the stored figure is biased against bare timing.
Prints the figures and saves them as JSON.

    .venv/bin/python benchmarks/bench_collect.py [--runs 10] [--threads 1] [--out benchmarks/results/collect.json]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mirtune.paths import write_result  # noqa: E402
from mirtune.measure.host import describe_host, timestamp  # noqa: E402
from mirtune.measure.build import BuildSpec, build  # noqa: E402
from mirtune.measure.measurement import measure  # noqa: E402
from mirtune.measure.sandbox import RunLimits, launcher, minimal_env  # noqa: E402

PROGRAMS = ("gemm", "jacobi_1d", "floyd_warshall", "mandelbrot")
EMPTY = '#include <stdio.h>\nint main(void) { printf("checksum: 0\\n"); return 0; }\n'


def build_all(names: list[str], cache: str) -> dict[str, str]:
    from mirtune.measure.openmp import rewrite_for_runtime_schedule

    exes = {}
    res = build(BuildSpec(name="empty", source=EMPTY), cache)
    assert res.status == "ok", res.reason
    exes["(empty program)"] = res.exe
    for name in names:
        path = REPO / "collectors" / "programs" / "openmp" / f"{name}.c"
        text, _, _ = rewrite_for_runtime_schedule(path.read_text())
        res = build(BuildSpec(name=name, source=text, defines={"MIRTUNE_SIZE": "1"}, openmp=True,
                              include_dirs=(str(path.parent),)), cache)
        if res.status != "ok":
            raise SystemExit(f"{name}: {res.reason}")
        exes[name] = res.exe
    return exes


def bench(exe: str, runs: int, env: dict[str, str]) -> dict[str, float]:
    bare, outer, recorded = [], [], []
    full_env = minimal_env(env, home=tempfile.gettempdir())
    limits = RunLimits(timeout_s=300)
    # one untimed run of each first (page cache, launcher build)
    subprocess.run([exe], env=full_env, capture_output=True, check=True)
    measure([exe], env, repeats=1, warmup=0, limits=limits)
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run([exe], env=full_env, capture_output=True)
        bare.append(time.perf_counter() - t0)
        assert proc.returncode == 0
        t0 = time.perf_counter()
        m = measure([exe], env, repeats=1, warmup=0, limits=limits)
        outer.append(time.perf_counter() - t0)
        assert m.status == "ok", m.reason
        recorded.append(m.runtimes_s[0])
    b, o, r = statistics.median(bare), statistics.median(outer), statistics.median(recorded)
    return {"bare_s": b, "collector_s": o, "recorded_s": r, "overhead_ratio": o / b,
            "overhead_ms_per_run": (o - b) * 1000.0, "recorded_over_bare": r / b, "runs": runs}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--runs", type=int, default=10, help="runs of each kind per program (default 10)")
    ap.add_argument("--threads", type=int, default=1, help="OMP_NUM_THREADS (default 1)")
    ap.add_argument("--programs", default=",".join(PROGRAMS), help="OpenMP programs (file stems), comma-separated")
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "collect.json"))
    args = ap.parse_args(argv)
    names = [n for n in args.programs.split(",") if n]
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="mirtune-bench-collect-") as cache:
        exes = build_all(names, cache)
        launcher()
        env = {"OMP_NUM_THREADS": str(args.threads)}
        results = {}
        for name, exe in exes.items():
            results[name] = r = bench(exe, args.runs, env)
            print(f"{name:>16}: bare {r['bare_s'] * 1000:8.2f} ms  collector {r['collector_s'] * 1000:8.2f} ms  "
                  f"recorded {r['recorded_s'] * 1000:8.2f} ms  overhead x{r['overhead_ratio']:.3f} "
                  f"(+{r['overhead_ms_per_run']:.1f} ms/run)  recorded/bare {r['recorded_over_bare']:.3f}",
                  flush=True)
    progs = [r for n, r in results.items() if n != "(empty program)"]
    summary = {"median_overhead_ratio_programs": statistics.median(r["overhead_ratio"] for r in progs),
               "median_overhead_ms_per_run_programs": statistics.median(r["overhead_ms_per_run"] for r in progs),
               "fixed_overhead_ms_empty_program": results["(empty program)"]["overhead_ms_per_run"],
               "median_recorded_over_bare_programs": statistics.median(r["recorded_over_bare"] for r in progs)}
    print(f"median over programs: overhead x{summary['median_overhead_ratio_programs']:.3f} "
          f"(+{summary['median_overhead_ms_per_run_programs']:.1f} ms per run); fixed cost per run "
          f"{summary['fixed_overhead_ms_empty_program']:.1f} ms; recorded/bare "
          f"{summary['median_recorded_over_bare_programs']:.3f}")
    host = describe_host()
    doc = {"benchmark": "bench_collect", "timestamp": timestamp(), "runs": args.runs, "threads": args.threads,
           "input_size": 1, "programs": results, "summary": summary,
           "loadavg_1m_start": load0, "loadavg_1m_end": os.getloadavg()[0],
           "host": {"cpu_model": host.cpu_model, "logical_cores": host.logical_cores, "os": host.os,
                    "python": platform.python_version(), "clang": host.clang_version},
           "note": "interleaved bare/collector runs in one process; the machine was shared with other jobs"}
    write_result(args.out, doc)
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
