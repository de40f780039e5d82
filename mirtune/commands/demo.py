"""`mirtune demo`: the main job on the shipped defaults (what `make run` runs).

Compiles the shipped OpenMP example with clang, parses its IR, builds its ProGraML graph, lists its
worksharing loops, writes the graph JSON, embeds the program with the shipped pre-trained MIREncoder,
and ends with the OpenMP configuration the shipped predictor recommends for it, as `mirtune recommend` prints it,
then with what `mirtune tune` finds for it in a few real runs (--tune-budget).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from mirtune.paths import ASSETS_DIR

EXAMPLE = ASSETS_DIR / "examples" / "mandel.c"  # one imbalanced loop, 0.7 s a run: tune has a real difference to find


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("demo", help="run the main job on the shipped example program")
    p.add_argument("source", nargs="?", default=str(EXAMPLE), help="program to analyse (default: shipped example)")
    p.add_argument("-o", "--out", default="out/demo", help="where to write the graph JSON (default out/demo)")
    p.add_argument("--tune-budget", type=int, default=6, metavar="N",
                   help="end with `mirtune tune` over N real runs (default 6; 0: skip)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mirtune.ir.frontend import compile_to_ir, find_clang
    from mirtune.ir.graph import FLOWS, NODE_TYPES, build_graph
    from mirtune.ir.module import IRModule

    from mirtune.paths import check_output

    src = Path(args.source)
    out = check_output(args.out, "dir")
    out.mkdir(parents=True, exist_ok=True)
    clang = find_clang()
    t0 = time.perf_counter()
    ll = out / f"{src.stem}.ll"
    text = compile_to_ir(src, ll, openmp=True, opt=2)
    t1 = time.perf_counter()
    module = IRModule.from_text(text, str(ll))
    statements = module.statements()
    graph = build_graph(module)
    t2 = time.perf_counter()
    graph.to_json(out / f"{src.stem}.json")

    print(f"mirtune demo: {src.name}")
    print(f"  compiled with {clang.path} (clang {clang.major}) -O2 -fopenmp in {t1 - t0:.2f}s -> {ll}")
    print(f"  IR: {len(module.defined_functions)} defined functions "
          f"({', '.join(module.defined_functions)}), {len(statements)} statements, "
          f"hash {module.content_hash[:12]}")
    counts = graph.node_counts()
    edges = graph.edge_counts()
    print(f"  program graph: {graph.num_nodes} nodes ("
          + ", ".join(f"{counts[n]} {n}" for n in NODE_TYPES) + f"), {len(graph.edges)} edges ("
          + ", ".join(f"{edges[f]} {f}" for f in FLOWS) + f"), built in {(t2 - t1) * 1000:.1f} ms")
    _print_loops(module)
    print(f"  wrote {out / (src.stem + '.json')}")
    _print_embedding(module, out / f"{src.stem}.embedding.npy")
    _print_recommendation(src)
    if args.tune_budget > 0:
        _print_tuning(src, args.tune_budget, out / "tune")
    return 0


def _shown(src: Path) -> Path:
    """The program's path as a user would type it: relative to here when it is below here."""
    rel = os.path.relpath(src)
    return Path(rel) if not rel.startswith("..") else src


def _print_recommendation(src: Path) -> None:
    from mirtune.commands.recommend import print_recommendation
    from mirtune.errors import MirtuneError
    from mirtune.predict.recommend import recommend
    from mirtune.tasks.openmp import TASK  # the demo's example program is an OpenMP one

    shown = _shown(src)
    print(f"\n$ mirtune recommend {shown} --task {TASK.name}")
    try:
        print_recommendation(recommend(shown, task=TASK.name))
    except MirtuneError as exc:
        print(f"  no recommendation: {exc.line()}")


def _print_tuning(src: Path, budget: int, out: Path) -> None:
    """What `mirtune tune SRC --task openmp --budget N` finds with real runs (measurements kept in `out`, so a
    second demo reads them back instead of measuring again)."""
    from mirtune.commands.tune import print_result
    from mirtune.errors import MirtuneError
    from mirtune.measure.program import Program
    from mirtune.predict.tune import tune_program
    from mirtune.tasks.openmp import TASK

    shown = _shown(src)
    print(f"\n$ mirtune tune {shown} --task {TASK.name} --budget {budget} --out {out}")
    sys.stdout.flush()
    try:
        print_result(tune_program(Program(Path(shown)), TASK.name, budget, out_dir=out))
    except MirtuneError as exc:
        print(f"  no tuning: {exc.line()}")


def _print_embedding(module, path: Path) -> None:
    from mirtune.embedding import DEFAULT_MODEL_DIR, embed_modules, load_encoder

    if not (DEFAULT_MODEL_DIR / "model.safetensors").is_file():
        print("  no shipped encoder yet: embedding skipped")
        return
    import numpy as np

    t0 = time.perf_counter()
    model = load_encoder()
    t1 = time.perf_counter()
    vector = embed_modules([module])[0]
    t2 = time.perf_counter()
    np.save(path, vector)
    prov = model.provenance or {}
    steps = prov.get("steps", "?")
    print(f"  MIREncoder ({model.config.preset}, {steps} pre-training steps): loaded in {t1 - t0:.2f}s, "
          f"embedded in {(t2 - t1) * 1000:.0f} ms -> {vector.shape[0]}-d vector "
          f"(text {model.config.d_model} ++ graph {model.config.gcn_hidden}), |v| = {float(np.linalg.norm(vector)):.2f}")
    print(f"  wrote {path}")


def _print_loops(module) -> None:
    try:
        from mirtune.ir.openmp import worksharing_loops
    except ImportError:
        return
    loops = worksharing_loops(module)
    reachable = sum(1 for lp in loops if lp.runtime_reachable)
    print(f"  OpenMP worksharing loops: {len(loops)} ({reachable} reachable by OMP_SCHEDULE)")
