"""Read the published CSV tables (device mapping, thread coarsening) so that a damaged file is one clear line."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mirtune.errors import MirtuneError

if TYPE_CHECKING:
    import pandas as pd


def read_csv(path: str | os.PathLike, **kwargs: Any) -> "pd.DataFrame":
    """pandas.read_csv of a published table; MirtuneError naming the file when it is missing, truncated (does not
    end with a newline) or not the CSV expected (a parser error, missing columns, empty)."""
    import pandas as pd

    path = Path(path)
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            if size == 0:
                raise MirtuneError("empty CSV file", str(path))
            fh.seek(size - 1)
            if fh.read(1) != b"\n":
                raise MirtuneError("truncated CSV file: it does not end with a newline (re-fetch it; see "
                                   "PROVENANCE.md)", str(path))
    except FileNotFoundError:
        raise MirtuneError("CSV file not found", str(path)) from None
    except IsADirectoryError:
        raise MirtuneError("is a directory, not a CSV file", str(path)) from None
    except OSError as exc:
        raise MirtuneError(f"cannot read CSV file: {exc.strerror or exc}", str(path)) from None
    try:
        return pd.read_csv(path, **kwargs)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError) as exc:
        reason = " ".join(str(exc).split())[:200] or type(exc).__name__
        raise MirtuneError(f"corrupt or truncated CSV file ({type(exc).__name__}: {reason})", str(path)) from None
