"""Held-out learning curves of several pre-training runs against the files each had seen: does a larger preset
learn more from the same files? (issue 31: `medium` "if the curves say capacity limits it").

    python benchmarks/compare_pretraining.py small=docs/pretrain_real_small medium=docs/pretrain_real_medium \
        --png benchmarks/results/pretrain_real_small_vs_medium.png

Each DIR is a run's output or model folder (or its copy in docs/): heldout.csv (one row per held-out evaluation)
and metrics.csv or metrics.csv.gz (step -> files seen). Prints each run's held-out figures at every evaluation and
saves a chart of MLM accuracy, matching accuracy and the mean reconstruction AUC against files seen.

`--speed N` prints, instead, where each run's training time went: files per second of step time (`time_s` in
metrics.csv, evaluations and checkpoints excluded) over every stretch of N steps, and their median, so that a
stretch slowed by other work on the machine, or a run slower than its benchmark throughout, shows as such.
With `--costs` each stretch also gets the mean estimated cost of its files (`mirtune.pretrain.batches.file_costs`:
statements kept plus a share per edge), in the order the run read its in-memory corpus (the corpus, workers,
batch size, seed and statement cap of the `mirtune pretrain` command in the provenance of the run's output folder,
not of an exported model; run from where that command ran), and files/s x cost: where that product is flat, the
files explain the speed.
"""

from __future__ import annotations

import argparse
import csv
import gzip
import itertools
import json
import shlex
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

PANELS = (("mlm_accuracy", "held-out MLM accuracy"), ("match_accuracy", "held-out matching accuracy"),
          ("auc_mean", "held-out reconstruction AUC (mean of 3 flows)"))


def _record(run: Path, name: str) -> Path | None:
    """The run's record `name`, or its gzipped copy (as docs/ keeps them); None when it has neither."""
    return next((p for p in (run / name, run / f"{name}.gz") if p.exists()), None)


def _open(path: Path) -> Any:
    """A record for reading as text, gzipped or not."""
    return (gzip.open if path.suffix == ".gz" else open)(path, "rt", newline="")


def _rows(path: Path) -> list[dict[str, str]]:
    with _open(path) as f:
        return list(csv.DictReader(f))


def curve(run: Path) -> list[dict[str, float]]:
    """The run's held-out evaluations, each with `files` (files seen at that step) and `auc_mean`."""
    held = run / "heldout.csv"
    metrics = _record(run, "metrics.csv")
    if not held.exists() or metrics is None:
        raise FileNotFoundError(f"{run} lacks heldout.csv or metrics.csv(.gz)")
    files = {int(r["step"]): float(r["samples"]) for r in _rows(metrics) if r.get("samples")}
    out = []
    for r in _rows(held):
        step = int(r["step"])
        if step not in files:
            raise ValueError(f"{run}: no metrics row for held-out step {step}")
        row = {k: float(v) for k, v in r.items() if v not in ("", None)}
        row["files"] = files[step]
        row["auc_mean"] = (row["auc_control"] + row["auc_data"] + row["auc_call"]) / 3
        out.append(row)
    return out


def _metrics(run: Path) -> list[dict[str, str]]:
    """The run's metrics.csv (or .gz) rows."""
    path = _record(run, "metrics.csv")
    if path is None:
        raise FileNotFoundError(f"{run} lacks metrics.csv(.gz)")
    return _rows(path)


def speed(run: Path, stretch: int) -> list[dict[str, float]]:
    """Files per second of step time over each stretch of `stretch` steps (the last may be shorter), in step order."""
    rows = sorted((int(r["step"]), float(r["samples"]), float(r["time_s"])) for r in _metrics(run))
    out = []
    prev = (0, 0.0, 0.0)
    for i, (step, files, secs) in enumerate(rows):
        if step - prev[0] >= stretch or (i == len(rows) - 1 and step > prev[0]):
            if secs <= prev[2]:
                raise ValueError(f"{run}: step time does not grow between steps {prev[0]} and {step}")
            out.append({"first_step": prev[0] + 1, "last_step": step, "files": files - prev[1],
                        "step_s": secs - prev[2], "files_per_s": (files - prev[1]) / (secs - prev[2])})
            prev = (step, files, secs)
    return out


def step_costs(run: Path, steps: int) -> list[float]:
    """Mean estimated cost of the files of each step 1..`steps` of `run`, in the order its in-memory corpus was
    read (`InMemoryCorpus.global_batches`), from the command in its provenance."""
    from mirtune.pretrain.batches import InMemoryCorpus
    from mirtune.pretrain.train import add_arguments, held_in_memory, read_split

    prov = _record(run, "provenance.json")
    if prov is None:
        raise FileNotFoundError(f"{run} lacks provenance.json(.gz), which holds the run's command")
    with _open(prov) as f:
        command = json.load(f)["command"]
    words = shlex.split(command)
    at = next((i for i, w in enumerate(words[:2]) if w == "pretrain" or w.endswith("pretrain.py")), None)
    if at is None:  # an exported model's provenance holds `mirtune model export ...`
        raise ValueError(f"{prov}: its command is not a pre-training command ({command[:60]!r}); give the run's "
                         "output folder, whose provenance holds the `mirtune pretrain` command")
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    args, _ = parser.parse_known_args(words[at + 1:])
    train = Path(args.corpus) / "samples" / "split=train"
    if not held_in_memory(train):
        raise ValueError(f"{args.corpus} is streamed by Ray Data in training: its order is not known here")
    corpus = InMemoryCorpus(read_split(train, ["n_stmt", "n_edges"]), args.batch_size, 0, args.workers, args.seed,
                            args.max_statements)
    if corpus.batches_per_epoch() == 0:
        raise ValueError(f"{args.corpus} gives no global batch of {corpus.global_batch} files")
    out: list[float] = []
    for epoch in itertools.count():
        out += [float(corpus.costs[chunk].mean())
                for chunk in itertools.islice(corpus.global_batches(epoch), steps - len(out))]
        if len(out) == steps:
            return out


def with_costs(stretches: list[dict[str, float]], costs: list[float]) -> None:
    """Each stretch's mean file cost (the mean over its steps of their files' mean) and files/s x cost."""
    for r in stretches:
        steps = range(int(r["first_step"]) - 1, int(r["last_step"]))
        r["mean_cost"] = sum(costs[s] for s in steps) / len(steps)
        r["cost_per_s"] = r["files_per_s"] * r["mean_cost"]


def print_speed(name: str, stretches: list[dict[str, float]]) -> None:
    """One line per stretch and the median over stretches."""
    import statistics

    costs = bool(stretches) and "mean_cost" in stretches[0]
    print(f"{name}:")
    print("        steps      files   step s   files/s" + ("   mean cost   files/s x cost" if costs else ""))
    for r in stretches:
        print(f"  {r['first_step']:>5.0f}-{r['last_step']:<5.0f}  {r['files']:>7,.0f}  {r['step_s']:>7.0f}   "
              f"{r['files_per_s']:>6.2f}" + (f"   {r['mean_cost']:>9.1f}   {r['cost_per_s']:>14.0f}" if costs else ""))
    if stretches:
        print(f"  median of {len(stretches)} stretches: {statistics.median(r['files_per_s'] for r in stretches):.2f}"
              " files/s")


def chart(curves: dict[str, list[dict[str, float]]], png: Path) -> None:
    """One panel per held-out figure, one line per run, against files seen."""
    from mirtune.figures import pyplot, save

    plt = pyplot()
    fig, axes = plt.subplots(1, len(PANELS), figsize=(13, 4))
    for ax, (key, title) in zip(axes, PANELS):
        for name, rows in curves.items():
            ax.plot([r["files"] for r in rows], [r[key] for r in rows], "o-", markersize=3, label=name)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("files seen")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    save(fig, png)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", metavar="NAME=DIR")
    ap.add_argument("--png", type=Path, default=None, help="write the chart here")
    ap.add_argument("--speed", type=int, default=0, metavar="N",
                    help="print files per second of step time per stretch of N steps instead of the curves")
    ap.add_argument("--costs", action="store_true",
                    help="with --speed: each stretch's mean estimated file cost, from the run's corpus and command")
    args = ap.parse_args(argv)
    if args.speed < 0 or (args.costs and not args.speed):
        print("compare_pretraining: --speed takes a positive number of steps (and --costs needs it)", file=sys.stderr)
        return 2
    curves: dict[str, Any] = {}
    for spec in args.runs:
        name, sep, folder = spec.partition("=")
        if not sep or not name or not folder:
            print(f"compare_pretraining: expected NAME=DIR, got {spec!r}", file=sys.stderr)
            return 2
        try:
            curves[name] = speed(Path(folder), args.speed) if args.speed else curve(Path(folder))
            if args.costs:
                with_costs(curves[name], step_costs(Path(folder), int(curves[name][-1]["last_step"])))
        except (OSError, ValueError, KeyError) as exc:
            print(f"compare_pretraining: {exc}", file=sys.stderr)
            return 2
    if args.speed:
        for name, stretches in curves.items():
            print_speed(name, stretches)
        return 0
    for name, rows in curves.items():
        print(f"{name}:")
        print("  files seen   MLM acc.  matching  AUC mean")
        for r in rows:
            print(f"  {r['files']:>10,.0f}   {r['mlm_accuracy']:.3f}     {r['match_accuracy']:.3f}     "
                  f"{r['auc_mean']:.3f}")
    if args.png:
        chart(curves, args.png)
        print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
