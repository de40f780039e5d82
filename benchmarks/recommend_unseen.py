"""Do `mirtune recommend`'s OpenMP answers make programs it has never seen faster? Measured, not predicted.

For every program of a held-out set (default: benchmarks/programs/openmp_unseen, ordinary programs with
command-line arguments, input files and plain output, never used in training), this script
1. asks the shipped predictor for its top-1 configuration (`mirtune.recommend`, from the source alone);
2. builds the program once, with `schedule(runtime)` written into its worksharing loops so that OMP_SCHEDULE
   reaches them (as the collector and `mirtune apply` do);
3. runs EVERY configuration of the predictor's space (brute force: the oracle), the default (all cores, the
   runtime's static schedule) and the one configuration best on average over the training data, in interleaved
   rounds (each round runs every configuration once, in a fresh random order), checking each run's stdout
   against the default's; a configuration's time is its median over the rounds (every round's time is kept,
   `runs_s`);
4. reports, per program and as geometric means, the share of the oracle (best time / chosen time) and the
   speedup over the default of: the default, the best-on-average configuration, and the recommendation; and the
   noise's own toll on the oracle (`split_round_share`: the oracle chosen on the other rounds, timed on each).

Time it alone on the machine: a 2-thread run beside another job can be 10x slower.

    .venv/bin/python benchmarks/recommend_unseen.py [--rounds 5] [--programs DIR] [--heads DIR]
    .venv/bin/python benchmarks/recommend_unseen.py --rescore benchmarks/results/recommend_unseen.json \
        --out benchmarks/results/recommend_unseen_rescored.json [--heads DIR]
    .venv/bin/python benchmarks/recommend_unseen.py --pool A.json B.json C.json --out pooled.json [--record]

With `--profile`, each program is also run once under the OMPT tool (`mirtune recommend --profile`, before its
rounds) and the profile predictor (mirtune/assets/heads/openmp-profile, or --profile-heads) answers from the IR and
that run: its pick is scored as `recommended_profile`, and what the probes of that run alone point to (the fastest
of the default, one thread and guided,1 by their own timings: `mirtune.profile.features.probes_choice`, the
code-free baseline a profile predictor has to beat) as `probes`. `--answers-only` measures nothing but those profiled runs and
writes every predictor's answers (the preregistration of a blind set); `--answers FILE` then scores the answers FILE
holds instead of asking again, so the figures are those of the answers committed before the set was measured.

Writes benchmarks/results/recommend_unseen.json and .png; `--record` also writes the shares into the predictor's
predictor.json, so that `mirtune recommend` says when the predictor does not beat the baselines on programs never
seen. `--rescore FILE` measures nothing: it asks the predictor
(a refitted one, say) for its answers again, and the profile predictor (--profile-heads) again from the profiles FILE
recorded, and scores them against the brute-force times FILE recorded, which
is only valid on the host and programs FILE was measured on (both are recorded; the script checks them).
`--pool FILE...` measures nothing either: it scores several held-out sets as one, from results this script wrote
for the same predictor.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from collectors.manifest import ProgramRun, read_manifest  # noqa: E402
from mirtune.paths import write_result  # noqa: E402
from mirtune.measure.build import BuildSpec, build  # noqa: E402
from mirtune.measure.sandbox import RunLimits, run_once  # noqa: E402
from mirtune.errors import MirtuneError, UsageError  # noqa: E402
from mirtune.predict.recommend import load_task_predictor, recommend  # noqa: E402
from mirtune.profile.features import probes_choice  # noqa: E402
from mirtune.source.openmp import make_schedule_runtime  # noqa: E402
from mirtune.tasks.measured import geomean  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results"


def env_of(params: dict) -> dict:
    """The environment that applies one configuration (None removes a variable: the default)."""
    env = {"OMP_NUM_THREADS": params.get("threads"), "OMP_SCHEDULE": None}
    if params.get("schedule"):
        env["OMP_SCHEDULE"] = params["schedule"] + (f",{params['chunk']}" if params.get("chunk") else "")
    return env


def score(entry: dict, med: np.ndarray, labels: list[str], picks: dict[str, int]) -> dict:
    """Add each pick's share of the oracle and speedup over the default (index 0) to a program's entry."""
    best = int(np.argmin(med))
    for name, i in {**picks, "oracle": best}.items():
        entry[f"share_{name}"] = float(med[best] / med[i]) if np.isfinite(med[i]) else 0.0
        entry[f"speedup_{name}"] = float(med[0] / med[i]) if np.isfinite(med[i]) else 0.0
    entry["oracle"] = labels[best]
    return entry


def split_round_share(runs: list[list[float]]) -> float | None:
    """How much of the oracle's lead over the default survives choosing the oracle on the other rounds: for each
    round, the configuration fastest by the median of the other rounds, timed in that round, against the default
    in that round; the geometric mean of those speedups over the oracle's (median) speedup. Below 1 by what the
    timing noise alone takes from the oracle; None with fewer than two complete rounds or a configuration that
    failed (runs [n_configs][n_rounds], the default first; inf where a run failed)."""
    arr = np.array(runs, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] < 2 or not np.isfinite(arr).all():
        return None
    med = np.median(arr, axis=1)
    speedups = []
    for r in range(arr.shape[1]):
        pick = int(np.argmin(np.median(np.delete(arr, r, axis=1), axis=1)))
        speedups.append(arr[0, r] / arr[pick, r])
    return float(geomean(speedups) / (med[0] / med.min()))


def methods_of(programs: list[dict]) -> tuple[str, ...]:
    """The methods the entries score: the profile predictor's only where every program has its pick, and the
    probes' own pick (`probes_choice`, the code-free baseline of a profiled run) where every program has that."""
    profiled = bool(programs) and all("share_recommended_profile" in p for p in programs)
    probes = profiled and all("share_probes" in p for p in programs)
    return ("default", "best_fixed", "recommended", *(("probes",) if probes else ()),
            *(("recommended_profile",) if profiled else ()), "oracle")


ONE_THREAD_WINS = 1.25  # issue 34: where one thread is at least this much faster than the default, no method
                        # should end below 0.8 of the oracle


def one_thread_wins(entry: dict) -> bool:
    """Whether one thread (any schedule) ran at least ONE_THREAD_WINS times faster than the default."""
    times = entry["times_s"]
    default = times.get("default")
    one = [v for k, v in times.items() if k.startswith("threads=1,") and v is not None]
    return default is not None and bool(one) and default / min(one) >= ONE_THREAD_WINS


def summarise(programs: list[dict]) -> dict:
    """Geometric means and counts over the programs, per method; and, over the programs where one thread wins,
    how many end below 0.8 of the oracle."""
    wins = [p for p in programs if one_thread_wins(p)]
    return {name: {"share_of_oracle": geomean([p[f"share_{name}"] for p in programs]),
                   "speedup_over_default": geomean([p[f"speedup_{name}"] for p in programs]),
                   "within_0.9_of_oracle": sum(p[f"share_{name}"] >= 0.9 for p in programs),
                   "slowdowns": sum(p[f"speedup_{name}"] < 0.95 for p in programs),
                   "one_thread_wins": len(wins),
                   "below_0.8_where_one_thread_wins": sum(p[f"share_{name}"] < 0.8 for p in wins)}
            for name in methods_of(programs)}


def profiled_answer(prog: ProgramRun, heads: str | None) -> dict:
    """Run `prog` once under the OMPT tool, as `mirtune recommend --profile` does, and ask the profile predictor
    (`heads`, else the shipped openmp-profile) for its answer: {label, predicted_speedup, profile features}."""
    from dataclasses import asdict

    from mirtune.measure.check import OutputCheck
    from mirtune.measure.program import Program
    from mirtune.profile.ompt import profile_program

    program = Program(prog.source, tuple(prog.args), tuple(str(f) for f in prog.inputs),
                      check=OutputCheck("stdout", rtol=1e-6), timeout_s=120)
    prof = profile_program(program)
    features = asdict(prof.features)
    rec = recommend(prog.source, "openmp", heads=heads, profile=features)
    return {"label": rec.label, "predicted_speedup": rec.predicted_speedup, "profile": features,
            "reads_profile": rec.predictor.get("profile", False)}


def answers(manifest: list[ProgramRun], heads: str | None, profile_heads: str | None, profile: bool) -> dict:
    """Every predictor's answer for every program, before anything is measured: the static one's from the IR, the
    profile predictor's after one profiled run each (`profile`)."""
    out: dict[str, dict] = {}
    for prog in manifest:
        entry = {"recommended": recommend(prog.source, "openmp", heads=heads).label}
        if profile:
            entry["recommended_profile"] = profiled_answer(prog, profile_heads)
        out[prog.name] = entry
        print(f"{prog.name}: {entry['recommended']}"
              + (f"; with the profile: {entry['recommended_profile']['label']}" if profile else ""), file=sys.stderr)
    return out


def this_host() -> dict:
    """What a result records of the machine it was measured on, and what --rescore and --pool compare."""
    from mirtune.host import cpu_model

    return {"cpu_model": cpu_model(), "logical_cores": os.cpu_count() or 1}


def check_host(old: dict, path: Path, flag: str) -> None:
    """Times measured on another machine say nothing about this one: one line, and stop."""
    here = this_host()
    if old.get("host") != here:
        raise SystemExit(f"{flag}: {path} was measured on {old.get('host')}, this host is {here}")


def rescore(path: Path, sources: dict[str, Path], heads: str | None, predictor,
            labels: list[str], profile_heads: str | None = None) -> tuple[list[dict], dict]:
    """The predictor's answers now, scored against the times a measured run of this script recorded in `path`;
    `sources`: program name -> its source file (the manifest's). Where `path` recorded each program's profile,
    the profile predictor (`profile_heads`, else the shipped one) answers again from that very profile."""
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise SystemExit(f"--rescore: cannot read {path}: {exc}") from None
    check_host(old, path, "--rescore")
    if old["configurations"] != labels:
        raise SystemExit(f"--rescore: {path} measured other configurations than the predictor's")
    fixed = labels.index(predictor.trained_on["best_fixed"])
    programs = []
    for prev in (p for p in old["programs"] if p["name"] in sources):
        src = sources[prev["name"]]
        rec = recommend(src, "openmp", heads=heads)
        med = np.array([np.inf if prev["times_s"][lab] is None else prev["times_s"][lab] for lab in labels])
        entry = {k: prev[k] for k in ("name", "args", "tunable_loops", "times_s", "wrong_or_failed")}
        entry.update({k: prev[k] for k in ("runs_s", "split_round_oracle") if k in prev})  # the timing's own noise
        entry.update(recommended=rec.label, predicted_speedup=rec.predicted_speedup, best_fixed=labels[fixed])
        picks = {"default": 0, "best_fixed": fixed, "recommended": labels.index(rec.label)}
        if prev.get("profile"):
            try:
                profiled = recommend(src, "openmp", heads=profile_heads, profile=prev["profile"])
            except MirtuneError as exc:  # a profile recorded before a probe the predictor reads
                raise SystemExit(f"--rescore: {prev['name']}: {exc.line()}") from None
            entry.update(recommended_profile=profiled.label, profile=prev["profile"])
            picks["recommended_profile"] = labels.index(profiled.label)
            picks["probes"] = probes_choice(prev["profile"], predictor.configs)
        programs.append(score(entry, med, labels, picks))
    return programs, {"rescored_from": str(path), "measured": old["date"], "rounds": old["rounds"]}


def measure(manifest: list[ProgramRun], heads: str | None, space: list[dict], labels: list[str],
            configs: list[dict], fixed: int, rounds: int, given: dict | None = None,
            profile_heads: str | None = None, profile: bool = False) -> list[dict]:
    """Every configuration of every program run in `rounds` interleaved rounds (a fresh random order each round,
    stdout checked against the default's), beside the predictors' answers (`given`: answers preregistered by
    `answers`, else asked now, after one profiled run where `profile`) and, where there is a profiled run, what its
    probes alone point to (`configs`: the predictor's, `probes_choice`); one scored entry per program."""
    rng = random.Random(0)
    programs = []
    for prog in manifest:
        src = prog.source
        rec = recommend(src, "openmp", heads=heads)
        if given is None:
            mine = {"recommended": rec.label}
            if profile:
                mine["recommended_profile"] = profiled_answer(prog, profile_heads)
        elif prog.name not in given:
            raise SystemExit(f"--answers: no answer for {prog.name}")
        else:
            mine = given[prog.name]
            if rec.label != mine["recommended"]:
                raise SystemExit(f"--answers: the predictor now answers {rec.label} for {prog.name}, not the "
                                 f"preregistered {mine['recommended']}")
        chosen = labels.index(rec.label)
        picks = {"default": 0, "best_fixed": fixed, "recommended": chosen}
        if "recommended_profile" in mine:
            picks["recommended_profile"] = labels.index(mine["recommended_profile"]["label"])
            picks["probes"] = probes_choice(mine["recommended_profile"]["profile"], configs)
        rewritten = make_schedule_runtime(src.read_text())
        spec = BuildSpec(name=prog.name, source=rewritten.source, openmp=True, opt=2,
                         include_dirs=(str(src.parent),))
        built = build(spec)
        if built.status != "ok":
            print(f"{prog.name}: build failed: {built.reason}", file=sys.stderr)
            continue
        inputs = {f.name: str(f.resolve()) for f in prog.inputs}
        argv = [inputs.get(a, a) for a in prog.args]
        limits = RunLimits(timeout_s=120)
        times: list[list[float]] = [[] for _ in space]
        wrong: set[int] = set()
        warm = run_once([built.exe, *argv], env_of(space[0]), limits)  # warm the page cache and the binary
        if warm.exit_code != 0:
            print(f"{prog.name}: the default configuration fails (exit {warm.exit_code}); skipped", file=sys.stderr)
            continue
        reference = warm.stdout
        for r in range(rounds):
            order = list(range(len(space)))
            rng.shuffle(order)
            for i in order:
                run = run_once([built.exe, *argv], env_of(space[i]), limits)
                if run.exit_code != 0 or run.timed_out or run.stdout != reference:
                    wrong.add(i)
                times[i].append(run.seconds)
            print(f"{prog.name}: round {r + 1}/{rounds} done", file=sys.stderr)
        med = np.array([statistics.median(t) if i not in wrong else np.inf for i, t in enumerate(times)])
        best = int(np.argmin(med))
        entry = {
            "name": prog.name, "args": list(prog.args), "tunable_loops": rewritten.tunable,
            "times_s": {labels[i]: (round(float(m), 5) if np.isfinite(m) else None) for i, m in enumerate(med)},
            "wrong_or_failed": [labels[i] for i in sorted(wrong)],
            "recommended": rec.label, "predicted_speedup": rec.predicted_speedup, "best_fixed": labels[fixed],
            "runs_s": {labels[i]: [round(float(x), 5) for x in t] for i, t in enumerate(times)},
            "split_round_oracle": split_round_share([[np.inf if i in wrong else x for x in t]
                                                     for i, t in enumerate(times)]),
        }
        if "recommended_profile" in mine:
            entry["recommended_profile"] = mine["recommended_profile"]["label"]
            entry["profile"] = mine["recommended_profile"]["profile"]
        programs.append(score(entry, med, labels, picks))
        print(f"{prog.name}: default {med[0]:.3f}s, oracle {labels[best]} {med[best]:.3f}s, recommended "
              f"{rec.label} {med[chosen]:.3f}s (share {entry['share_recommended']:.3f}), best fixed "
              f"{entry['share_best_fixed']:.3f}" + (f", with the profile {entry['recommended_profile']} (share "
                                                    f"{entry['share_recommended_profile']:.3f})"
                                                    if "recommended_profile" in entry else ""), file=sys.stderr)
    return programs


def pool(paths: list[Path], predictor) -> tuple[list[dict], dict]:
    """The programs of several results this script wrote (measured or rescored) for this very predictor, as one
    set: more programs never seen than any one run has; refused when a file scored another predictor or host."""
    mine = {k: predictor.trained_on.get(k) for k in ("groups", "applications", "date")}
    programs, measured, rounds = [], [], set()
    for path in paths:
        try:
            old = json.loads(path.read_text())
            scored = old["predictor_trained_on"]
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SystemExit(f"--pool: cannot read {path}: {exc}") from None
        if scored != mine:
            raise SystemExit(f"--pool: {path} scored the predictor fitted {scored.get('date')}, not this one "
                             f"({mine['date']}): rescore it first (--rescore)")
        check_host(old, path, "--pool")
        programs += [dict(p, set=path.stem) for p in old["programs"]]
        measured.append(old.get("measured", old["date"]))
        rounds.add(old["rounds"])
    return programs, {"rounds": min(rounds), "measured": "; ".join(measured),
                      "pooled": [path.name for path in paths]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--programs", default=str(ROOT / "benchmarks" / "programs" / "openmp_unseen"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--heads", default=None, help="predictor folder (default: the shipped one)")
    ap.add_argument("--only", nargs="*", default=None, help="program names to run (default: all)")
    ap.add_argument("--out", default=str(RESULTS / "recommend_unseen.json"))
    ap.add_argument("--rescore", default=None, metavar="FILE",
                    help="measure nothing: score the predictor's answers against FILE's brute-force times")
    ap.add_argument("--pool", nargs="+", default=None, metavar="FILE",
                    help="measure nothing: pool the programs of results this script wrote for this predictor")
    ap.add_argument("--record", action="store_true",
                    help="write the shares into the predictor's predictor.json, so `mirtune recommend` reports them")
    ap.add_argument("--profile", action="store_true",
                    help="also profile each program once and score the profile predictor's answer")
    ap.add_argument("--profile-heads", default=None, help="the profile predictor (default: the shipped one)")
    ap.add_argument("--answers-only", action="store_true",
                    help="measure nothing: write every predictor's answers to --out (a preregistration)")
    ap.add_argument("--answers", default=None, metavar="FILE",
                    help="score the answers FILE (written by --answers-only) holds instead of asking again")
    args = ap.parse_args()
    folder = Path(args.programs)
    try:
        manifest = read_manifest(folder / "manifest.json")
    except UsageError as exc:
        raise SystemExit(f"recommend_unseen: {exc.line()}") from None
    if args.only:
        manifest = [m for m in manifest if m.name in args.only]
    predictor, _ = load_task_predictor("openmp", args.heads)
    cores = os.cpu_count() or 1
    from mirtune.tasks import openmp

    trained_cores = predictor.trained_on.get("logical_cores")
    space = [openmp.TASK.parameters(c, trained_cores, cores) for c in predictor.configs]
    labels = list(predictor.labels)
    fixed = labels.index(predictor.trained_on["best_fixed"])
    t_start = time.time()
    out = Path(args.out)
    if args.answers_only:
        written = {"set": str(folder), "written": time.strftime("%Y-%m-%d %H:%M %Z"), "host": this_host(),
                   "note": "each predictor's answer for every program of the set, written before the set was "
                           "measured" + ("; the profile predictor's after one profiled run each" if args.profile
                                         else ""),
                   "heads": args.heads or "mirtune/assets/heads/openmp",
                   "profile_heads": (args.profile_heads or "mirtune/assets/heads/openmp-profile") if args.profile
                   else None,
                   "answers": answers(manifest, args.heads, args.profile_heads, args.profile)}
        write_result(out, written)
        print(f"wrote {out}")
        return 0
    given = None
    if args.answers:
        try:
            given = json.loads(Path(args.answers).read_text())["answers"]
        except (OSError, ValueError, KeyError) as exc:
            raise SystemExit(f"--answers: cannot read {args.answers}: {exc}") from None
    if args.pool:
        programs, extra = pool([Path(f) for f in args.pool], predictor)
        times_from = ", ".join(extra["pooled"])
    elif args.rescore:
        sources = {m.name: m.source for m in manifest}
        programs, extra = rescore(Path(args.rescore), sources, args.heads, predictor, labels, args.profile_heads)
        times_from = Path(args.rescore).name
    else:
        programs = measure(manifest, args.heads, space, labels, predictor.configs, fixed, args.rounds, given,
                           args.profile_heads, args.profile)
        extra, times_from = {"rounds": args.rounds, "answers": args.answers}, out.name
    summary = summarise(programs)
    split = [p["split_round_oracle"] for p in programs if p.get("split_round_oracle") is not None]
    noise = {"split_round_oracle": geomean(split), "programs": len(split)} if split else None
    result = {"programs": programs, "summary": summary, "noise": noise, **extra, "configurations": labels,
              "host": this_host(), "predictor": predictor.head_config,
              "predictor_trained_on": {k: predictor.trained_on.get(k) for k in ("groups", "applications", "date")},
              "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "wall_s": round(time.time() - t_start, 1),
              "loadavg_end": os.getloadavg()[0]}
    write_result(out, result)
    print(f"\n{len(programs)} unseen programs, {result['rounds']} interleaved rounds, medians"
          + (f" (measured {result['measured']}, rescored)" if args.rescore else "")
          + (f" (pooled: {', '.join(result['pooled'])})" if args.pool else "") + ":")
    wins = next(iter(summary.values()))["one_thread_wins"] if summary else 0
    print(f"{'':20s} share of oracle  speedup vs default  >=0.9 oracle  slowdowns  <0.8 of {wins} where 1 thread "
          f"wins")
    for name, s in summary.items():
        print(f"{name:20s} {s['share_of_oracle']:.3f}            {s['speedup_over_default']:.3f}x"
              f"              {s['within_0.9_of_oracle']}/{len(programs)}           {s['slowdowns']:<10d} "
              f"{s['below_0.8_where_one_thread_wins']}")
    if noise:
        print(f"the oracle chosen on the other rounds and timed on each keeps {noise['split_round_oracle']:.3f} of "
              f"the oracle's speedup ({noise['programs']} programs): the timing noise's own toll")
    plot(result, out.with_suffix(".png"))
    print(f"wrote {out} and {out.with_suffix('.png')}")
    if args.record:
        from mirtune.predict.predictor import record_never_seen
        from mirtune.predict.recommend import head_dir

        shares = {k: round(summary[k]["share_of_oracle"], 4) for k in ("recommended", "default", "best_fixed")}
        path = record_never_seen(head_dir("openmp", args.heads), {
            "programs": len(programs), "measured": result.get("measured", result["date"]), "rounds": result["rounds"],
            "result": times_from, **shares})
        print(f"recorded in {path}")
    return 0


def plot(result: dict, path: Path) -> None:
    from mirtune.figures import pyplot, save

    plt = pyplot()

    progs = result["programs"]
    names = [n for n in methods_of(progs) if n != "oracle"]
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(progs) + 2), 3.8))
    w = 0.8 / len(names)
    for j, n in enumerate(names):
        ax.bar(np.arange(len(progs)) + (j - (len(names) - 1) / 2) * w, [p[f"share_{n}"] for p in progs], w,
               label=f"{n} ({result['summary'][n]['share_of_oracle']:.3f})")
    ax.set_xticks(np.arange(len(progs)))
    ax.set_xticklabels([p["name"] for p in progs], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("share of the oracle (measured)")
    ax.set_ylim(0, 1.05)
    ax.set_title("OpenMP programs never seen in training: measured share of the brute-force best", fontsize=9)
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    save(fig, path, dpi=130)


if __name__ == "__main__":
    sys.exit(main())
