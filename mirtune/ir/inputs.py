"""Turn what a user names (sources, .ll/.bc files, directories) into parsed IR modules."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from mirtune.errors import IRParseError, UsageError
from mirtune.ir.frontend import SOURCE_SUFFIXES, compile_to_ir, resolve_openmp
from mirtune.ir.module import IRModule

IR_SUFFIXES = frozenset({".ll", ".bc"})
INPUT_SUFFIXES = IR_SUFFIXES | SOURCE_SUFFIXES


def load_ir(path: str | os.PathLike, lang: str | None = None, opt: int = 2, openmp: bool | None = False
            ) -> IRModule:
    """Parse a .ll/.bc file, or compile a source file with clang first and parse the result (with -fopenmp when
    `openmp` is True, or when it is None and the source uses OpenMP)."""
    path = Path(path)
    if not path.exists():
        raise UsageError("no such file or directory", str(path))
    if path.is_dir():
        raise UsageError("is a directory; name the files in it or pass the directory to a batch command",
                         str(path))
    if path.suffix in IR_SUFFIXES and lang is None:
        return IRModule.from_file(path)
    if path.suffix in SOURCE_SUFFIXES or lang is not None:
        text = compile_to_ir(path, lang=lang, opt=opt, openmp=resolve_openmp(path, openmp, lang)[0])
        return IRModule.from_text(text, str(path))
    # Unknown extension: try it as IR, which also catches binary junk with one clear line.
    return IRModule.from_file(path)


def note_openmp(files: list[Path], openmp: bool | None, command: str) -> None:
    """Say on stderr, once per source, that OpenMP was detected and -fopenmp switched on (when not asked)."""
    from mirtune.progress import note

    for f in files:
        if f.suffix in SOURCE_SUFFIXES and resolve_openmp(f, openmp)[1]:
            note(f"mirtune {command}: {f} uses OpenMP (#pragma omp): compiling it with -fopenmp "
                 "(--no-openmp compiles it serially)")


def expand_inputs(paths: list[str | os.PathLike]) -> Iterator[tuple[Path, str | None]]:
    """Yield (file, None) for every input, or (path, reason) for a path that yields nothing.

    Directories are searched recursively for IR and source files, in sorted order.
    """
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            yield path, "no such file or directory"
        elif path.is_dir():
            found = sorted(p for p in path.rglob("*") if p.is_file() and p.suffix in INPUT_SUFFIXES)
            if not found:
                yield path, "directory holds no IR or source files (.ll .bc .c .cpp .cl .cu)"
            for p in found:
                yield p, None
        else:
            yield path, None


__all__ = ["load_ir", "expand_inputs", "note_openmp", "IRParseError", "INPUT_SUFFIXES"]
