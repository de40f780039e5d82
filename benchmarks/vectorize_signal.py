"""Why no representation beats LLVM's choice on GCC's real loops: does a loop that looks alike in code want the same
(VF, IF)? The "why" behind docs/vectorize_gcc.md's evaluations, from the recorded times and the IR alone.

For every loop of a VF/IF dataset, the configuration best for another loop is tried on it (its share of this loop's
oracle), with the other loop chosen
- at random among the other families' loops (the expected share: what transferring a label blindly gives),
- as the nearest other-family loop by each representation (cosine of standardised embeddings; 1 neighbour, and the
  configuration best on average over 5, as a kNN head would): what a code similarity buys,
- as the best other-family loop for it (the ceiling of any such transfer),
- at random among its own family's other loops (what a family shares, code-free),
beside LLVM's choice, the best fixed configuration (chosen on the other families) and the oracle. And, over every
pair of loops of different families, the rank correlation between code similarity and label similarity (the
Pearson correlation of their 36 log speedups): near 0, neighbours in code are strangers in labels, and no head
trained on other families can do better than it does. Each nearest-neighbour share comes with its paired 95%
interval against the blind transfer (families resampled).

    .venv/bin/python benchmarks/vectorize_signal.py --data datasets/vectorize-gcc-xeon2 [--data ...] \
        [--programs out/gccvect] [--json benchmarks/results/vectorize_signal.json]

Prints the figures; saves JSON and a PNG chart beside it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from encoder_trial import paired_interval  # noqa: E402

from mirtune.errors import MirtuneError  # noqa: E402
from mirtune.paths import write_result  # noqa: E402
from mirtune.predict.held_out import held_out_problem  # noqa: E402
from mirtune.predict.predictor import program_matrix  # noqa: E402
from mirtune.tasks.embedders import get_embedder  # noqa: E402
from mirtune.tasks.measured import best_fixed_per_group, geomean  # noqa: E402

FLOOR = 1e-3  # a failed configuration's share, as geomean counts it
NEIGHBOURS = 5


def share_matrix(speedups: np.ndarray) -> np.ndarray:
    """[loops, configurations]: each configuration's share of its loop's oracle, FLOOR where it failed."""
    best = np.nanmax(speedups, axis=1, keepdims=True)
    return np.maximum(np.where(np.isfinite(speedups), speedups / best, 0.0), FLOOR)


def standardised_cosine(E: np.ndarray) -> np.ndarray:
    """[loops, loops] cosine similarity of the embeddings after each column is centred and scaled (the heads'
    scaling: no component outweighs the others by its units)."""
    Z = (E - E.mean(axis=0)) / np.where(E.std(axis=0) > 0, E.std(axis=0), 1.0)
    Z /= np.maximum(np.linalg.norm(Z, axis=1, keepdims=True), 1e-12)
    return Z @ Z.T


def nearest_transfer(sim: np.ndarray, other: np.ndarray, gains: np.ndarray, shares: np.ndarray, k: int
                     ) -> np.ndarray:
    """Each loop's share under the configuration with the best mean log speedup over its `k` most similar loops
    among `other` (a [loops, loops] mask of the allowed neighbours)."""
    masked = np.where(other, sim, -np.inf)
    near = np.argsort(-masked, axis=1)[:, :k]
    chosen = gains[near].mean(axis=1).argmax(axis=1)
    return shares[np.arange(len(shares)), chosen]


def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Rank correlation of two equal-length vectors (scipy's, ties given their mean rank)."""
    from scipy.stats import spearmanr

    return float(spearmanr(a, b).statistic)


def analyse(data: str, programs: list[str], reps: dict[str, object]) -> dict:
    """The figures of one dataset (see the module doc)."""
    _, table, _, outer = held_out_problem("vectorize", [data], programs)
    s = table.speedups
    complete = np.isfinite(np.nanmax(s, axis=1))
    shares, gains = share_matrix(s), table.train_gains()
    fam = np.asarray(table.apps)
    n = len(fam)
    other = fam[:, None] != fam[None, :]
    sibling = ~other & ~np.eye(n, dtype=bool)
    best = table.labels_best()
    transfer = shares[:, best]                     # [i, j]: loop i under loop j's best configuration
    log_t = np.log(transfer)
    per_loop: dict[str, np.ndarray] = {
        "LLVM's choice": shares[:, 0],
        "best fixed (other families)": shares[np.arange(n), best_fixed_per_group(s, outer)],
        "blind transfer (a random other family's loop)": np.exp((log_t * other).sum(1) / other.sum(1)),
    }
    has_sibling = sibling.any(axis=1)
    sib = np.exp((log_t * sibling).sum(1) / np.maximum(sibling.sum(1), 1))
    label_sim = np.corrcoef(gains)
    iu = np.triu_indices(n, 1)
    cross = other[iu]
    correlation, neighbour_label_sim = {}, {}
    for name, emb in reps.items():
        E = program_matrix(table.sources, "vectorize", emb, context=False)
        sim = standardised_cosine(E)
        per_loop[f"nearest by {name}"] = nearest_transfer(sim, other, gains, shares, 1)
        per_loop[f"{NEIGHBOURS} nearest by {name}"] = nearest_transfer(sim, other, gains, shares, NEIGHBOURS)
        correlation[name] = round(spearman(sim[iu][cross], label_sim[iu][cross]), 4)
        nn = np.argmax(np.where(other, sim, -np.inf), axis=1)
        neighbour_label_sim[name] = round(float(np.mean(label_sim[np.arange(n), nn])), 4)
    per_loop["best other-family loop (ceiling)"] = np.where(other, transfer, 0).max(axis=1)
    rows = np.flatnonzero(complete)
    figures = {name: round(geomean(v[rows]), 4) for name, v in per_loop.items()}
    sib_rows = np.flatnonzero(complete & has_sibling)
    blind = per_loop["blind transfer (a random other family's loop)"]
    intervals = {name: paired_interval(v[rows], blind[rows], fam[rows], geomean)
                 for name, v in per_loop.items() if name.startswith(("nearest", f"{NEIGHBOURS} nearest"))}
    return {
        "data": data, "loops": int(len(rows)), "families": int(len(set(fam[rows]))),
        "oracle_over_llvm": round(geomean(np.nanmax(s[rows], axis=1)), 4),
        "share_of_oracle": figures,
        "vs_blind_transfer": intervals,
        "own_family": {"loops": int(len(sib_rows)), "random sibling": round(geomean(sib[sib_rows]), 4),
                       "blind transfer, same loops": round(geomean(blind[sib_rows]), 4)},
        "code_label_rank_correlation": correlation,
        "label_similarity": {"random other-family pair": round(float(label_sim[iu][cross].mean()), 4),
                             **{f"nearest by {k}": v for k, v in neighbour_label_sim.items()},
                             "random sibling pair": round(float(label_sim[iu][~cross].mean()), 4)},
    }


def show(result: dict) -> None:
    print(f"\n{result['data']}: {result['loops']} loops, {result['families']} families, oracle "
          f"{result['oracle_over_llvm']:.3f}x over LLVM's choice")
    for name, v in result["share_of_oracle"].items():
        d = result["vs_blind_transfer"].get(name)
        extra = f"   vs blind {d[0]:+.4f} [{d[1]:+.4f}, {d[2]:+.4f}]" if d else ""
        print(f"  {name:48s} {v:.4f}{extra}")
    own = result["own_family"]
    print(f"  own family ({own['loops']} loops with a sibling): random sibling {own['random sibling']:.4f}, "
          f"blind transfer {own['blind transfer, same loops']:.4f}")
    print("  code-label rank correlation over other-family pairs: "
          + ", ".join(f"{k} {v:+.3f}" for k, v in result["code_label_rank_correlation"].items()))
    print("  label similarity (correlation of log speedups): "
          + ", ".join(f"{k} {v:+.3f}" for k, v in result["label_similarity"].items()))


def share_chart(panels: list[tuple[str, dict[str, float]]], out: Path, line: str) -> None:
    """One panel per (title, {way of choosing a configuration: share of the oracle}): code-free choices grey, the
    blind transfer red, the ceiling light grey, the representations blue, a dashed line at the share of `line`."""
    from mirtune.figures import pyplot, save

    plt = pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(6 * len(panels), 5.2), squeeze=False)
    for ax, (title, shares) in zip(axes[0], panels):
        names = list(shares)
        vals = [shares[k] for k in names]
        colours = ["0.3" if k.startswith(("LLVM", "default", "best fixed")) else "tab:red" if k.startswith("blind")
                   else "0.7" if "ceiling" in k else "tab:blue" for k in names]
        ax.barh(range(len(names)), vals, color=colours)
        ax.set_yticks(range(len(names)), names, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(min(vals) - 0.05, 1.0)
        ax.axvline(shares[line], color="black", lw=0.8, ls="--")
        ax.set_xlabel("share of the oracle (geometric mean)")
        ax.set_title(title, fontsize=9)
    fig.tight_layout()
    save(fig, out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--data", action="append", required=True, help="a VF/IF dataset folder (repeatable)")
    ap.add_argument("--programs", action="append", default=None, help="where the programs are (default out/gccvect)")
    ap.add_argument("--reps", default="mirencoder,ir2vec,random", help="representations (default: %(default)s)")
    ap.add_argument("--json", type=Path, default=REPO / "benchmarks" / "results" / "vectorize_signal.json")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    try:
        reps = {name: get_embedder(name) for name in args.reps.split(",")}
        results = [analyse(d, args.programs or [str(REPO / "out" / "gccvect")], reps) for d in args.data]
    except MirtuneError as err:
        print(f"vectorize_signal: {err.line()}", file=sys.stderr)
        return 2
    for r in results:
        show(r)
    write_result(args.json, {"command": " ".join(sys.argv), "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                             "results": results})
    png = args.json.with_suffix(".png")
    share_chart([(f"{Path(r['data']).name}: {r['loops']} loops, {r['families']} families", r["share_of_oracle"])
                 for r in results], png, "LLVM's choice")
    print(f"\nwrote {args.json} and {png} ({time.monotonic() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
