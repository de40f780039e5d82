"""Batches of work in worker processes, their results in order, and a worker that dies costs only its input.

`map_batches(work, batches, jobs)` runs `work(items)` for every batch on `jobs` forked processes (in this process when
`jobs` is 1, when there are fewer than two batches of work, or when this process has joined a Ray cluster, whose
connections a fork can break), a few batches ahead of the one it yields, so that a long stream of inputs stays bounded in memory.
When a worker dies (a signal, the out-of-memory killer, a crash in a native library), the batches it took down are
run again one item at a time in a fresh pool: the item whose run kills its worker again gets `on_death(item)` as
its result and every other item its real one.
"""

from __future__ import annotations

import itertools
import multiprocessing
import os
import signal
import sys
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Generic, Iterable, Iterator, TypeVar

T = TypeVar("T")  # one input
R = TypeVar("R")  # its result
G = TypeVar("G")  # what travels with a batch, untouched

AHEAD = 2  # batches in flight per worker


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity mask), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _connected_to_ray() -> bool:
    """Whether this process has joined a Ray cluster (without importing Ray when nothing has)."""
    ray = sys.modules.get("ray")
    return ray is not None and bool(getattr(ray, "is_initialized", lambda: False)())


def _ignore_interrupts(initializer: Callable[[], None] | None) -> None:
    """Worker start: Ctrl-C is the parent's to handle (it stops the pool), then the caller's own initializer."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer()


class _Pool(Generic[T, R]):
    """A forked ProcessPoolExecutor made on first use and remade after a worker dies."""

    def __init__(self, work: Callable[[list[T]], list[R]], jobs: int, initializer: Callable[[], None] | None) -> None:
        self.work, self.jobs, self.initializer = work, jobs, initializer
        self.executor: ProcessPoolExecutor | None = None

    def submit(self, items: list[T]) -> Future:
        if self.executor is None:
            self.executor = ProcessPoolExecutor(self.jobs, multiprocessing.get_context("fork"),
                                                initializer=_ignore_interrupts, initargs=(self.initializer,))
        return self.executor.submit(self.work, items)

    def close(self, wait: bool = True) -> None:
        if self.executor is not None:
            self.executor.shutdown(wait=wait, cancel_futures=True)
            self.executor = None

    def one_at_a_time(self, items: list[T], on_death: Callable[[T], R]) -> list[R]:
        """Each item alone, waiting for it: a worker that dies now died of that item."""
        self.close()
        results = []
        for item in items:
            try:
                results.extend(self.submit([item]).result())
            except BrokenProcessPool:
                results.append(on_death(item))
                self.close(wait=False)
        return results


def map_batches(work: Callable[[list[T]], list[R]], batches: Iterable[tuple[G, list[T]]], jobs: int,
                on_death: Callable[[T], R], initializer: Callable[[], None] | None = None
                ) -> Iterator[tuple[G, list[R]]]:
    """Yield (tag, work(items)) for every (tag, items) of `batches`, in their order.

    `work` must return one result per item and be a module-level function (the workers are forked, so it and its
    arguments need not be re-imported, but they are pickled). An exception `work` raises is raised here, as it would
    be in this process. `initializer` runs once in each worker.
    """
    stream = iter(batches)
    head: list[tuple[G, list[T]]] = []
    if jobs > 1 and _connected_to_ray():  # Ray's gRPC channels do not survive a fork: a forked child can hang them
        jobs = 1
    if jobs > 1:  # workers only for two batches of work or more: one runs as fast here, without a fork
        for tag, items in stream:
            head.append((tag, items))
            if sum(1 for _, got in head if got) >= 2:
                break
    if jobs <= 1 or sum(1 for _, got in head if got) < 2:
        for tag, items in itertools.chain(head, stream):
            yield tag, work(items) if items else []
        return
    pool: _Pool[T, R] = _Pool(work, jobs, initializer)
    flight: deque[tuple[G, list[T], Future | None]] = deque()
    try:
        for tag, items in itertools.chain(head, stream):
            flight.append((tag, items, pool.submit(items) if items else None))
            while len(flight) > AHEAD * jobs or (flight and _done(flight[0][2])):
                yield _result(pool, *flight.popleft(), on_death=on_death)
        while flight:
            yield _result(pool, *flight.popleft(), on_death=on_death)
    finally:
        pool.close(wait=not flight)


def _done(future: Future | None) -> bool:
    return future is None or future.done()


def _result(pool: _Pool, tag: G, items: list[T], future: Future | None, on_death: Callable[[T], R]
            ) -> tuple[G, list[R]]:
    """The batch's results; after a worker's death, the batch again item by item (later batches in flight died
    with the pool, and are resubmitted to the fresh one as they come up)."""
    if future is None:
        return tag, []
    try:
        return tag, future.result()
    except BrokenProcessPool:
        return tag, pool.one_at_a_time(items, on_death)
