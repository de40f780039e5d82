"""IR module -> encoder input: the tokenised statements and program graph of one module, as a row of arrays.

Both pre-training (the corpus shards, mirtune.pretrain.samples) and inference (mirtune.embedding) use this, so
it lives beside the encoder and answering a recommendation never loads the training package.

    row = module_to_sample(module, tokenizer)      # flat lists + counts (the corpus row format)
    arrays = sample_arrays(row, seq_len=64)        # stmt_ids [n_stmt, L], node_ids [n_nodes, L], node_type, edges
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

from mirtune.ir.graph import ProgramGraph, build_graph
from mirtune.ir.module import IRModule
from mirtune.ir.tokenizer import IRTokenizer


def module_to_sample(module: IRModule, tokenizer: IRTokenizer, origin: str = "",
                     graph: ProgramGraph | None = None) -> dict[str, Any]:
    """A corpus row (see the module docstring) for one parsed module; `graph` if already built."""
    graph = graph if graph is not None else build_graph(module)
    stmt_ids = tokenizer.encode_ids(module.statements())
    node_texts = [full or text for full, text in zip(graph.node_full_text, graph.node_text)]
    node_ids = tokenizer.encode_ids(node_texts)
    edges = np.asarray(graph.edges, dtype=np.int32).reshape(-1, 4)
    return {
        "id": module.content_hash,
        "origin": origin,
        "stmt_ids": stmt_ids.reshape(-1),
        "n_stmt": np.int32(stmt_ids.shape[0]),
        "node_ids": node_ids.reshape(-1),
        "n_nodes": np.int32(node_ids.shape[0]),
        "node_type": np.asarray(graph.node_type, dtype=np.int8),
        "edges": edges.reshape(-1),
        "n_edges": np.int32(edges.shape[0]),
    }


def sample_arrays(row: dict[str, Any], seq_len: int = 64) -> dict[str, np.ndarray]:
    """A row's lists as shaped arrays: stmt_ids [n_stmt, L], node_ids [n_nodes, L], node_type [n_nodes],
    edges [n_edges, 4]."""
    n_stmt, n_nodes, n_edges = int(row["n_stmt"]), int(row["n_nodes"]), int(row["n_edges"])
    return {
        "stmt_ids": np.asarray(row["stmt_ids"], dtype=np.int64).reshape(n_stmt, seq_len),
        "node_ids": np.asarray(row["node_ids"], dtype=np.int64).reshape(n_nodes, seq_len),
        "node_type": np.asarray(row["node_type"], dtype=np.int64).reshape(n_nodes),
        "edges": np.asarray(row["edges"], dtype=np.int64).reshape(n_edges, 4),
    }


def length_groups(sorted_lengths: list[int], tokens: int) -> Iterator[tuple[int, int]]:
    """Consecutive (start, end) ranges over ascending lengths, each as long as its padded size (count x its
    longest length) stays within `tokens`; at least one statement each. How both encoders (torch's and
    the numpy one) batch statements."""
    start, n = 0, len(sorted_lengths)
    while start < n:
        end = start + 1
        while end < n and (end + 1 - start) * max(sorted_lengths[end], 1) <= tokens:
            end += 1
        yield start, end
        start = end
