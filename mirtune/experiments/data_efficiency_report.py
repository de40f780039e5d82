"""The data-efficiency study's table and chart (`mirtune.experiments.data_efficiency`): error against the labelled
fraction per platform on devmap, the share of the oracle on a measured task; the factors and the costs."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _measured_table(result: dict[str, Any]) -> str:
    """The share-of-oracle table per fraction, the factors with the figures that decide them, and the costs."""
    from mirtune.tables import format_table

    def block(curves: dict[str, list[dict[str, Any]]]) -> list[list[str]]:
        rows = []
        for f in result["fractions"]:
            cells = {m: next((c for c in pts if c["fraction"] == f), None) for m, pts in curves.items()}
            first = next((c for c in cells.values() if c), None)
            reps = "/".join(str(n) for n in dict.fromkeys(c["repeats"] for c in cells.values() if c)) or "0"
            rows.append([f"{f:g}", "-" if first is None else f"{first['n_apps']:.0f}",
                         "-" if first is None else f"{first['n_train']:.0f}"]
                        + [f"{c['share_mean']:.3f}±{c['share_std']:.3f}" if c else "-" for c in cells.values()]
                        + [reps])
        return rows

    folds = result["comparison_folds"]
    where = (f"{len(folds)} held-out applications ({result['comparison_groups']} test groups)"
             if len(folds) < result["applications"] else f"all {result['applications']} held-out applications")
    out = [f"{result['task']} data efficiency ({result['protocol']}): geometric-mean share of the oracle (higher is "
           f"better), mean±std over repeats, on {where} ({result['status']})",
           format_table(["fraction", "train apps", "train groups"] + list(result["curves"]) + ["repeats"],
                        block(result["curves"]))]
    if result.get("curves_all_folds"):
        out += ["", f"heads and code-free baselines on {len(result['folds'])} held-out applications",
                format_table(["fraction", "train apps", "train groups"] + list(result["curves_all_folds"])
                             + ["repeats"], block(result["curves_all_folds"]))]
    out.append("")
    for name, fac in result["factor"].items():
        ref = fac["reference"]
        if fac.get("reference_full_share") is None:
            out.append(f"{ref}: no factor ({fac.get('why')})")
            continue
        method = fac.get("method", "frozen")  # studies saved before 2026-12-05 name no method: the frozen head
        shares = ", ".join(f"{k}: {v:.3f}" for k, v in fac[f"{method}_share"].items())
        verdict = (f"from fraction {fac['fraction']:g} on -> factor {fac['data_reduction_factor']:g}"
                   if fac["data_reduction_factor"] is not None else "never -> no factor")
        out.append(f"vs {ref} on all the data ({fac['reference_full_share']:.3f}): "
                   f"{'frozen head' if method == 'frozen' else method} {shares}; at least as good {verdict}")
    out.append(f"data_reduction_factor ({result['task']}, vs scratch): {result['data_reduction_factor']}; vs best "
               f"fixed: {result['data_reduction_factor_vs_best_fixed']}")
    out += _cost_lines(result["cost"], ["frozen_fit_s", "frozen_embed_s", "frozen_total_s", "ir2vec_fit_s",
                                        "best_fixed_fit_s", "finetune_fit_s", "scratch_fit_s", "e2e_steps"], 3)
    return "\n".join(out)


def _measured_plot(result: dict[str, Any], out: Path) -> None:
    """Share of the oracle against the labelled fraction per method: on the comparison folds, and (when the
    end-to-end methods ran on fewer) the heads and baselines on all folds."""
    from mirtune.figures import pyplot, save

    plt = pyplot()

    style = {"frozen": ("black", "o", "-"), "finetune": ("tab:blue", "s", "-"), "scratch": ("tab:red", "^", "-"),
             "ir2vec": ("tab:green", "D", "-"), "best_fixed": ("0.45", "x", "--"), "default": ("0.7", "", ":")}
    names = {"frozen": "frozen pre-trained encoder + gain head", "best_fixed": "best fixed configuration (no code)",
             "default": "default configuration"}
    panels = [("comparison", result["curves"], result["comparison_folds"])]
    if result.get("curves_all_folds"):
        panels.append(("heads", result["curves_all_folds"], result["folds"]))
    fig, axes = plt.subplots(1, len(panels), figsize=(6.2 * len(panels), 4.6), sharey=True, squeeze=False)
    for ax, (kind, curves, folds) in zip(axes[0], panels):
        for m, pts in curves.items():
            if pts:
                colour, marker, ls = style[m]
                ax.errorbar([c["fraction"] for c in pts], [c["share_mean"] for c in pts],
                            yerr=[c["share_std"] for c in pts], color=colour, marker=marker or None, ls=ls,
                            capsize=3, label=names.get(m, m))
        ax.set_xscale("log")
        ax.set_xticks(result["fractions"], [f"{f:g}" for f in result["fractions"]])
        ax.set_xticks([], minor=True)  # the log axis's own minor labels (3x10^-1 ...) would crowd the fractions
        ax.set_xlabel("labelled fraction of each fold's training applications")
        ax.grid(alpha=0.3)
        n = len(folds)
        where = f"{n} held-out applications" if n < result["applications"] else "all held-out applications"
        lines = [where]
        if kind == "comparison":
            factor = result["factor"]["vs_scratch"].get("data_reduction_factor")
            lines.append(f"factor vs scratch on all the data: {factor:g}" if factor else
                         "no factor vs scratch" + (" (not run)" if "scratch" not in result["curves"] else ""))
        if kind == "heads" or not result.get("curves_all_folds"):
            factor = result["factor"]["vs_best_fixed"].get("data_reduction_factor")
            lines.append(f"factor vs best fixed on all the data: {factor:g}" if factor else
                         "no factor vs best fixed on all the data")
        title = "\n".join(lines)
        ax.set_title(title, fontsize=9)
    axes[0][0].set_ylabel("share of the oracle (geometric mean; higher is better)")
    axes[0][0].legend(fontsize=7)
    e2e = f", end-to-end methods {result['e2e_repeats']}" if result.get("e2e_repeats") else ""
    fig.suptitle(f"{result['task']} ({result['protocol']}): share of the oracle against labelled data,\nmean±std "
                 f"over {result['repeats']} repeats{e2e}", fontsize=10)
    fig.tight_layout()
    save(fig, out, dpi=120)


def _measured(result: dict[str, Any]) -> bool:
    """Whether a study's result is of a measured task (its table and chart are the shares of the oracle)."""
    from mirtune.tasks import registry

    return registry.get(result["task"]).kind == registry.MEASURED


def _pct(mean: float, std: float) -> str:
    return f"{100 * mean:.1f}±{100 * std:.1f}"


def table(result: dict[str, Any]) -> str:
    """The error table per platform and fraction, the factors with the figures that decide them, and the costs
    (for a measured task: the share of the oracle per fraction, `_measured_table`)."""
    from mirtune.tables import format_table

    if _measured(result):
        return _measured_table(result)
    from mirtune.tasks.devmap import PLATFORMS

    methods = result["methods"]
    rows = []
    for p, by_method in result["curves"].items():
        for f in result["fractions"]:
            cells = {m: next((c for c in by_method[m] if c["fraction"] == f), None) for m in methods}
            n_train = next((c["n_train"] for c in cells.values() if c), None)
            reps = "/".join(str(n) for n in dict.fromkeys(c["repeats"] for c in cells.values() if c)) or "0"
            rows.append([p, f"{f:g}", "-" if n_train is None else f"{n_train:.0f}"]
                        + [_pct(c["error_mean"], c["error_std"]) if c else "-" for m, c in cells.items()]
                        + [reps])
    out = [f"{result['task']} data efficiency: error % (1 - accuracy), mean±std over repeats, comparison folds "
           f"{result['comparison_folds']} of {result['fold_column']} ({result['status']})",
           format_table(["platform", "fraction", "train rows"] + methods + ["repeats"], rows)]
    if result.get("curves_all_folds"):
        rows = []
        for p, by_method in result["curves_all_folds"].items():
            for f in result["fractions"]:
                cells = [next((c for c in by_method[m] if c["fraction"] == f), None) for m in by_method]
                rows.append([p, f"{f:g}"] + [_pct(c["error_mean"], c["error_std"]) if c else "-" for c in cells])
        out += ["", f"heads on all folds {result['folds']}: error %",
                format_table(["platform", "fraction"] + list(next(iter(result["curves_all_folds"].values()))), rows)]
    out.append("")
    for p, fac in result["factor"].items():
        if fac.get("scratch_full_error") is None:
            out.append(f"{PLATFORMS[p]}: no factor ({fac.get('why')})")
            continue
        frozen = ", ".join(f"{k}: {100 * v:.1f}%" for k, v in fac["frozen_error"].items())
        verdict = (f"from fraction {fac['fraction']:g} on -> data_reduction_factor {fac['data_reduction_factor']:g}"
                   if fac["data_reduction_factor"] is not None else "never -> no factor")
        out.append(f"{PLATFORMS[p]}: scratch on all the data {100 * fac['scratch_full_error']:.1f}% error; frozen "
                   f"head {frozen}; at least as good {verdict}")
    out.append(f"data_reduction_factor ({result['task']}, the smaller over the platforms): "
               f"{result['data_reduction_factor']}")
    out += _cost_lines(result["cost"], ["frozen_fit_s", "frozen_embed_s", "frozen_total_s", "ir2vec_fit_s",
                                        "finetune_fit_s", "scratch_fit_s", "e2e_steps"], 2, scratch_ratio=True)
    return "\n".join(out)


def _cost_lines(cost: dict[str, dict[str, Any]], columns: list[str], digits: int,
                scratch_ratio: bool = False) -> list[str]:
    """The cost table under a study's table (none when nothing was timed): mean wall seconds per fit for each
    label fraction, the columns some fraction has, and with `scratch_ratio` how many times the frozen path's
    total the from-scratch fit took."""
    if not cost:
        return []
    from mirtune.tables import format_table

    cols = [c for c in columns if any(c in r for r in cost.values())]
    rows = []
    for fraction, r in cost.items():
        row = [fraction] + [f"{r[c]:.{digits}f}" if c in r and c != "e2e_steps" else str(r.get(c, "-")) for c in cols]
        if scratch_ratio:
            row.append(f"{r['scratch_fit_s'] / r['frozen_total_s']:.0f}x"
                       if "scratch_fit_s" in r and "frozen_total_s" in r else "-")
        rows.append(row)
    return ["", "cost: mean wall seconds per fit (same subsets, same run, one CPU each); frozen_total = embedding "
                "the training files with the pre-trained encoder + fitting the head",
            format_table(["fraction"] + cols + ["scratch / frozen_total"] * scratch_ratio, rows)]


def plot(result: dict[str, Any], out: Path) -> None:
    """Error against the labelled fraction per method, one panel per platform (for a measured task: the share of
    the oracle, `_measured_plot`)."""
    if _measured(result):
        return _measured_plot(result, out)
    from mirtune.figures import pyplot, save

    plt = pyplot()

    from mirtune.tasks.devmap import PLATFORMS

    style = {"frozen": ("black", "o"), "finetune": ("tab:blue", "s"), "scratch": ("tab:red", "^"),
             "ir2vec": ("tab:green", "D")}
    platforms = list(result["curves"])
    fig, axes = plt.subplots(1, len(platforms), figsize=(6 * len(platforms), 4.6), sharey=True, squeeze=False)
    for ax, p in zip(axes[0], platforms):
        for m, pts in result["curves"][p].items():
            if pts:
                colour, marker = style[m]
                ax.errorbar([c["fraction"] for c in pts], [100 * c["error_mean"] for c in pts],
                            yerr=[100 * c["error_std"] for c in pts], color=colour, marker=marker, capsize=3,
                            label={"frozen": "frozen pre-trained encoder + head"}.get(m, m))
        fac = result["factor"][p]
        if fac.get("scratch_full_error") is not None:
            ax.axhline(100 * fac["scratch_full_error"], color="tab:red", ls="--", lw=0.8,
                       label="scratch, all labels")
        ax.set_xscale("log")
        ax.set_xticks(result["fractions"], [f"{f:g}" for f in result["fractions"]])
        ax.set_xticks([], minor=True)  # the log axis's own minor labels (3x10^-1 ...) would crowd the fractions
        ax.set_xlabel("labelled fraction of each training fold")
        ax.grid(alpha=0.3)
        factor = fac.get("data_reduction_factor")
        ax.set_title(f"{PLATFORMS[p]}: data reduction factor {factor:g}" if factor else
                     f"{PLATFORMS[p]}: no data reduction factor")
    axes[0][0].set_ylabel("error % (1 - accuracy)")
    axes[0][0].legend(fontsize=8)
    e2e = f", end-to-end methods {result['e2e_repeats']}" if result.get("e2e_repeats") else ""
    fig.suptitle(f"{result['task']}: error against labelled data, mean±std over {result['repeats']} repeats{e2e}, "
                 f"folds {result['comparison_folds']}", fontsize=10)
    fig.tight_layout()
    save(fig, out, dpi=120)
