"""`mirtune embed FILES -o OUT.npy` as a user runs it, against IR2Vec as a user runs it, on the device-mapping kernels.

Each side is a fresh subprocess timed from its start to its written .npy, over the same files:

  mirtune       `python -m mirtune.cli embed FILES -o OUT.npy` with $MIRTUNE_EMBED_CACHE a fresh empty folder (cold), as it
                chooses to run (its embedding threads: up to the CPUs it may use); then, when --one-core, the same
                pinned to one CPU (taskset) with MIRTUNE_EMBED_THREADS=1, IR2Vec's footing;
  mirtune warm  (when --warm) the same command again on the cache the cold run left;
  mirtune, one process  (when --one-process) the cold command with --jobs 1: parsing, graphs and the GCN in one
                process, the statement Transformer on its threads (how the command ran before its worker processes);
  IR2Vec        a small script: `ir2vec.initEmbedding(path, "fa", "p").getProgramVector()` per file, np.save (one
                core: IR2Vec computes on the calling thread).

Before the rounds each command runs once, untimed, with Python's bytecode kept (PYTHONPYCACHEPREFIX, a folder
of the run's own): an installed package has its bytecode and a user's files are in the page cache after their
first run. Rounds are interleaved (mirtune, IR2Vec, ... in each round); the figures are medians over rounds, and the ratio
(IR2Vec's seconds / mirtune's) is taken within each round. The 1-minute load average is recorded at every step.

    .venv/bin/python benchmarks/bench_embed_command.py [--files 150] [--rounds 3] [--one-core] [--warm]
        [--one-process] [--model DIR] [--out benchmarks/results/embed_command_150.json]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from mirtune.paths import devmap_kernel_files, write_result

IR2VEC_SCRIPT = """\
import sys
import numpy as np
import ir2vec
np.save(sys.argv[1], np.stack([np.asarray(ir2vec.initEmbedding(p, "fa", "p").getProgramVector(), np.float32)
                               for p in sys.argv[2:]]))
"""


def timed(argv: list[str], out: Path, env: dict[str, str]) -> float:
    """Seconds from starting `argv` to its exit, which must be 0 with `out` written."""
    out.unlink(missing_ok=True)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode != 0 or not out.is_file():
        raise SystemExit(f"{argv[:4]} failed ({proc.returncode}): {proc.stderr.strip()[-2000:]}")
    return seconds


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=150, help="the first N kernels (0: all 669)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--one-core", action="store_true", help="also time mirtune pinned to one CPU, one thread")
    ap.add_argument("--warm", action="store_true", help="also time mirtune again on the cache its cold run left")
    ap.add_argument("--model", default=None, help="time mirtune with this encoder (default: the shipped one)")
    ap.add_argument("--one-process", action="store_true", help="also time mirtune with --jobs 1 (no worker processes)")
    ap.add_argument("--out", default=None, help="JSON (default benchmarks/results/embed_command_<files>.json)")
    args = ap.parse_args()

    files = [str(p) for p in devmap_kernel_files()]
    files = files[:args.files] if args.files else files
    out_json = Path(args.out or f"benchmarks/results/embed_command_{len(files)}.json")
    cpus = sorted(os.sched_getaffinity(0))
    sides = {"mirtune": {"cores": len(cpus)}, "ir2vec": {"cores": 1}}
    if args.one_core:
        sides["mirtune_one_core"] = {"cores": 1}
    if args.warm:
        sides["mirtune_warm"] = {"cores": len(cpus)}
    if args.one_process:
        sides["mirtune_one_process"] = {"cores": len(cpus)}
    for side in sides.values():
        side.update(seconds=[], files_per_s=[], ratio_to_ir2vec=[])
    loads = []
    with tempfile.TemporaryDirectory(prefix="bench-embed-cmd-") as tmp:
        work = Path(tmp)
        script = work / "ir2vec_embed.py"
        script.write_text(IR2VEC_SCRIPT)
        mirtune_argv = [sys.executable, "-m", "mirtune.cli", "embed", *files, "-o", str(work / "m.npy"),
                        *(["--model", args.model] if args.model else [])]
        def written(name: str) -> Path:
            """The .npy that side `name` writes."""
            return work / ("i.npy" if name == "ir2vec" else "m.npy")

        commands = {
            "mirtune": mirtune_argv,
            "mirtune_one_core": ["taskset", "-c", str(cpus[0]), *mirtune_argv],
            "mirtune_warm": mirtune_argv,
            "mirtune_one_process": [*mirtune_argv, "--jobs", "1"],
            "ir2vec": [sys.executable, str(script), str(work / "i.npy"), *files],
        }
        # Python's bytecode where each side writes and finds it (an installed package has it; this machine's
        # environment may forbid writing it), and one untimed run of each command first: bytecode written, the
        # files in the page cache, as a user's runs find them after the first (mirtune's embedding cache stays
        # cold: the warm-up's is a folder of its own)
        base_env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        base_env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
        for name in ("mirtune", "ir2vec"):
            timed(commands[name], written(name), {**base_env, "MIRTUNE_EMBED_CACHE": str(work / "cache-warm-up")})
        for r in range(args.rounds):
            seconds = {}
            for name in sides:
                env = dict(base_env)
                if name.startswith("mirtune"):
                    # a fresh, empty folder for a cold run; the warm run reads what this round's cold run left
                    cache = work / f"cache{r}-{'mirtune' if name == 'mirtune_warm' else name}"
                    if name != "mirtune_warm":
                        shutil.rmtree(cache, ignore_errors=True)
                    env["MIRTUNE_EMBED_CACHE"] = str(cache)
                if name == "mirtune_one_core":
                    env["MIRTUNE_EMBED_THREADS"] = "1"
                loads.append(os.getloadavg()[0])
                seconds[name] = timed(commands[name], written(name), env)
            for name, side in sides.items():
                side["seconds"].append(seconds[name])
                side["files_per_s"].append(len(files) / seconds[name])
                side["ratio_to_ir2vec"].append(seconds["ir2vec"] / seconds[name])
            print(f"round {r + 1}/{args.rounds}: " + ", ".join(
                f"{name} {len(files) / s:.1f} files/s ({seconds['ir2vec'] / s:.2f}x)" for name, s in seconds.items())
                + f"; load {loads[-1]:.1f}", file=sys.stderr, flush=True)
    result = {
        "benchmark": "`mirtune embed FILES -o OUT.npy` vs an IR2Vec script, each a subprocess from its start to its "
                     "written .npy, cold mirtune cache (fresh $MIRTUNE_EMBED_CACHE per round)",
        "files": len(files), "rounds": args.rounds, "model": args.model or "shipped", "command": "python " + " ".join(sys.argv),
        "before_the_rounds": "each command run once untimed; Python bytecode kept in a folder of the run's own",
        "sides": {name: {**side, "files_per_s_median": statistics.median(side["files_per_s"]),
                         "ratio_to_ir2vec_median": statistics.median(side["ratio_to_ir2vec"])}
                  for name, side in sides.items()},
        "loadavg_1m": loads, "host": {"cpu": platform.processor() or platform.machine(), "cpus": len(cpus),
                                      "python": platform.python_version()},
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    for name, side in result["sides"].items():
        print(f"{name}: {side['files_per_s_median']:.1f} files/s on {side['cores']} core(s), "
              f"{side['ratio_to_ir2vec_median']:.2f}x IR2Vec (median of the in-round ratios)")
    write_result(out_json, result)
    print(f"saved {out_json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
