"""Progress bars on stderr for long work, and messages that do not break them.

Bars show on a terminal; when stderr is a file or pipe (logs, CI) they are replaced by nothing, so
logs stay one clean line per message. MIRTUNE_PROGRESS=1 forces bars, MIRTUNE_PROGRESS=0 hides them.
"""

from __future__ import annotations

import os
import sys
from typing import Iterable, TypeVar

T = TypeVar("T")


def _enabled() -> bool:
    setting = os.environ.get("MIRTUNE_PROGRESS")
    if setting is not None:
        return setting not in ("0", "", "false", "no")
    return sys.stderr.isatty()


def progress(items: Iterable[T], total: int | None = None, desc: str = "") -> Iterable[T]:
    """Wrap an iterable in a tqdm bar on stderr."""
    from tqdm import tqdm

    return tqdm(items, total=total, desc=desc, file=sys.stderr, disable=not _enabled(), leave=False,
                dynamic_ncols=True, mininterval=0.5)


def note(message: str) -> None:
    """Print one line to stderr without tearing an active progress bar."""
    from tqdm import tqdm

    tqdm.write(message, file=sys.stderr)
