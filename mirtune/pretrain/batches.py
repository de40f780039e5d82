"""Where a pre-training worker's batches come from.

Two sources, one interface (`epoch(e, start)` yields (numpy batch, files in the step over all workers) from
batch `start` of pass `e` on, so that a resumed run continues the pass where its checkpoint left it):

- `InMemoryCorpus`: a corpus that fits in memory, put in the object store once by the driver; every worker
  holds all of it (zero-copy from the node's object store) and each step takes its share of one global batch,
  shared out by estimated cost so that no worker waits long for another at the gradient all-reduce (with
  shares drawn at random, the faster worker waited at every step: benchmarks/bench_pretrain.py measures both).
- `StreamedShard`: a corpus too large for that streams each worker's Ray Data shard.
"""

from __future__ import annotations

from typing import Any, Iterator

import numpy as np

#: estimated cost of a file in a step: its kept statements plus this much per edge (statements drive the
#: statement Transformer, which dominates a step; edges the GCN and the graph objective; a rough fit of
#: single-file step times of the small preset on CPU)
EDGE_COST = 0.35

Batch = dict[str, np.ndarray]


def file_costs(n_stmt: np.ndarray, n_edges: np.ndarray, max_statements: int | None) -> np.ndarray:
    """Estimated compute of each file in a training step: statements kept (at most `max_statements`) and edges."""
    kept = np.minimum(n_stmt, max_statements) if max_statements else n_stmt
    return kept.astype(np.float64) + EDGE_COST * n_edges.astype(np.float64)


def balanced_split(costs: np.ndarray, parts: int) -> list[np.ndarray]:
    """Positions of `costs` shared out into `parts` groups of equal size (or within one) and near-equal total
    cost: the costliest first, each to the least loaded group that still has room. Every worker computes the
    same answer from the same global batch, so no communication is needed."""
    n = len(costs)
    room = [n // parts + (1 if p < n % parts else 0) for p in range(parts)]
    load = [0.0] * parts
    groups: list[list[int]] = [[] for _ in range(parts)]
    for i in sorted(range(n), key=lambda j: (-costs[j], j)):
        p = min((q for q in range(parts) if len(groups[q]) < room[q]), key=lambda q: (load[q], q))
        groups[p].append(i)
        load[p] += float(costs[i])
    return [np.sort(np.asarray(g, dtype=np.int64)) for g in groups]


def pass_order(seed: int, epoch: int, n: int) -> np.ndarray:
    """The order of pass `epoch` over `n` in-memory rows: every worker computes the same one, and so does a resumed
    run or a script that asks which files a step read."""
    return np.random.default_rng([seed, epoch]).permutation(n)


class ArrowRows:
    """An Arrow table's rows in Ray Data's numpy batch form, decoded once (a list column as flat values and
    row offsets, sliced per row without copying). A column of one chunk is read in place: a
    table from the object store then stays in shared memory instead of being copied into every worker (a
    column of several chunks is joined, a copy)."""

    def __init__(self, table: Any) -> None:
        self.n = table.num_rows
        self.columns: dict[str, tuple[np.ndarray, np.ndarray | None]] = {}
        for name in table.column_names:
            col = table.column(name)
            col = col.chunk(0) if col.num_chunks == 1 else col.combine_chunks()
            if hasattr(col, "offsets"):
                self.columns[name] = (col.values.to_numpy(zero_copy_only=False),
                                      col.offsets.to_numpy(zero_copy_only=False))
            else:
                self.columns[name] = (col.to_numpy(zero_copy_only=False), None)

    def rows(self, index: np.ndarray) -> Batch:
        """The rows at `index` (a list column as an object array of arrays)."""
        out: Batch = {}
        for name, (values, offsets) in self.columns.items():
            if offsets is None:
                out[name] = values[index]
            else:
                out[name] = np.array([values[offsets[i]:offsets[i + 1]] for i in index] + [None], dtype=object)[:-1]
        return out


class InMemoryCorpus(ArrowRows):
    """A training split held whole (an Arrow table), batched as one global batch per step over all workers."""

    def __init__(self, table: Any, batch_size: int, rank: int, world: int, seed: int,
                 max_statements: int | None) -> None:
        super().__init__(table)
        self.rank, self.world, self.seed = rank, world, seed
        self.global_batch = batch_size * world
        self.costs = file_costs(self.columns["n_stmt"][0], self.columns["n_edges"][0], max_statements)

    def batches_per_epoch(self) -> int:
        """Global batches in one pass (a last one too small to give every worker a file is left out)."""
        full, rest = divmod(self.n, self.global_batch)
        return full + (1 if rest >= self.world else 0)

    def global_batches(self, epoch: int, start: int = 0) -> Iterator[np.ndarray]:
        """The row positions of each global batch of pass `epoch` from batch `start` on, in the order every worker
        shares; a last global batch too small to give every worker a file is left out."""
        order = pass_order(self.seed, epoch, self.n)
        for first in range(start * self.global_batch, self.n, self.global_batch):
            chunk = order[first:first + self.global_batch]
            if len(chunk) < self.world:
                return
            yield chunk

    def epoch(self, epoch: int, start: int = 0) -> Iterator[tuple[Batch, int]]:
        """This worker's share of each global batch of one pass from batch `start` on (`global_batches`)."""
        for chunk in self.global_batches(epoch, start):
            mine = chunk[balanced_split(self.costs[chunk], self.world)[self.rank]]
            yield self.rows(mine), len(chunk)


class StreamedShard:
    """A worker's shard of a Ray Data split, batch by batch, epoch after epoch.

    The first pass streams from Ray Data and keeps the rows in memory while they fit in `limit_bytes`;
    later passes then shuffle and batch the cached rows locally instead of starting a new streaming
    execution per epoch (which costs seconds, and dominates on small corpora). Larger shards stream
    every epoch. Every worker of an equal split sees the same number of rows, hence of batches.
    """

    def __init__(self, shard: Any, batch_size: int, limit_bytes: float, seed: int, world: int) -> None:
        self.shard, self.batch_size, self.limit, self.seed, self.world = shard, batch_size, limit_bytes, seed, world
        self.rows: list[dict[str, Any]] | None = None

    def batches_per_epoch(self) -> int | None:
        """Batches in one pass, once the first pass has been kept in memory; None while it streams."""
        return None if self.rows is None else -(-len(self.rows) // self.batch_size)

    def epoch(self, epoch: int, start: int = 0) -> Iterator[tuple[Batch, int]]:
        """This worker's batches of one pass from batch `start` on, with the step's files over all workers (equal
        shares). A streamed pass reads the batches before `start` too (and keeps them), without yielding them."""
        if self.rows is not None:
            order = pass_order(self.seed, epoch, len(self.rows))
            for i in range(start * self.batch_size, len(order), self.batch_size):
                chunk = [self.rows[j] for j in order[i:i + self.batch_size]]
                yield {k: np.array([r[k] for r in chunk] + [None], dtype=object)[:-1] for k in chunk[0]}, \
                    len(chunk) * self.world
            return
        kept: list[dict[str, Any]] | None = []
        size = 0
        for index, batch in enumerate(self.shard.iter_batches(batch_size=self.batch_size, batch_format="numpy",
                                                              drop_last=False,
                                                              local_shuffle_buffer_size=4 * self.batch_size,
                                                              local_shuffle_seed=self.seed + 1000 * epoch)):
            n = len(next(iter(batch.values())))
            if kept is not None:
                kept.extend({k: v[i] for k, v in batch.items()} for i in range(n))
                size += sum(getattr(v, "nbytes", 0) + sum(getattr(x, "nbytes", 0) for x in v)
                            if getattr(v, "dtype", None) == object else getattr(v, "nbytes", 0)
                            for v in batch.values())
                if size > self.limit:
                    kept = None
            if index >= start:
                yield batch, n * self.world
        if kept:
            self.rows = kept
