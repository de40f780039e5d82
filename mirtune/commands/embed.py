"""`mirtune embed INPUT... [-o out.npy|out.parquet]`: frozen MIREncoder embeddings, one row per input."""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

from mirtune.errors import UsageError
from mirtune.paths import check_output, write_atomic


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("embed", help="embed IR files or sources with the frozen encoder")
    p.add_argument("inputs", nargs="+", help=".ll/.bc files, sources (compiled first) or directories")
    p.add_argument("-o", "--output", help="out.npy (rows in input order) or out.parquet (path, id, embedding); "
                                          "default: print one line per input")
    p.add_argument("--model", metavar="DIR", help="model directory (default: $MIRTUNE_MODEL or the shipped one)")
    p.add_argument("-O", dest="opt", type=int, default=2, choices=range(4), metavar="{0,1,2,3}",
                   help="optimisation level for sources (default 2)")
    p.add_argument("--openmp", action=argparse.BooleanOptionalAction, default=None,
                   help="compile sources with -fopenmp (default: when a source uses OpenMP, e.g. `#pragma omp`)")
    p.add_argument("--batch", type=int, default=None,
                   help="files per encoder batch (default: mirtune.embedding.BATCH_FILES, 8)")
    p.add_argument("-j", "--jobs", type=int, default=None,
                   help="processes that parse and encode batches side by side (default: $MIRTUNE_EMBED_JOBS, else "
                        "the CPUs this process may use; 1 embeds in this process); the vectors are the same")
    p.add_argument("--precision", choices=("fp32", "bf16"), default=None,
                   help="statement Transformer arithmetic (default: $MIRTUNE_PRECISION or fp32); bf16 is faster on "
                        "CPUs with AMX or AVX512-BF16, within about 1e-2 of fp32")
    p.add_argument("--readout", choices=("mean", "meanmax"), default="mean",
                   help="how a file's statement states and node latents are pooled: mean (default) or "
                        "meanmax (mean ++ element-wise max, twice as long)")
    p.add_argument("--no-cache", dest="cache", action="store_false",
                   help="neither read nor keep vectors in the embedding cache ($MIRTUNE_EMBED_CACHE, else "
                        "~/.cache/mirtune/embeddings, shared with recommend and evaluate; by default an IR file's "
                        "vector is kept there, found again by the file's sha256 with the same model, readout and "
                        "precision)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from mirtune.embedding import BATCH_FILES, embed_jobs, iter_embeddings, load_engine, native_bf16, resolve_precision
    from mirtune.ir.inputs import expand_inputs, note_openmp
    from mirtune.model.numpy_encoder import embedding_dim
    from mirtune.progress import note, progress

    out = Path(args.output) if args.output else None
    if out is not None and out.suffix not in (".npy", ".parquet"):
        raise UsageError("-o must name a .npy or .parquet file")
    if out is not None:
        check_output(out, "file")  # before any vector is computed, so none is lost at the write
    batch = BATCH_FILES if args.batch is None else args.batch
    if batch < 1:
        raise UsageError("--batch must be at least 1")
    jobs = embed_jobs(args.jobs)
    precision = resolve_precision(args.precision)
    if precision == "bf16" and not native_bf16():
        note("mirtune embed: this CPU has no bfloat16 hardware (AMX or AVX512-BF16); bf16 may be slower than fp32")
    engine = "torch" if precision == "bf16" else "numpy"  # numpy: the same fp32 vectors, without importing torch
    model = load_engine(args.model, precision, engine)
    inputs = list(expand_inputs(args.inputs))
    total = len(inputs)
    note_openmp([p for p, reason in inputs if reason is None], args.openmp, "embed")
    paths, vectors, failed = [], [], 0
    for path, vector, reason in progress(iter_embeddings(args.inputs, args.model, batch, args.opt,
                                                         args.openmp, precision, args.readout, engine,
                                                         args.cache, jobs),
                                         total=total, desc="embedding"):
        if vector is None:
            note(f"mirtune embed: {reason}")
            failed += 1
            continue
        paths.append(str(path))
        vectors.append(vector)
    if out is not None and not vectors:  # never replace a good output with an empty one
        kept = f"{out} left as it was" if out.exists() else "nothing written"
        print(f"mirtune embed: every input failed: {kept}", file=sys.stderr)
        return 2
    matrix = np.stack(vectors) if vectors else np.zeros((0, embedding_dim(model.config, args.readout)), np.float32)
    if out is None:
        for p, v in zip(paths, matrix):
            print(p + "\t" + " ".join(f"{x:.6g}" for x in v))
    else:
        buf = io.BytesIO()
        if out.suffix == ".npy":
            np.save(buf, matrix)
        else:
            import pyarrow as pa
            import pyarrow.parquet as pq

            pq.write_table(pa.table({"path": pa.array(paths, pa.string()),
                                     "embedding": pa.array(list(matrix), pa.list_(pa.float32()))}), buf)
        write_atomic(out, buf.getvalue())
    if out is not None:
        print(f"wrote {len(paths)} embedding(s) of dimension {matrix.shape[1]} to {out}"
              + (f"; {failed} input(s) failed and were skipped (rows follow the inputs that succeeded)"
                 if failed else ""), file=sys.stderr)
    elif failed:
        print(f"{failed} input(s) failed and were skipped", file=sys.stderr)
    return 2 if failed else 0
