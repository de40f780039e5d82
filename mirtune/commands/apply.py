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

from mirtune.errors import MirtuneError, UsageError
from mirtune.source.openmp import LIMITS as OPENMP_LIMITS

TASKS = ("openmp", "vectorize")
CONFIG_KEYS = ("threads", "schedule", "chunk")
LIMITS = {**OPENMP_LIMITS, "vf": 64, "if": 16}  # largest accepted values (tune and collect --space: the same)
LOOP_MARKER = "MIRTUNE_LOOP_PRAGMA"
SOURCE_SUFFIXES = frozenset({".c", ".cc", ".cpp", ".cxx", ".C", ".c++", ".h", ".hh", ".hpp", ".hxx"})


class NothingToTune(MirtuneError):
    """The program has no worksharing loop the configuration can reach."""


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "apply", help="write a configuration into a copy of a program's source",
        description=__doc__.strip().splitlines()[0],
        epilog="config keys for --task openmp: threads=N, schedule=static|dynamic|guided|auto|runtime, "
               "chunk=N (static, dynamic and guided only); for --task vectorize: vf=1|2|4..64, if=1|2|4..16")
    p.add_argument("source", help="C or C++ source file (left unchanged)")
    p.add_argument("--task", default="openmp", help="openmp (default) or vectorize")
    p.add_argument("--config", required=True, metavar="KEY=VALUE,...",
                   help="the configuration, e.g. threads=2,schedule=dynamic,chunk=8")
    p.add_argument("-o", "--output", metavar="PATH",
                   help="where to write the rewritten source ('-' for stdout; default: NAME.tuned.EXT beside it)")
    p.add_argument("--line", type=int, default=None, metavar="N",
                   help="vectorize: the line where the loop to tune starts (its `for`)")
    p.set_defaults(func=run)


def parse_config(text: str) -> dict[str, object]:
    """`threads=2,schedule=dynamic,chunk=8` (also `schedule=dynamic,8`) -> {"threads": 2, ...}."""
    from mirtune.source.openmp import SCHEDULE_KINDS

    items = [item.strip() for item in text.split(",")]
    raw: dict[str, str] = {}
    last = None
    for item in items:
        if not item:
            raise UsageError(f"bad --config {text!r}: empty item")
        if "=" not in item:
            if last == "schedule" and "chunk" not in raw:  # the OMP_SCHEDULE spelling: schedule=dynamic,8
                raw["chunk"] = item
                last = "chunk"
                continue
            raise UsageError(f"bad --config item {item!r}: expected KEY=VALUE")
        key, value = (part.strip() for part in item.split("=", 1))
        key = key.lower()
        if key not in CONFIG_KEYS:
            raise UsageError(f"unknown config key {key!r} for --task openmp; use {', '.join(CONFIG_KEYS)}")
        if key in raw:
            raise UsageError(f"config key {key!r} given twice")
        if not value:
            raise UsageError(f"config key {key!r} has no value")
        raw[key] = value
        last = key
    config: dict[str, object] = {}
    for key in ("threads", "chunk"):
        if key in raw:
            try:
                n = int(raw[key])
            except ValueError:
                raise UsageError(f"{key} must be a positive integer, got {raw[key]!r}") from None
            if n < 1:
                raise UsageError(f"{key} must be a positive integer, got {raw[key]!r}")
            if n > LIMITS[key]:
                raise UsageError(f"{key} must be at most {LIMITS[key]}, got {raw[key]}")
            config[key] = n
    if "schedule" in raw:
        kind = raw["schedule"].lower()
        if kind not in SCHEDULE_KINDS:
            raise UsageError(f"unknown schedule {raw['schedule']!r}; choose one of {', '.join(SCHEDULE_KINDS)}")
        config["schedule"] = kind
    if "chunk" in config:
        if "schedule" not in config:
            raise UsageError("chunk needs a schedule (schedule=static|dynamic|guided)")
        if config["schedule"] in ("auto", "runtime"):
            raise UsageError(f"schedule {config['schedule']} takes no chunk")
    if not config:
        raise UsageError("empty --config")
    return config


def parse_vectorize_config(text: str) -> dict[str, int]:
    """`vf=8,if=2` -> {"vf": 8, "if": 2}: powers of two, VF up to 64 and IF up to 16, both required."""
    out: dict[str, int] = {}
    for item in (i.strip() for i in text.split(",")):
        if "=" not in item:
            raise UsageError(f"bad --config item {item!r}: expected vf=N or if=N")
        key, value = (part.strip().lower() for part in item.split("=", 1))
        if key not in ("vf", "if"):
            raise UsageError(f"unknown config key {key!r} for --task vectorize; use vf, if")
        if key in out:
            raise UsageError(f"config key {key!r} given twice")
        try:
            n = int(value)
        except ValueError:
            raise UsageError(f"{key} must be a power of two, got {value!r}") from None
        if n < 1 or n & (n - 1) or n > LIMITS[key]:
            raise UsageError(f"{key} must be a power of two from 1 to {LIMITS[key]}, got {value}")
        out[key] = n
    if set(out) != {"vf", "if"}:
        raise UsageError("--task vectorize needs both vf=N and if=N")
    return out


def insert_before_loop(text: str, line: int, directive: str) -> str:
    """The source with `directive` on its own line before line `line` (1-based, indented as it), which must start
    a loop (for/while/do); UsageError otherwise."""
    lines = text.splitlines(keepends=True)
    if not 1 <= line <= len(lines):
        raise UsageError(f"--line {line} is outside the file (1..{len(lines)})")
    target = lines[line - 1]
    if not target.lstrip().startswith(("for", "while", "do")):
        raise UsageError(f"line {line} does not start a loop (for/while/do): {target.strip()[:60]!r}")
    indent = target[:len(target) - len(target.lstrip())]
    newline = "\r\n" if target.endswith("\r\n") else "\n"
    return "".join(lines[:line - 1] + [indent + directive + newline] + lines[line - 1:])


def apply_loop_pragma(text: str, vf: int, interleave: int, line: int | None) -> tuple[str, int]:
    """The source with the loop pragma before line `line` (1-based; indented as that line), else in place of every
    MIRTUNE_LOOP_PRAGMA marker; returns (text, number of loops it reaches). UsageError when there is nowhere."""
    from mirtune.tasks.vectorize import pragma

    directive = pragma(vf, interleave)
    lines = text.splitlines(keepends=True)
    if line is not None:
        return insert_before_loop(text, line, directive), 1
    count = sum(1 for ln in lines if ln.strip() == LOOP_MARKER)
    if not count:
        raise NothingToTune("no loop named: pass --line N, the line where the loop to vectorize starts")
    return "".join(ln.replace(LOOP_MARKER, directive) if ln.strip() == LOOP_MARKER else ln for ln in lines), count


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
    from mirtune.source.openmp import apply_config, make_schedule_runtime

    if args.task not in TASKS:
        raise UsageError(f"unknown task {args.task!r} for apply; supported: {', '.join(TASKS)}")
    if args.line is not None and args.task != "vectorize":
        raise UsageError("--line applies to --task vectorize")
    config = parse_vectorize_config(args.config) if args.task == "vectorize" else parse_config(args.config)
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

    if args.task == "vectorize":
        try:
            new_text, loops = apply_loop_pragma(text, config["vf"], config["if"], args.line)
        except NothingToTune as exc:
            exc.path = str(src)
            raise
        _write(out, new_text, to_stdout)
        print(f"{'stdout' if to_stdout else out}: vectorize_width({config['vf']}) interleave_count({config['if']}) "
              f"on {loops} loop{'s' if loops != 1 else ''}", file=sys.stderr if to_stdout else sys.stdout)
        return 0
    schedule = config.get("schedule")
    if schedule is None or schedule == "runtime":
        result = make_schedule_runtime(text)
        spec = "schedule(runtime)"
    else:
        result = apply_config(text, str(schedule), config.get("chunk"))  # type: ignore[arg-type]
        spec = f"schedule({schedule}{',' + str(config['chunk']) if 'chunk' in config else ''})"

    if not result.loops:
        raise NothingToTune("nothing to tune: no OpenMP worksharing loop (omp for / parallel for) in the program",
                            str(src))
    if result.tunable == 0:
        parts = [f"{result.fixed} fixed"] + ([f"{result.unparsed} unparsed"] if result.unparsed else [])
        raise NothingToTune(f"nothing to tune: none of the {len(result.loops)} worksharing loops can take a "
                            f"schedule ({', '.join(parts)}; lines "
                            f"{', '.join(str(lp.line) for lp in result.loops)})", str(src))

    info = sys.stderr if to_stdout else sys.stdout
    for problem in result.problems:
        print(f"mirtune apply: warning: {src}: {problem}", file=sys.stderr)
    _write(out, result.source, to_stdout)
    where = "stdout" if to_stdout else str(out)
    extra = [f"{result.fixed} fixed"] + ([f"{result.unparsed} unparsed"] if result.unparsed else [])
    print(f"{where}: {spec} in {result.tunable} of {len(result.loops)} worksharing loops "
          f"({', '.join(extra)})", file=info)
    for lp in result.loops:
        if lp.status != "tunable":
            print(f"  line {lp.line}: {lp.construct}: {lp.status}: {lp.reason}", file=info)
    if "threads" in config:
        print(f"OMP_NUM_THREADS={config['threads']}", file=info)
    return 0
