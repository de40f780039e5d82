"""Where the device-mapping signal is: one fixed trees head on several feature sets, and what its errors are.

An analysis, not a result: every feature set gets the SAME gradient-boosted trees configuration (no search; the
project's `GBTHead` with max_iter 200, min_samples_leaf 10) on the DeepTune/NCC folds, so the accuracies compare
feature sets with each other and are not tuned figures (those come from `mirtune evaluate`). Feature sets:
- context only: log1p(transfer bytes), log1p(work-group size);
- context + Grewe et al.'s six static code features (`grewe_features`: the data's comp, rational, mem, localmem,
  coalesced and atomic counts);
- context + each embedding, whole, and through its first K principal components (fitted on the training folds);
- context + Grewe + the whole embedding.
Then the errors of the whole-embedding sets: how many are near-ties (|log(runtime_cpu / runtime_gpu)| < 0.1, i.e.
the two devices within about 10%), how many rows every embedding gets wrong, which suites they come from, and how
many belong to a kernel whose best device changes with its input size.
Prints the figures; saves JSON and a PNG chart.

    MIRTUNE_DATA=../shared/data .venv/bin/python benchmarks/devmap_signal.py [--pca 4,16] \
        [--out benchmarks/results/devmap_signal.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from mirtune.commands.evaluate import int_list
from mirtune.errors import MirtuneError
from mirtune.paths import data_dir, write_result
from mirtune.predict.heads import GBTConfig
from mirtune.predict.select import evaluate_outer
from mirtune.tasks.devmap import PLATFORMS, context_features, features, grewe_features, load_platform, make_problem
from mirtune.tasks.embedders import embed_files, get_embedder

HEAD = GBTConfig(max_iter=200, min_samples_leaf=10)
TIE = 0.1  # |log runtime ratio| below this: the devices are within about 10% of each other


def cross_validated(df, platform: str, X: np.ndarray, pca: int = 0) -> np.ndarray:
    """Per-row predictions of the fixed head (seed 0) over the published folds, as `mirtune evaluate` fits them."""
    problem = make_problem(df, X, platform)
    chosen = {(platform, k): dict(HEAD.to_dict(), pca=pca) for k in range(len(problem.outer))}
    return evaluate_outer([problem], chosen, [0], use_ray=False)[platform][0]


def embeddings(names: list[str]) -> dict[str, object]:
    """The embedders that can run here (ir2vec needs its optional package)."""
    out = {}
    for name in names:
        kind, _, readout = name.partition(":")
        try:
            out[name] = get_embedder(kind, readout=readout) if readout else get_embedder(kind)
        except MirtuneError as err:  # an optional baseline that is not installed: say so and go on
            print(f"skipping {name}: {err}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--embeddings", default="mirencoder,mirencoder:meanmax,ir2vec")
    ap.add_argument("--pca", default="4,16", help="principal-component counts to try (each >= 1)")
    ap.add_argument("--out", default="benchmarks/results/devmap_signal.json")
    args = ap.parse_args()
    try:
        run(args)
    except MirtuneError as err:  # missing data, an unreadable kernel: one line, no traceback
        print(f"devmap_signal: {err}", file=sys.stderr)
        return 2
    return 0


def run(args: argparse.Namespace) -> None:
    """Fit every feature set on both platforms; print, save the JSON and the chart."""
    pcas = int_list("--pca", args.pca, 1, "4,16")
    data = data_dir(args.data_dir)
    t0 = time.monotonic()
    embedders = embeddings(args.embeddings.split(","))
    result: dict = {"head": HEAD.to_dict(), "folds": "fold_deeptune_ncc_seed204", "tie_threshold": TIE,
                    "accuracy": {}, "errors": {}}
    for plat in PLATFORMS:
        df = load_platform(data, plat)
        y = df.label.to_numpy()
        C = context_features(df)
        G = grewe_features(df)
        E = {name: embed_files(emb, df.ir_path.tolist()) for name, emb in embedders.items()}
        sets: dict[str, tuple[np.ndarray, int]] = {"context": (C, 0), "context + Grewe": (features(df, G), 0)}
        for name, X in E.items():
            sets[f"context + {name}"] = (features(df, X), 0)
            for k in pcas:
                sets[f"context + {name} PCA-{k}"] = (features(df, X), k)
            sets[f"context + Grewe + {name}"] = (features(df, np.hstack([X, G])), 0)
        acc, wrong = {}, {}
        for label, (X, k) in sets.items():
            pred = cross_validated(df, plat, X, k)
            acc[label] = float((pred == y).mean())
            wrong[label] = pred != y
            print(f"{plat:6s} {label:42s} {100 * acc[label]:6.2f}%", flush=True)
        margin = np.abs(np.log(df.runtime_cpu.to_numpy() / df.runtime_gpu.to_numpy()))
        whole = [f"context + {name}" for name in E]
        shared = np.logical_and.reduce([wrong[w] for w in whole]) if whole else np.zeros(len(y), bool)
        suites = df.benchmark.str.split("-").str[0]
        errors = {w: {"errors": int(wrong[w].sum()), "near_ties": int((wrong[w] & (margin < TIE)).sum()),
                      "over_1.65x": int((wrong[w] & (margin >= 0.5)).sum())} for w in whole}
        flips = df.groupby("benchmark").label.transform(lambda v: v.nunique() > 1).to_numpy()
        errors["all embeddings wrong"] = {"rows": int(shared.sum()),
                                          "near_ties": int((shared & (margin < TIE)).sum()),
                                          "label_flips_with_input_size": int((shared & flips).sum()),
                                          "by_suite": {str(s): int(c) for s, c in
                                                       suites[shared].value_counts().items()}}
        errors["rows_by_suite"] = {str(s): int(c) for s, c in suites.value_counts().items()}
        errors["rows_whose_kernel_label_flips_with_input_size"] = int(flips.sum())
        errors["near_tie_rows"] = int((margin < TIE).sum())
        result["accuracy"][plat], result["errors"][plat] = acc, errors
        print(f"{plat}: errors {json.dumps(errors)}", flush=True)
    result["seconds"] = round(time.monotonic() - t0, 1)
    out = Path(args.out)
    write_result(out, result)
    plot(result, out.with_suffix(".png"))
    print(f"wrote {out} and {out.with_suffix('.png')}")


def plot(result: dict, path: Path) -> None:
    """Horizontal bars: accuracy per feature set, one panel per platform."""
    from mirtune.figures import pyplot, save

    plt = pyplot()

    plats = list(result["accuracy"])
    labels = list(result["accuracy"][plats[0]])
    fig, axes = plt.subplots(1, len(plats), figsize=(12, 0.35 * len(labels) + 1.5), sharey=True)
    for ax, plat in zip(np.atleast_1d(axes), plats):
        vals = [100 * result["accuracy"][plat][lab] for lab in labels]
        ax.barh(range(len(labels)), vals, color="tab:blue")
        ax.set_xlim(min(vals) - 3, 100)
        ax.set_title(f"{PLATFORMS[plat]}: one fixed trees head, DeepTune folds", fontsize=9)
        ax.set_xlabel("accuracy %")
        for i, v in enumerate(vals):
            ax.text(v + 0.1, i, f"{v:.1f}", va="center", fontsize=7)
    np.atleast_1d(axes)[0].set_yticks(range(len(labels)), labels, fontsize=7)
    np.atleast_1d(axes)[0].invert_yaxis()
    fig.tight_layout()
    save(fig, path, dpi=110)


if __name__ == "__main__":
    sys.exit(main())
