"""The encoder trial against pre-training: does an encoder that has read more files give a head more than IR2Vec and
the random control give it? One point per encoder trial, placed at the files its encoder had seen.

    python benchmarks/trial_by_files.py medium:22400=benchmarks/results/encoder_trial_real_medium_1400.json \
        medium:32000=benchmarks/results/encoder_trial_real_medium_bf16.json ... \
        [--png benchmarks/results/trial_by_files.png]

Each SERIES:FILES=JSON names an `encoder_trial.py` result whose one `--encoder` was pre-trained on FILES files
(a series per preset or run). Every point uses the protocol all these results share, the first draw of the folds
(seed 0; a result of several draws gives its seed-0 scores): devmap on its published folds (per platform) and the
gain tasks' share of the oracle. Prints, per task, each point's score and its differences from IR2Vec and from
the random control, and charts those differences with the draw's 95% intervals against files seen, a row per
control (a result without a control has no point in its row).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PANELS = ("devmap amd", "devmap nvidia", "vectorize", "openmp", "cuda_blocks")
CONTROLS = ("ir2vec", "random")


def first_draw(result: dict) -> tuple[dict[str, dict[str, float]], dict[str, dict]]:
    """Panel -> representation -> score in the result's seed-0 draw (devmap: per platform), and panel ->
    representation -> {"vs CONTROL": [difference, low, high]}, the paired intervals of that draw."""
    spans = result.get("intervals", {})
    scores = {f"devmap {plat}": s for plat, s in result.get("devmap", {}).items()}
    intervals = {f"devmap {plat}": s for plat, s in spans.get("devmap", {}).items()}
    for task in PANELS[2:]:
        if task in result:
            draws = result.get("draws", {}).get(task)
            scores[task] = draws["0"]["scores"] if draws else result[task]
            intervals[task] = draws["0"]["intervals"] if draws else spans.get(task, {})
    return scores, intervals


def point(spec: str) -> dict:
    """SERIES:FILES=JSON -> {series, files, encoder, scores} (the result's one `--encoder`)."""
    head, sep, path = spec.partition("=")
    series, colon, files = head.rpartition(":")
    if not sep or not colon or not series or not files.isdigit():
        raise ValueError(f"expected SERIES:FILES=JSON, got {spec!r}")
    result = json.loads(Path(path).read_text())
    encoders = list(result.get("encoders", {}))
    if len(encoders) != 1:
        raise ValueError(f"{path}: wants a trial of one --encoder, has {encoders or 'none'}")
    scores, intervals = first_draw(result)
    return {"series": series, "files": int(files), "encoder": encoders[0], "scores": scores, "intervals": intervals}


def differences(p: dict, panel: str) -> dict[str, float] | None:
    """The point's score on `panel`, its difference from each control the result has and, where the result holds
    it, that difference's 95% interval (`- CONTROL low` / `high`); None without a score."""
    scores = p["scores"].get(panel, {})
    if p["encoder"] not in scores:
        return None
    mine = scores[p["encoder"]]
    out = {"score": mine}
    for c in CONTROLS:
        if c in scores:
            out[f"- {c}"] = mine - scores[c]
            span = p["intervals"].get(panel, {}).get(p["encoder"], {}).get(f"vs {c}")
            if span:
                out[f"- {c} low"], out[f"- {c} high"] = span[1], span[2]
    return out


def chart(points: list[dict], png: Path) -> None:
    """One column per task, a row per control: each series' difference from it against files seen."""
    from mirtune.figures import pyplot, save

    plt = pyplot()
    fig, axes = plt.subplots(len(CONTROLS), len(PANELS), figsize=(3.6 * len(PANELS), 6.4), squeeze=False)
    for row, control in zip(axes, CONTROLS):
        for ax, panel in zip(row, PANELS):
            for series in dict.fromkeys(p["series"] for p in points):
                diffs = sorted((p["files"], differences(p, panel)) for p in points if p["series"] == series)
                kept = [(f, d) for f, d in diffs if d is not None and f"- {control}" in d]
                if kept:
                    xs, ys = [f for f, _ in kept], [d[f"- {control}"] for _, d in kept]
                    err = [[max(0.0, y - d.get(f"- {control} low", y)) for y, (_, d) in zip(ys, kept)],
                           [max(0.0, d.get(f"- {control} high", y) - y) for y, (_, d) in zip(ys, kept)]]
                    ax.errorbar(xs, ys, yerr=err, fmt="o-", markersize=4, capsize=3, label=series)
            ax.axhline(0, color="black", linewidth=0.8)
            ax.set_title(f"{panel}: encoder - {control}", fontsize=9)
            ax.grid(alpha=0.3)
        row[0].set_ylabel("score difference (first draw)")
    for ax in axes[-1]:
        ax.set_xlabel("files seen in pre-training")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    save(fig, png)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("points", nargs="+", metavar="SERIES:FILES=JSON")
    ap.add_argument("--png", type=Path, default=None, help="write the chart here")
    args = ap.parse_args(argv)
    try:
        points = [point(spec) for spec in args.points]
    except (OSError, ValueError) as exc:
        print(f"trial_by_files: {exc}", file=sys.stderr)
        return 2
    for panel in PANELS:
        print(f"{panel}:")
        for p in sorted(points, key=lambda p: (p["series"], p["files"])):
            d = differences(p, panel)
            if d is not None:
                print(f"  {p['series']:>8s} {p['files']:>7,d} files  {p['encoder']:20s} {d['score']:.4f}" + "".join(
                    f"  - {c} {d[f'- {c}']:+.4f}" + (f" [{d[f'- {c} low']:+.4f}, {d[f'- {c} high']:+.4f}]"
                                                    if f"- {c} low" in d else "")
                    for c in CONTROLS if f"- {c}" in d))
    if args.png:
        chart(points, args.png)
        print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
