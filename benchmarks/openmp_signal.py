"""Where the OpenMP predictor's signal is, and how much there is to find above the one configuration best on
average: the "why" behind docs/recommend.md's OpenMP figures, in one run on the collected data.

1. Headroom. Per kind of program, the oracle's speedup over the best fixed configuration (chosen on the other
   applications, as `mirtune evaluate` does): naive (the fastest of 25 medians) and cross-validated over the
   collector's repeats (the configuration fastest on two of a group's three repeats, timed on the third), so that
   the part of the headroom that is the winner's curse of picking the fastest of 25 noisy times shows. The
   blind sets' results files (medians of interleaved rounds) give the same naive figure for programs never seen.
   And, for programs measured with two inputs, what the configuration best on the other input reaches: what
   knowing a program's best configuration on this machine is worth when its input changes (a predictor that reads
   the code answers alike for every input).
2. Features. `mirtune evaluate measured openmp`'s protocol (heads chosen by inner CV per held-out application) on the
   MIREncoder embedding and on two controls with the same heads: a random vector per program, which tells the
   heads only which program a row belongs to, and no embedding (`none`: the context features alone). Where the
   embedding does no better than the controls, the heads' wins come from the context features and the anchor, not
   from what the embedding says about the code.
3. Data size. The shipped predictor's head settings, and those of the MIREncoder predictor shipped before it
   (fixed, no search), fitted per held-out application on a random share of the other applications (3 seeds),
   beside the best fixed configuration chosen on the same share.

Prints the figures; saves JSON and a PNG chart.

    .venv/bin/python benchmarks/openmp_signal.py [--no-ray] [--out benchmarks/results/openmp_signal.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from openmp_by_kind import REPO, by_kind_with_all, kind_of

from mirtune.paths import write_result
from mirtune.errors import MirtuneError
from mirtune.predict import held_out
from mirtune.predict.predictor import gain_problem, table_matrix
from mirtune.predict.select import evaluate_outer
from mirtune.tasks import openmp
from mirtune.tasks.embedders import get_embedder, random_embedder
from mirtune.tasks.measured import (best_fixed, best_fixed_per_group, geomean, leave_one_app_out, load_gain_table,
                                    read_rows, row_config, share_of_oracle, size_key)

DATA = [str(REPO / "datasets" / d) for d in openmp.DATASETS]
BLIND = [REPO / "benchmarks" / "results" / f for f in ("recommend_unseen6.json", "recommend_unseen45_pooled.json",
                                                        "recommend_unseen_pooled.json")]
FRACTIONS = (0.25, 0.5, 0.75, 1.0)
# the openmp predictor shipped until 2026-11-25 (commit 259aa7b): kNN over the MIREncoder embedding and the context
PREVIOUS_HEAD = {"head": "knn", "k": 5, "weight": 0.75, "context_weight": 4.0, "margin": 0.03, "anchor": "best",
                 "pca": 0, "statistic": "mean"}
SEEDS = (0, 1, 2)


# ------------------------------------------------------------------------------------------------ headroom

def repeat_times(table, data_paths: list[str]) -> list[dict[str, np.ndarray]]:
    """Each group's per-repeat times by configuration label (cells with fewer than three timed repeats left out)."""
    rows = read_rows(data_paths, openmp.SPEC.sweep)
    index = {(p, s): i for i, (p, s) in enumerate(zip(table.programs, table.sizes))}
    out: list[dict[str, np.ndarray]] = [{} for _ in range(len(table))]
    for row in rows.to_dict("records"):
        i = index.get((str(row["program"]), size_key(row)))
        times = np.asarray(row["runtimes_s"] if row["runtimes_s"] is not None else [], dtype=float)
        if i is None or row["status"] != "ok" or len(times) < 3:
            continue
        out[i][row_config(row, openmp.SPEC)[0]] = times
    return out


def fixed_per_group(table) -> np.ndarray:
    """The best fixed configuration of each group, chosen on the other applications (as `mirtune evaluate`)."""
    return best_fixed_per_group(table.speedups, [(tr, te) for tr, te, _ in leave_one_app_out(table.apps)])


def headroom(table, reps: list[dict[str, np.ndarray]]) -> dict:
    """Oracle over best fixed per kind: naive, and cross-validated over the repeats `reps` (see the module doc)."""
    s = table.speedups
    fixed = fixed_per_group(table)
    naive, cross, kinds = [], [], []
    for i in range(len(table)):
        bf = table.labels[fixed[i]]
        r = reps[i]
        if bf not in r or len(r) < 2:
            continue
        n = min(len(v) for v in r.values())
        ratios = []
        for j in range(n):
            pick = min(r, key=lambda lab: float(np.mean(np.delete(r[lab][:n], j))))
            ratios.append(r[bf][j] / r[pick][j])
        naive.append(np.nanmax(s[i]) / s[i, fixed[i]])
        cross.append(geomean(ratios))
        kinds.append(kind_of(table.programs[i]))
    out = {}
    for k in list(dict.fromkeys(kinds)) + ["all"]:
        idx = [i for i, g in enumerate(kinds) if k in ("all", g)]
        out[k] = {"groups": len(idx), "naive": geomean([naive[i] for i in idx]),
                  "cross_validated": geomean([cross[i] for i in idx])}
    return out


def input_transfer(table) -> dict:
    """Per kind, over programs measured with two inputs: the share of the oracle of the configuration best on the
    program's other input, beside the best fixed configuration on the same groups. A predictor that reads the code
    and not the input answers alike for both inputs; this is what knowing the program's best configuration on this
    machine, measured on its other input, is worth (not a ceiling: a choice that suits many inputs can do better)."""
    s = table.speedups
    programs = np.asarray(table.programs)
    fixed = fixed_per_group(table)
    transfer, kinds, rows = [], [], []
    for i, prog in enumerate(table.programs):
        others = [j for j in np.flatnonzero(programs == prog) if j != i]
        if others:
            transfer.append(share_of_oracle(s, [best_fixed(s, others)], [i])[0])
            kinds.append(kind_of(prog))
            rows.append(i)
    fixed_share = share_of_oracle(s, fixed[rows], rows)
    out = {}
    for k in list(dict.fromkeys(kinds)) + ["all"]:
        idx = [n for n, g in enumerate(kinds) if k in ("all", g)]
        out[k] = {"groups": len(idx), "other_input_best": geomean([transfer[n] for n in idx]),
                  "best_fixed": geomean(fixed_share[idx])}
    return out


def blind_headroom() -> dict:
    """The naive oracle over best fixed on the blind sets (their results files hold medians only)."""
    out = {}
    for path in BLIND:
        if not path.is_file():
            continue
        res = json.loads(path.read_text())
        ratios = [p["share_best_fixed"] for p in res["programs"]]
        out[path.name] = {"programs": len(ratios), "naive": 1.0 / geomean(ratios),
                          "recommended": res["summary"]["recommended"]["share_of_oracle"],
                          "best_fixed": res["summary"]["best_fixed"]["share_of_oracle"]}
    return out


# ------------------------------------------------------------------------------------------------ controls

# ------------------------------------------------------------------------------------------------ data size

def data_size(table, heads: dict[str, tuple[np.ndarray, dict]], fractions=FRACTIONS, seeds=SEEDS,
              use_ray: bool = True) -> dict:
    """Share of the oracle of fixed heads (name -> (features, head settings)) and of the best fixed configuration,
    each fitted per held-out application on a random share of the other applications (all groups of an
    application together; the median over `seeds`)."""
    folds = leave_one_app_out(table.apps)
    apps = np.asarray(table.apps)
    s = table.speedups
    out = {}
    for frac in fractions:
        shares: dict[str, list[float]] = {name: [] for name in [*heads, "best fixed"]}
        for seed in seeds if frac < 1 else seeds[:1]:
            rng = np.random.default_rng(seed)
            outer = []
            for tr, te, _ in folds:
                names = sorted(set(apps[tr].tolist()))
                keep = rng.choice(names, size=max(2, round(frac * len(names))), replace=False)
                outer.append((tr[np.isin(apps[tr], keep)], te))
            problems = [gain_problem(name, table, X, outer, len(openmp.CONTEXT)) for name, (X, _) in heads.items()]
            chosen = {(name, k): dict(head) for name, (_, head) in heads.items() for k in range(len(outer))}
            preds = evaluate_outer(problems, chosen, [0], use_ray=use_ray)
            for name in heads:
                shares[name].append(geomean(share_of_oracle(s, preds[name][0])))
            shares["best fixed"].append(geomean(share_of_oracle(s, best_fixed_per_group(s, outer))))
        out[str(frac)] = {"applications": round(frac * (len(folds) - 1)), "seeds": len(shares["best fixed"]),
                          **{name: float(np.median(v)) for name, v in shares.items()}}
    return out


# ------------------------------------------------------------------------------------------------ report

def plot(result: dict, out: Path) -> None:
    """Two panels: share of the oracle by kind per feature set; and the data-size curve."""
    from mirtune.figures import pyplot, save

    plt = pyplot()

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(13, 4.2), gridspec_kw={"width_ratios": [2.2, 1]})
    table = result["features"]["by_kind"]
    methods = list(table)
    kinds = list(next(iter(table.values())))
    width = 0.8 / len(methods)
    for j, m in enumerate(methods):
        ax.bar(np.arange(len(kinds)) + (j - (len(methods) - 1) / 2) * width, [table[m][k] for k in kinds], width,
               label=m)
    ax.set_xticks(np.arange(len(kinds)))
    ax.set_xticklabels([k.replace(" (", "\n(") for k in kinds], fontsize=7)
    ax.set_ylim(0.75, 1.0)
    ax.set_ylabel("share of the oracle (geometric mean)")
    ax.set_title("leave-one-application-out, heads chosen by inner CV", fontsize=9)
    ax.legend(fontsize=7, ncol=3)
    curve = result["data_size"]
    x = [v["applications"] for v in curve.values()]
    for name, style in zip(result["data_size_heads"], ("o-", "^-", "v-")):
        bx.plot(x, [v[name] for v in curve.values()], style, label=name)
    bx.plot(x, [v["best fixed"] for v in curve.values()], "s--", label="best fixed")
    bx.set_xlabel("training applications")
    bx.set_title("data size (median of 3 random shares)", fontsize=9)
    bx.legend(fontsize=7)
    fig.tight_layout()
    save(fig, out, dpi=120)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-ray", action="store_true", help="fit in this process instead of a local Ray cluster")
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "openmp_signal.json"))
    args = ap.parse_args(argv)
    use_ray = not args.no_ray
    t0 = time.monotonic()
    try:
        table = load_gain_table(DATA, openmp.SPEC)
        room = headroom(table, repeat_times(table, DATA))
        print("1. oracle over the best fixed configuration (geometric mean; naive / cross-validated over repeats):")
        for k, v in room.items():
            print(f"  {k:36s} {v['groups']:4d} groups  {v['naive']:.3f}x / {v['cross_validated']:.3f}x")
        transfer = input_transfer(table)
        print("   the same program's best configuration on its other input, against the best fixed one "
              "(share of the oracle):")
        for k, v in transfer.items():
            print(f"  {k:36s} {v['groups']:4d} groups  {v['other_input_best']:.3f} / {v['best_fixed']:.3f}")
        blind = blind_headroom()
        for name, v in blind.items():
            print(f"  blind, {name:29s} {v['programs']:4d} programs {v['naive']:.3f}x (naive); recommend "
                  f"{v['recommended']:.3f}, best fixed {v['best_fixed']:.3f} of the oracle")
        embedders = [get_embedder("mirencoder"), random_embedder(), get_embedder("none")]
        res = held_out.run("openmp", DATA, embedders, use_ray=use_ray, note=lambda m: print(f"  {m}"))
        kinds = {m: by_kind_with_all(res, m) for m in res["methods"] if m != "oracle"}
        print("2. share of the oracle by kind, the same heads on the embedding and on two controls:")
        for m, row in kinds.items():
            print(f"  {m:14s} " + "  ".join(f"{k.split(' (')[0]} {v:.3f}" for k, v in row.items()))
        shipped = json.loads((REPO / "mirtune" / "assets" / "heads" / "openmp" / "predictor.json").read_text())
        emb = shipped["features"]["embedding"]
        previous = (table_matrix(table, "openmp", embedders[0]), PREVIOUS_HEAD)
        heads = {f"shipped ({'context alone' if emb == 'none' else emb + ' + context'})":
                 (table_matrix(table, "openmp", get_embedder(emb)), shipped["head"]),
                 "until 2026-11-25 (mirencoder + context)": previous}
        curve = data_size(table, heads, use_ray=use_ray)
        print("3. data size, fixed head settings against the best fixed configuration (share of the oracle):")
        for frac, v in curve.items():
            print(f"  {frac:>5s} of the applications ({v['applications']:3d}): "
                  + ", ".join(f"{name} {v[name]:.3f}" for name in [*heads, "best fixed"]))
    except MirtuneError as err:
        print(f"openmp_signal: {err}", file=sys.stderr)
        return 2
    result = {"data": DATA, "groups": len(table), "applications": len(set(table.apps)), "headroom": room,
              "input_transfer": transfer, "blind_headroom": blind,
              "features": {"by_kind": kinds, "chosen_heads": res["chosen_heads"],
                           "embeddings": res["embeddings"]},
              "data_size": curve, "data_size_heads": {name: head for name, (_, head) in heads.items()},
              "wall_s": round(time.monotonic() - t0, 1),
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    out = Path(args.out)
    write_result(out, result)
    plot(result, out.with_suffix(".png"))
    print(f"wrote {out} and {out.with_suffix('.png')} ({result['wall_s']:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
