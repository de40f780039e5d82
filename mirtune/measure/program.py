"""A user's program as mirtune builds and runs it: its source files, include folders, arguments, input files,
flags and output check; the checks made before anything runs, and how it becomes a build (`BuildSpec`) and a
dataset identity. `mirtune tune` and `recommend --profile` share it.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from mirtune.errors import UsageError
from mirtune.measure.check import OutputCheck

SOURCE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx")


@dataclass(frozen=True)
class Program:
    """A user's program as it is built and run.

    `args` are passed as they are (relative paths resolve in the run's private working folder, where `inputs`
    are written under their own names); `cflags` are added to clang's command line; `line` is the loop to
    vectorize (task vectorize; else the MIRTUNE_LOOP_PRAGMA markers), in `source`.

    A program of several files: `source` is the first, `extra_sources` the others; every file is compiled (the
    schedule(runtime) rewrite applied to each) and all are linked into one binary. `include_dirs` are searched
    for headers (clang's -I), after each file's own folder.
    """

    source: Path
    args: tuple[str, ...] = ()
    inputs: tuple[str, ...] = ()
    cflags: tuple[str, ...] = ()
    check: OutputCheck = OutputCheck("stdout", rtol=1e-6)
    timeout_s: float = 300.0
    line: int | None = None
    extra_sources: tuple[Path, ...] = ()
    include_dirs: tuple[Path, ...] = ()

    @property
    def sources(self) -> tuple[Path, ...]:
        """Every source file of the program, the first one first."""
        return (self.source, *self.extra_sources)

    @property
    def label(self) -> str:
        """The program in messages: its source, or its sources joined by ' + '."""
        return program_label(self.sources)


def check_source(src: Path) -> None:
    """UsageError (one line naming the file) unless `src` is a readable, non-empty C/C++ source file."""
    if not src.exists():
        raise UsageError("no such file", str(src))
    if not src.is_file() or src.suffix not in SOURCE_SUFFIXES:
        raise UsageError(f"not a C/C++ source file ({', '.join(SOURCE_SUFFIXES)})", str(src))
    data = src.read_bytes()
    if b"\0" in data[:8192]:
        raise UsageError("a binary file, not a C/C++ source", str(src))
    if not data.strip():
        raise UsageError("empty source file", str(src))


def check_program_files(sources: Sequence[Path], include_dirs: Sequence[Path] = ()) -> None:
    """UsageError (one line) for a source that `check_source` refuses, one given twice, or an --include that is
    not a folder."""
    seen: dict[Path, Path] = {}
    for src in sources:
        check_source(src)
        real = src.resolve()
        if real in seen:
            raise UsageError(f"given twice (also as {seen[real]})" if str(seen[real]) != str(src) else "given twice",
                             str(src))
        seen[real] = src
    for d in include_dirs:
        if not Path(d).is_dir():
            raise UsageError("--include: no such folder", str(d))


def prepare_program(program: Program) -> tuple[Program, dict[str, bytes], list[str]]:
    """Check a program before anything runs; (program, input files, notes).

    An argument that names an existing file which is not among the inputs is added to them and rewritten to its
    name (the program runs in a private folder, where it would not find it), with a note that says so.
    """
    src = program.source
    check_program_files(program.sources, program.include_dirs)
    own = {s.resolve() for s in program.sources}
    if not (program.timeout_s > 0 and math.isfinite(program.timeout_s)):
        raise UsageError("--timeout must be a positive number of seconds")
    notes: list[str] = []
    inputs = list(program.inputs)
    names = {Path(i).name for i in inputs}
    args = []
    for a in program.args:
        p = Path(a)
        if a and not a.startswith("-") and p.is_file() and p.name not in names and p.resolve() not in own:
            inputs.append(a)
            names.add(p.name)
            notes.append(f"argument {a!r} names a file: it is copied into each run's private folder as "
                         f"{p.name!r}")
            a = p.name
        elif a and not a.startswith("-") and Path(a).is_absolute() and p.exists() and p.name in names:
            a = p.name
        args.append(a)
    from mirtune.measure.sandbox import read_inputs

    files = read_inputs(inputs)
    prog = Program(src, tuple(args), tuple(inputs), tuple(program.cflags), program.check, program.timeout_s,
                   program.line, tuple(program.extra_sources), tuple(program.include_dirs))
    return prog, files, notes


def variant_of(program: Program, files: dict[str, bytes]) -> str:
    """What tells apart two ways of running one source: arguments, input contents, check, flags, loop line (and,
    only where given, the other files of the program and the include folders)."""
    from mirtune.measure.records import run_variant

    more: dict[str, Any] = {}
    if program.extra_sources:
        more["sources"] = [str(s.resolve()) for s in program.sources]
    if program.include_dirs:
        more["include_dirs"] = [str(Path(d).resolve()) for d in program.include_dirs]
    return run_variant(program.args, files, program.check, cflags=list(program.cflags), line=program.line, **more)


def program_label(sources: Sequence[str | os.PathLike]) -> str:
    """A program in messages: its one source, else its sources joined by ' + ' (the first 3, then how many more
    beyond 4)."""
    names = [str(s) for s in sources]
    if len(names) <= 4:
        return " + ".join(names)
    return " + ".join(names[:3]) + f" + {len(names) - 3} more files"


def headers_digest(program: Program) -> str:
    """A digest of the headers the program's files include (`mirtune.ir.frontend.headers_digest`, with its
    include folders and --cflags): part of the build's key, so that editing one rebuilds."""
    from mirtune.ir.frontend import headers_digest as digest

    return digest(program.sources, program.include_dirs, program.cflags)


def program_units(program: Program, texts: Sequence[str]) -> tuple[tuple[str, str, str], ...]:
    """The files after the first, as a BuildSpec's `units`: (name in the build folder, text to build, the file)."""
    from mirtune.measure.build import unit_names

    names = unit_names(program.sources)
    return tuple((name, text, str(src.resolve())) for name, text, src in zip(names[1:], texts[1:], program.sources[1:]))


def build_include_dirs(program: Program) -> tuple[str, ...]:
    """The include path of a program's build, resolved here: the first file's folder, then the --include folders."""
    return (str(program.source.parent.resolve()), *(str(Path(d).resolve()) for d in program.include_dirs))


def program_spec(program: Program, name: str, text: str, units: tuple[tuple[str, str, str], ...], depends: str,
                 openmp: bool, include_dirs: tuple[str, ...]):
    """The BuildSpec of a program: `text` for its first file, `units` for the others (`program_units`),
    `include_dirs` (`build_include_dirs`), --cflags; -O2."""
    from mirtune.measure.build import BuildSpec

    src = program.source
    return BuildSpec(name=name, source=text, suffix=src.suffix, opt=2, extra=program.cflags,
                     include_dirs=include_dirs, openmp=openmp, units=units, depends=depends)


def program_sha256(sources: Sequence[Path], texts: Sequence[str]) -> str:
    """The program's identity in dataset rows: its one source's sha256 (as before programs of several files), else
    the sha256 of every file's name and content."""
    if len(texts) == 1:
        return hashlib.sha256(texts[0].encode()).hexdigest()
    blob = json.dumps([[s.name, hashlib.sha256(t.encode()).hexdigest()] for s, t in zip(sources, texts)])
    return hashlib.sha256(blob.encode()).hexdigest()
