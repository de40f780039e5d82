"""Progress bars on stderr for long work (quiet when MIRTUNE_NO_PROGRESS is set)."""

from __future__ import annotations

import os
import sys
from typing import Iterable, TypeVar

T = TypeVar("T")


def progress(items: Iterable[T], total: int | None = None, desc: str = "") -> Iterable[T]:
    """Wrap an iterable in a tqdm bar on stderr."""
    from tqdm import tqdm

    disable = bool(os.environ.get("MIRTUNE_NO_PROGRESS"))
    return tqdm(items, total=total, desc=desc, file=sys.stderr, disable=disable, leave=False,
                dynamic_ncols=True, mininterval=0.5)
