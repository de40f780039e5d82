"""The encoder trial: does a pre-trained MIREncoder tell programs apart better than IR2Vec and than a random vector
per program? One protocol per task, the same heads for every representation.

    .venv/bin/python benchmarks/encoder_trial.py --encoder realcode=build/encoder-gpu-small \
        [--tasks devmap,vectorize,openmp,cuda_blocks] [--json benchmarks/results/encoder_trial.json]

Representations: the shipped encoder, each `--encoder NAME=DIR`, IR2Vec (where its package is installed), a random
vector per program (the identity control: it tells a head which program a row is and nothing about its code), and
no embedding at all (the task's context features alone). Protocols:
- devmap (both platforms): DeepTune/NCC's published 10 folds, one fixed gradient-boosted trees head
  (benchmarks/devmap_signal.py's), context features ++ the representation; accuracy.
- vectorize (the 354 generated loop kernels), vectorize-gcc (GCC's vectorizer tests, datasets/vectorize-gcc: folds
  hold out whole source-file families, `mirtune.tasks.vectorize.source_family`; vectorize-gcc-xeon: the same loops
  measured on an Intel Xeon, where LLVM's choice leaves more room; vectorize-gcc-xeon2: on the Xeon of CPU tag
  6263ef7eafe6), openmp (the 108 applications),
  cuda_blocks (the generated kernels on the H200): the gain-table protocol of `mirtune evaluate` (gain and kNN heads chosen by inner cross-validation,
  `--configs` candidates each, no Ray), with 10 outer folds grouped by program: every (program, input) group of a
  program on one side, so a held-out program's siblings (same template, application or kernel family) can be in
  training, and an embedding that places it near them can use them where the random control cannot. Share of the
  oracle (geometric mean), beside the default, the best fixed configuration and the oracle.
`--with-ir2vec` adds, for each `--encoder`, that encoder's vector and IR2Vec's side by side (`NAME + IR2Vec`): its
difference from IR2Vec asks whether the encoder knows anything IR2Vec does not, which a head can use. The gain heads
weigh every standardised column alike, so there the encoder's 512 columns drown IR2Vec's 300; `--balance K` (gain
tasks) also joins each part's first K whitened principal components (`NAME + IR2Vec (K+K)`), set against IR2Vec
reduced the same way (`IR2Vec (K)`): two blocks of equal weight. These cuts and `--reduce K`'s are fitted on all
the task's programs (no labels); `--pca 0,8,16,32` instead lets each head's inner search choose its cut, fold by
fold, fitted on the training rows.
`--readout meanmax` reads every MIREncoder out by the mean and the max of its statements instead of the mean.
`--heads gain` (or knn, forest) keeps the gain tasks' inner search to those head kinds (default gain and knn).
`--label-fractions 0.1,0.2,0.5` also trains each fold's heads on those shares of its training programs and says from
which share each representation reaches each other's score with every label (a chart of share against labels),
with the same intervals and draw counts at each share as with every label.
Beside each score, each encoder's difference from the random control and from IR2Vec with a 95% interval from
resampling whole programs (benchmarks for devmap): the trial's "more than the noise". Those intervals hold one
draw of the gain tasks' folds; `--seeds 0,1,2,3,4` draws them once per seed, pools each group's share over the
draws, and counts the draws in which each difference was beyond the noise.
Prints the table; saves JSON and a chart (one panel per task).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from devmap_signal import cross_validated  # noqa: E402

from mirtune.errors import MirtuneError, UsageError  # noqa: E402
from mirtune.experiments.data_efficiency import (app_subsets, parse_fractions, reduction_factor,  # noqa: E402
                                                 subset_seed)
from mirtune.paths import data_dir, write_result  # noqa: E402
from mirtune.predict.heads import ANCHORS as HEAD_ANCHORS  # noqa: E402
from mirtune.predict.predictor import ANCHORS, candidate_configs, gain_problem, table_matrix  # noqa: E402
from mirtune.predict.select import DEFAULT_GAIN_HEADS, GAIN_HEADS, evaluate_outer, select_configs  # noqa: E402
from mirtune.tasks.embedders import Embedder, embed_files, get_embedder  # noqa: E402
from mirtune.tasks.measured import (best_fixed_per_group, geomean, group_kfold, load_gain_table,  # noqa: E402
                                    share_of_oracle)

GAIN_TASKS = {  # trial name -> (task, data folders, program folders, what the folds hold out together)
    "vectorize": ("vectorize", [REPO / "datasets" / "vectorize-epyc"], [], "program"),
    "vectorize-gcc": ("vectorize", [REPO / "datasets" / "vectorize-gcc"], [REPO / "out" / "gccvect"], "family"),
    "vectorize-gcc-xeon": ("vectorize", [REPO / "datasets" / "vectorize-gcc-xeon"], [REPO / "out" / "gccvect"],
                           "family"),
    "vectorize-gcc-xeon2": ("vectorize", [REPO / "datasets" / "vectorize-gcc-xeon2"], [REPO / "out" / "gccvect"],
                            "family"),
    "openmp": ("openmp", [REPO / "datasets" / d for d in ("openmp-epyc", "openmp-gen", "openmp-apps-epyc",
                                                          "openmp-ordinary-epyc")], [], "program"),
    "cuda_blocks": ("cuda_blocks", [REPO / "datasets" / "cuda-h200"], [REPO / "build" / "cudagen"], "program"),
}


PROGRAM_MAKERS = {  # a program folder of GAIN_TASKS -> the command that writes it
    REPO / "build" / "cudagen": "python -m collectors.cudagen --out build/cudagen",
    REPO / "out" / "gccvect": "python -m collectors.gccvect_build --out out/gccvect --jobs 2 "
                              "--recorded datasets/gccvect/programs.json.gz",
}
CONTROLS = ("random", "ir2vec")
BESIDE_IR2VEC = " + IR2Vec"  # the name of an encoder joined to IR2Vec (`--with-ir2vec`) is its own and this
SHIPPED = "shipped MIREncoder"
BASELINE_ROWS = ("default", "best fixed", "oracle")  # code-free rows of the gain tasks


def side_by_side(first: Embedder, second: Embedder) -> Embedder:
    """Two embeddings' vectors joined into one (each read from its own cache): what a head gains from the first
    where it already has the second."""
    def embed_batch(paths: list[Path]) -> np.ndarray:
        return np.hstack([embed_files(first, paths), embed_files(second, paths)])

    return Embedder(f"{first.name}+{second.name}", f"{first.key}+{second.key}", embed_batch,
                    f"{first.description} beside {second.description}", cached=False)


def representations(encoders: list[str], extra: list[str], with_ir2vec: bool = False,
                    readout: str = "mean") -> dict[str, object]:
    """Name -> embedder: the shipped encoder, each NAME=DIR (and, `with_ir2vec`, each beside IR2Vec), then the
    controls that can run here; every MIREncoder read out by `readout` (mirtune.embedding)."""
    out: dict[str, object] = {SHIPPED: get_embedder("mirencoder", readout=readout)}
    ir2vec = get_embedder("ir2vec") if with_ir2vec else None  # asked for: a missing package is an error here
    for item in encoders:
        name, sep, folder = item.partition("=")
        if not sep or not Path(folder).is_dir():
            raise UsageError(f"--encoder wants NAME=DIR with an existing model folder, got {item!r}")
        out[name] = get_embedder("mirencoder", model_dir=folder, readout=readout)
        if ir2vec is not None:
            out[name + BESIDE_IR2VEC] = side_by_side(out[name], ir2vec)
    for name in extra:
        try:
            out[name] = get_embedder(name)
        except MirtuneError as err:  # an optional baseline that is not installed: say so and go on
            print(f"skipping {name}: {err.line()}")
    return out


def paired_interval(a: np.ndarray, b: np.ndarray, groups: Sequence[str], stat: Callable[[np.ndarray], float],
                    n: int = 2000, seed: int = 0) -> list[float]:
    """[stat(a) - stat(b), low, high]: the difference of two methods' per-row scores and its 95% interval when
    whole programs (`groups`) are drawn again with replacement, both methods on the same draw (paired). An
    interval above 0 is a difference larger than what the choice of programs alone moves."""
    names, index = np.unique(np.asarray(groups), return_inverse=True)
    members = [np.flatnonzero(index == g) for g in range(len(names))]
    rng = np.random.default_rng(seed)
    diffs = np.empty(n)
    for k in range(n):
        rows = np.concatenate([members[g] for g in rng.integers(0, len(names), len(names))])
        diffs[k] = stat(a[rows]) - stat(b[rows])
    lo, hi = np.percentile(diffs, [2.5, 97.5])
    return [round(stat(a) - stat(b), 4), round(float(lo), 4), round(float(hi), 4)]


def intervals(scores: dict[str, np.ndarray], groups: Sequence[str], stat: Callable[[np.ndarray], float],
              label: str, pairs: dict[str, str] | None = None) -> dict[str, dict[str, list[float]]]:
    """Each representation that is not a control against each control present, each `--encoder` against the
    shipped one (does it keep what the shipped encoder has?) and each name of `pairs` against its own reference,
    printed and returned."""
    out: dict[str, dict[str, list[float]]] = {}
    for name, a in scores.items():
        if name in CONTROLS or name.startswith("none"):
            continue
        against = CONTROLS + ((SHIPPED,) if name not in (SHIPPED, *BASELINE_ROWS) else ())
        against += ((pairs[name],) if pairs and name in pairs else ())
        for control in against:
            if control in scores:
                d = paired_interval(a, scores[control], groups, stat)
                out.setdefault(name, {})[f"vs {control}"] = d
                print(f"{label:18s} {name:28s} - {control:8s} {d[0]:+.4f}  [{d[1]:+.4f}, {d[2]:+.4f}]", flush=True)
    return out


def devmap(reps: dict[str, object]) -> tuple[dict[str, dict[str, float]], dict[str, dict]]:
    """Accuracy per platform and representation (context ++ embedding; `none`: context alone), and the paired
    intervals of each encoder against the controls (kernels resampled by benchmark)."""
    from mirtune.tasks.devmap import PLATFORMS, context_features, features, load_platform

    data = data_dir(None)
    out: dict[str, dict[str, float]] = {}
    spans: dict[str, dict] = {}
    for plat in PLATFORMS:
        df = load_platform(data, plat)
        y = df.label.to_numpy()
        correct = {"none (context features)": cross_validated(df, plat, context_features(df)) == y}
        for name, emb in reps.items():
            if name == "none":
                continue
            X = features(df, embed_files(emb, df.ir_path.tolist()))
            correct[name] = cross_validated(df, plat, X) == y
            print(f"devmap {plat:6s} {name:28s} {100 * correct[name].mean():6.2f}%", flush=True)
        out[plat] = {name: float(c.mean()) for name, c in correct.items()}
        spans[plat] = intervals({k: v.astype(float) for k, v in correct.items()}, df.benchmark.tolist(),
                                lambda v: float(v.mean()), f"devmap {plat}")
    return out, spans


def reduced(X: np.ndarray, n_context: int, k: int) -> np.ndarray:
    """The embedding columns of X (all but the last `n_context`) replaced by their first `k` principal components,
    whitened (fitted on the distinct rows, without labels); the context columns kept. With 1,024 embedding columns
    beside a handful of context features, a distance or a linear head hears mostly the embedding: this asks
    whether a few directions of it carry what it knows."""
    E, C = X[:, : X.shape[1] - n_context], X[:, X.shape[1] - n_context:]  # C may have no column
    if E.shape[1] <= k:
        return X
    rows = np.unique(E, axis=0)
    mean = rows.mean(axis=0)
    _, sv, vt = np.linalg.svd(rows - mean, full_matrices=False)
    scale = np.maximum(sv[:k] / np.sqrt(max(len(rows) - 1, 1)), 1e-12)
    return np.hstack([(E - mean) @ vt[:k].T / scale, C])


def balanced(first: np.ndarray, second: np.ndarray, n_context: int, k: int) -> np.ndarray:
    """Two representations' matrices (embedding columns, then the same `n_context` context columns) joined with
    each embedding reduced to its own first `k` whitened components (`reduced`): equal weight for either block in a
    head that weighs every column alike, however many columns each embedding has."""
    a, b = reduced(first, n_context, k), reduced(second, n_context, k)
    cut_a, cut_b = a.shape[1] - n_context, b.shape[1] - n_context
    return np.hstack([a[:, :cut_a], b[:, :cut_b], a[:, cut_a:]])


def chosen_by_method(table, problems: list, outer: list, configs: int, n_inner: int,
                     heads: tuple[str, ...] = DEFAULT_GAIN_HEADS, anchors: Sequence[str] = ANCHORS,
                     rule: str = "best", pca: Sequence[int] = (0,)) -> dict[str, np.ndarray]:
    """The configuration each method picks for each group of a gain table: the default (configuration 0), the best
    fixed one of each fold's training groups, each problem's heads (of the kinds `heads`, `configs` candidates each
    with every anchor of `anchors` and embedding cut of `pca`, chosen by inner cross-validation and `rule`, no Ray)
    and the oracle."""
    chosen = select_configs(problems, candidate_configs(heads, configs, anchors=anchors, pca=pca), n_inner=n_inner,
                            use_ray=False, rule=rule)
    preds = evaluate_outer(problems, chosen, [0], use_ray=False)
    methods = {"default": np.zeros(len(table), dtype=int), "best fixed": best_fixed_per_group(table.speedups, outer)}
    methods.update({p.name: preds[p.name][0] for p in problems})
    methods["oracle"] = table.labels_best()
    return methods


def pooled(shares: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Each method's per-group share of the oracle over several draws of the folds, as their geometric mean: one
    score per group whose noise no longer hangs on one draw (a failed choice counts as `geomean` counts it)."""
    return {name: np.apply_along_axis(geomean, 0, np.stack([s[name] for s in shares])) for name in shares[0]}


def held(draws: list[dict[str, dict[str, list[float]]]]) -> dict[str, dict[str, list[int]]]:
    """For each encoder and control it was set against: [draws whose interval is above zero, draws whose interval
    is below zero, draws]. A difference that one draw of the folds shows and the next does not is not a finding."""
    out: dict[str, dict[str, list[int]]] = {}
    for spans in draws:
        for name, against in spans.items():
            for control, (_, lo, hi) in against.items():
                count = out.setdefault(name, {}).setdefault(control, [0, 0, 0])
                count[0] += lo > 0
                count[1] += hi < 0
                count[2] += 1
    return out


def trial_table(task: str) -> tuple[str, object, list[str]]:
    """The trial task's (mirtune task name, gain table, unit of each group that the folds keep together: its
    program, or its source-file family for GCC's tests)."""
    import importlib

    name, paths, programs, hold_out = GAIN_TASKS[task]
    missing = [PROGRAM_MAKERS[p] for p in programs if not p.is_dir() and p in PROGRAM_MAKERS]
    if missing:  # the measured programs are generated or built, not kept in the repository
        raise UsageError(f"{task}'s programs are not built here; make them with `{'` and `'.join(missing)}`")
    table = load_gain_table(paths, importlib.import_module(f"mirtune.tasks.{name}").SPEC, programs)
    return name, table, list(table.apps) if hold_out == "family" else list(table.programs)


def draw_shares(table, matrices: dict[str, np.ndarray], outer: list, progs: Sequence[str], n_context: int,
                configs: int, anchors: Sequence[str], pca: Sequence[int], heads: Sequence[str] = DEFAULT_GAIN_HEADS
                ) -> dict[str, np.ndarray]:
    """Each method's share of the oracle on every group of `table` when its heads (of the kinds `heads`) are chosen
    and fitted on the training rows of the `outer` folds, inner folds grouped by `progs` as the outer ones are."""
    problems = []
    for name, X in matrices.items():
        p = gain_problem(name, table, X, outer, n_context)
        p.inner_splits = lambda tr, n, inner_seed: group_kfold(tr, progs, n, inner_seed)
        problems.append(p)
    methods = chosen_by_method(table, problems, outer, configs, n_inner=3, heads=tuple(heads), anchors=anchors,
                               pca=pca)
    return {name: share_of_oracle(table.speedups, ch) for name, ch in methods.items()}


def fewer_labels(outer: list, progs: Sequence[str], fraction: float, seed: int) -> list:
    """The `outer` folds with each fold's training rows cut to those of a random share `fraction` of its training
    programs (`data_efficiency.app_subsets`: nested across fractions, seeded by fold and draw); test rows kept."""
    return [(app_subsets(tr, progs, [fraction], subset_seed(k, seed))[float(fraction)], te)
            for k, (tr, te) in enumerate(outer)]


def factors(curve: dict[float, dict[str, float]], full: dict[str, float], names: Sequence[str]
            ) -> dict[str, dict[str, float | None]]:
    """How many times fewer labels each of `names` needs to reach the score of each other one and of the code-free
    best fixed configuration with every label (`data_efficiency.reduction_factor` on 1 - share: the smallest share
    from which on it stays there), printed; None where it does not reach it even with every label."""
    shares = sorted(curve) + [1.0]
    out: dict[str, dict[str, float | None]] = {}
    for name in names:
        errors = [1 - curve[f][name] for f in shares[:-1]] + [1 - full[name]]
        for ref in [n for n in names if n != name] + ["best fixed"]:
            value = reduction_factor(shares, errors, 1 - full[ref])[0]
            out.setdefault(name, {})[f"vs {ref}"] = value = None if value is None else round(value, 2)
            print(f"{name:28s} reaches {ref + chr(39) + 's':30s} score with every label "
                  + ("never" if value is None else "only with every label" if value == 1
                     else f"from 1/{value:g} of the labels"), flush=True)
    return out


def over_draws(per_draw: list[dict[str, np.ndarray]], seeds: Sequence[int], progs: Sequence[str], label: str,
               pairs: dict[str, str]) -> tuple[dict[str, float], dict, dict]:
    """The scores and paired intervals of the shares of one or several draws of the folds (pooled by `pooled`),
    printed; with several draws also each draw's scores and intervals (printed) and how many draws each difference
    held in (`held`), else {}: one reading of "more than the noise" for every label and for each cut of them."""
    draws: dict = {}
    if len(seeds) > 1:
        for seed, shares in zip(seeds, per_draw):
            draws[str(seed)] = {"scores": {name: round(geomean(v), 4) for name, v in shares.items()},
                                "intervals": intervals(shares, progs, geomean, f"{label} seed {seed}", pairs)}
    shares = pooled(per_draw) if len(seeds) > 1 else per_draw[0]
    res = {name: round(geomean(v), 4) for name, v in shares.items()}
    pooled_label = f"{label} pooled" if len(seeds) > 1 else label
    for name, v in res.items():
        print(f"{pooled_label:18s} {name:28s} {v:.3f}", flush=True)
    spans = intervals(shares, progs, geomean, pooled_label, pairs)
    if len(seeds) > 1:
        draws["held"] = held([d["intervals"] for d in draws.values()])
        for name, against in draws["held"].items():
            for control, (up, down, n) in against.items():
                print(f"{label:18s} {name:28s} - {control:8s} above zero in {up} of {n} draws, below in {down}",
                      flush=True)
    return res, spans, draws


def gain_task(task: str, reps: dict[str, object], configs: int, folds: int, reduce: int = 0,
              anchors: Sequence[str] = ANCHORS, seeds: Sequence[int] = (0,), balance: int = 0,
              pca: Sequence[int] = (0,), fractions: Sequence[float] = (), heads: Sequence[str] = DEFAULT_GAIN_HEADS
              ) -> tuple[dict[str, float], dict, dict, dict[float, dict[str, float]], dict[float, dict]]:
    """Share of the oracle per method on the trial `task`'s gain table, folds grouped by program (by source-file
    family for GCC's tests: the task's application), and the paired intervals of each encoder against the
    controls (those groups resampled). `reduce` > 0: each embedding through `reduced`; `balance` > 0: each
    `NAME + IR2Vec` also joined from `balance` components of each part, against `IR2Vec (balance)`; `pca`: the
    embedding cuts the heads' inner search chooses from (fitted on its training rows); `heads`: the head kinds it
    chooses among. With several `seeds` the
    folds are drawn once per seed: the scores and intervals are those of the pooled shares, and the third value
    holds each draw's scores and intervals and how many draws each difference held in (`held`); else it is {}.
    The fourth: for each of `fractions` below 1, the pooled scores when each fold trains on that share of its
    training programs (`fewer_labels`), the test groups unchanged; the fifth: their intervals and draws held."""
    from mirtune.tasks import registry

    name_of_task, table, progs = trial_table(task)
    matrices = {name: table_matrix(table, name_of_task, emb, note=lambda m: None) for name, emb in reps.items()}
    n_context = len(registry.get(name_of_task).context_names)  # the trailing columns every matrix ends with
    if reduce:
        matrices = {name: X if name == "none" else reduced(X, n_context, reduce) for name, X in matrices.items()}
    pairs: dict[str, str] = {}
    if balance:
        for name in [n for n in matrices if n.endswith(BESIDE_IR2VEC)]:
            pairs[f"{name} ({balance}+{balance})"] = f"IR2Vec ({balance})"
            matrices[f"{name} ({balance}+{balance})"] = balanced(matrices[name[: -len(BESIDE_IR2VEC)]],
                                                                matrices["ir2vec"], n_context, balance)
        matrices[f"IR2Vec ({balance})"] = reduced(matrices["ir2vec"], n_context, balance)
    per_draw = []
    by_fraction: dict[float, list] = {float(f): [] for f in fractions if f < 1}
    for seed in seeds:
        outer = group_kfold(np.arange(len(table)), progs, folds, seed=seed)
        shares = draw_shares(table, matrices, outer, progs, n_context, configs, anchors, pca, heads)
        per_draw.append(shares)
        if len(seeds) > 1:
            print(f"{f'{task} seed {seed}':18s} " + "  ".join(f"{name} {geomean(v):.3f}" for name, v in shares.items()),
                  flush=True)
        for f, found in by_fraction.items():
            found.append(draw_shares(table, matrices, fewer_labels(outer, progs, f, seed), progs, n_context,
                                     configs, anchors, pca, heads))
            print(f"{task} seed {seed} at {f:g} of the labels  " + "  ".join(
                f"{name} {geomean(v):.3f}" for name, v in found[-1].items()), flush=True)
    res, spans, draws = over_draws(per_draw, seeds, progs, task, pairs)
    curve, curve_noise = {}, {}
    for f, found in by_fraction.items():
        curve[f], curve_spans, curve_draws = over_draws(found, seeds, progs, f"{task} at {f:g}", pairs)
        curve_noise[f] = {"intervals": curve_spans, "held": curve_draws.get("held", {})}
    for f, scores in curve.items():
        print(f"{task} at {f:g} of the labels, pooled  " + "  ".join(f"{n} {v:.3f}" for n, v in scores.items()),
              flush=True)
    return res, spans, draws, curve, curve_noise


def plot(result: dict, path: Path) -> None:
    """One panel per task and platform: the score of each method."""
    from mirtune.figures import pyplot, save

    plt = pyplot()

    panels = [(f"devmap {p} (accuracy)", v) for p, v in result.get("devmap", {}).items()]
    panels += [(f"{t} (share of oracle)", result[t]) for t in GAIN_TASKS if t in result]
    curves = result.get("fractions", {})
    fig, axes = plt.subplots(1, len(panels) + len(curves), figsize=(4.2 * (len(panels) + len(curves)), 3.6),
                             squeeze=False)
    for ax, (task, found) in zip(axes[0][len(panels):], curves.items()):  # share against the labels used
        shares = {float(f): v for f, v in found["shares"].items()} | {1.0: result[task]}
        xs = sorted(shares)
        for name in [n for n in result[task] if n not in BASELINE_ROWS[::2]]:  # all but the default and oracle
            fixed = name == "best fixed"
            ax.plot(xs, [shares[f][name] for f in xs], marker="o", label=name, color="black" if fixed else None,
                    linestyle="--" if fixed else "-")
        ax.set_xlabel("share of each fold's training programs")
        ax.set_title(f"{task}: fewer labels", fontsize=9)
        ax.legend(fontsize=6)
    for ax, (title, vals) in zip(axes[0], panels):
        names = [n for n in vals if n != "oracle"]
        xs = [vals[n] for n in names]
        ax.barh(range(len(names)), xs, color=["tab:orange" if "MIREncoder" in n or "=" in n or n in
                                              result["encoders"] else "tab:gray" for n in names])
        ax.set_yticks(range(len(names)), names, fontsize=7)
        ax.invert_yaxis()
        ax.set_xlim(max(0.0, min(xs) - 0.05), 1.0)
        ax.set_title(title, fontsize=9)
        for i, v in enumerate(xs):
            ax.text(v, i, f" {v:.3f}", va="center", fontsize=7)
    fig.tight_layout()
    save(fig, path, dpi=100)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--encoder", action="append", default=[], metavar="NAME=DIR", help="a model folder to try")
    ap.add_argument("--controls", default="ir2vec,random,none", help="baseline representations")
    ap.add_argument("--with-ir2vec", action="store_true",
                    help="also each --encoder beside IR2Vec (vectors side by side): does it add to IR2Vec?")
    ap.add_argument("--readout", choices=("mean", "meanmax"), default="mean",
                    help="how every MIREncoder (shipped and --encoder) pools its statements into one vector")
    ap.add_argument("--tasks", default="devmap,vectorize,openmp,cuda_blocks")
    ap.add_argument("--configs", type=int, default=2, help="candidate head configurations per head kind")
    ap.add_argument("--heads", default=",".join(DEFAULT_GAIN_HEADS), metavar="KIND,...",
                    help="gain tasks: the head kinds the inner search chooses among (default: %(default)s)")
    ap.add_argument("--folds", type=int, default=10)
    ap.add_argument("--seeds", default="0", metavar="S,S,...",
                    help="gain tasks: the seeds that draw the outer folds (0: the committed runs'); with several, the "
                         "scores pool every draw and each difference says in how many draws it held")
    ap.add_argument("--reduce", type=int, default=0, metavar="K",
                    help="gain tasks: each embedding reduced to its first K whitened principal components (fitted "
                         "on the task's distinct programs, without labels)")
    ap.add_argument("--balance", type=int, default=0, metavar="K",
                    help="gain tasks, with --with-ir2vec: also each encoder and IR2Vec joined from the first K "
                         "whitened components of each (equal weight per block), against IR2Vec reduced to K")
    ap.add_argument("--pca", default="0", metavar="K,K,...",
                    help="gain tasks: the embedding cuts the heads' inner search chooses from, fold by fold (0: the "
                         "whole embedding; K: its first K principal components, fitted on the training rows only)")
    ap.add_argument("--label-fractions", default="", metavar="F,F,...",
                    help="gain tasks: also train each fold on these shares of its training programs (nested, "
                         "seeded), and say from which share each representation reaches each other's score with "
                         "every label")
    ap.add_argument("--anchors", default=",".join(ANCHORS),
                    help="gain tasks: what a head keeps without evidence, candidates of the inner search: default "
                         "(the task's default configuration: LLVM's own choice for vectorize) and/or best (the best "
                         f"fixed one) (default {','.join(ANCHORS)})")
    ap.add_argument("--json", type=Path, default=REPO / "benchmarks" / "results" / "encoder_trial.json")
    args = ap.parse_args(argv)
    t0 = time.monotonic()
    try:
        try:
            seeds = sorted({int(x) for x in args.seeds.split(",")})
        except ValueError:
            seeds = []
        if not seeds or seeds[0] < 0:
            raise UsageError(f"--seeds wants whole numbers of 0 or more separated by commas, got {args.seeds!r}")
        try:
            cuts = list(dict.fromkeys(int(x) for x in args.pca.split(",")))
        except ValueError:
            cuts = [-1]
        if min(cuts) < 0:
            raise UsageError(f"--pca wants sizes of 0 or more separated by commas (0: the whole embedding), got "
                             f"{args.pca!r}")
        heads = [h for h in args.heads.split(",") if h]
        if not heads or not set(heads) <= set(GAIN_HEADS):
            raise UsageError(f"--heads: choose from {', '.join(GAIN_HEADS)}, got {args.heads!r}")
        if args.with_ir2vec and (not args.encoder or "ir2vec" not in args.controls.split(",")):
            raise UsageError("--with-ir2vec joins each --encoder NAME=DIR to IR2Vec and sets it against the ir2vec "
                             "control: give at least one --encoder and keep ir2vec in --controls")
        reps = representations(args.encoder, [c for c in args.controls.split(",") if c], args.with_ir2vec,
                               args.readout)
        if not set(args.anchors.split(",")) <= set(HEAD_ANCHORS):
            raise UsageError(f"--anchors: choose from {', '.join(HEAD_ANCHORS)}, got {args.anchors!r}")
        fractions = parse_fractions(args.label_fractions) if args.label_fractions else []
        if args.balance < 0 or (args.balance and (not args.with_ir2vec or args.reduce)):
            raise UsageError("--balance K wants K >= 1, --with-ir2vec and no --reduce")
        by_family = " and ".join(name for name, spec in GAIN_TASKS.items() if spec[3] == "family")
        result: dict = {"encoders": {e.partition("=")[0]: e.partition("=")[2] for e in args.encoder},
                        "reduce": args.reduce, "balance": args.balance, "pca": cuts, "readout": args.readout,
                        "label_fractions": fractions, "heads": heads,
                        "protocol": {"devmap": "DeepTune folds, fixed trees head",
                                     "gain tasks": f"{args.folds} folds grouped by program ({by_family}: by "
                                                   f"family), gain/kNN heads, {args.configs} candidates each",
                                     "anchors": args.anchors, "seeds": seeds}}
        for task in args.tasks.split(","):
            if task == "devmap":
                result["devmap"], result.setdefault("intervals", {})["devmap"] = devmap(reps)
            elif task in GAIN_TASKS:
                result[task], result.setdefault("intervals", {})[task], draws, curve, curve_noise = gain_task(
                    task, reps, args.configs, args.folds, args.reduce, args.anchors.split(","), seeds, args.balance,
                    cuts, fractions, heads)
                if draws:
                    result.setdefault("draws", {})[task] = draws
                if curve:
                    result.setdefault("fractions", {})[task] = {
                        "shares": {str(f): v for f, v in curve.items()},
                        "intervals": {str(f): v["intervals"] for f, v in curve_noise.items()},
                        "held": {str(f): v["held"] for f, v in curve_noise.items() if v["held"]},
                        "factors": factors(curve, result[task], [n for n in reps if n not in CONTROLS]
                                           + [n for n in CONTROLS if n in reps])}
            else:
                raise UsageError(f"unknown task {task!r}; choose from devmap, {', '.join(GAIN_TASKS)}")
            write_result(args.json, result)  # each task saved as it ends
    except MirtuneError as err:
        print(f"encoder_trial: {err.line()}", file=sys.stderr)
        return 2
    result["seconds"] = round(time.monotonic() - t0, 1)
    write_result(args.json, result)
    plot(result, args.json.with_suffix(".png"))
    print(f"wrote {args.json} and {args.json.with_suffix('.png')} in {result['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
