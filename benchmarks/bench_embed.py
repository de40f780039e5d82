"""Embedding throughput: the shipped MIREncoder vs IR2Vec on the device-mapping kernels.

This times the in-process library path (no process start, no model load, files already read); what a user waits
for, `mirtune embed FILES -o OUT` from process start to the written file, is benchmarks/bench_embed_command.py.

Embedding: both read the same .ll files in one process on one core (torch limited to one thread),
interleaved round by round; the figures are medians over rounds and the ratio is taken within each round.
mirtune runs twice per round: in fp32 (the default) and, on CPUs with bfloat16 hardware, with the statement
Transformer in bf16 (`--precision bf16`); how far the bf16 vectors are from the fp32 ones is recorded too.
mirtune's time is from the IR text to the vector (parse, graph, tokens, model); IR2Vec's is
`ir2vec.initEmbedding(path, "fa", "p").getProgramVector()` per file, as in IR2Vec's own experiments.
Pre-training throughput with one and two workers is benchmarks/bench_pretrain.py.

    .venv/bin/python benchmarks/bench_embed.py [--rounds 3] [--limit N] [--out benchmarks/results/embed.json]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import torch

from mirtune.embedding import DEFAULT_MODEL_DIR, clear_caches, embed_modules, load_encoder, native_bf16
from mirtune.ir.module import IRModule
from mirtune.model.encoder import StatementCache, collate
from mirtune.paths import devmap_kernel_files, write_result
from mirtune.model.samples import module_to_sample, sample_arrays


def time_mirtune(texts: list[tuple[str, str]], precision: str = "fp32") -> tuple[float, np.ndarray]:
    """Seconds from IR text to embeddings for every file, batched and with the engine `mirtune embed` uses (numpy
    for fp32, torch for bf16), from cold caches; and the embeddings."""
    clear_caches()
    t0 = time.perf_counter()
    vectors = embed_modules([IRModule.from_text(text, name) for name, text in texts], precision=precision,
                            engine="numpy" if precision == "fp32" else "torch")
    return time.perf_counter() - t0, vectors


def time_ir2vec(files: list[Path]) -> float:
    """Seconds for IR2Vec's flow-aware program vector of every file."""
    import ir2vec

    t0 = time.perf_counter()
    for path in files:
        ir2vec.initEmbedding(str(path), "fa", "p").getProgramVector()
    return time.perf_counter() - t0


def statement_flops(stmt_ids: torch.Tensor, cfg) -> float:
    """Floating-point operations of the statement Transformer over these (distinct) statements: every layer but
    the last for all positions (projections, feed-forward, attention), the last one's keys and values."""
    lengths = (stmt_ids != cfg.pad_id).sum(1).double()
    d, ff = cfg.d_model, cfg.d_ff
    full = lengths * (8 * d * d + 4 * d * ff) + 4 * lengths * lengths * d
    return float(((cfg.n_layers - 1) * full + lengths * 4 * d * d).sum())


def time_split(texts: list[tuple[str, str]], batch_files: int = 16) -> dict[str, float]:
    """Where mirtune's embedding time goes (shares), how many statements de-duplication saves, and the statement
    Transformer's arithmetic rate (its time = the model's time minus a separate run of the graph encoder)."""
    model = load_encoder()
    clear_caches()
    parse = graph = forward = gnn = flops = 0.0
    stmts = 0
    cache = StatementCache()
    for start in range(0, len(texts), batch_files):
        chunk = texts[start:start + batch_files]
        t0 = time.perf_counter()
        mods = [IRModule.from_text(text, name) for name, text in chunk]
        t1 = time.perf_counter()
        samples = [sample_arrays(module_to_sample(m, model.tokenizer), model.config.seq_len) for m in mods]
        t2 = time.perf_counter()
        batch = collate(samples, model.config.n_flows)
        before = set(cache.row_of)
        model.encoder.embed(batch, statement_cache=cache)
        t3 = time.perf_counter()
        with torch.inference_mode():
            model.encoder.graph.eval()(batch.node_ids, batch.node_type, batch.edge_index)
        t4 = time.perf_counter()
        new = [np.frombuffer(k, dtype=np.int64) for k in cache.row_of if k not in before]
        if new:
            flops += statement_flops(torch.from_numpy(np.stack(new)), model.config)
        parse, graph, forward, gnn = parse + t1 - t0, graph + t2 - t1, forward + t3 - t2, gnn + t4 - t3
        stmts += batch.stmt_ids.shape[0]
    total = parse + graph + forward
    text = max(forward - gnn, 1e-9)
    return {"parse_and_print": parse / total, "graph_and_tokens": graph / total, "model": forward / total,
            "model_graph_encoder": gnn / total, "model_statement_encoder": text / total,
            "statements": stmts, "statements_encoded": len(cache),
            "statement_encoder_gflop": flops / 1e9, "statement_encoder_gflop_per_s": flops / 1e9 / text}


def per_file_latency_ms(texts: list[tuple[str, str]]) -> dict[str, float]:
    """Median and 90th percentile of one file embedded alone (text to vector, cold caches), in ms."""
    times = []
    for name, text in texts:
        clear_caches()
        t0 = time.perf_counter()
        embed_modules([IRModule.from_text(text, name)])
        times.append((time.perf_counter() - t0) * 1e3)
    return {"median": float(np.median(times)), "p90": float(np.percentile(times, 90))}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--limit", type=int, default=None, help="use the first N kernels only")
    ap.add_argument("--out", default="benchmarks/results/embed.json")
    args = ap.parse_args()

    result: dict = {"benchmark": "frozen embeddings of the device-mapping kernels, one core"}
    measure_embedding(args, result)
    result["command"] = "python " + " ".join(sys.argv)
    result.update({"host": {"cpu": platform.processor() or platform.machine(), "cores": os.cpu_count(),
                            "python": platform.python_version(), "torch": torch.__version__},
                   "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())})
    report(result)
    write_result(args.out, result)
    print(f"saved {args.out}")
    return 0


def measure_embedding(args: argparse.Namespace, result: dict) -> None:
    """MIREncoder vs IR2Vec files/s, interleaved by round on one core; the time split and one-file latency."""
    files = devmap_kernel_files()
    files = files[:args.limit] if args.limit else files
    texts = [(str(p), p.read_text()) for p in files]
    result.update({"files": len(files), "rounds": args.rounds, "model": str(DEFAULT_MODEL_DIR),
                   "model_preset": load_encoder().config.preset, "loadavg_1m_embed_start": os.getloadavg()[0]})
    affinity = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    if affinity:
        os.sched_setaffinity(0, {sorted(affinity)[0]})
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        bf16 = native_bf16()
        time_mirtune(texts[:20])  # warm-up: imports, model load
        if bf16:
            time_mirtune(texts[:20], "bf16")
        time_ir2vec(files[:20])
        ours, low, ref, ratios, low_ratios = [], [], [], [], []
        for r in range(args.rounds):
            a, exact = time_mirtune(texts)
            if bf16:
                c, lowered = time_mirtune(texts, "bf16")
            b = time_ir2vec(files)
            ours.append(len(files) / a)
            ref.append(len(files) / b)
            ratios.append(b / a)
            line = (f"round {r + 1}/{args.rounds}: mirtune {ours[-1]:.1f} files/s (ratio {ratios[-1]:.2f})")
            if bf16:
                low.append(len(files) / c)
                low_ratios.append(b / c)
                line += f", mirtune bf16 {low[-1]:.1f} files/s (ratio {low_ratios[-1]:.2f})"
            print(line + f", IR2Vec {ref[-1]:.1f} files/s", file=sys.stderr, flush=True)
        if bf16:
            cosine = (exact * lowered).sum(1) / np.linalg.norm(exact, axis=1) / np.linalg.norm(lowered, axis=1)
            result["bf16"] = {"files_per_s_median": statistics.median(low), "files_per_s": low,
                              "speed_ratio_median": statistics.median(low_ratios),
                              "max_abs_difference_from_fp32": float(np.abs(lowered - exact).max()),
                              "min_cosine_to_fp32": float(cosine.min()),
                              "fp32_embedding_std": float(exact.std(0).mean())}
        else:
            result["bf16"] = {"skipped": "this CPU has no bfloat16 hardware (AMX or AVX512-BF16)"}
        result.update({
            "mirtune_files_per_s_median": statistics.median(ours),
            "ir2vec_files_per_s_median": statistics.median(ref),
            "speed_ratio_median": statistics.median(ratios),
            "mirtune_files_per_s": ours, "ir2vec_files_per_s": ref,
            "mirtune_time_split": time_split(texts),
            "mirtune_latency_ms_one_file": per_file_latency_ms(texts),
        })
    finally:
        torch.set_num_threads(threads)
        if affinity:
            os.sched_setaffinity(0, affinity)


def report(result: dict) -> None:
    """Print the figures of a result dict."""
    split = result["mirtune_time_split"]
    print(f"mirtune: {result['mirtune_files_per_s_median']:.1f} files/s  IR2Vec: "
          f"{result['ir2vec_files_per_s_median']:.1f} files/s  (medians of {result['rounds']} rounds, one core)")
    print(f"ratio mirtune / IR2Vec (same round): {result['speed_ratio_median']:.2f}")
    low = result.get("bf16", {})
    if "files_per_s_median" in low:
        print(f"mirtune --precision bf16: {low['files_per_s_median']:.1f} files/s, ratio "
              f"{low['speed_ratio_median']:.2f}; vectors within {low['max_abs_difference_from_fp32']:.3g} of fp32 "
              f"(per-dimension std {low['fp32_embedding_std']:.3g}), cosine >= {low['min_cosine_to_fp32']:.6f}")
    print(f"mirtune time: parse+print {split['parse_and_print']:.0%}, graph+tokens {split['graph_and_tokens']:.0%}, "
          f"model {split['model']:.0%}; {split['statements_encoded']} of {split['statements']} statements encoded "
          f"(the others repeat one already encoded)")
    if "statement_encoder_gflop" in split:
        print(f"model: statement Transformer {split['model_statement_encoder']:.0%}, GCN "
              f"{split['model_graph_encoder']:.0%}; the Transformer did {split['statement_encoder_gflop']:.0f} GFLOP "
              f"at {split['statement_encoder_gflop_per_s']:.0f} GFLOP/s")
    lat = result["mirtune_latency_ms_one_file"]
    print(f"one file alone: median {lat['median']:.0f} ms, p90 {lat['p90']:.0f} ms")


if __name__ == "__main__":
    sys.exit(main())
