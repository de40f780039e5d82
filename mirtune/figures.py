"""Figures as the project draws and keeps them: matplotlib off-screen (Agg, no display needed) and PNGs of at most
256 colours (a line plot takes about two fifths of matplotlib's own bytes), so that plots stay small enough to
commit: the tracked tree must travel to the GPU machine (tests/test_repository_size.py)."""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend; imported only when a figure is drawn (matplotlib is slow to import)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def palette_png(png: bytes) -> bytes:
    """`png` re-encoded with a palette of at most 256 colours (no dithering, so a plot's flat colours and text stay
    crisp; anti-aliased edges take the nearest of the palette's colours)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB").quantize(colors=256, dither=Image.Dither.NONE)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def save(fig: Any, path: str | os.PathLike, dpi: int = 110) -> Path:
    """Write `fig` to `path` as a palette PNG (`palette_png`) and close it; the path."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    pyplot().close(fig)
    path = Path(path)
    path.write_bytes(palette_png(buffer.getvalue()))
    return path
