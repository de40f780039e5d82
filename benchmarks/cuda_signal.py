"""Does an embedding tell CUDA kernels apart beyond their identity? The block-size task on the generated kernels
with two protocols, the same heads for every representation.

    python -m collectors.cudagen --out build/cudagen
    python benchmarks/cuda_signal.py [--data datasets/cuda-h200] [--programs build/cudagen]
        [--json benchmarks/results/cuda_signal_h200.json]

`mirtune evaluate measured cuda_blocks` holds a whole kernel family out: a head must carry what it learnt to kernels unlike
any it saw. Here the folds are over kernels instead (10 folds, every (kernel, size) group of a kernel on one side),
so the held-out kernels have siblings of their family in training: an embedding that places a kernel near its
siblings can use them, a random vector per kernel (the identity control) cannot. Heads are chosen by inner
cross-validation over the training kernels (the evaluation's candidates, fewer of them: `--configs`), without Ray.
Reported: share of the oracle of 16x16, the best fixed block (per fold), each embedding, and the oracle, overall and
by family.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from mirtune.paths import write_result  # noqa: E402
from mirtune.errors import MirtuneError  # noqa: E402
from mirtune.predict.predictor import ANCHORS, candidate_configs, gain_problem, table_matrix  # noqa: E402
from mirtune.predict.select import evaluate_outer, select_configs  # noqa: E402
from mirtune.tasks.cuda_blocks import CONTEXT, SPEC  # noqa: E402
from mirtune.tasks.embedders import get_embedder  # noqa: E402
from mirtune.tasks.measured import best_fixed_per_group, geomean, group_kfold, load_gain_table, share_of_oracle  # noqa: E402


def by_family(share: np.ndarray, apps: list[str]) -> dict[str, float]:
    """Geometric-mean share of the oracle per family."""
    a = np.asarray(apps)
    return {f: round(geomean(share[a == f]), 4) for f in sorted(set(apps))}


def evaluate(args: argparse.Namespace) -> tuple:
    """(gain table, method -> chosen configuration per group, head candidates) of the protocol in the module doc."""
    table = load_gain_table([args.data], SPEC, [args.programs])
    kernels = list(table.programs)
    outer = group_kfold(np.arange(len(table)), kernels, args.folds, seed=0)
    s = table.speedups
    problems = []
    for name in args.embeddings.split(","):
        X = table_matrix(table, "cuda_blocks", get_embedder(name), note=lambda m: None)
        p = gain_problem(name, table, X, outer, len(CONTEXT))  # the launch's matrix size
        # inner folds over kernels too (the evaluation's are over families)
        p.inner_splits = lambda tr, n, seed: group_kfold(tr, kernels, n, seed)
        problems.append(p)
    configs = candidate_configs(("gain", "knn"), args.configs, anchors=ANCHORS)
    chosen = select_configs(problems, configs, n_inner=3, use_ray=False)
    preds = evaluate_outer(problems, chosen, [0], use_ray=False)
    methods = {"default 16x16": np.zeros(len(table), dtype=int), "best fixed": best_fixed_per_group(s, outer)}
    methods.update({p.name: preds[p.name][0] for p in problems})
    methods["oracle"] = table.labels_best()
    return table, methods, len(configs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--data", default=str(REPO / "datasets" / "cuda-h200"))
    ap.add_argument("--programs", default=str(REPO / "build" / "cudagen"))
    ap.add_argument("--embeddings", default="mirencoder,ir2vec,random")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--configs", type=int, default=2, help="candidate head configurations per head kind")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    try:
        table, methods, n_configs = evaluate(args)
    except MirtuneError as err:
        print(f"cuda_signal: {err.line()}", file=sys.stderr)
        return 2
    s = table.speedups
    kernels = list(table.programs)
    result = {"data": args.data, "protocol": f"{args.folds}-fold over kernels", "groups": len(table),
              "kernels": len(set(kernels)), "candidates": n_configs, "methods": {}}
    for name, ch in methods.items():
        share = share_of_oracle(s, ch)
        result["methods"][name] = {"share_of_oracle": round(geomean(share), 4),
                                   "by_family": by_family(share, list(table.apps))}
    result["seconds"] = round(time.monotonic() - t0, 1)
    width = max(map(len, methods))
    print(f"cuda_blocks, {result['protocol']}: {len(table)} groups of {result['kernels']} kernels, "
          f"{n_configs} head candidates")
    for name, m in result["methods"].items():
        print(f"  {name:<{width}}  {m['share_of_oracle']:.3f}")
    if args.json:
        write_result(args.json, result)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
