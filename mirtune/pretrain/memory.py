"""Give memory that the C allocator holds free back to the system, so that a long training run grows less.

A training step on CPU allocates tensors of a different size every step (files differ in statements and edges).
glibc keeps what they free in its heap, in pieces that later steps' sizes may not fit, and the resident memory of
a worker of the long run grew by about 40 MB a minute though Python objects did not (tracemalloc, in a copy of the
step loop outside Ray). `malloc_trim` hands the free pages back. Measured on `mirtune pretrain` itself
(benchmarks/bench_pretrain_memory.py, one worker): growth fell from +199 to +136 MB per 100 steps; the rest has
another cause, not yet found.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _libc() -> Any | None:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
    except OSError:
        return None
    return libc if libc is not None and hasattr(libc, "malloc_trim") else None


def release_free_memory() -> bool:
    """Return the C heap's free pages to the system (glibc's malloc_trim); False where the C library has no such
    call (musl, macOS), where there is nothing to do."""
    libc = _libc()
    if libc is None:
        return False
    libc.malloc_trim(0)
    return True
