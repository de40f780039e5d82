"""IR loading time against module size: parse, normalised statements (with the content hash), program graph.

Generates modules of N defined functions (each a small loop with a phi, a getelementptr into its own global, a
load, a call to the previous function and a switch: about 650 bytes of IR per function) and times, in one
process, parsing (llvmlite), the normalised statements and their hash (mirtune.ir.module), and the ProGraML
graph (mirtune.ir.graph). Each size is timed over several rounds; the figures are medians. Loading used to
print each function through llvmlite, which costs time in proportion to the whole module: the old path is
still there (`IRModule._functions_one_by_one`) and is timed on the smaller sizes for comparison.

What matters is the growth from one size to the next (linear: 4x the functions, 4x the time); absolute
seconds depend on the machine and on whatever else runs on it.

    .venv/bin/python benchmarks/bench_ir_load.py [--sizes 1000 4000 16000] [--rounds 3] [--big 80000]
        [--old-up-to 4000] [--out benchmarks/results/ir_load.json]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time

from mirtune.paths import write_result
from mirtune.ir.graph import build_graph
from mirtune.ir.module import IRModule


def generate(n: int) -> str:
    """LLVM IR text of a module with n globals and n defined functions calling one another in a chain."""
    parts = ['target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"',
             'target triple = "x86_64-pc-linux-gnu"', "%struct.P = type { i32, double }", "declare i32 @ext(i32)"]
    parts += [f"@g{i} = global [4 x i32] [i32 {i}, i32 1, i32 2, i32 3], align 16" for i in range(n)]
    for i in range(n):
        callee = f"@f{i - 1}" if i else "@ext"
        parts.append(f"""define i32 @f{i}(i32 %n, ptr %p) #0 {{
entry:
  %s = alloca %struct.P, align 8
  br label %loop
loop:
  %i = phi i32 [ 0, %entry ], [ %inc, %body ]
  %acc = phi i32 [ 0, %entry ], [ %add, %body ]
  %c = icmp slt i32 %i, %n
  br i1 %c, label %body, label %exit
body:
  %gep = getelementptr inbounds [4 x i32], ptr @g{i}, i64 0, i32 %i
  %v = load i32, ptr %gep, align 4
  %add = add nsw i32 %acc, %v
  %inc = add nuw nsw i32 %i, 1
  br label %loop
exit:
  %r = call i32 {callee}(i32 %acc)
  switch i32 %r, label %d [
    i32 1, label %d
    i32 2, label %d
  ]
d:
  ret i32 %r
}}""")
    parts.append("attributes #0 = { noinline nounwind }")
    return "\n".join(parts) + "\n"


def time_once(text: str, graph: bool = True) -> dict[str, float]:
    """Seconds to parse, to get the statements and hash, and to build the graph, of one module."""
    t0 = time.perf_counter()
    m = IRModule.from_text(text)
    t1 = time.perf_counter()
    m.statements()
    m.content_hash
    t2 = time.perf_counter()
    if graph:
        build_graph(m)
    t3 = time.perf_counter()
    return {"parse_s": t1 - t0, "statements_s": t2 - t1, "load_s": t2 - t0,
            **({"graph_s": t3 - t2, "total_s": t3 - t0} if graph else {})}


def time_old_statements(text: str) -> float:
    """Seconds for the functions' statements printed one function at a time (the path loading used before)."""
    m = IRModule.from_text(text)
    t0 = time.perf_counter()
    m._functions_one_by_one()
    return time.perf_counter() - t0


def _median(rows: list[dict[str, float]]) -> dict[str, float]:
    return {k: statistics.median(r[k] for r in rows) for k in rows[0]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1000, 4000, 16000], help="functions per module")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--big", type=int, default=80000,
                    help="also time one module of this many functions (80000: about 52 MB), one round; 0: skip")
    ap.add_argument("--big-graph", action="store_true", help="build the big module's graph too (minutes, GBs)")
    ap.add_argument("--old-up-to", type=int, default=4000,
                    help="time the old per-function printing on the sizes up to this many functions")
    ap.add_argument("--out", default="benchmarks/results/ir_load.json")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core
    time_once(generate(50))  # warm-up: imports, caches
    results = []
    for n in args.sizes:
        text = generate(n)
        rows = []
        for r in range(args.rounds):
            rows.append(time_once(text))
            print(f"{n} functions, round {r + 1}/{args.rounds}: " + ", ".join(
                f"{k} {v:.2f}" for k, v in rows[-1].items()), file=sys.stderr)
        row = {"functions": n, "megabytes": len(text) / 1e6, "rounds": args.rounds, **_median(rows)}
        if n <= args.old_up_to:
            row["old_statements_s"] = statistics.median(time_old_statements(text) for _ in range(args.rounds))
        results.append(row)
    big = None
    if args.big:
        text = generate(args.big)
        big = {"functions": args.big, "megabytes": len(text) / 1e6, "rounds": 1,
               **time_once(text, graph=args.big_graph)}
        del text
    ratios = [{"functions": f"{a['functions']} -> {b['functions']}", "size_ratio": b["functions"] / a["functions"],
               "load_time_ratio": b["load_s"] / a["load_s"], "graph_time_ratio": b["graph_s"] / a["graph_s"]}
              for a, b in zip(results, results[1:])]
    result = {
        "benchmark": "IR loading time against the number of functions, generated modules, one core",
        "sizes": results,
        "growth": ratios,
        "big_module": big,
        "note": "timed on a shared 2-core machine; the growth ratios are the robust figure",
        "host": {"cpu": platform.processor() or platform.machine(), "python": platform.python_version(),
                 "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None},
        "date": time.strftime("%Y-%m-%d"),
        "command": "python " + " ".join(sys.argv),
    }
    print(f"{'functions':>9} {'MB':>6} {'parse s':>8} {'stmts s':>8} {'load s':>8} {'graph s':>8} {'old stmts s':>11}")
    for row in results + ([big] if big else []):
        old = f"{row['old_statements_s']:11.2f}" if "old_statements_s" in row else f"{'-':>11}"
        graph = f"{row['graph_s']:8.2f}" if "graph_s" in row else f"{'-':>8}"
        print(f"{row['functions']:>9} {row['megabytes']:6.1f} {row['parse_s']:8.2f} {row['statements_s']:8.2f} "
              f"{row['load_s']:8.2f} {graph} {old}")
    for r in ratios:
        print(f"{r['functions']}: {r['size_ratio']:.0f}x the functions, load {r['load_time_ratio']:.1f}x the time, "
              f"graph {r['graph_time_ratio']:.1f}x")
    write_result(args.out, result)
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
