"""mirtune.batch_pool: batches in forked workers, results in order, a dying worker costs only the item that kills it."""

from __future__ import annotations

import os
import signal

import pytest

from mirtune.batch_pool import map_batches


def _square_or_die(items: list[str]) -> list[tuple[str, int]]:
    """Each item's pid and square; an item "die" kills its worker as a crash in a native library would."""
    if "die" in items:
        os.kill(os.getpid(), signal.SIGKILL)
    return [(item, int(item) ** 2) for item in items]


def _fail(items: list[str]) -> list[str]:
    raise ValueError(f"bad batch {items}")


def _died(item: str) -> tuple[str, str]:
    return item, "died"


def _batches(groups: list[list[str]]):
    return ((i, items) for i, items in enumerate(groups))


@pytest.mark.parametrize("jobs", [1, 2])
def test_results_come_in_batch_order_whatever_finishes_first(jobs):
    groups = [[str(n) for n in range(k, k + 3)] for k in range(0, 30, 3)] + [[]]
    got = list(map_batches(_square_or_die, _batches(groups), jobs, _died))
    assert [tag for tag, _ in got] == list(range(len(groups)))
    assert [r for _, results in got for r in results] == [(str(n), n * n) for n in range(30)]


def test_a_worker_that_dies_costs_only_the_item_that_killed_it():
    groups = [["1", "2"], ["3", "die", "4"], ["5"], ["6", "7"], ["8"]]
    got = list(map_batches(_square_or_die, _batches(groups), 2, _died))
    assert [tag for tag, _ in got] == [0, 1, 2, 3, 4]
    assert got[1][1] == [("3", 9), ("die", "died"), ("4", 16)]
    assert [r for _, results in got for r in results if r[1] != "died"] == [(str(n), n * n) for n in range(1, 9)]


def test_an_exception_in_the_work_is_raised_in_the_caller():
    with pytest.raises(ValueError, match="bad batch"):
        list(map_batches(_fail, _batches([["1"], ["2"], ["3"]]), 2, _died))


def test_one_batch_of_work_runs_here_without_a_worker():
    pids = []

    def work(items: list[str]) -> list[int]:  # a local function cannot be pickled: it must run in this process
        pids.append(os.getpid())
        return [len(items)]

    assert list(map_batches(work, _batches([[], ["a", "b"], []]), 4, _died)) == [(0, []), (1, [2]), (2, [])]
    assert pids == [os.getpid()]
