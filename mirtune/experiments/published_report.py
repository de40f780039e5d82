"""The paper's tables and charts for `mirtune evaluate published`: this run's figures beside the published ones
(device mapping: accuracy, F1, speedup per platform; coarsening: speedup per GPU), as text and as a PNG."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mirtune.tables import format_table


def _pm(mean: float | None, std: float | None, fmt: str, scale: float = 1.0) -> str:
    """A table cell: `mean` (times `scale`) in `fmt`, with ±`std` when there is one; "-" for no value."""
    if mean is None:
        return "-"
    if std is None:
        return format(mean * scale, fmt)
    return f"{format(mean * scale, fmt)}±{format(std * scale, fmt)}"


def run_label(result: dict[str, Any]) -> str:
    """This run's name in tables and charts: the embedding and the head it was measured with."""
    return f"mirtune + {result['embedding']}, {result.get('head', 'mlp')} head"


def devmap_table(result: dict[str, Any], prior: list[dict[str, Any]]) -> str:
    """The device-mapping table: the paper's rows, prior work's (`prior`, from the published predictions), this run
    (mean±std over head seeds) and the oracle."""
    from mirtune.tasks.devmap import PLATFORMS, PUBLISHED

    header = ["model", "AMD acc%", "AMD F1", "AMD speedup", "NV acc%", "NV F1", "NV speedup", "source"]
    rows = []
    for r in PUBLISHED:
        cells = [r["model"]]
        for p in PLATFORMS:
            acc, sp = r[p]
            cells += [_pm(acc, None, ".2f"), "-", _pm(sp, None, ".2f") if sp is not None else "-"]
        rows.append(cells + [r["source"]])
    for r in prior:
        cells = [r["model"]]
        for p in PLATFORMS:
            m = r.get(p)
            cells += ([_pm(m["accuracy"], None, ".2f", 100), _pm(m["f1"], None, ".3f"), _pm(m["speedup"], None, ".2f")]
                      if m else ["-"] * 3)
        rows.append(cells + [r["source"]])
    n = len(result["seeds"])
    cells = [run_label(result) + " (this run)"]
    for p in PLATFORMS:
        m = result[p]
        cells += [_pm(m["accuracy"], m["accuracy_std"], ".2f", 100), _pm(m["f1"], m["f1_std"], ".3f"),
                  _pm(m["speedup"], m["speedup_std"], ".2f")]
    rows.append(cells + [f"mean±std over {n} head seeds, folds {result['fold_column']}"
                         + (f" {result['folds']}" if len(result["folds"]) < 10 else "")])
    cells = ["Oracle"]
    for p in PLATFORMS:
        cells += ["100.00", "1.000", _pm(result[p]["oracle_speedup"], None, ".2f")]
    rows.append(cells + ["the oracle device of every row"])
    title = ("Heterogeneous device mapping: accuracy, F1 of the GPU class, mean speedup over the static mapping "
             "(CPU on AMD, GPU on NVIDIA)")
    return title + "\n" + format_table(header, rows)


def coarsening_table(result: dict[str, Any], prior: list[dict[str, Any]]) -> str:
    """The thread-coarsening table: the paper's rows, prior work's, this run, the best fixed factor, the oracle and
    the code-only ceiling where the result has them."""
    from mirtune.tasks.coarsening import PLATFORMS, PUBLISHED

    header = ["model"] + list(PLATFORMS) + ["average", "source"]
    rows = []
    for r in PUBLISHED:
        rows.append([r["model"]] + [f"{v:.3f}" for v in r["values"]] + [r["source"]])
    for r in prior:
        rows.append([r["model"]] + [f"{r[p]:.3f}" if p in r else "-" for p in PLATFORMS]
                    + [f"{r['average']:.3f}" if "average" in r else "-", r["source"]])
    n = len(result["seeds"])
    rows.append([run_label(result) + " (this run)"]
                + [_pm(result["per_gpu"][p], result["per_gpu_std"][p], ".3f") for p in PLATFORMS]
                + [_pm(result["average"], result["average_std"], ".3f"),
                   f"mean±std over {n} head seeds, "
                   + ("leave-one-kernel-out" if result.get("protocol", "loko") == "loko"
                      else "IR2Vec protocol: joint model, 68 leave-one-row-out folds")
                   + (f" ({len(result['kernels'])} kernels)" if len(result["kernels"]) < 17 else "")])
    if result.get("fixed_factor_baseline"):
        b = result["fixed_factor_baseline"]
        rows.append(["Best fixed factor (no code)"] + [f"{b[p]:.3f}" for p in PLATFORMS]
                    + [f"{b['average']:.3f}", "the factor best on the other kernels, same leave-one-kernel-out"])
    rows.append(["Oracle"] + [f"{result['oracle'][p]:.3f}" for p in PLATFORMS]
                + [f"{result['oracle']['average']:.3f}", "best measured factor per kernel"])
    if result.get("code_only_ceiling"):
        c = result["code_only_ceiling"]
        rows.append(["Code-only ceiling"] + [f"{c[p]:.3f}" for p in PLATFORMS]
                    + [f"{c['average']:.3f}", "oracle with one shared factor for identical IR (mt = mtLocal)"])
    title = "Thread coarsening: mean speedup over factor 1 (arithmetic mean over kernels per GPU)"
    return title + "\n" + format_table(header, rows)


# ---------------------------------------------------------------------------------------------- plots

def _colour(label: str) -> Any:
    """One colour per model name, the same in every panel; this run in black, the oracle in grey."""
    import matplotlib

    if label.startswith("mirtune"):
        return "black"
    if label == "Oracle":
        return "0.65"
    if label.startswith("Best fixed factor"):
        return "0.85"
    names = [r["model"] for r in _published_models()]
    palette = [c for i, c in enumerate(matplotlib.colormaps["tab10"].colors) if i != 7]  # no grey
    palette += list(matplotlib.colormaps["Dark2"].colors)
    return palette[names.index(label) % len(palette)] if label in names else None


def _published_models() -> list[dict[str, Any]]:
    """Every model the paper's two tables name, each once (the colours follow this order)."""
    from mirtune.tasks import coarsening, devmap

    return devmap.PUBLISHED + [r for r in coarsening.PUBLISHED
                               if r["model"] not in {m["model"] for m in devmap.PUBLISHED}]


def _bars(ax: Any, groups: list[str], series: list[tuple[str, list, list | None]], ylabel: str) -> None:
    """Grouped bars on `ax`: one bar per (label, values, error bars) of `series` in each group."""
    import numpy as np

    width = 0.8 / max(1, len(series))
    x = np.arange(len(groups))
    for i, (label, values, errs) in enumerate(series):
        vals = [np.nan if v is None else v for v in values]
        ax.bar(x + (i - (len(series) - 1) / 2) * width, vals, width, label=label, color=_colour(label),
               yerr=errs, capsize=2 if errs else 0, ecolor="red")
    ax.set_xticks(x, groups)
    ax.set_ylabel(ylabel)
    ax.grid(axis="y", alpha=0.3)


def plot_devmap(result: dict[str, Any], out: Path) -> None:
    """Write the device-mapping chart to `out`: accuracy and speedup per platform, the paper's models beside this
    run."""
    from mirtune.figures import pyplot, save

    plt = pyplot()

    from mirtune.tasks.devmap import PLATFORMS, PUBLISHED

    groups = [PLATFORMS[p] for p in PLATFORMS]
    acc_series, sp_series = [], []
    for r in PUBLISHED:
        if r["model"] == "Static mapping":
            continue
        acc_series.append((r["model"], [r[p][0] for p in PLATFORMS], None))
        if r["amd"][1] is not None:
            sp_series.append((r["model"], [r[p][1] for p in PLATFORMS], None))
    ours = run_label(result)
    acc_series.append((ours, [100 * result[p]["accuracy"] for p in PLATFORMS],
                       [100 * result[p]["accuracy_std"] for p in PLATFORMS]))
    sp_series.append((ours, [result[p]["speedup"] for p in PLATFORMS], [result[p]["speedup_std"] for p in PLATFORMS]))
    sp_series.append(("Oracle", [result[p]["oracle_speedup"] for p in PLATFORMS], None))
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    _bars(axes[0], groups, acc_series, "accuracy (%)")
    axes[0].set_ylim(50, 100)
    axes[0].set_title("Device mapping accuracy")
    _bars(axes[1], groups, sp_series, "mean speedup over static mapping")
    axes[1].set_title("Speedup over static mapping")
    axes[0].legend(fontsize=7, loc="lower right")
    axes[1].legend(fontsize=7, loc="upper right")
    fig.suptitle(f"{result['task']}, {len(result['seeds'])} head seeds (error bars: std)", fontsize=10)
    fig.tight_layout()
    save(fig, out, dpi=120)


def plot_coarsening(result: dict[str, Any], out: Path) -> None:
    """Write the coarsening chart to `out`: speedup per GPU and on average, the paper's models beside this run."""
    from mirtune.figures import pyplot, save

    plt = pyplot()

    from mirtune.tasks.coarsening import PLATFORMS, PUBLISHED

    groups = list(PLATFORMS) + ["average"]
    series = [(r["model"], list(r["values"]), None) for r in PUBLISHED]
    series.append((run_label(result),
                   [result["per_gpu"][p] for p in PLATFORMS] + [result["average"]],
                   [result["per_gpu_std"][p] for p in PLATFORMS] + [result["average_std"]]))
    if result.get("fixed_factor_baseline"):
        b = result["fixed_factor_baseline"]
        series.append(("Best fixed factor (no code)", [b[p] for p in PLATFORMS] + [b["average"]], None))
    series.append(("Oracle", [result["oracle"][p] for p in PLATFORMS] + [result["oracle"]["average"]], None))
    fig, ax = plt.subplots(figsize=(12, 4.8))
    _bars(ax, groups, series, "mean speedup over factor 1")
    ax.axhline(1.0, color="black", lw=0.8)
    ax.set_ylim(0.7, None)
    protocol = ("leave-one-kernel-out" if result.get("protocol", "loko") == "loko"
                else "IR2Vec's joint protocol (68 leave-one-row-out folds)")
    ax.set_title(f"Thread coarsening, {protocol}, {len(result['seeds'])} head seeds (error bars: std)")
    ax.legend(fontsize=7, ncol=3, loc="upper right")
    fig.tight_layout()
    save(fig, out, dpi=120)
