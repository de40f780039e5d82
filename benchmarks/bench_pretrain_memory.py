"""Memory of a long pre-training run: how much a Ray Train worker's resident memory grows per step.

Runs `mirtune pretrain` as a user runs it (a subprocess, a private local Ray cluster the command starts itself)
for `--steps` steps, samples every training worker's anonymous resident memory (RssAnon, /proc) every few
seconds, and reports the growth after `--skip-steps` per 100 steps: the least-squares slope of memory over steps
(memory handed back between samples makes the first and last sample alone misleading), beside the medians of the
first and last quarter of the samples. `--summarize JSON` recomputes those figures from a result's samples. With
`--reference-tree` (another checkout, such as a `git worktree` of the commit before a change) the same command of
that tree runs in the same session, alternating. Memory, not time: the figures do not depend on the load, but
the run needs the memory free.

    .venv/bin/python benchmarks/bench_pretrain_memory.py [--corpus build/corpus] [--steps 300] [--workers 1] \
        [--reference-tree DIR] [--json benchmarks/results/pretrain_memory.json]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from mirtune.host import cpu_model
from mirtune.paths import write_result

ROOT = Path(__file__).resolve().parents[1]
WORKER = b"ray::RayTrainWorker"


def descendants(root: int) -> set[int]:
    """The processes below `root` (its children, theirs, ...): the Ray cluster the command started, and no other
    run's workers on the same machine."""
    parent: dict[int, int] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            continue
        parent[int(pid)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = set(), {root}
    while frontier:
        frontier = {p for p, pp in parent.items() if pp in frontier} - found
        found |= frontier
    return found


def workers_rss_mb(root: int) -> dict[int, float]:
    """RssAnon in MB of every Ray Train worker process below `root`, by pid."""
    out = {}
    for pid in descendants(root):
        try:
            if not Path(f"/proc/{pid}/cmdline").read_bytes().startswith(WORKER):
                continue
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("RssAnon:"):
                    out[int(pid)] = int(line.split()[1]) / 1024
        except OSError:
            continue
    return out


def last_step(metrics_csv: Path) -> int:
    """The last step written to a run's metrics.csv (0 before the first)."""
    try:
        with open(metrics_csv) as f:
            rows = list(csv.DictReader(f))
    except OSError:
        return 0
    return int(rows[-1]["step"]) if rows else 0


def run(tree: Path, corpus: Path, steps: int, workers: int, skip_steps: int, every_s: float) -> dict:
    """One `mirtune pretrain` of the mirtune in `tree`; its workers' memory over its steps."""
    with tempfile.TemporaryDirectory(prefix="mirtune-bench-memory-") as tmp:
        cmd = [sys.executable, "-m", "mirtune.cli", "pretrain", "--preset", "small", "--corpus", str(corpus),
               "--out", tmp, "--workers", str(workers), "--steps", str(steps), "--batch-size", "8",
               "--checkpoint-every", str(steps), "--eval-every", "0", "--eval-samples", "16", "--log-every", "20"]
        env = dict(os.environ, PYTHONPATH=str(tree))  # the Ray workers import the same tree
        proc = subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        samples: list[tuple[int, float]] = []  # (step, total RssAnon of the workers)
        while proc.poll() is None:
            rss = workers_rss_mb(proc.pid)
            step = last_step(Path(tmp) / "metrics.csv")
            if rss and step >= skip_steps:
                samples.append((step, sum(rss.values())))
            time.sleep(every_s)
        output = proc.stdout.read() if proc.stdout else ""
        if proc.returncode != 0:
            raise SystemExit(f"bench_pretrain_memory: {' '.join(cmd[2:])} failed:\n{output[-2000:]}")
    if len(samples) < 4 or samples[-1][0] <= samples[0][0]:
        raise SystemExit("bench_pretrain_memory: too few samples after --skip-steps; raise --steps")
    return {"steps": steps, "workers": workers, **summary([[s, round(m)] for s, m in samples])}


def summary(samples: list[list[float]]) -> dict:
    """Growth figures of (step, MB) samples: slope per 100 steps, medians of the first and last quarter, max."""
    steps, mb = np.array([s for s, _ in samples], float), np.array([m for _, m in samples], float)
    q = max(1, len(mb) // 4)
    return {"from_step": int(steps[0]), "to_step": int(steps[-1]),
            "rss_anon_mb_first_quarter": round(float(np.median(mb[:q]))),
            "rss_anon_mb_last_quarter": round(float(np.median(mb[-q:]))), "rss_anon_mb_max": round(float(mb.max())),
            "growth_mb_per_100_steps": round(100 * float(np.polyfit(steps, mb, 1)[0]), 1), "samples": samples}


def report(name: str, r: dict) -> None:
    print(f"{name}: workers' RssAnon {r['rss_anon_mb_first_quarter']} MB (median, first quarter of the samples) -> "
          f"{r['rss_anon_mb_last_quarter']} MB (last quarter), steps {r['from_step']}-{r['to_step']}, max "
          f"{r['rss_anon_mb_max']} MB: {r['growth_mb_per_100_steps']:+.1f} MB per 100 steps", flush=True)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", default="build/corpus", help="a corpus from `mirtune corpus build`")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--skip-steps", type=int, default=40, help="steps before the first sample (warm-up)")
    ap.add_argument("--every", type=float, default=3.0, help="seconds between samples")
    ap.add_argument("--reference-tree", default=None, help="another mirtune checkout, run in the same session")
    ap.add_argument("--json", default=None, help="write the figures here")
    ap.add_argument("--summarize", default=None, metavar="JSON", help="recompute a result's figures from its samples")
    args = ap.parse_args()
    if args.summarize:
        result = json.loads(Path(args.summarize).read_text())
        for name in result["trees"]:
            result[name] = {k: result[name][k] for k in ("steps", "workers")} | summary(result[name]["samples"])
            report(name, result[name])
        write_result(args.summarize, result)
        return 0
    corpus = Path(args.corpus).resolve()
    if not (corpus / "samples").is_dir():
        raise SystemExit(f"bench_pretrain_memory: no corpus at {corpus} (build one with `mirtune corpus build`)")
    trees = {"this": ROOT, **({"reference": Path(args.reference_tree).resolve()} if args.reference_tree else {})}
    result: dict = {"benchmark": "bench_pretrain_memory", "trees": {k: str(v) for k, v in trees.items()},
                    "corpus": str(corpus), "cpu_model": cpu_model(),
                    "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime())}
    for name, tree in trees.items():
        r = run(tree, corpus, args.steps, args.workers, args.skip_steps, args.every)
        result[name] = r
        report(name, r)
    if args.json:
        write_result(args.json, result)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
