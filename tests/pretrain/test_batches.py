"""Where a pre-training worker's batches come from: cost-balanced shares of one global batch per step."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

from mirtune.pretrain.batches import ArrowRows, InMemoryCorpus, balanced_split, file_costs


def test_balanced_split_gives_equal_counts_and_near_equal_costs():
    groups = balanced_split(np.array([10.0, 9.0, 1.0, 1.0]), 2)
    assert sorted(map(sorted, (g.tolist() for g in groups))) == [[0, 3], [1, 2]]  # 11 and 10, not 19 and 2
    rng = np.random.default_rng(0)
    balanced_gaps, drawn_gaps = [], []
    for _ in range(200):
        costs = rng.lognormal(5.0, 0.8, size=16)  # files' costs vary several-fold
        groups = balanced_split(costs, 2)
        assert sorted(np.concatenate(groups).tolist()) == list(range(16))
        assert [len(g) for g in groups] == [8, 8]
        balanced_gaps.append(abs(costs[groups[0]].sum() - costs[groups[1]].sum()) / costs.sum())
        drawn_gaps.append(abs(costs[:8].sum() - costs[8:].sum()) / costs.sum())  # halves as drawn
    assert np.median(balanced_gaps) < 0.03 < np.median(drawn_gaps)
    assert np.median(balanced_gaps) < np.median(drawn_gaps) / 5


def test_balanced_split_of_an_uneven_batch_differs_by_one_file_at_most():
    groups = balanced_split(np.arange(7, dtype=float), 3)
    assert sorted(len(g) for g in groups) == [2, 2, 3]
    assert sorted(np.concatenate(groups).tolist()) == list(range(7))


def test_file_cost_counts_kept_statements_and_edges():
    costs = file_costs(np.array([10, 1000]), np.array([0, 100]), max_statements=256)
    assert costs.tolist() == [10.0, 256.0 + 35.0]


def _table(n: int) -> pa.Table:
    rng = np.random.default_rng(1)
    sizes = rng.integers(1, 40, size=n)
    return pa.table({
        "id": [f"m{i}" for i in range(n)],
        "n_stmt": sizes,
        "stmt_ids": [list(range(i, i + 2 * s)) for i, s in enumerate(sizes)],
        "n_edges": sizes * 2,
        "edges": [[i] * (4 * s) for i, s in enumerate(sizes)],
    })


def test_rows_are_the_tables_rows_in_ray_datas_numpy_form():
    table = _table(9)
    corpus = InMemoryCorpus(table, batch_size=4, rank=0, world=1, seed=0, max_statements=None)
    rows = corpus.rows(np.array([3, 0]))
    assert rows["id"].tolist() == ["m3", "m0"]
    assert rows["stmt_ids"].dtype == object
    assert rows["stmt_ids"][0].tolist() == table.column("stmt_ids")[3].as_py()
    assert rows["edges"][1].tolist() == table.column("edges")[0].as_py()


def test_rows_of_a_one_chunk_table_are_read_in_place_not_copied():
    """A worker holds the corpus from the object store; copying it (as joining its chunks does) cost every worker
    a private copy of the whole corpus."""
    import pyarrow as pa

    table = pa.concat_tables([_table(10), _table(10)]).combine_chunks()
    rows = ArrowRows(table)
    values, offsets = rows.columns["stmt_ids"]
    col = table.column("stmt_ids").chunk(0)
    assert values.ctypes.data == col.values.buffers()[1].address
    assert offsets.ctypes.data == col.buffers()[1].address
    assert rows.columns["n_stmt"][0].ctypes.data == table.column("n_stmt").chunk(0).buffers()[1].address
    chunked = ArrowRows(pa.concat_tables([_table(10), _table(10)]))  # several chunks: joined, the same rows
    index = np.array([3, 17, 0])
    assert [r.tolist() for r in chunked.rows(index)["stmt_ids"]] == [r.tolist() for r in rows.rows(index)["stmt_ids"]]


@pytest.mark.parametrize("world", [1, 2, 3])
def test_workers_share_each_global_batch_without_overlap_and_cover_the_pass(world):
    table = _table(50)
    workers = [InMemoryCorpus(table, batch_size=4, rank=r, world=world, seed=7, max_statements=16)
               for r in range(world)]
    passes = [list(w.epoch(3)) for w in workers]
    assert len({len(p) for p in passes}) == 1  # every worker takes the same number of steps
    seen: list[str] = []
    for step in zip(*passes):
        ids = [b["id"].tolist() for b, _ in step]
        n_global = {n for _, n in step}
        assert n_global == {sum(len(x) for x in ids)}
        assert max(len(x) for x in ids) - min(len(x) for x in ids) <= 1
        seen += [i for x in ids for i in x]
    assert len(seen) == len(set(seen))
    assert len(seen) > 50 - 4 * world  # only a last batch too small for every worker is left out
    # the next pass takes another order; the same pass is the same on every call
    assert [b["id"].tolist() for b, _ in workers[0].epoch(3)] == [b["id"].tolist() for b, _ in passes[0]]
    assert [b["id"].tolist() for b, _ in workers[0].epoch(4)] != [b["id"].tolist() for b, _ in passes[0]]


@pytest.mark.parametrize("world", [1, 2])
def test_a_pass_taken_up_at_batch_k_is_the_rest_of_the_same_pass(world):
    table = _table(50)
    for rank in range(world):
        src = InMemoryCorpus(table, batch_size=4, rank=rank, world=world, seed=7, max_statements=16)
        whole = [b["id"].tolist() for b, _ in src.epoch(2)]
        assert src.batches_per_epoch() == len(whole)
        for k in (0, 1, 5, len(whole) - 1, len(whole)):
            assert [b["id"].tolist() for b, _ in src.epoch(2, start=k)] == whole[k:]


def test_data_position_resumes_where_the_checkpoint_left_the_pass():
    from mirtune.pretrain.train import _data_position

    state = {"epoch": 1, "epoch_batches": 3, "history": [{"step": s, "epoch": 0} for s in range(1, 9)]}
    assert _data_position(state, 6) == 3 and state["epoch"] == 1
    # a checkpoint written before the position was kept: where the run would be without interruptions
    legacy = {"epoch": 0, "history": [{"step": s, "epoch": 0} for s in range(1, 15)]}
    assert _data_position(legacy, 6) == 2 and legacy["epoch"] == 2 and legacy["epoch_batches"] == 2
    streamed = {"epoch": 0, "history": [{"step": s, "epoch": 0} for s in range(1, 15)]}
    assert _data_position(streamed, None) == 14 and streamed["epoch"] == 0  # length unknown: the stream skips


def test_two_workers_steps_cost_about_the_same():
    table = _table(400)
    a, b = (InMemoryCorpus(table, batch_size=8, rank=r, world=2, seed=0, max_statements=None) for r in (0, 1))
    gaps = []
    for (ba, _), (bb, _) in zip(a.epoch(0), b.epoch(0)):
        ca = file_costs(ba["n_stmt"], ba["n_edges"], None).sum()
        cb = file_costs(bb["n_stmt"], bb["n_edges"], None).sum()
        gaps.append(abs(ca - cb) / (ca + cb))
    assert np.median(gaps) < 0.02
