"""`mirtune inspect`: what mirtune sees in a program.

    mirtune inspect app.ll          # or app.c (compiled first; -fopenmp when it has OpenMP directives)
    mirtune inspect app.c --json

prints the defined functions, the number of normalised statements, the program graph's nodes (by type) and
edges (by flow), and the OpenMP worksharing loops found in the IR with whether a runtime schedule
(OMP_SCHEDULE) reaches them. For a source file it also lists the loop directives of the source and whether
`mirtune apply` can tune them.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from mirtune.errors import UsageError

_IR_SUFFIXES = frozenset({".ll", ".bc"})


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("inspect", help="functions, statements, graph size and OpenMP loops of a program",
                              description=__doc__.strip().splitlines()[0])
    p.add_argument("input", help="LLVM IR (.ll/.bc) or a source file (compiled with clang first)")
    p.add_argument("--lang", choices=("c", "cxx", "opencl", "cuda"), help="source language (default: from suffix)")
    p.add_argument("-O", dest="opt", type=int, default=2, choices=range(4), metavar="N",
                   help="optimisation level for source input (default 2)")
    omp = p.add_mutually_exclusive_group()
    omp.add_argument("--openmp", dest="openmp", action="store_true", default=None,
                     help="compile source with -fopenmp (default: when it has OpenMP directives)")
    omp.add_argument("--no-openmp", dest="openmp", action="store_false")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def _read_source(path: Path) -> str:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape", newline="") as fh:
            return fh.read()
    except OSError as exc:
        raise UsageError(f"cannot read: {exc.strerror or exc}", str(path)) from None


def _counts(graph) -> tuple[dict[str, int], dict[str, int]]:
    from mirtune.ir.graph import FLOWS, NODE_TYPES

    if hasattr(graph, "node_counts"):
        nodes = dict(graph.node_counts())
    else:
        types = [n["type"] for n in graph.nodes]
        nodes = {name: types.count(i) for i, name in enumerate(NODE_TYPES)}
    edges = {name: 0 for name in FLOWS}
    for edge in graph.edges:
        edges[FLOWS[edge[2]]] += 1
    return nodes, edges


def inspect_file(path: str | Path, lang: str | None = None, opt: int = 2,
                 openmp: bool | None = None) -> dict:
    """Everything `mirtune inspect` prints, as a dict."""
    from mirtune.ir.graph import build_graph
    from mirtune.ir.inputs import load_ir
    from mirtune.ir.openmp import openmp_schedule_calls

    path = Path(path)
    if not path.exists():
        raise UsageError("no such file", str(path))
    if path.is_dir():
        raise UsageError("is a directory", str(path))
    is_source = path.suffix not in _IR_SUFFIXES
    source_loops = None
    if is_source:
        text = _read_source(path)
        if openmp is None:
            from mirtune.ir.frontend import mentions_openmp

            openmp = mentions_openmp(text)
        if path.suffix in (".c", ".cc", ".cpp", ".cxx", ".C", ".c++") or lang in ("c", "cxx"):
            from mirtune.source.openmp import find_loops

            source_loops = find_loops(text)
    module = load_ir(path, lang=lang, opt=opt, openmp=bool(openmp)) if is_source else load_ir(path)
    graph = build_graph(module)
    nodes, edges = _counts(graph)
    calls = openmp_schedule_calls(module)
    loops = [c for c in calls if c.construct == "loop"]
    info = {
        "file": str(path),
        "functions": list(module.defined_functions),
        "statements": len(module.statements()),
        "nodes": {"total": graph.num_nodes, **nodes},
        "edges": {"total": len(graph.edges), **edges},
        "worksharing_loops": [c.to_dict() for c in loops],
        "runtime_reachable": sum(1 for c in loops if c.runtime_reachable),
        "other_worksharing": [c.to_dict() for c in calls if c.construct != "loop"],
        "content_hash": module.content_hash,
    }
    if is_source:
        info["compiled"] = {"opt": opt, "openmp": bool(openmp)}
    if source_loops is not None:
        info["source_loops"] = [{"line": lp.line, "construct": lp.construct, "schedule": lp.schedule,
                                 "status": lp.status, "reason": lp.reason, "text": lp.text}
                                for lp in source_loops]
    return info


def _schedule_text(loop: dict) -> str:
    text = loop["schedule_name"]
    if loop["modifiers"]:
        text += f" ({', '.join(loop['modifiers'])})"
    if loop["chunk"] is not None:
        text += f", chunk {loop['chunk']}"
    return text


def _print_text(info: dict, out=None) -> None:
    out = out or sys.stdout
    fns = info["functions"]
    print(info["file"], file=out)
    print(f"functions: {len(fns)} defined" + (f": {', '.join(fns)}" if fns else ""), file=out)
    print(f"statements: {info['statements']}", file=out)
    n, e = info["nodes"], info["edges"]
    print(f"graph: {n['total']} nodes (" + ", ".join(f"{k} {v}" for k, v in n.items() if k != "total")
          + f"), {e['total']} edges (" + ", ".join(f"{k} {v}" for k, v in e.items() if k != "total") + ")",
          file=out)
    loops = info["worksharing_loops"]
    if not loops:
        note = "" if info.get("compiled", {}).get("openmp", True) else " (compiled without -fopenmp)"
        print(f"worksharing loops: none{note}", file=out)
    else:
        print(f"worksharing loops: {len(loops)}, {info['runtime_reachable']} reachable by a runtime schedule "
              "(OMP_SCHEDULE)", file=out)
        for lp in loops:
            where = lp["function"] + (f" in {lp['host_function']}" if lp["host_function"] else "")
            if lp["line"]:
                where += f" (line {lp['line']})"
            reach = "runtime schedule: yes" if lp["runtime_reachable"] else "runtime schedule: no"
            print(f"  {where}: {lp['call']} {_schedule_text(lp)}; {reach}", file=out)
    for other in info["other_worksharing"]:
        print(f"  ({other['construct']} in {other['function']}: {other['call']} {_schedule_text(other)})",
              file=out)
    if "source_loops" in info:
        src = info["source_loops"]
        tunable = sum(1 for lp in src if lp["status"] == "tunable")
        print(f"source loop directives: {len(src)}, {tunable} tunable by `mirtune apply`", file=out)
        for lp in src:
            reason = f" ({lp['reason']})" if lp["reason"] else ""
            print(f"  line {lp['line']}: {lp['construct']}: {lp['status']}{reason}", file=out)


def run(args: argparse.Namespace) -> int:
    info = inspect_file(args.input, lang=args.lang, opt=args.opt, openmp=args.openmp)
    if args.json:
        json.dump(info, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        _print_text(info)
    return 0
