"""What the vectorize sweep and `mirtune tune --task vectorize` measure: the space (the loop pragma's
vectorize_width and interleave_count), the row columns, and the pragma's text."""

from __future__ import annotations

import pyarrow as pa

from mirtune.measure.space import Dimension

VFS = (1, 2, 4, 8, 16, 32, 64)
IFS = (1, 2, 4, 8, 16)
DIMENSIONS: dict[str, Dimension] = {
    "vf": Dimension("vf", int, VFS, choices=VFS, help="vectorize_width"),
    "if": Dimension("if", int, IFS, choices=IFS, help="interleave_count"),
}
COLUMNS: dict[str, pa.DataType] = {
    "vf": pa.int64(), "if": pa.int64(), "pragma": pa.string(), "opt": pa.int64(),
    "template": pa.string(), "elem_type": pa.string(), "trip": pa.int64(), "outer": pa.int64(),
    "trip_known": pa.bool_(), "restrict": pa.bool_(), "stride": pa.int64(), "distance": pa.int64(),
    "origin": pa.string(),
}


def pragma(vf: int, interleave: int) -> str:
    """The text MIRTUNE_LOOP_PRAGMA is defined as for one configuration."""
    return f'_Pragma("clang loop vectorize_width({vf}) interleave_count({interleave})")'
