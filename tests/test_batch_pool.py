"""mirtune.batch_pool: batches in forked workers, results in order, a dying worker costs only the item that kills it.

The scenarios that fork run in a fresh Python process: this test process may have joined the session's Ray cluster,
and a forked child of such a process can hang Ray's connections (map_batches then runs in-process instead)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from mirtune.batch_pool import map_batches

HERE = Path(__file__).resolve().parent


def _square_or_die(items: list[str]) -> list[list]:
    """Each item and its square; an item "die" kills its worker as a crash in a native library would."""
    if "die" in items:
        os.kill(os.getpid(), signal.SIGKILL)
    return [[item, int(item) ** 2] for item in items]


def _fail(items: list[str]) -> list[str]:
    raise ValueError(f"bad batch {items}")


def _died(item: str) -> list:
    return [item, "died"]


def _batches(groups: list[list[str]]):
    return ((i, items) for i, items in enumerate(groups))


def _fresh(expr: str) -> subprocess.CompletedProcess:
    """Print json of `expr` (this module's names in scope) from a fresh Python process that has joined no Ray."""
    code = (f"import json, sys; sys.path.insert(0, {str(HERE)!r}); from test_batch_pool import _batches, _died, _fail, _square_or_die, map_batches; "
            f"print(json.dumps({expr}))")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


def test_results_come_in_batch_order_whatever_finishes_first():
    groups = [[str(n) for n in range(k, k + 3)] for k in range(0, 30, 3)] + [[]]
    for jobs in (1, 2):
        proc = _fresh(f"list(map_batches(_square_or_die, _batches({groups!r}), {jobs}, _died))")
        assert proc.returncode == 0, proc.stderr
        got = json.loads(proc.stdout)
        assert [tag for tag, _ in got] == list(range(len(groups)))
        assert [r for _, results in got for r in results] == [[str(n), n * n] for n in range(30)]


def test_a_worker_that_dies_costs_only_the_item_that_killed_it():
    groups = [["1", "2"], ["3", "die", "4"], ["5"], ["6", "7"], ["8"]]
    proc = _fresh(f"list(map_batches(_square_or_die, _batches({groups!r}), 2, _died))")
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert [tag for tag, _ in got] == [0, 1, 2, 3, 4]
    assert got[1][1] == [["3", 9], ["die", "died"], ["4", 16]]
    assert [r for _, results in got for r in results if r[1] != "died"] == [[str(n), n * n] for n in range(1, 9)]


def test_an_exception_in_the_work_is_raised_in_the_caller():
    proc = _fresh("list(map_batches(_fail, _batches([['1'], ['2'], ['3']]), 2, _died))")
    assert proc.returncode != 0 and "ValueError: bad batch" in proc.stderr


def test_one_batch_of_work_runs_here_without_a_worker():
    pids = []

    def work(items: list[str]) -> list[int]:  # a local function cannot be pickled: it must run in this process
        pids.append(os.getpid())
        return [len(items)]

    assert list(map_batches(work, _batches([[], ["a", "b"], []]), 4, _died)) == [(0, []), (1, [2]), (2, [])]
    assert pids == [os.getpid()]


def test_a_process_that_has_joined_ray_never_forks(ray_cluster):
    pids = []

    def work(items: list[str]) -> list[int]:  # runs in this process, or could not be pickled at all
        pids.append(os.getpid())
        return [len(items)]

    assert [r for _, r in map_batches(work, _batches([["a"], ["b", "c"], ["d"]]), 2, _died)] == [[1], [2], [1]]
    assert pids == [os.getpid()] * 3
