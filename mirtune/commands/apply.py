"""`mirtune apply`: write a configuration into a copy of a program's source.

    mirtune apply app.c --task openmp --config threads=2,schedule=dynamic,chunk=8 -o app.tuned.c
    mirtune apply kernel.c --task vectorize --config vf=8,if=2 --line 42 -o kernel.tuned.c

openmp: writes `schedule(dynamic,8)` into every OpenMP worksharing loop of app.c that has no schedule clause of
its own (see mirtune.source.openmp), and prints the `OMP_NUM_THREADS=2` to run it with. Without `schedule` in
the config, the loops get `schedule(runtime)` so that OMP_SCHEDULE decides.
vectorize: puts `#pragma clang loop vectorize_width(8) interleave_count(2)` before the loop that starts on line
42 (or, without --line, in place of each MIRTUNE_LOOP_PRAGMA marker of a collector kernel).
The input file is never overwritten.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from mirtune.errors import UsageError

# where the loop pragma is written (mirtune.predict.tune and collectors.gccvect read them from here)
from mirtune.source.loops import LOOP_MARKER, NothingToTune, apply_loop_pragma, insert_before_loop  # noqa: F401
from mirtune.tasks import registry

SOURCE_SUFFIXES = frozenset({".c", ".cc", ".cpp", ".cxx", ".C", ".c++", ".h", ".hh", ".hpp", ".hxx"})


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "apply", help="write a configuration into a copy of a program's source",
        description=__doc__.strip().splitlines()[0])
    p.add_argument("source", help="C or C++ source file (left unchanged)")
    default = registry.names(kind=registry.MEASURED)[0]
    p.add_argument("--task", default=default, help=registry.listing("{tasks} (default: %s)" % default, applies=True))
    p.add_argument("--config", required=True, metavar="KEY=VALUE,...",
                   help=registry.listing("the configuration: {each}", each="for --task {task.name}: "
                                         "{task.apply_help}", applies=True))
    p.add_argument("-o", "--output", metavar="PATH",
                   help="where to write the rewritten source ('-' for stdout; default: NAME.tuned.EXT beside it)")
    p.add_argument("--line", type=int, default=None, metavar="N",
                   help=registry.listing("{tasks}: the line where the loop to tune starts (its `for`)",
                                         takes_line=True))
    p.set_defaults(func=run)


def _default_output(src: Path) -> Path:
    return src.with_name(f"{src.stem}.tuned{src.suffix}")


def _same_file(a: Path, b: Path) -> bool:
    try:
        if b.exists() and os.path.samefile(a, b):
            return True
    except OSError:
        pass
    return a.resolve() == b.resolve()


def _write(out: Path | None, text: str, to_stdout: bool) -> None:
    if to_stdout:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    assert out is not None
    try:
        with open(out, "w", encoding="utf-8", errors="surrogateescape", newline="") as fh:
            fh.write(text)
    except OSError as exc:
        raise UsageError(f"cannot write: {exc.strerror or exc}", str(out)) from None


def run(args: argparse.Namespace) -> int:
    task = registry.get(args.task, applies=True)
    if args.line is not None and not task.takes_line:
        raise UsageError(f"--line applies to --task {' or '.join(registry.names(takes_line=True))}")
    config = task.parse_config(args.config)
    src = Path(args.source)
    if not src.exists():
        raise UsageError("no such file", str(src))
    if not src.is_file():
        raise UsageError("not a regular file", str(src))
    if src.suffix not in SOURCE_SUFFIXES:
        raise UsageError("apply rewrites C/C++ source (.c, .cpp, ...); for IR, apply the configuration to the "
                         "program it was compiled from", str(src))
    to_stdout = args.output == "-"
    out = None if to_stdout else Path(args.output) if args.output else _default_output(src)
    if out is not None and _same_file(src, out):
        raise UsageError("refusing to overwrite the input file; choose another -o", str(src))
    if out is not None:
        from mirtune.paths import check_output

        check_output(out, "file", "-o")
    # newline="" and surrogateescape keep every byte of the file as it was (CRLF, Latin-1 comments...).
    with open(src, encoding="utf-8", errors="surrogateescape", newline="") as fh:
        text = fh.read()
    try:
        new_text, what, details, warnings = task.apply(text, config, args.line)
    except NothingToTune as exc:
        exc.path = str(src)
        raise
    info = sys.stderr if to_stdout else sys.stdout
    for problem in warnings:
        print(f"mirtune apply: warning: {src}: {problem}", file=sys.stderr)
    _write(out, new_text, to_stdout)
    print(f"{'stdout' if to_stdout else out}: {what}", file=info)
    for line in details:
        print(line, file=info)
    return 0
