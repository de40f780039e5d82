"""`mirtune graph INPUT... -o OUT`: ProGraML program graphs as node-link JSON, many inputs per process."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mirtune.errors import MirtuneError, UsageError
from mirtune.paths import check_output


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("graph", help="build ProGraML program graphs (node-link JSON)")
    p.add_argument("inputs", nargs="+", help=".ll/.bc files, sources (compiled first) or directories")
    p.add_argument("-o", "--output", required=True,
                   help="output directory (one <stem>.json per input), or a .json file for a single input")
    p.add_argument("-O", dest="opt", type=int, default=2, choices=range(4), metavar="{0,1,2,3}",
                   help="optimisation level for sources (default 2)")
    p.add_argument("--openmp", action=argparse.BooleanOptionalAction, default=None,
                   help="compile sources with -fopenmp (default: when a source uses OpenMP, e.g. `#pragma omp`)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mirtune.ir.graph import build_graph
    from mirtune.ir.inputs import expand_inputs, load_ir, note_openmp
    from mirtune.progress import note, progress

    items = list(expand_inputs(args.inputs))
    files, seen = [], set()
    for p, reason in items:
        if reason is None and p.resolve() not in seen:  # a file named twice is one graph
            seen.add(p.resolve())
            files.append(p)
    out = Path(args.output)
    single_file = out.suffix == ".json"
    if single_file and len(files) > 1:
        raise UsageError(f"{len(files)} inputs but -o names one file; give a directory")
    check_output(out, "file" if single_file else "dir")
    if not single_file:
        out.mkdir(parents=True, exist_ok=True)
    names = {} if single_file else output_names(files)
    for stem, group in ({} if single_file else _renamed(files, names)).items():
        note(f"mirtune graph: {len(group)} inputs are named {stem}; their graphs are "
             + ", ".join(f"{names[f]} ({f})" for f in group))
    note_openmp(files, args.openmp, "graph")
    failed = 0
    for path, reason in items:
        if reason is not None:
            note(f"mirtune graph: {path}: {reason}")
            failed += 1
    written = 0
    for path in progress(files, desc="graphs"):
        target = out if single_file else out / names[path]
        try:
            graph = build_graph(load_ir(path, opt=args.opt, openmp=args.openmp))
            graph.to_json(target)
            written += 1
        except MirtuneError as exc:
            note(f"mirtune graph: {exc.line()}")
            failed += 1
        except OSError as exc:
            note(f"mirtune graph: {path}: {exc.strerror or exc}: {exc.filename or target}")
            failed += 1
    print(f"wrote {written} graph(s) to {out}" + (f"; {failed} input(s) failed" if failed else ""),
          file=sys.stderr)
    return 2 if failed else 0


def output_names(files: list[Path]) -> dict[Path, str]:
    """A distinct JSON file name per input: `<stem>.json`, or, for inputs that share a stem, their path from
    the group's common folder with `__` for `/` and the extension kept (`a__good.ll.json`, `b__good.c.json`)."""
    import os

    by_stem: dict[str, list[Path]] = {}
    for f in files:
        by_stem.setdefault(f.stem, []).append(f)
    names: dict[Path, str] = {}
    for stem, group in by_stem.items():
        if len(group) == 1:
            names[group[0]] = f"{stem}.json"
            continue
        absolute = [f.resolve() for f in group]
        common = Path(os.path.commonpath([str(a.parent) for a in absolute]))
        for f, a in zip(group, absolute):
            names[f] = "__".join(a.relative_to(common).parts) + ".json"
    taken: set[str] = set()
    for f in files:  # a last resort against names that still meet (a "__" inside a file name)
        name, n = names[f], 1
        while name in taken:
            n += 1
            name = f"{names[f][:-len('.json')]}-{n}.json"
        names[f] = name
        taken.add(name)
    return names


def _renamed(files: list[Path], names: dict[Path, str]) -> dict[str, list[Path]]:
    """The inputs whose graph is not simply `<stem>.json`, grouped by stem."""
    groups: dict[str, list[Path]] = {}
    for f in files:
        if names[f] != f"{f.stem}.json":
            groups.setdefault(f.stem, []).append(f)
    return {stem: [f for f in files if f.stem == stem] for stem in groups}
