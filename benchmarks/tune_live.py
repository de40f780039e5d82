"""Live `mirtune tune` on programs it has never seen: real runs, against brute force, in one session.

For every program (default: five of benchmarks/programs/openmp_unseen, ordinary programs with arguments, input
files and plain output):
1. brute force: every configuration of `mirtune tune`'s space (threads x schedule x chunk, 42 here, plus the
   default) in interleaved rounds (a fresh random order each round), every run's stdout checked; the fastest
   median is the oracle;
2. `mirtune tune` seeded by the predictor (its best configuration at each thread count, then its top 3, then
   Optuna), with a budget of --budget runs;
3. the same with no seeds (plain Optuna through Ray Tune), same budget and searcher seed;
4. a confirmation: the default, the one configuration best on average over the training data (code-free), the
   two tuners' answers and the oracle, in --confirm interleaved rounds, each timed as a ratio to the default of
   its own round (speed drifts over minutes; a ratio within a round does not).
It reports per program and as geometric means the share of the oracle (oracle time / chosen time) and the speedup
over the default, and how many runs each tuner spent. Time it alone on the machine.

    .venv/bin/python benchmarks/tune_live.py [--budget 8] [--only ppr md] [--confirm 5]

Writes benchmarks/results/tune_live.json and .png.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mirtune.paths import write_result  # noqa: E402
from mirtune.measure.check import OutputCheck  # noqa: E402
from collectors.inputs import ensure_inputs  # noqa: E402
from mirtune.measure.build import build  # noqa: E402
from mirtune.measure.measurement import measure  # noqa: E402
from mirtune.measure.sandbox import RunLimits  # noqa: E402
from mirtune.measure.program import Program, prepare_program  # noqa: E402
from mirtune.predict.search import all_configs  # noqa: E402
from mirtune.predict.tune import TunePlan, make_plan, tune_program  # noqa: E402
from mirtune.tasks.measured import geomean  # noqa: E402
from mirtune.tasks.openmp import TASK as OPENMP  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"
DEFAULT_PROGRAMS = ("ppr", "md", "wordboot", "pairs", "kmeans")
METHODS = ("default", "best fixed", "tune (predictor-seeded)", "tune (plain Optuna)", "oracle")


def timed_rounds(plan: TunePlan, exe: str, configs: list[dict | None], rounds: int, reference: str | None,
                 rng: random.Random, note) -> tuple[dict[str, list[float]], set[str], str]:
    """Run every configuration once per round (fresh random order), checking answers; (times, failed, reference)."""
    check = plan.program.check
    limits = RunLimits(timeout_s=plan.program.timeout_s)
    argv = [exe, *plan.program.args]
    if reference is None:
        ref = measure(argv, plan.env(None), repeats=1, warmup=1, limits=limits, check=check, inputs=plan.files)
        if ref.status != "ok":
            raise SystemExit(f"{plan.name}: the default configuration fails: {ref.reason}")
        reference = ref.checksum
    times: dict[str, list[float]] = {OPENMP.label(c or {}): [] for c in configs}
    failed: set[str] = set()
    for r in range(rounds):
        order = list(configs)
        rng.shuffle(order)
        for cfg in order:
            name = OPENMP.label(cfg or {})
            if name in failed:
                continue
            m = measure(argv, plan.env(cfg), repeats=1, warmup=0, limits=limits, check=check, inputs=plan.files,
                        reference=reference)
            if m.status != "ok":
                failed.add(name)
            else:
                times[name].append(m.runtimes_s[0])
        note(f"{plan.name}: round {r + 1}/{rounds}")
    return times, failed, reference


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", default=str(ROOT / "benchmarks" / "programs" / "openmp_unseen"))
    ap.add_argument("--only", nargs="*", default=list(DEFAULT_PROGRAMS))
    ap.add_argument("--budget", type=int, default=8, help="runs per tuning, the default included")
    ap.add_argument("--brute-rounds", type=int, default=3)
    ap.add_argument("--confirm", type=int, default=5, help="interleaved rounds of the confirmation")
    ap.add_argument("--out", default=str(RESULTS / "tune_live.json"))
    args = ap.parse_args()
    from mirtune.cluster import init_ray, shutdown_ray
    from mirtune.host import cpu_model
    from mirtune.predict.recommend import load_task_predictor

    def note(s: str) -> None:
        print(s, file=sys.stderr, flush=True)

    folder = Path(args.programs)
    ensure_inputs(folder)
    manifest = {m["name"]: m for m in json.loads((folder / "manifest.json").read_text())}
    predictor, _ = load_task_predictor("openmp", None)
    cores = os.cpu_count() or 1
    fixed_cfg = OPENMP.parameters(
        predictor.configs[predictor.labels.index(predictor.trained_on["best_fixed"])],
        predictor.trained_on.get("logical_cores"), cores)
    fixed = {k: fixed_cfg[k] for k in ("threads", "schedule", "chunk")}
    rng = random.Random(0)
    t_start = time.time()
    init_ray()
    programs = []
    work = Path(tempfile.mkdtemp(prefix="mirtune-tune-live-"))
    try:
        for name in args.only:
            m = manifest[name]
            prog = Program(folder / m["source"], tuple(m["args"]),
                           tuple(str(folder / i) for i in m.get("inputs", [])),
                           check=OutputCheck("stdout", rtol=1e-6), timeout_s=120)
            prog, files, _ = prepare_program(prog)
            plan = make_plan("openmp", prog, files, cores)
            built = build(plan.build_spec(None))
            space = all_configs(plan.space)
            t0 = time.time()
            times, failed, reference = timed_rounds(plan, built.exe, [None, *space], args.brute_rounds, None, rng,
                                                    note)
            med = {k: statistics.median(v) for k, v in times.items() if k not in failed and v}
            oracle_label = min(med, key=med.get)
            oracle = None if oracle_label == "default" else next(c for c in space if OPENMP.label(c or {}) == oracle_label)
            brute_s = time.time() - t0
            tuned = {}
            for key, top_k in (("tune (predictor-seeded)", 3), ("tune (plain Optuna)", 0)):
                t1 = time.time()
                res = tune_program(prog, "openmp", args.budget, out_dir=work / key.replace(" ", "_") / name,
                                   top_k=top_k, seed=0, log=note)
                tuned[key] = {"best": res.best, "measured_speedup": res.speedup, "runs": res.runs_now,
                              "wall_s": round(time.time() - t1, 1), "seeds": res.seeds,
                              "found": [{k: m2[k] for k in ("label", "speedup", "status")} for m2 in res.measured]}
            chosen = {"default": None, "best fixed": fixed, "oracle": oracle,
                      **{k: v["best"] for k, v in tuned.items()}}
            distinct = {OPENMP.label(c or {}): c for c in chosen.values()}
            ctimes, cfailed, _ = timed_rounds(plan, built.exe, list(distinct.values()), args.confirm, reference,
                                              rng, note)
            # ratio to the default of the same round, per round, then the median
            ratio = {lab: statistics.median(d / t for d, t in zip(ctimes["default"], ctimes[lab]))
                     if lab not in cfailed else 0.0 for lab in distinct}
            entry = {"name": name, "args": m["args"], "space": len(space) + 1, "brute_force_s": round(brute_s, 1),
                     "brute_force_oracle": oracle_label, "brute_force_medians_s": {k: round(v, 5) for k, v in med.items()},
                     "failed": sorted(failed), "tuners": tuned,
                     "chosen": {k: OPENMP.label(c or {}) for k, c in chosen.items()},
                     "speedup_over_default": {k: round(ratio[OPENMP.label(c or {})], 4) for k, c in chosen.items()}}
            best_ratio = max(entry["speedup_over_default"].values())
            entry["share_of_oracle"] = {k: round(v / best_ratio, 4) for k, v in entry["speedup_over_default"].items()}
            programs.append(entry)
            note(f"{name}: " + ", ".join(f"{k} {entry['speedup_over_default'][k]:.3f}x" for k in METHODS))
    finally:
        shutdown_ray()
    summary = {k: {"share_of_oracle": geomean([p["share_of_oracle"][k] for p in programs]),
                   "speedup_over_default": geomean([p["speedup_over_default"][k] for p in programs])}
               for k in METHODS}
    for k in ("tune (predictor-seeded)", "tune (plain Optuna)"):
        summary[k]["runs_median"] = statistics.median(p["tuners"][k]["runs"] for p in programs)
    result = {"programs": programs, "summary": summary, "budget": args.budget, "brute_rounds": args.brute_rounds,
              "confirm_rounds": args.confirm, "host": {"cpu_model": cpu_model(), "logical_cores": cores},
              "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "wall_s": round(time.time() - t_start, 1),
              "loadavg_end": os.getloadavg()[0]}
    out = Path(args.out)
    write_result(out, result)
    print(f"\n{len(programs)} unseen programs; tuners spent at most {args.budget} runs; confirmation "
          f"{args.confirm} interleaved rounds (medians of per-round ratios to the default):")
    print(f"{'':26s} share of oracle  speedup vs default")
    for k, s in summary.items():
        print(f"{k:26s} {s['share_of_oracle']:.3f}            {s['speedup_over_default']:.3f}x")
    plot(result, out.with_suffix(".png"))
    print(f"wrote {out} and {out.with_suffix('.png')}")
    return 0


def plot(result: dict, path: Path) -> None:
    """Bars per program: each method's speedup over the default (confirmation rounds)."""
    from mirtune.figures import pyplot, save

    plt = pyplot()
    import numpy as np

    progs = result["programs"]
    x = np.arange(len(progs))
    w = 0.8 / len(METHODS)
    fig, ax = plt.subplots(figsize=(1.6 * len(progs) + 3, 4))
    for i, k in enumerate(METHODS):
        ax.bar(x + i * w - 0.4 + w / 2, [p["speedup_over_default"][k] for p in progs], w, label=k)
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks(x, [p["name"] for p in progs])
    ax.set_ylabel("speedup over the default (measured)")
    ax.set_title(f"mirtune tune, live, budget {result['budget']} runs ({result['host']['cpu_model']})", fontsize=9)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    save(fig, path, dpi=120)


if __name__ == "__main__":
    sys.exit(main())
