"""Graph-building throughput: mirtune's builder vs ProGraML's llvm2graph-10 on the same kernels.

Both run on one core over the device-mapping kernels, interleaved in the same run, several rounds;
the figures are medians over rounds. llvm2graph-10 is a C++ binary run once per file (how ProGraML's
Python API and its users call it), so its time includes a process start per file; mirtune runs in
one process. The same graphs read through llvmlite value by value (the builder's fallback reader) are timed too.
Prints the figures and saves them as JSON.

    .venv/bin/python benchmarks/bench_graph.py [--rounds 5] [--limit N] [--out benchmarks/results/graph.json]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import platform
import pstats
import statistics
import subprocess
import sys
import time
from pathlib import Path

from mirtune.ir.graph import build_graph
from mirtune.ir.module import IRModule
from mirtune.ir.reference import find_llvm2graph
from mirtune.paths import devmap_kernel_files, write_result


def _files(limit: int | None) -> list[Path]:
    files = devmap_kernel_files()
    return files[:limit] if limit else files


def time_mirtune(texts: list[tuple[str, str]]) -> float:
    """Seconds to parse and build every graph in this process."""
    t0 = time.perf_counter()
    for name, text in texts:
        build_graph(IRModule.from_text(text, name))
    return time.perf_counter() - t0


def time_llvmlite_reader(texts: list[tuple[str, str]]) -> float:
    """Seconds for the same graphs read through llvmlite value by value (the builder's fallback)."""
    t0 = time.perf_counter()
    for name, text in texts:
        build_graph(IRModule.from_text(text, name), reader="llvm")
    return time.perf_counter() - t0


def time_llvm2graph(binary: str, files: list[Path]) -> float:
    """Seconds to run llvm2graph-10 once per file (JSON to a pipe, as ProGraML's API reads it)."""
    t0 = time.perf_counter()
    for path in files:
        with open(path, "rb") as f:
            subprocess.run([binary, "--stdout_fmt=json"], stdin=f, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - t0


def profile_split(texts: list[tuple[str, str]]) -> dict[str, float]:
    """Where mirtune's time goes: parsing, printing/normalising, graph construction (share of total)."""
    parse = norm = build = 0.0
    for name, text in texts:
        t0 = time.perf_counter()
        m = IRModule.from_text(text, name)
        t1 = time.perf_counter()
        m.functions  # printing + normalising statements (cached)
        t2 = time.perf_counter()
        build_graph(m)
        t3 = time.perf_counter()
        parse, norm, build = parse + t1 - t0, norm + t2 - t1, build + t3 - t2
    total = parse + norm + build
    return {"parse": parse / total, "print_normalise": norm / total, "graph": build / total}


def ffi_share(texts: list[tuple[str, str]]) -> float:
    """Share of build time spent inside llvmlite's FFI layer (ctypes calls), from cProfile."""
    prof = cProfile.Profile()
    prof.enable()
    for name, text in texts:
        build_graph(IRModule.from_text(text, name))
    prof.disable()
    stats = pstats.Stats(prof)
    total = sum(v[2] for v in stats.stats.values())
    ffi = sum(v[2] for k, v in stats.stats.items() if "llvmlite" in k[0])
    return ffi / total if total else 0.0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--limit", type=int, default=None, help="use the first N kernels only")
    ap.add_argument("--out", default="benchmarks/results/graph.json")
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})  # one core, children too
    files = _files(args.limit)
    texts = [(str(p), p.read_text()) for p in files]
    binary = find_llvm2graph()
    time_mirtune(texts[:20])  # warm-up: imports, caches
    ours, ref, ratios, slow, reader_ratios = [], [], [], [], []
    for r in range(args.rounds):
        a = time_mirtune(texts)
        b = time_llvm2graph(binary, files)
        c = time_llvmlite_reader(texts)
        ours.append(len(files) / a)
        ref.append(len(files) / b)
        slow.append(len(files) / c)
        ratios.append(b / a)
        reader_ratios.append(c / a)
        print(f"round {r + 1}/{args.rounds}: mirtune {ours[-1]:.1f} files/s, llvm2graph-10 {ref[-1]:.1f} files/s, "
              f"ratio {ratios[-1]:.2f}; llvmlite reader {slow[-1]:.1f} files/s", file=sys.stderr)
    split = profile_split(texts)
    result = {
        "benchmark": "graph building, device-mapping kernels, one core",
        "files": len(files),
        "rounds": args.rounds,
        "mirtune_files_per_s_median": statistics.median(ours),
        "llvm2graph10_files_per_s_median": statistics.median(ref),
        "speed_ratio_median": statistics.median(ratios),
        "llvmlite_reader_files_per_s_median": statistics.median(slow),
        "text_over_llvmlite_reader_median": statistics.median(reader_ratios),
        "mirtune_time_split": split,
        "mirtune_ffi_share": ffi_share(texts[::5]),
        "host": {"cpu": platform.processor() or platform.machine(), "python": platform.python_version()},
        "date": time.strftime("%Y-%m-%d"),
        "command": "python " + " ".join(sys.argv),
    }
    print(f"mirtune:       {result['mirtune_files_per_s_median']:.1f} files/s (median of {args.rounds})")
    print(f"llvm2graph-10: {result['llvm2graph10_files_per_s_median']:.1f} files/s (median of {args.rounds})")
    print(f"ratio (mirtune / llvm2graph-10, same round): {result['speed_ratio_median']:.2f}")
    print(f"operands read from the printed text vs through llvmlite ({result['llvmlite_reader_files_per_s_median']:.1f}"
          f" files/s): {result['text_over_llvmlite_reader_median']:.2f}x")
    print("mirtune time split: " + ", ".join(f"{k} {v:.0%}" for k, v in split.items())
          + f"; llvmlite FFI calls {result['mirtune_ffi_share']:.0%} of it")
    write_result(args.out, result)
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
