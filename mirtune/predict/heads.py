"""Small task heads on frozen embeddings: a three-linear-layer MLP classifier, as in the MIREncoder paper.

    head = MLPHead(n_classes=2, config=HeadConfig(hidden=64, lr=1e-3), seed=0).fit(X_train, y_train)
    labels = head.predict(X_test)

Features are standardised with the training rows' mean and standard deviation (constant columns are left
centred). Training is mini-batch Adam with weight decay and cross-entropy for a fixed number of epochs; the seed
fixes initialisation, dropout and batch order, so one (data, config, seed) always gives the same head.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np


@dataclass(frozen=True)
class HeadConfig:
    """Hyper-parameters of an MLP head."""

    hidden: int = 64
    lr: float = 1e-3
    weight_decay: float = 1e-4
    epochs: int = 100
    batch_size: int = 64
    dropout: float = 0.1

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "HeadConfig":
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


def limit_threads(n: int = 1) -> None:
    """Keep torch to `n` intra-op threads (heads are tiny; the machine is shared)."""
    import torch

    if torch.get_num_threads() != n:
        torch.set_num_threads(n)


class Standardiser:
    """z = (x - mean) / std with the statistics of the rows it was fitted on."""

    def fit(self, X: np.ndarray) -> "Standardiser":
        X = np.asarray(X, dtype=np.float64)
        self.mean_ = X.mean(axis=0)
        std = X.std(axis=0)
        self.std_ = np.where(std > 1e-12, std, 1.0)
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        return (np.asarray(X, dtype=np.float64) - self.mean_) / self.std_


class MLPHead:
    """Linear -> ReLU -> Dropout -> Linear -> ReLU -> Dropout -> Linear, trained with cross-entropy."""

    def __init__(self, n_classes: int, config: HeadConfig | None = None, seed: int = 0) -> None:
        if n_classes < 2:
            raise ValueError("an MLP head needs at least two classes")
        self.n_classes = n_classes
        self.config = config or HeadConfig()
        self.seed = int(seed)
        self.model = None
        self.scaler = Standardiser()

    def _build(self, n_features: int):
        from torch import nn

        h, p = self.config.hidden, self.config.dropout
        return nn.Sequential(nn.Linear(n_features, h), nn.ReLU(), nn.Dropout(p),
                             nn.Linear(h, h), nn.ReLU(), nn.Dropout(p),
                             nn.Linear(h, self.n_classes))

    def fit(self, X: np.ndarray, y: np.ndarray) -> "MLPHead":
        import torch

        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.int64)
        if X.ndim != 2 or len(X) != len(y) or len(y) == 0:
            raise ValueError(f"fit needs X [n, d] and y [n]; got {X.shape} and {y.shape}")
        if y.min() < 0 or y.max() >= self.n_classes:
            raise ValueError(f"labels must lie in 0..{self.n_classes - 1}")
        threads = torch.get_num_threads()
        limit_threads(1)  # a tiny model: more threads only add synchronisation (and the machine is shared)
        try:
            self._train(X, y)
        finally:
            limit_threads(threads)
        return self

    def _train(self, X: np.ndarray, y: np.ndarray) -> None:
        import torch
        from torch.nn import functional as F

        cfg = self.config
        xt = torch.as_tensor(self.scaler.fit(X).transform(X), dtype=torch.float32)
        yt = torch.as_tensor(y)
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed)
            model = self._build(X.shape[1])
            opt = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
            gen = torch.Generator().manual_seed(self.seed)
            n, bs = len(yt), max(1, min(cfg.batch_size, len(yt)))
            model.train()
            for _ in range(cfg.epochs):
                order = torch.randperm(n, generator=gen)
                for start in range(0, n, bs):
                    idx = order[start:start + bs]
                    opt.zero_grad(set_to_none=True)
                    loss = F.cross_entropy(model(xt[idx]), yt[idx])
                    loss.backward()
                    opt.step()
        model.eval()
        self.model = model

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        import torch

        if self.model is None:
            raise RuntimeError("predict before fit")
        xt = torch.as_tensor(self.scaler.transform(X), dtype=torch.float32)
        with torch.inference_mode():
            return torch.softmax(self.model(xt), dim=1).double().numpy()

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.predict_proba(X).argmax(axis=1)


def fit_predict(X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray, n_classes: int,
                config: HeadConfig | dict | None = None, seed: int = 0) -> np.ndarray:
    """Fit a head on the training rows and return its labels for the test rows."""
    if isinstance(config, dict):
        config = HeadConfig.from_dict(config)
    return MLPHead(n_classes, config, seed).fit(X_train, y_train).predict(X_test)
