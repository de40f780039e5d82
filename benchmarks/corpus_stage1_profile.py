"""Where the corpus build's stage 1 spends its time: every variant of a sample of the corpus's real sources,
compiled and analysed in one process exactly as a Ray task does it (`mirtune.pretrain.corpus.process_program`),
with the time split between clang, opt and mirtune's own analysis (parsing, statements, graph), and a clang run
on an empty file for the start-up cost of one compiler process.

    .venv/bin/python benchmarks/corpus_stage1_profile.py [--sources build/corpus-real-sources.txt] [--every 80]

Run it alone: it times processes. Prints the split; saves JSON (benchmarks/results/corpus_stage1_profile.json).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mirtune.ir import frontend, graph, module  # noqa: E402
from mirtune.pretrain import corpus  # noqa: E402
from mirtune.paths import write_result  # noqa: E402

SETTINGS = {"opt_levels": [0, 1, 2, 3], "pipelines": list(corpus.DEFAULT_PIPELINES), "max_statements": 4096,
            "opt_timeout": 60.0}


def timed(spent: dict[str, float], calls: dict[str, int], key: str, fn: Callable) -> Callable:
    """`fn`, adding its wall time to spent[key] on every call."""
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            spent[key] += time.perf_counter() - t0
            calls[key] += 1
    return wrapper


def empty_file_clang(rounds: int = 20) -> float:
    """Median seconds of clang compiling an empty C function to IR: one compiler process's fixed cost."""
    clang = frontend.find_clang().path
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "e.c"
        src.write_text("int main(void) { return 0; }\n")
        times = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            subprocess.run([clang, "-S", "-emit-llvm", "-O0", str(src), "-o", "/dev/null"], check=True)
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sources", default=str(REPO / "build" / "corpus-real-sources.txt"),
                    help="the corpus's list of sources (scripts/gcc_corpus_sources.py --select)")
    ap.add_argument("--every", type=int, default=80, help="take every N-th source (default 80)")
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "corpus_stage1_profile.json"))
    args = ap.parse_args()
    if not Path(args.sources).is_file():
        print(f"corpus_stage1_profile: {args.sources}: no such file (make it with scripts/gcc_corpus_sources.py "
              "--select)", file=sys.stderr)
        return 2
    listed = Path(args.sources).read_text().split()
    specs, _ = corpus._source_specs(listed[::args.every], None)
    settings = dict(SETTINGS, opt=corpus.find_opt())
    spent: dict[str, float] = defaultdict(float)
    calls: dict[str, int] = defaultdict(int)
    corpus._run_opt = timed(spent, calls, "opt", corpus._run_opt)
    frontend.compile_to_ir = timed(spent, calls, "clang", frontend.compile_to_ir)
    corpus.parse_ir = timed(spent, calls, "parse (llvmlite)", corpus.parse_ir)
    module.IRModule.statements = timed(spent, calls, "statements", module.IRModule.statements)
    graph.build_graph = timed(spent, calls, "graph", graph.build_graph)
    t0 = time.perf_counter()
    rows = [r for s in specs for r in corpus.process_program(s, settings)]
    wall = time.perf_counter() - t0
    startup = empty_file_clang()
    ok = sum(r["status"] == "ok" for r in rows)
    print(f"{len(specs)} programs, {len(rows)} variants ({ok} ok) in {wall:.1f} s on one core: "
          f"{len(rows) / wall:.1f} variants/s")
    parts = {k: round(v, 2) for k, v in spent.items()}
    parts["other (temporary files, rows)"] = round(wall - sum(spent.values()), 2)
    for k, v in parts.items():
        print(f"  {k:32s} {v:7.1f} s  {100 * v / wall:5.1f}%  ({calls.get(k, 0)} calls)")
    print(f"clang on an empty file: {1000 * startup:.0f} ms; per clang call here: "
          f"{1000 * spent['clang'] / max(1, calls['clang']):.0f} ms")
    write_result(Path(args.out), {"programs": len(specs), "variants": len(rows), "ok": ok, "wall_s": round(wall, 2),
                                  "seconds": parts, "calls": dict(calls), "empty_clang_s": round(startup, 4),
                                  "every": args.every, "sources": args.sources})
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
