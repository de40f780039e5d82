"""One pre-training sample per IR module: the row format of the corpus Parquet shards.

A row holds everything the encoder needs, already tokenised, so training never touches clang,
llvmlite or the tokenizer:

    id        str           the module's content hash
    origin    str           where it came from (generator seed, source path ...)
    stmt_ids  list<int32>   n_stmt * SEQ_LEN ids, statement by statement
    n_stmt    int32
    node_ids  list<int32>   n_nodes * SEQ_LEN ids: each graph node's full_text (its text if empty)
    n_nodes   int32
    node_type list<int8>    INSTRUCTION / VARIABLE / CONSTANT per node
    edges     list<int32>   [src, dst, flow, position] * n_edges, flattened
    n_edges   int32

`module_to_sample` builds a row, `sample_arrays` reads one back into shaped numpy arrays (both in
mirtune.model.samples, which inference shares), and `write_shard` writes rows to one Parquet file with the exact
schema.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from mirtune.ir.module import IRModule
from mirtune.ir.tokenizer import IRTokenizer
from mirtune.model.samples import module_to_sample, sample_arrays

__all__ = ["COLUMNS", "arrow_schema", "module_to_sample", "sample_arrays", "write_shard", "write_corpus"]

COLUMNS = ("id", "origin", "stmt_ids", "n_stmt", "node_ids", "n_nodes", "node_type", "edges", "n_edges")


def arrow_schema() -> Any:
    """The pyarrow schema of a corpus shard."""
    import pyarrow as pa

    return pa.schema([
        ("id", pa.string()), ("origin", pa.string()),
        ("stmt_ids", pa.list_(pa.int32())), ("n_stmt", pa.int32()),
        ("node_ids", pa.list_(pa.int32())), ("n_nodes", pa.int32()),
        ("node_type", pa.list_(pa.int8())),
        ("edges", pa.list_(pa.int32())), ("n_edges", pa.int32()),
    ])


def write_shard(rows: Iterable[dict[str, Any]], path: str | os.PathLike) -> int:
    """Write rows to one Parquet file with the corpus schema; returns the number of rows."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = arrow_schema()
    rows = list(rows)
    columns = {name: [r[name] for r in rows] for name in COLUMNS}
    arrays = []
    for f in schema:
        values = columns[f.name]
        if pa.types.is_list(f.type):
            arrays.append(pa.array([np.asarray(v, dtype=f.type.value_type.to_pandas_dtype()) for v in values],
                                   type=f.type))
        else:
            arrays.append(pa.array(values, type=f.type))
    table = pa.Table.from_arrays(arrays, schema=schema)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, str(path))
    return len(rows)


def write_corpus(directory: str | os.PathLike, splits: dict[str, list[IRModule]],
                 tokenizer: IRTokenizer | None = None, vocab_size: int = 2000, rows_per_shard: int = 64,
                 origin: str = "") -> IRTokenizer:
    """A small corpus folder in the layout the trainer reads: tokenizer.json and
    samples/split=<name>/part-NNNNN.parquet. The tokenizer is trained on the train split when not given.

    For tests and small experiments; `mirtune corpus build` makes real corpora.
    """
    directory = Path(directory)
    if tokenizer is None:
        statements = [s for m in splits.get("train", []) for s in m.statements()]
        tokenizer = IRTokenizer.train(statements, vocab_size=vocab_size, min_frequency=1)
    tokenizer.save(directory / "tokenizer.json")
    for split, modules in splits.items():
        rows = [module_to_sample(m, tokenizer, origin=origin or m.name) for m in modules]
        for i in range(0, max(len(rows), 1), rows_per_shard):
            if rows:
                write_shard(rows[i:i + rows_per_shard], directory / "samples" / f"split={split}" /
                            f"part-{i // rows_per_shard:05d}.parquet")
    return tokenizer
