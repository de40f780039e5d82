"""Program manifests: how ordinary programs (command-line arguments, input files, plain output) are run, in JSON.

A manifest is a JSON list with one object per program, paths relative to the manifest's folder:

    [{"name": "sssp", "source": "sssp.c", "inputs": ["sssp_road.gr"],
      "runs": [["sssp_road.gr", "1", "5"], ["sssp_road.gr", "1", "40"]],
      "description": "..."}]

"runs" lists the argument vectors a program is measured with (an input size each); "args" instead of "runs"
gives one. A program of several files gives them all as "source" (a list: each compiled, all linked into one
binary; the first names the program), and its header folders as "include":

    [{"source": ["main.c", "solver.c", "util.c"], "include": ["include"], "args": ["20000"]}]
 Input files are copied into each run's private working folder under their own names, so an argument
names an input by its file name. `mirtune collect openmp --manifest FILE` sweeps every run of every program.
Inputs listed in an `inputs.json` beside the manifest are generated on first read (collectors/inputs.py).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from collectors.inputs import ensure_inputs
from mirtune.errors import UsageError


@dataclass(frozen=True)
class ProgramRun:
    """One way to run one program of a manifest: its source, its arguments and the input files it reads."""

    name: str
    source: Path
    args: tuple[str, ...]
    inputs: tuple[Path, ...]
    extra_sources: tuple[Path, ...] = ()  # a program of several files: the files after `source`
    include_dirs: tuple[Path, ...] = ()


def _strings(value: object, what: str, path: Path) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
        raise UsageError(f"manifest: {what} must be a list of strings", str(path))
    return tuple(str(v) for v in value)


def read_manifest(path: str | os.PathLike) -> list[ProgramRun]:
    """Every (program, argument vector) of the manifest at `path`, in order, its generated inputs made first
    (`ensure_inputs`); UsageError (one line) for a missing or malformed manifest, an entry without a source or runs,
    a source or input file that does not exist, or a generated input that cannot be made as listed."""
    path = Path(path)
    try:
        entries = json.loads(path.read_text())
    except FileNotFoundError:
        raise UsageError("manifest not found", str(path)) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"manifest: not readable JSON ({type(exc).__name__})", str(path)) from None
    if not isinstance(entries, list) or not entries:
        raise UsageError("manifest: expected a non-empty JSON list of programs", str(path))
    folder = path.parent
    ensure_inputs(folder)
    runs: list[ProgramRun] = []
    for i, entry in enumerate(entries):
        given = entry.get("source") if isinstance(entry, dict) else None
        if not (isinstance(given, str) or (isinstance(given, list) and given
                                           and all(isinstance(g, str) for g in given))):
            raise UsageError(f"manifest: entry {i + 1} has no \"source\" (a file, or a list of the files of one "
                             "program)", str(path))
        sources = [folder / g for g in ([given] if isinstance(given, str) else given)]
        for source in sources:
            if not source.is_file():
                raise UsageError(f"manifest: entry {i + 1}'s source not found", str(source))
        source = sources[0]
        name = str(entry.get("name") or source.stem)
        include = tuple(folder / d for d in _strings(entry.get("include", []), f"{name}'s \"include\"", path))
        for d in include:
            if not d.is_dir():
                raise UsageError(f"manifest: {name}'s include folder not found", str(d))
        inputs = tuple(folder / f for f in _strings(entry.get("inputs", []), f"{name}'s \"inputs\"", path))
        for f in inputs:
            if not f.exists():
                raise UsageError(f"manifest: {name}'s input not found", str(f))
        if "runs" in entry:
            if not isinstance(entry["runs"], list) or not entry["runs"]:
                raise UsageError(f"manifest: {name}'s \"runs\" must be a non-empty list of argument lists", str(path))
            argvs = [_strings(a, f"each of {name}'s \"runs\"", path) for a in entry["runs"]]
        else:
            argvs = [_strings(entry.get("args", []), f"{name}'s \"args\"", path)]
        runs += [ProgramRun(name, source, argv, inputs, tuple(sources[1:]), include) for argv in argvs]
    return runs
