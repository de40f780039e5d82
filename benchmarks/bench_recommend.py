"""How fast `mirtune recommend` answers: cold (a new process, start to answer) and warm (per file, in a process
that has answered before), on the OpenMP applications' IR.

    .venv/bin/python benchmarks/bench_recommend.py [--cold-runs 5]
    .venv/bin/python benchmarks/bench_recommend.py --task openmp --out benchmarks/results/recommend_openmp.json

`--task vectorize` (the default) times the path that embeds: its predictor reads the MIREncoder embedding. The
OpenMP predictor reads the context features alone since 2026-11-25, so `--task openmp` times an answer that never
runs the encoder (the "stages" below are the embedding path's all the same).

- cold, new program: `mirtune recommend app.ll --task TASK` in a fresh process with an empty embedding cache
  (loads torch and the encoder, embeds, predicts);
- cold, program seen before: the same command again (its embedding comes from the on-disk cache; no torch);
- warm: `mirtune.recommend(path)` in one process, each file new to it (empty cache), after a first call; first
  in a process without torch (the numpy engine answers), then after `import torch` (recommend then embeds with
  torch's encoder) on the same files again, each time with an empty embedding cache;
- warm, file seen before: the same files asked again (their embeddings come from the cache);
- where a new file's time goes (numpy engine): parsing, graph + tokens, the encoder, the context features, and
  the rest (reading the cache, the head); the encoder once with its statement groups on one thread and once
  spread over the default number (mirtune.model.numpy_encoder.statement_threads).
Medians; figures saved to benchmarks/results/recommend.json. Run it alone on the machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from mirtune.paths import write_result  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cold-runs", type=int, default=5)
    ap.add_argument("--task", default="vectorize", choices=("vectorize", "openmp"),
                    help="whose shipped predictor answers: vectorize's reads the embedding (default); openmp's "
                         "reads the context features alone, so it never runs the encoder")
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "recommend.json"))
    args = ap.parse_args()
    from mirtune.predict.predictor import program_ir

    sources = sorted((ROOT / "collectors" / "programs" / "openmp").glob("*.c"))
    with tempfile.TemporaryDirectory(prefix="mirtune-bench-") as tmp:
        os.environ["MIRTUNE_IR_CACHE"] = str(Path(tmp) / "ir")
        lls = [program_ir(s) for s in sources]  # compile first: the benchmark times recommending from IR
        exe = Path(sys.executable).with_name("mirtune")
        cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "mirtune.cli"]
        cold_new, cold_seen = [], []
        for i in range(args.cold_runs):
            env = dict(os.environ, MIRTUNE_EMBED_CACHE=str(Path(tmp) / f"cold{i}"))
            for bucket in (cold_new, cold_seen):
                t0 = time.perf_counter()
                proc = subprocess.run(cmd + ["recommend", str(lls[i % len(lls)]), "--task", args.task],
                                      capture_output=True, text=True, env=env, timeout=300)
                bucket.append(time.perf_counter() - t0)
                if proc.returncode != 0:
                    print(proc.stderr, file=sys.stderr)
                    return 1
        from mirtune.predict.recommend import recommend

        warm, warm_torch = [], []
        os.environ["MIRTUNE_EMBED_CACHE"] = str(Path(tmp) / "warm")
        recommend(lls[0], args.task)  # loads the numpy encoder and the predictor
        assert "torch" not in sys.modules, "recommend imported torch"
        for ll in lls[1:]:
            t0 = time.perf_counter()
            recommend(ll, args.task)
            warm.append(time.perf_counter() - t0)
        seen = []
        for ll in lls[1:]:
            t0 = time.perf_counter()
            recommend(ll, args.task)
            seen.append(time.perf_counter() - t0)
        stages = stage_times(lls)
        import torch  # noqa: F401  (a process that has torch already: recommend embeds with torch's encoder)

        os.environ["MIRTUNE_EMBED_CACHE"] = str(Path(tmp) / "warm-torch")
        recommend(lls[0], args.task)
        for ll in lls[1:]:
            t0 = time.perf_counter()
            recommend(ll, args.task)
            warm_torch.append(time.perf_counter() - t0)
    result = {
        "cold_new_program_s": {"median": statistics.median(cold_new), "runs": cold_new},
        "cold_seen_program_s": {"median": statistics.median(cold_seen), "runs": cold_seen},
        "warm_per_file_ms": {"median": 1000 * statistics.median(warm), "max": 1000 * max(warm), "files": len(warm),
                             "engine": "numpy"},
        "warm_per_file_torch_loaded_ms": {"median": 1000 * statistics.median(warm_torch),
                                          "max": 1000 * max(warm_torch), "files": len(warm_torch), "engine": "torch"},
        "warm_seen_file_ms": {"median": 1000 * statistics.median(seen), "max": 1000 * max(seen), "files": len(seen)},
        "new_file_stages_ms": stages,
        "task": args.task, "targets": {"cold_s": 2.0, "warm_ms": 50.0},
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "loadavg_end": os.getloadavg()[0],
    }
    print(f"cold, new program:  {result['cold_new_program_s']['median']:.2f} s (median of {len(cold_new)})")
    print(f"cold, seen program: {result['cold_seen_program_s']['median']:.2f} s (embedding from the cache)")
    print(f"warm, per file:     {result['warm_per_file_ms']['median']:.1f} ms median, "
          f"{result['warm_per_file_ms']['max']:.1f} ms max over {len(warm)} files (numpy engine, no torch)")
    print(f"warm, torch loaded: {result['warm_per_file_torch_loaded_ms']['median']:.1f} ms median, "
          f"{result['warm_per_file_torch_loaded_ms']['max']:.1f} ms max (torch's encoder)")
    print(f"warm, seen before:  {result['warm_seen_file_ms']['median']:.1f} ms median (embedding from the cache)")
    print("a new file's time, numpy engine (medians, ms): " +
          ", ".join(f"{k} {v:.1f}" for k, v in stages.items() if isinstance(v, float)))
    write_result(args.out, result)
    print(f"wrote {args.out}")
    return 0


def stage_times(lls: list[Path]) -> dict[str, float | int]:
    """Median milliseconds of each step of answering for a file new to the process (numpy engine, the statement
    states of the files before it remembered, as in `recommend`), the encoder timed serial and threaded."""
    from mirtune.embedding import clear_caches, load_engine
    from mirtune.ir.module import IRModule
    from mirtune.model.numpy_encoder import NumpyStatementCache, statement_threads
    from mirtune.model.samples import module_to_sample, sample_arrays
    from mirtune.tasks.openmp import context_features

    engine = load_engine(engine="numpy")
    threads, chosen = statement_threads(), os.environ.get("MIRTUNE_EMBED_THREADS")
    times: dict[str, list[float]] = {k: [] for k in ("parse", "graph_and_tokens", "encoder_1_thread",
                                                     f"encoder_{threads}_threads", "context_features")}
    for label, count in (("encoder_1_thread", "1"), (f"encoder_{threads}_threads", str(threads))):
        os.environ["MIRTUNE_EMBED_THREADS"] = count
        clear_caches()
        cache = NumpyStatementCache()  # remembered across files, as recommend's per-model cache is
        for i, ll in enumerate(lls):
            t0 = time.perf_counter()
            module = IRModule.from_file(ll)
            t1 = time.perf_counter()
            sample = sample_arrays(module_to_sample(module, engine.tokenizer), engine.config.seq_len)
            t2 = time.perf_counter()
            engine.embed([sample], statement_cache=cache)
            t3 = time.perf_counter()
            context_features(module)
            t4 = time.perf_counter()
            if i == 0:
                continue  # the first file pays for first use (as recommend's first call does)
            times[label].append(t3 - t2)
            if count != "1":
                for key, seconds in (("parse", t1 - t0), ("graph_and_tokens", t2 - t1), ("context_features", t4 - t3)):
                    times[key].append(seconds)
    if chosen is None:
        os.environ.pop("MIRTUNE_EMBED_THREADS", None)
    else:
        os.environ["MIRTUNE_EMBED_THREADS"] = chosen
    out: dict[str, float | int] = {k: 1000 * statistics.median(v) for k, v in times.items()}
    out["threads"] = threads
    return out


if __name__ == "__main__":
    sys.exit(main())
