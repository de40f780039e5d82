"""`mirtune compile SRC -o OUT.ll`: C, C++, OpenCL or CUDA device code to LLVM IR text."""

from __future__ import annotations

import argparse
import sys

from mirtune.ir.frontend import LANGS


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("compile", help="compile a source file to LLVM IR (.ll)")
    p.add_argument("source", help="a .c .cpp .cl or .cu file")
    p.add_argument("-o", "--output", help="output .ll (default: stdout)")
    p.add_argument("--lang", choices=LANGS, help="source language (default: from the extension)")
    p.add_argument("-O", dest="opt", type=int, default=2, choices=range(4), metavar="{0,1,2,3}",
                   help="optimisation level (default 2)")
    p.add_argument("--openmp", action=argparse.BooleanOptionalAction, default=None,
                   help="compile with -fopenmp (default: when the source uses OpenMP, e.g. `#pragma omp`)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mirtune.ir.frontend import compile_to_ir, resolve_openmp
    from mirtune.paths import check_output

    if args.output is not None:
        check_output(args.output, "file")
    openmp, detected = resolve_openmp(args.source, args.openmp, args.lang)
    if detected:
        print(f"mirtune compile: {args.source} uses OpenMP (#pragma omp): compiling it with -fopenmp "
              "(--no-openmp compiles it serially)", file=sys.stderr)
    text = compile_to_ir(args.source, args.output, lang=args.lang, opt=args.opt, openmp=openmp)
    if args.output is None:
        sys.stdout.write(text)
    else:
        print(f"wrote {args.output} ({len(text.splitlines())} lines)", file=sys.stderr)
    return 0
