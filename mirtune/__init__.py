"""mirtune: autotuning driven by MIREncoder embeddings of LLVM IR."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Iterable, Sequence

from mirtune.tasks.registry import DEFAULT as _DEFAULT_TASK

if TYPE_CHECKING:
    import numpy as np

__version__ = "0.1.0"


def embed(paths: str | os.PathLike | Iterable[str | os.PathLike], model_dir: str | os.PathLike | None = None,
          precision: str | None = None, readout: str = "mean") -> "np.ndarray":
    """Frozen MIREncoder embeddings [n_files, dim] of .ll/.bc files or sources, rows in input order.

    See mirtune.embedding.embed (precision fp32|bf16, readout mean|meanmax); imported on first use so that
    `import mirtune` stays light.
    """
    from mirtune.embedding import embed as _embed

    return _embed(paths, model_dir, precision=precision, readout=readout)


def recommend(path: str | os.PathLike | Sequence[str | os.PathLike], task: str = _DEFAULT_TASK, top: int = 5,
              heads: str | os.PathLike | None = None,
              model_dir: str | os.PathLike | None = None, platform: str | None = None,
              context: dict[str, float] | None = None, include_dirs: Sequence[str | os.PathLike] = ()):
    """The configuration to use for a program without running it (a `mirtune.predict.recommend.Recommendation`).
    `path` is a file, or a list of the files of one program (linked into one module); `include_dirs` are searched
    for its headers.

    See mirtune.predict.recommend.recommend; imported on first use.
    """
    from mirtune.predict.recommend import recommend as _recommend

    return _recommend(path, task=task, top=top, heads=heads, model_dir=model_dir, platform=platform, context=context,
                      include_dirs=include_dirs)
