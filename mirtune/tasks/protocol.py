"""What an evaluation protocol is, independent of any head: a `Problem` (features, labels, fixed outer folds, how
to cut inner folds, a score) and the fold makers the tasks' protocols use. Tasks build Problems; `mirtune.predict`
chooses and fits heads over them (so tasks/ never imports predict/)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

Split = tuple[np.ndarray, np.ndarray]


@dataclass
class Problem:
    """One task on one platform, with its fixed outer folds."""

    name: str
    X: np.ndarray
    y: np.ndarray
    n_classes: int
    outer: list[Split]                                   # (train_idx, test_idx) per outer fold
    inner_splits: Callable[[np.ndarray, int, int], list[Split]]  # (train_idx, n_inner, seed) -> splits
    score: Callable[[np.ndarray, np.ndarray], float]     # (row indices, predicted labels) -> higher is better
    fold_ids: list[int] = field(default_factory=list)    # the published fold number of each outer split
    keep_columns: int = 0                                # trailing non-embedding columns, never PCA-reduced
    gains: np.ndarray | None = None                      # [n_rows, n_classes] value of each choice (gain heads)
    # [n_rows, n_classes] log gains measured for the row before predicting (a probe run): added to a gain head's
    # predictions before it decides; `gains` are then the rest, what the heads learn (None: nothing measured)
    offsets: np.ndarray | None = None

    def __post_init__(self) -> None:
        if not self.fold_ids:
            self.fold_ids = list(range(len(self.outer)))


def stratified_kfold(train_idx: np.ndarray, labels: np.ndarray, n_splits: int, seed: int) -> list[Split]:
    """Stratified k-fold over `train_idx` (labels = labels of the whole problem), shuffled with `seed`."""
    rng = np.random.RandomState(seed)
    train_idx = np.asarray(train_idx)
    fold_of = np.empty(len(train_idx), dtype=int)
    for cls in np.unique(labels[train_idx]):
        members = np.flatnonzero(labels[train_idx] == cls)
        rng.shuffle(members)
        fold_of[members] = np.arange(len(members)) % n_splits
    out = []
    for k in range(n_splits):
        va = train_idx[fold_of == k]
        tr = train_idx[fold_of != k]
        if len(va) and len(tr):
            out.append((tr, va))
    return out


def kfold(train_idx: np.ndarray, n_splits: int, seed: int) -> list[Split]:
    """Plain shuffled k-fold over `train_idx`."""
    idx = np.array(train_idx)
    np.random.RandomState(seed).shuffle(idx)
    parts = np.array_split(idx, min(n_splits, len(idx)))
    return [(np.sort(np.concatenate([p for j, p in enumerate(parts) if j != k])), np.sort(part))
            for k, part in enumerate(parts) if len(part)]
