"""The table and the chart of the leave-one-application-out evaluation of a measured task (openmp, vectorize),
for `mirtune evaluate measured TASK`. The evaluation itself (`run`, `held_out_problem`) is the product's,
mirtune.predict.held_out, since `mirtune fit --evaluate` records its figures in a predictor.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np


def table(result: dict[str, Any]) -> str:
    """The result as a text table, one line per method."""
    from mirtune.tables import format_table

    rows = [[name, f"{m['share_of_oracle']:.3f}", f"{m['speedup_over_default']:.3f}x",
             f"{m['within_0.9_of_oracle']}/{m['groups']}", str(m["slowdowns"]),
             f"{m['error_rate']:.3f}" if "error_rate" in m else "-"] for name, m in result["methods"].items()]
    header = ["method", "share of oracle", "speedup vs default", "groups >= 0.9 oracle", "slowdowns (<0.95x)",
              "error rate"]
    head = (f"{result['task']}: {result['protocol']}, {result['applications']} applications, {result['groups']} "
            f"groups, {len(result['configurations'])} configurations; oracle {result['oracle_speedup_over_default']:.3f}x "
            f"over the default")
    return head + "\n" + format_table(header, rows)


def plot(result: dict[str, Any], out: Path) -> None:
    """Bar chart: share of the oracle per application (geometric mean over its groups), one bar per method."""
    from mirtune.figures import pyplot, save

    plt = pyplot()

    apps = list(dict.fromkeys(result["group_apps"]))
    names = [n for n in result["methods"] if n != "oracle"]
    idx = {a: [i for i, g in enumerate(result["group_apps"]) if g == a] for a in apps}
    fig, ax = plt.subplots(figsize=(max(8, 0.42 * len(apps) + 2), 4.2))
    width = 0.8 / len(names)
    for j, name in enumerate(names):
        share = np.maximum(np.asarray(result["methods"][name]["per_group_share"]), 1e-3)
        vals = [float(np.exp(np.log(share[idx[a]]).mean())) for a in apps]
        total = result["methods"][name]["share_of_oracle"]
        ax.bar(np.arange(len(apps)) + (j - (len(names) - 1) / 2) * width, vals, width, label=f"{name} ({total:.3f})")
    ax.set_xticks(np.arange(len(apps)))
    ax.set_xticklabels(apps, rotation=70, ha="right", fontsize=7)
    ax.set_ylabel("share of the oracle (best time / chosen time)")
    ax.set_ylim(0, 1.05)
    ax.axhline(0.9, color="grey", lw=0.6, ls="--")
    ax.set_title(f"{result['task']}: {result['protocol']} (geometric mean in the legend)", fontsize=9)
    ax.legend(fontsize=7, ncol=len(names), loc="lower right")
    fig.tight_layout()
    save(fig, out, dpi=130)
