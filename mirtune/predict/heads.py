"""Small task heads on frozen embeddings: a three-linear-layer MLP classifier, as in the MIREncoder paper,
gradient-boosted trees (scikit-learn's HistGradientBoostingClassifier), the kind of head IR2Vec's experiments use,
and a gain head (ridge regression of every choice's gain, e.g. its speedup, then the best predicted choice), which
learns how much each choice gains rather than only which one wins, with two more gain heads: nearest neighbours
and a random forest (which can learn a threshold on one feature). Any of them can see the embedding through its
first `pca` principal components (fitted on the training rows only; trailing context columns such as transfer
bytes pass through unchanged): fewer, denser columns than a 256-d embedding for a head trained on a few hundred
rows; the inner-CV search decides whether that helps.

    head = MLPHead(n_classes=2, config=HeadConfig(hidden=64, lr=1e-3), seed=0).fit(X_train, y_train)
    labels = head.predict(X_test)
    labels = fit_predict(X_train, y_train, X_test, 2, {"head": "gbt", "max_iter": 200}, seed=0)
    labels = fit_predict(X_train, y_train, X_test, 6, {"head": "gain", "alpha": 100.0}, gains_train=G_train)

Features are standardised with the training rows' mean and standard deviation (constant columns are left
centred). Training is mini-batch Adam with weight decay and cross-entropy for a fixed number of epochs; the seed
fixes initialisation, dropout and batch order, so one (data, config, seed) always gives the same head.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any, ClassVar, Hashable, Sequence

import numpy as np


class _Config:
    """A head's hyper-parameters as a dict tagged with the head kind, and back (unknown keys ignored)."""

    HEAD: ClassVar[str]

    def to_dict(self) -> dict[str, Any]:
        return {"head": self.HEAD, **asdict(self)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]):
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class HeadConfig(_Config):
    """Hyper-parameters of an MLP head."""

    HEAD: ClassVar[str] = "mlp"
    hidden: int = 64
    lr: float = 1e-3
    weight_decay: float = 1e-4
    epochs: int = 100
    batch_size: int = 64
    dropout: float = 0.1
    pca: int = 0  # > 0: the head sees the embedding's first `pca` principal components


@dataclass(frozen=True)
class GBTConfig(_Config):
    """Hyper-parameters of a gradient-boosted trees head."""

    HEAD: ClassVar[str] = "gbt"
    max_iter: int = 200
    learning_rate: float = 0.1
    max_leaf_nodes: int = 31
    min_samples_leaf: int = 20
    l2_regularization: float = 0.0
    max_features: float = 1.0
    pca: int = 0  # > 0: the head sees the embedding's first `pca` principal components


@dataclass(frozen=True)
class GainConfig(_Config):
    """Hyper-parameters of a gain head."""

    HEAD: ClassVar[str] = "gain"
    alpha: float = 100.0  # ridge strength on standardised features; large -> the one choice best on average
    margin: float = 0.0   # how much another choice's predicted gain must exceed the anchor's to win
    anchor: str = "default"  # the choice kept without evidence: "default" (choice 0) or "best" (best on average)
    risk: float = 0.0     # how many times its downside (`downside`) a choice's predicted gain loses before deciding
    pca: int = 0  # > 0: the head sees the embedding's first `pca` principal components


@dataclass(frozen=True)
class KNNConfig(_Config):
    """Hyper-parameters of a nearest-neighbour gain head."""

    HEAD: ClassVar[str] = "knn"
    k: int = 5            # neighbours whose gains are averaged
    weight: float = 0.5   # share of the neighbours' mean in the prediction; the rest is the mean over all rows
    context_weight: float = 1.0  # weight of the trailing context columns against the embedding in the distance
    margin: float = 0.0   # how much another choice's predicted gain must exceed the anchor's to win
    anchor: str = "default"  # the choice kept without evidence: "default" (choice 0) or "best" (best on average)
    risk: float = 0.0     # how many times its downside (`downside`) a choice's predicted gain loses before deciding
    pca: int = 0  # > 0: the head sees the embedding's first `pca` principal components
    statistic: str = "mean"  # how the neighbours' gains are combined: "mean", or "median" (a choice must help
                             # most of them, not a few a lot)


@dataclass(frozen=True)
class ForestConfig(_Config):
    """Hyper-parameters of a random-forest gain head."""

    HEAD: ClassVar[str] = "forest"
    n_trees: int = 50
    min_samples_leaf: int = 3   # rows a leaf averages at least: larger -> smoother, closer to the mean gains
    max_features: float = 0.5   # share of the columns each split may choose from
    margin: float = 0.0   # how much another choice's predicted gain must exceed the anchor's to win
    anchor: str = "default"  # the choice kept without evidence: "default" (choice 0) or "best" (best on average)
    risk: float = 0.0     # how many times its downside (`downside`) a choice's predicted gain loses before deciding
    pca: int = 0  # > 0: the head sees the embedding's first `pca` principal components


KNN_STATISTICS = ("mean", "median")
ANCHORS = ("default", "best")
CONFIGS: dict[str, type[_Config]] = {"mlp": HeadConfig, "gbt": GBTConfig, "gain": GainConfig, "knn": KNNConfig,
                                     "forest": ForestConfig}
HEADS = tuple(CONFIGS)


def limit_threads(n: int = 1) -> None:
    """Keep torch to `n` intra-op threads and numpy's BLAS to `n` threads (heads are tiny; the machine is shared:
    a 300x300 ridge solve took 165 ms with two BLAS threads beside another busy process, 3 ms with one)."""
    import torch
    from threadpoolctl import threadpool_limits

    if torch.get_num_threads() != n:
        torch.set_num_threads(n)
    threadpool_limits(n, user_api="blas")


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


class EmbeddingPCA:
    """The first `n_components` principal components of the leading (embedding) columns, standardised with the
    statistics of the rows it was fitted on; the trailing `keep` columns (context features) pass through. Fewer
    components are kept where the rows or columns are fewer, none where there is no embedding (context alone)."""

    def __init__(self, n_components: int, keep: int = 0) -> None:
        if n_components < 1 or keep < 0:
            raise ValueError("EmbeddingPCA needs n_components >= 1 and keep >= 0")
        self.n_components, self.keep = int(n_components), int(keep)

    def fit(self, X: np.ndarray) -> "EmbeddingPCA":
        X = np.asarray(X, dtype=np.float64)
        d = X.shape[1] - self.keep
        if d < 0:
            raise ValueError(f"EmbeddingPCA: {X.shape[1]} columns, fewer than the {self.keep} to keep")
        self.scaler_ = Standardiser().fit(X[:, :d])
        Z = self.scaler_.transform(X[:, :d])
        self.center_ = Z.mean(axis=0)
        _, _, vt = np.linalg.svd(Z - self.center_, full_matrices=False)
        self.components_ = vt[:min(self.n_components, len(vt))]
        return self

    def transform(self, X: np.ndarray) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        d = X.shape[1] - self.keep
        Z = (self.scaler_.transform(X[:, :d]) - self.center_) @ self.components_.T
        return np.hstack([Z, X[:, d:]])


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

    def fit(self, X: np.ndarray, y: np.ndarray, gains: np.ndarray | None = None) -> "MLPHead":
        """Train on rows X with labels y (`gains` is for gain heads and ignored here)."""
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


class GBTHead:
    """Histogram gradient-boosted trees (no early stopping: every row trains); the seed drives the feature
    sub-sampling, so with max_features = 1 every seed gives the same trees."""

    def __init__(self, n_classes: int, config: GBTConfig | None = None, seed: int = 0) -> None:
        self.n_classes = n_classes
        self.config = config or GBTConfig()
        self.seed = int(seed)
        self.model = None

    def fit(self, X: np.ndarray, y: np.ndarray, gains: np.ndarray | None = None) -> "GBTHead":
        """Grow the trees on rows X with labels y (`gains` is for gain heads and ignored here)."""
        from sklearn.ensemble import HistGradientBoostingClassifier
        from threadpoolctl import threadpool_limits

        cfg = self.config
        self.model = HistGradientBoostingClassifier(
            max_iter=cfg.max_iter, learning_rate=cfg.learning_rate, max_leaf_nodes=cfg.max_leaf_nodes,
            min_samples_leaf=cfg.min_samples_leaf, l2_regularization=cfg.l2_regularization, max_features=cfg.max_features, early_stopping=False,
            random_state=self.seed)
        with threadpool_limits(1):  # one CPU per Ray task, as the MLP heads
            self.model.fit(np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.int64))
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        """Probabilities [n, n_classes] (classes never seen in training get 0)."""
        if self.model is None:
            raise RuntimeError("predict before fit")
        from threadpoolctl import threadpool_limits

        with threadpool_limits(1):
            seen = self.model.predict_proba(np.asarray(X, dtype=np.float64))
        out = np.zeros((len(seen), self.n_classes))
        out[:, self.model.classes_] = seen
        return out

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.predict_proba(X).argmax(axis=1)


class _GainHeadBase:
    """What the gain heads share: a choice is made from their `predict_gains` by `decide`, the head's anchor kept
    unless another choice beats it by the margin, each choice's predicted gain less `risk` times its downside."""

    config: "GainConfig | KNNConfig | ForestConfig"
    mean_: np.ndarray
    downside_: np.ndarray

    def _fit_downside(self, X: np.ndarray, gains: np.ndarray) -> None:
        """Each choice's downside on the training rows (`downside`), from the fitted head's own predictions; zeros
        without a risk (nothing reads it then, and a knn head would rank every training row for it)."""
        self.downside_ = downside(gains, self.predict_gains(X)) if self.config.risk else np.zeros(gains.shape[1])

    def penalty(self) -> np.ndarray:
        """What each choice's predicted gain loses before deciding: `risk` times its downside."""
        return float(self.config.risk) * self.downside_

    def _check_anchor(self) -> None:
        if self.config.anchor not in ANCHORS:
            raise ValueError(f"unknown anchor {self.config.anchor!r}; choose from {', '.join(ANCHORS)}")

    def anchor_index(self) -> int:
        """The choice kept unless another is predicted to beat it by the margin (see `anchor_index`)."""
        return anchor_index(self.config.anchor, self.mean_)

    def predict(self, X: np.ndarray) -> np.ndarray:
        return decide(self.predict_gains(X), self.config.margin, self.anchor_index(), self.penalty())


class GainHead(_GainHeadBase):
    """Ridge regression from standardised features to the gain of every choice (one output per class), predicting
    the choice with the highest predicted gain. Trained on how much each choice gains for each training row (for
    coarsening, the speedup of each factor), not only on which one wins, so a near miss costs little and a choice
    that is good everywhere is learnt as such; as `alpha` grows it falls back to the one choice with the best mean
    gain over the training rows. Deterministic: the seed is unused."""

    def __init__(self, n_classes: int, config: GainConfig | None = None, seed: int = 0) -> None:
        if n_classes < 2:
            raise ValueError("a gain head needs at least two choices")
        self.n_classes = n_classes
        self.config = config or GainConfig()
        self._check_anchor()  # an unknown anchor fails here, before fitting
        self.scaler = Standardiser()
        self.coef_: np.ndarray | None = None

    def fit(self, X: np.ndarray, y: np.ndarray | None = None, gains: np.ndarray | None = None) -> "GainHead":
        """Fit on rows X and `gains` [n, n_classes] (the labels y are not needed: they are the argmax of gains)."""
        if gains is None:
            raise ValueError("a gain head needs the gain of every choice for each training row")
        A = self.scaler.fit(X).transform(X)
        G = np.asarray(gains, dtype=np.float64)
        if G.shape != (len(A), self.n_classes) or not np.isfinite(G).all():
            raise ValueError(f"gains must be finite, [{len(A)}, {self.n_classes}]; got {G.shape}")
        self.mean_ = G.mean(axis=0)  # the features are centred, so this is the intercept
        self.coef_ = np.linalg.solve(A.T @ A + self.config.alpha * np.eye(A.shape[1]), A.T @ (G - self.mean_))
        self._fit_downside(X, G)
        return self

    def predict_gains(self, X: np.ndarray) -> np.ndarray:
        """Predicted gain of every choice, [n, n_classes]."""
        if self.coef_ is None:
            raise RuntimeError("predict before fit")
        return self.scaler.transform(X) @ self.coef_ + self.mean_


class KNNGainHead(_GainHeadBase):
    """The gain of every choice predicted as a blend of the gains of the `k` training rows nearest in the
    standardised feature space (cosine distance), their mean or (`statistic` "median") their median, and the mean
    gains of all training rows. With `weight` 0 it is the one choice best on average (the code-free baseline); with
    1, the choice that was best for the most similar programs. The median asks a choice to help most neighbours:
    a few large wins of one schedule among them do not carry it. The distance weighs the embedding block and the
    trailing `keep` context columns as equals (each block scaled by one over the square root of its width), the
    context times `context_weight`.
    Deterministic: the seed is unused."""

    def __init__(self, n_classes: int, config: KNNConfig | None = None, seed: int = 0, keep: int = 0) -> None:
        if n_classes < 2:
            raise ValueError("a knn head needs at least two choices")
        self.n_classes = n_classes
        self.config = config or KNNConfig()
        if self.config.statistic not in KNN_STATISTICS:
            raise ValueError(f"unknown knn statistic {self.config.statistic!r}; choose from "
                             f"{', '.join(KNN_STATISTICS)}")
        self._check_anchor()  # an unknown anchor fails here, before fitting
        self.keep = int(keep)
        self.scaler = Standardiser()
        self.rows_: np.ndarray | None = None

    def _space(self, X: np.ndarray) -> np.ndarray:
        """Standardised rows with the two blocks balanced (see the class doc), as unit vectors."""
        A = self.scaler.transform(X)
        d = A.shape[1] - self.keep
        scale = np.ones(A.shape[1])
        if d > 0:
            scale[:d] = 1.0 / np.sqrt(d)
        if self.keep:
            scale[d:] = float(self.config.context_weight) / np.sqrt(self.keep)
        return _unit_rows(A * scale)

    def fit(self, X: np.ndarray, y: np.ndarray | None = None, gains: np.ndarray | None = None) -> "KNNGainHead":
        """Remember the standardised rows X (unit vectors, kept as float32: a saved predictor holds every training
        row, and single precision halves it at no cost a cosine similarity notices) and their `gains`."""
        if gains is None:
            raise ValueError("a knn head needs the gain of every choice for each training row")
        G = np.asarray(gains, dtype=np.float64)
        if G.shape != (len(X), self.n_classes) or not np.isfinite(G).all():
            raise ValueError(f"gains must be finite, [{len(X)}, {self.n_classes}]; got {G.shape}")
        self.scaler.fit(X)
        self.rows_ = self._space(X).astype(np.float32)
        self.gains_, self.mean_ = G, G.mean(axis=0)
        self._fit_downside(X, G)
        return self

    def ranking(self, X: np.ndarray) -> np.ndarray:
        """The training rows from nearest to farthest for each row of X, [n, n_train] (ties: the earlier row)."""
        if self.rows_ is None:
            raise RuntimeError("predict before fit")
        return np.argsort(-(self._space(X) @ self.rows_.T), axis=1, kind="stable")

    def combine(self, ranking: np.ndarray, k: int, weight: float, statistic: str) -> np.ndarray:
        """Predicted gain of every choice, [n, n_classes], from a `ranking` of the neighbours: the first `k`
        combined by `statistic` ("mean" or "median"), blended with the mean gains by `weight`."""
        k = max(1, min(int(k), ranking.shape[1]))
        combined = (np.median if statistic == "median" else np.mean)(self.gains_[ranking[:, :k]], axis=1)
        return float(weight) * combined + (1.0 - float(weight)) * self.mean_

    def predict_gains(self, X: np.ndarray) -> np.ndarray:
        """Predicted gain of every choice, [n, n_classes]."""
        c = self.config
        return self.combine(self.ranking(X), c.k, c.weight, c.statistic)


class ForestGainHead(_GainHeadBase):
    """The gain of every choice predicted by a random forest of regression trees (scikit-learn's, one multi-output
    forest), each leaf the mean gains of the training rows it holds. Unlike the ridge and nearest-neighbour heads it
    can learn a threshold on one feature that decides the choice (many short parallel regions: fewer threads), and
    it is not pulled towards the mean gains by columns that say nothing. The fitted trees are kept as plain arrays
    (`arrays()`: node indices as int32, leaf gains as float32, to keep a saved predictor small), so a saved head
    predicts with numpy alone, exactly as scikit-learn would (rows compared as float32, as its trees do). The seed
    drives the bootstrap and the split columns."""

    ARRAYS = ("feature", "threshold", "left", "right", "leaf", "value", "roots")
    INDEX_ARRAYS = ("feature", "left", "right", "leaf", "roots")

    def __init__(self, n_classes: int, config: ForestConfig | None = None, seed: int = 0) -> None:
        if n_classes < 2:
            raise ValueError("a forest head needs at least two choices")
        self.n_classes = n_classes
        self.config = config or ForestConfig()
        self._check_anchor()  # an unknown anchor fails here, before fitting
        self.seed = int(seed)
        self.feature: np.ndarray | None = None

    def fit(self, X: np.ndarray, y: np.ndarray | None = None, gains: np.ndarray | None = None) -> "ForestGainHead":
        """Grow the forest on rows X and their `gains` [n, n_classes]."""
        from sklearn.ensemble import RandomForestRegressor
        from threadpoolctl import threadpool_limits

        if gains is None:
            raise ValueError("a forest head needs the gain of every choice for each training row")
        X = np.asarray(X, dtype=np.float64)
        G = np.asarray(gains, dtype=np.float64)
        if G.shape != (len(X), self.n_classes) or not np.isfinite(G).all():
            raise ValueError(f"gains must be finite, [{len(X)}, {self.n_classes}]; got {G.shape}")
        cfg = self.config
        forest = RandomForestRegressor(n_estimators=int(cfg.n_trees), min_samples_leaf=int(cfg.min_samples_leaf),
                                       max_features=float(cfg.max_features), random_state=self.seed, n_jobs=1)
        with threadpool_limits(1):  # one CPU per Ray task, as the other heads
            forest.fit(X, G)
        self.mean_ = G.mean(axis=0)
        self._flatten([est.tree_ for est in forest.estimators_])
        self._fit_downside(X, G)
        return self

    def _flatten(self, trees: list) -> None:
        """All trees' nodes in one set of arrays: children as global node indices (-1 at a leaf), and each leaf's
        row in `value`."""
        offsets = np.cumsum([0] + [t.node_count for t in trees])
        shift = lambda child, off: np.where(child >= 0, child + off, -1)  # noqa: E731
        left = np.concatenate([shift(t.children_left, o) for t, o in zip(trees, offsets)])
        is_leaf = left < 0
        self.feature = np.where(is_leaf, -1, np.concatenate([t.feature for t in trees])).astype(np.int32)
        self.threshold = np.concatenate([t.threshold for t in trees]).astype(np.float64)
        self.left = left.astype(np.int32)
        self.right = np.concatenate([shift(t.children_right, o) for t, o in zip(trees, offsets)]).astype(np.int32)
        self.leaf = np.where(is_leaf, np.cumsum(is_leaf) - 1, -1).astype(np.int32)
        self.value = np.concatenate([t.value[:, :, 0] for t in trees])[is_leaf].astype(np.float32)
        self.roots = offsets[:-1].astype(np.int32)

    def arrays(self) -> dict[str, np.ndarray]:
        """The fitted forest as plain arrays (what a saved predictor stores)."""
        if self.feature is None:
            raise RuntimeError("arrays before fit")
        return {name: getattr(self, name) for name in self.ARRAYS}

    def set_arrays(self, arrays: dict[str, np.ndarray]) -> "ForestGainHead":
        """Take a fitted forest back from `arrays()`; ValueError when they do not make a forest."""
        for name in self.ARRAYS:
            a = np.asarray(arrays[name])
            setattr(self, name, a.astype(np.int32) if name in self.INDEX_ARRAYS else a)
        n, leaves = len(self.feature), len(self.value)
        inner = self.left >= 0
        if not (len(self.threshold) == len(self.left) == len(self.right) == len(self.leaf) == n
                and self.value.ndim == 2 and self.value.shape[1] == self.n_classes
                and (inner == (self.right >= 0)).all() and (inner == (self.leaf < 0)).all()
                and (self.left[inner] < n).all() and (self.right[inner] < n).all() and (self.left[inner] > 0).all()
                and (self.leaf < leaves).all() and ((self.roots >= 0) & (self.roots < n)).all()):
            raise ValueError("forest arrays of inconsistent shapes or node indices")
        return self

    def predict_gains(self, X: np.ndarray) -> np.ndarray:
        """Predicted gain of every choice, [n, n_classes]: the mean over the trees of the leaf each row reaches."""
        if self.feature is None:
            raise RuntimeError("predict before fit")
        X = np.atleast_2d(np.asarray(X, dtype=np.float32))
        node = np.broadcast_to(self.roots, (len(X), len(self.roots))).astype(np.int64)
        rows = np.arange(len(X))[:, None]
        while True:
            inner = self.left[node] >= 0
            if not inner.any():
                break
            go_left = X[rows, np.where(inner, self.feature[node], 0)] <= self.threshold[node]
            node = np.where(inner, np.where(go_left, self.left[node], self.right[node]), node)
        return self.value[self.leaf[node]].astype(np.float64).mean(axis=1)


def anchor_index(anchor: str, mean_gains: np.ndarray) -> int:
    """The choice a head keeps without evidence: 0 (the default) for "default"; for "best", the one choice with
    the highest mean log gain over the training rows (the code-free baseline a predictor must beat), so that a
    program unlike anything seen is given that rather than the default."""
    if anchor == "default":
        return 0
    if anchor == "best":
        return int(np.argmax(mean_gains))
    raise ValueError(f"unknown anchor {anchor!r}; choose from {', '.join(ANCHORS)}")


def downside(gains: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """Each choice's downside: the root mean square of the shortfalls of its training rows' log gains under what
    the head predicts for them (the lower semi-deviation of the residuals), [n_classes]. A choice whose gain the
    features explain (one thread, with the thread probe) has little; one that helps a few rows a lot and costs many
    more (two threads, static,1) has much. From the rows the head was fitted on, so a knn or forest head, which
    partly remembers them, understates it."""
    short = np.minimum(np.asarray(gains, dtype=np.float64) - np.asarray(predicted, dtype=np.float64), 0.0)
    return np.sqrt(np.mean(short ** 2, axis=0))


def decision_gains(gains: np.ndarray, margin: float = 0.0, anchor: int = 0,
                   penalty: np.ndarray | None = None) -> np.ndarray:
    """Predicted gains less each choice's `penalty` (risk times downside; none by default), with `margin` added
    to choice `anchor` (by default 0, the default configuration): what choices are ranked by."""
    g = np.array(gains, dtype=np.float64)
    if penalty is not None:
        g -= np.asarray(penalty, dtype=np.float64)
    g[:, anchor] += margin
    return g


def decide(gains: np.ndarray, margin: float = 0.0, anchor: int = 0, penalty: np.ndarray | None = None
           ) -> np.ndarray:
    """The choice with the highest predicted gain less its `penalty`, choice `anchor` winning unless another beats
    it by more than `margin`: where a wrong move costs more than staying put, a predictor should need some
    evidence."""
    return decision_gains(gains, margin, anchor, penalty).argmax(axis=1)


def _unit_rows(A: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(A, axis=1, keepdims=True)
    return A / np.where(norms > 1e-12, norms, 1.0)


class ReducedHead:
    """A head fitted on `EmbeddingPCA` features of its rows (the reduction fitted on the training rows only)."""

    def __init__(self, head: AnyHead, reducer: EmbeddingPCA) -> None:
        self.head, self.reducer = head, reducer

    def fit(self, X: np.ndarray, y: np.ndarray, gains: np.ndarray | None = None) -> "ReducedHead":
        self.head.fit(self.reducer.fit(X).transform(X), y, gains)
        return self

    def predict_proba(self, X: np.ndarray) -> np.ndarray:
        return self.head.predict_proba(self.reducer.transform(X))

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.head.predict(self.reducer.transform(X))


AnyConfig = HeadConfig | GBTConfig | GainConfig | KNNConfig | ForestConfig
AnyHead = MLPHead | GBTHead | GainHead | KNNGainHead | ForestGainHead


def make_head(n_classes: int, config: AnyConfig | dict | None = None, seed: int = 0, keep: int = 0
              ) -> AnyHead | ReducedHead:
    """The head a configuration describes (a dict's "head" key: "mlp", the default, "gbt", "gain", "knn" or
    "forest"); with `pca` > 0
    it sees that many principal components of all but the trailing `keep` columns, and those columns as they are."""
    config = as_config(config)
    head_class = {HeadConfig: MLPHead, GBTConfig: GBTHead, GainConfig: GainHead, KNNConfig: KNNGainHead,
                  ForestConfig: ForestGainHead}[type(config)]
    head = head_class(n_classes, config, seed, keep) if head_class is KNNGainHead else head_class(n_classes, config, seed)
    return ReducedHead(head, EmbeddingPCA(config.pca, keep)) if config.pca > 0 else head


def as_config(config: AnyConfig | dict | None) -> AnyConfig:
    """A head configuration from its dict (the "head" key: "mlp", the default, "gbt", "gain", "knn", "forest")."""
    if isinstance(config, dict):
        kind = config.get("head", "mlp")
        if kind not in CONFIGS:
            raise ValueError(f"unknown head {kind!r}; choose from {', '.join(HEADS)}")
        return CONFIGS[kind].from_dict(config)
    return config or HeadConfig()


def fit_key(config: AnyConfig | dict) -> Hashable:
    """What a fitted head depends on: configurations with the same key share one fit. A gain head's margin, anchor
    and risk only decide from its predicted gains, and a knn head's k, weight and statistic only combine one ranking
    of the neighbours (`fit_predict_many`)."""
    config = as_config(config)
    if isinstance(config, (GainConfig, ForestConfig)):
        return replace(config, margin=0.0, anchor="default", risk=0.0)
    if isinstance(config, KNNConfig):
        return replace(config, margin=0.0, anchor="default", risk=0.0, k=1, weight=1.0, statistic="mean")
    return config


def fit_families(configs: Sequence[AnyConfig | dict]) -> list[list[int]]:
    """The indices of `configs` grouped by `fit_key`, in order of first appearance: each group shares one fit."""
    groups: dict[Hashable, list[int]] = {}
    for i, c in enumerate(configs):
        groups.setdefault(fit_key(c), []).append(i)
    return list(groups.values())


def fit_predict_many(X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray, n_classes: int,
                     configs: Sequence[AnyConfig | dict], seed: int = 0, keep: int = 0,
                     gains_train: np.ndarray | None = None, offsets_test: np.ndarray | None = None
                     ) -> list[np.ndarray]:
    """`fit_predict` of every configuration, with one fit per `fit_key`: the same labels for a fraction of the
    work (inner cross-validation scores 120 candidates, most of which differ only in how they decide).
    `offsets_test`: log gains measured for the test rows (`Problem.offsets`), added to a gain head's predictions
    before it decides; a classifier head has no gains to add them to, and refuses them."""
    parsed = [as_config(c) for c in configs]
    out: list[np.ndarray] = [np.empty(0, dtype=np.int64)] * len(parsed)
    for members in fit_families(parsed):
        first = parsed[members[0]]
        if not isinstance(first, (GainConfig, KNNConfig, ForestConfig)):
            if offsets_test is not None:
                raise ValueError("measured offsets need a gain head (gain, knn or forest)")
            for i in members:
                out[i] = fit_predict(X_train, y_train, X_test, n_classes, parsed[i], seed, keep, gains_train)
            continue
        head = make_head(n_classes, first, seed, keep).fit(X_train, y_train, gains_train)
        base, X = (head.head, head.reducer.transform(X_test)) if isinstance(head, ReducedHead) else (head, X_test)
        ranking = base.ranking(X) if isinstance(base, KNNGainHead) else None
        gains = None if ranking is not None else base.predict_gains(X)
        combined: dict[tuple, np.ndarray] = {}
        downs: dict[tuple, np.ndarray] = {}  # each way of predicting's downside, computed for the members with a risk
        fitted_on, train_ranking = None, None  # the training rows as the head sees them, once a risk needs them
        for i in members:
            c = parsed[i]
            how = (c.k, c.weight, c.statistic) if ranking is not None else ()
            if ranking is not None:
                if how not in combined:
                    combined[how] = base.combine(ranking, *how)
                gains = combined[how]
            penalty = None
            if c.risk:
                if how not in downs:
                    if fitted_on is None:
                        fitted_on = head.reducer.transform(X_train) if isinstance(head, ReducedHead) else X_train
                    if ranking is not None and train_ranking is None:
                        train_ranking = base.ranking(fitted_on)
                    downs[how] = downside(gains_train, base.combine(train_ranking, *how) if ranking is not None
                                          else base.predict_gains(fitted_on))
                penalty = c.risk * downs[how]
            total = gains if offsets_test is None else gains + offsets_test
            out[i] = decide(total, c.margin, anchor_index(c.anchor, base.mean_), penalty)
    return out


def fit_predict(X_train: np.ndarray, y_train: np.ndarray, X_test: np.ndarray, n_classes: int,
                config: AnyConfig | dict | None = None, seed: int = 0, keep: int = 0,
                gains_train: np.ndarray | None = None) -> np.ndarray:
    """Fit a head on the training rows and return its labels for the test rows (`keep`: see `make_head`;
    `gains_train`: the training rows' gain of every choice, which gain heads need)."""
    return make_head(n_classes, config, seed, keep).fit(X_train, y_train, gains_train).predict(X_test)
