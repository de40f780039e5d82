"""mirtune.pretrain.memory: free memory held inside the C heap goes back to the system."""

from __future__ import annotations

import ctypes
import ctypes.util
from pathlib import Path

import pytest

from mirtune.pretrain.memory import release_free_memory


def _rss_anon_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no RssAnon in /proc/self/status")


@pytest.mark.skipif(not Path("/proc/self/status").exists() or ctypes.util.find_library("c") is None,
                    reason="needs Linux's /proc and a C library")
def test_memory_freed_below_a_live_block_is_handed_back():
    """Blocks freed beneath one still in use stay in the heap (the heap cannot shrink past it), as a training
    step's tensors do; after release_free_memory the process's resident memory is that much smaller."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    libc.free.argtypes = [ctypes.c_void_p]
    size, count = 64 * 1024, 2000  # 125 MB in blocks below glibc's mmap threshold: they come from the heap
    blocks = [libc.malloc(size) for _ in range(count)]
    assert all(blocks)
    for b in blocks:
        ctypes.memset(b, 1, size)  # resident
    for b in blocks[:-1]:
        libc.free(b)
    before = _rss_anon_mb()
    assert release_free_memory() is True
    after = _rss_anon_mb()
    libc.free(blocks[-1])
    assert before - after > 60, (before, after)
