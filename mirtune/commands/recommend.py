"""`mirtune recommend INPUT... --task TASK [--top K] [--json]`: the configuration to use, without running the
program.

    mirtune recommend app.c --task openmp          # compiled with -fopenmp first
    mirtune recommend app.c --task openmp --profile -- in.txt 100   # and a one-run OMPT profile of it
    mirtune recommend kernels/ --task vectorize --json
    mirtune recommend kernel.cl --task devmap --platform nvidia --transfer-bytes 1048576 --wgsize 256
    mirtune recommend kernel.cl --task coarsening --platform Kepler
    mirtune recommend kernels/sigmoid --task cuda_blocks --matrix 1016 --heads heads/cuda_blocks
    mirtune recommend main.c solver.c util.c --together --include include/ --task openmp   # one program

For each program: the best configuration with the predicted speedup over the default, how to apply it
(environment variables, the `mirtune apply` command, the loop pragma), and the top-K ranking. Inputs that cannot
be read, compiled or recommended for get one line each on stderr (exit 2) while the others are answered.

Several INPUTs are several programs, each answered on its own. `--together` says they are the files of ONE program
(task openmp or vectorize): each C/C++ file is compiled, all are linked into one module with llvm-link, and one
answer comes for the program. `--include DIR` (repeatable) is a folder of headers, passed to clang as -I.
`--cflags` are the program's own compiler flags: the IR is compiled with those that decide what the source means
(macros, header folders, the language dialect: `mirtune.ir.frontend.source_flags`), as the build would.

`--profile` (task openmp, one C/C++ source, or the sources of one program with --together) also runs the program once, as `mirtune tune` runs its default
configuration (the same arguments after `--`, --input files, --check, --timeout), under mirtune's OMPT tool, and
prints what the run says that the IR cannot: how often its parallel regions start, how long each takes, the share
of the run inside them, how evenly the threads share the work (`mirtune.profile.ompt`); then, on a machine of
several cores, the probes: without the tool, in two interleaved rounds (`--probe-rounds`), all cores, one thread
and all cores with guided,1, each probe's speedup the ratio of its runs' and the default's geometric means. The
answer then comes from the task's profile predictor (mirtune/assets/heads/openmp-profile, fitted with `mirtune fit --profiles`), which
reads those figures beside the IR: the IR alone cannot tell many short regions, where fewer threads are faster,
from long ones. A run that fails gives one line and exit 2. Without `--profile` nothing runs.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from dataclasses import asdict
from pathlib import Path

from mirtune.errors import UsageError
from mirtune.tables import format_table
from mirtune.tasks import registry


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("recommend", help="recommend a configuration for a program without running it",
                       description=__doc__.strip().splitlines()[0])
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="sources (compiled first), .ll/.bc files or folders")
    p.add_argument("--together", action="store_true",
                   help="the INPUTs are the files of one program: compiled, linked into one module and answered once "
                        "(default: each INPUT is a program of its own)")
    p.add_argument("--include", action="append", default=[], metavar="DIR",
                   help="a folder of the programs' headers, passed to clang as -I (repeatable)")
    p.add_argument("--cflags", metavar="FLAGS",
                   help="the program's compiler flags, e.g. '-DN=1000 -std=c99 -O3 -lm': those that decide what the "
                        "source means (-D, -U, -I, -std=, -include, ...) also apply when its IR is read; all of them "
                        "to --profile's build")
    p.add_argument("--task", required=True, metavar="TASK", help=registry.listing())
    p.add_argument("--top", type=int, default=5, metavar="K", help="configurations in the ranking (default 5)")
    p.add_argument("--json", action="store_true", help="print one JSON object per input (a list for several)")
    p.add_argument("--heads", metavar="DIR", help="predictor folder, or a folder of them by task (default: "
                                                  "$MIRTUNE_HEADS or the shipped mirtune/assets/heads)")
    p.add_argument("--model", metavar="DIR", help="encoder directory (default: $MIRTUNE_MODEL or the shipped one)")
    p.add_argument("--platform", metavar="P", help=registry.listing(
        "{each}", each="{task.name}: {platforms}", kind=registry.PUBLISHED))
    for key in LAUNCH_OPTIONS:
        p.add_argument("--" + key.replace("_", "-"), type=float, metavar="N", dest=key,
                       help=registry.listing("{each}", each="{task.name}: {task.launch_options[%s]}" % key,
                                             launch_options=lambda options, key=key: key in options))
    g = p.add_argument_group("profile (run the program: once under an OMPT tool, then the thread probe; ARGS after "
                             "`--` are its arguments)")
    g.add_argument("--profile", action="store_true",
                   help="run the program once under mirtune's OMPT tool, then the probes (all cores, one thread, "
                        "all cores with guided,1), and print its profile")
    for name, kw in PROFILE_OPTIONS.items():
        g.add_argument(name, **kw)
    p.set_defaults(func=run, program_args=[])


# The launch facts a task may take from the user (Task.launch_options), as --transfer-bytes, --wgsize, --matrix.
LAUNCH_OPTIONS = ("transfer_bytes", "wgsize", "matrix")

# Options that say how the program runs: as `mirtune tune` takes them, and only with --profile (None: not given).
PROFILE_OPTIONS: dict[str, dict] = {
    "--input": dict(action="append", metavar="PATH", help="a file or folder the program reads, copied into its "
                                                          "private working folder (repeatable)"),
    "--check": dict(metavar="WHAT", help="how the run's answer is checked: stdout (default), checksum, "
                                         "regex:PATTERN, file:NAME or none"),
    "--rtol": dict(type=float, help="relative tolerance for numbers in the check (default 1e-6)"),
    "--timeout": dict(type=float, metavar="S", help="seconds before the run is killed (default 300)"),
    "--probe-rounds": dict(type=int, metavar="N", help="interleaved rounds of the probes' plain runs (default 2; 0: "
                                                       "no probes, for a predictor that reads none)"),
}


def print_profile(prof) -> None:
    """The text form of a profile (what `recommend --profile` prints under the recommendation)."""
    f = prof.features
    print(f"  profile: ran the program once under the OMPT tool (OMP_NUM_THREADS={prof.threads}), "
          f"{f.run_s:.3f} s")
    if f.region_entries:
        per = f" {f.time_per_region_s * 1e6:.1f} us per entry," if f.time_per_region_s is not None else ""
        work = f" threads working {f.work_share:.0%} of their time there," if f.work_share is not None else ""
        imb = f" imbalance {f.imbalance:.2f}" if f.imbalance is not None else " imbalance -"
        print(f"    parallel regions: {f.regions} site(s), {f.region_entries} entries ({f.region_entries_per_s:.0f}/s), "
              f"{f.parallel_share:.1%} of the run,{per}{work}{imb} (max / mean thread work)")
    else:
        print("    parallel regions: none entered")
    if f.loops:
        it = f"{f.iterations_per_loop:.1f}" if f.iterations_per_loop is not None else "-"
        imb = f"{f.loop_imbalance:.2f}" if f.loop_imbalance is not None else "-"
        print(f"    worksharing loops: {f.loops} site(s), {it} iterations per instance, imbalance {imb}")
    sites = sorted(prof.sites, key=lambda s: -(s.time_s or sum(s.work_s)))[:8]
    if sites:
        rows = [[s.kind, s.function or "?", s.where, str(s.instances), "-" if not s.instances or s.kind == "loop" else
                 f"{s.time_s / s.instances * 1e6:.1f}", "-" if s.team is None else f"{s.team:.1f}",
                 "-" if s.iterations is None else str(s.iterations),
                 "-" if s.imbalance is None else f"{s.imbalance:.2f}"] for s in sites]
        print(format_table(["site", "function", "where", "entries", "us per entry", "threads", "iterations", "imbalance"],
                           rows, rule=False, indent="    "))
    if prof.probe_s:
        runs = "; ".join(f"{what} {', '.join(f'{t:.3f}' for t in ts)} s" for what, ts in prof.probe_s.items())
        rounds = len(next(iter(prof.probe_s.values())))
        print(f"    probes ({rounds} interleaved round{'s' if rounds > 1 else ''} of plain runs): {runs}")
        threads = "one thread faster" if f.one_thread_speedup > 1 else f"{prof.threads} threads faster"
        guided = "guided,1 faster" if f.guided_speedup > 1 else "the default schedule faster"
        print(f"      {threads}, {max(f.one_thread_speedup, 1 / f.one_thread_speedup):.2f}x; "
              f"{guided}, {max(f.guided_speedup, 1 / f.guided_speedup):.2f}x")
    for n in prof.notes:
        print(f"    note: {n}")


def profile_request(args: argparse.Namespace):
    """The program that --profile runs (a `mirtune.measure.program.Program`); UsageError when the options do not
    apply: --profile with another task, several inputs or one that is not a C/C++ source, or the run's options
    without --profile."""
    from mirtune.measure.program import SOURCE_SUFFIXES
    from mirtune.profile.ompt import program_to_profile

    given = [n for n in PROFILE_OPTIONS if getattr(args, n[2:].replace("-", "_")) is not None]
    given += ["'-- ARGS'"] if args.program_args else []
    if not args.profile:
        if given:
            raise UsageError(f"{', '.join(given)}: these say how --profile runs the program; add --profile")
        return None
    if not registry.get(args.task).profiles:
        raise UsageError(f"--profile applies to --task {' or '.join(registry.names(profiles=True))} (it profiles "
                         f"OpenMP parallel regions), not {args.task}")
    if args.probe_rounds is not None and args.probe_rounds < 0:
        raise UsageError("--probe-rounds must be >= 0")
    if len(args.inputs) != 1 and not args.together:
        raise UsageError("--profile runs one program: give one C/C++ source (the files of one program: add "
                         "--together)")
    for src in map(Path, args.inputs):
        if src.suffix not in SOURCE_SUFFIXES:
            raise UsageError(f"--profile runs the program, so it needs its C/C++ source "
                             f"({', '.join(SOURCE_SUFFIXES)}), not IR or a folder", str(src))
    sources = [Path(s) for s in args.inputs]
    return program_to_profile(sources[0], args.program_args, args.input or (), cflags(args), args.check or "stdout",
                              1e-6 if args.rtol is None else args.rtol, 300.0 if args.timeout is None else args.timeout,
                              extra_sources=sources[1:], include_dirs=[Path(d) for d in args.include])


def cflags(args: argparse.Namespace) -> tuple[str, ...]:
    """--cflags as words (UsageError for unbalanced quotes)."""
    try:
        return tuple(shlex.split(args.cflags or ""))
    except ValueError as exc:
        raise UsageError(f"--cflags: {exc}") from None


def print_recommendation(rec) -> None:
    """The text form of one recommendation (what `mirtune recommend` prints)."""
    head = "keep the default" if rec.is_default else rec.label
    print(f"{rec.input}: {rec.task}: {head} (predicted {rec.predicted_speedup:.2f}x over the default)")
    for line in rec.apply:
        print(f"  {line}")
    names = [k for k in rec.top[0] if k not in ("rank", "label", "predicted_speedup")
             and any(r[k] is not None for r in rec.top)]
    rows = [[str(r["rank"]), *("-" if r[k] is None else str(r[k]) for k in names), f"{r['predicted_speedup']:.3f}x"]
            for r in rec.top]
    print(format_table(["rank", *names, "predicted speedup"], rows, rule=False, indent="  "))
    for n in rec.notes:
        print(f"  note: {n}")


def run(args: argparse.Namespace) -> int:
    from mirtune.predict.recommend import recommend_many
    from mirtune.progress import note

    task = registry.get(args.task)
    if args.top < 1:
        raise UsageError("--top must be >= 1")
    if args.together and not task.links_programs:
        raise UsageError(f"--together (the files of one program) applies to --task "
                         f"{' or '.join(registry.names(links_programs=True))}, not {args.task}")
    program = profile_request(args)
    prof = None
    if program is not None:
        from mirtune.profile.features import PROBE_ROUNDS
        from mirtune.profile.ompt import ProfileError, profile_program

        try:
            rounds = PROBE_ROUNDS if args.probe_rounds is None else args.probe_rounds
            prof = profile_program(program, probe_rounds=rounds)
        except ProfileError as exc:
            raise ProfileError(f"--profile: {exc} (without --profile, recommend answers from the IR alone)",
                               exc.path) from None
    answers, failed = [], 0
    context = {key: getattr(args, key) for key in LAUNCH_OPTIONS}
    for _, rec, reason in recommend_many(args.inputs, args.task, args.top, args.heads, args.model, args.platform,
                                         context, together=args.together, include_dirs=args.include,
                                         profile=None if prof is None else asdict(prof.features),
                                         cflags=cflags(args)):
        if rec is None:
            note(f"mirtune recommend: {reason}")
            failed += 1
            continue
        if args.json:
            answers.append(rec.to_dict() | ({"profile": prof.to_dict()} if prof is not None else {}))
        else:
            print_recommendation(rec)
            if prof is not None:
                print_profile(prof)
            sys.stdout.flush()
    if args.json and answers:
        json.dump(answers[0] if len(answers) == 1 else answers, sys.stdout, indent=1)
        sys.stdout.write("\n")
    return 2 if failed else 0
