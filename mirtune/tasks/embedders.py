"""Pluggable program embeddings for the downstream tasks, with an on-disk cache.

    emb = get_embedder("ir2vec")                 # or "mirencoder" (optionally ablation="text"|"graph")
    X = embed_files(emb, paths)                  # [len(paths), emb.dim], rows in input order

Embedders:
- ``mirencoder``: mirtune's frozen encoder through ``mirtune.embedding.embed(paths, model_dir)``. The text/graph
  ablations (MIREncoder Tables 6 and 7) use encoders pre-trained on one modality each
  (``mirtune pretrain --modality text|graph``): ``--model-dir``, else ``mirtune/assets/encoder-text`` or
  ``encoder-graph`` when one was put there (they are no longer shipped: 10 MB the tree cannot carry; the ones behind
  the published ablations are in git history, docs/results_devmap_coarsening.md says how to restore them); a model
  of another modality is refused with one clear line.
- ``ir2vec``: the IR2Vec 2.1.1 Python package (``pip install 'mirtune[baselines]'``), flow-aware program vectors
  (``ir2vec.initEmbedding(path, "fa", "p").getProgramVector()``, 300 floats), as in IR2Vec's own experiments.
- ``grewe``: not an embedding of IR but the hand-made baseline it competes with: Grewe et al.'s (CGO'13) six static
  kernel counts, which the device-mapping data carries per row (``mirtune.tasks.devmap.grewe_features``); it has
  no vector for an IR file, so it serves device mapping only.

Vectors are cached on disk (``mirtune.embedding_cache``: one ``.npy`` per embedder key and file content). Identical
files (mt.ll / mtLocal.ll) are embedded once.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from mirtune.embedding_cache import (file_hash, load_cached, mirencoder_key, mirencoder_suffix, model_fingerprint,
                                     store_cached)
from mirtune.errors import MirtuneError, UsageError

EMBEDDERS = ("mirencoder", "ir2vec", "grewe", "none", "random")
ABLATIONS = ("text", "graph")


@dataclass
class Embedder:
    """A named embedding: `embed_batch(paths) -> [n, dim]` and a cache `key` that changes with the model.
    `row_features`, when set, reads the features from a task's data rows (a DataFrame) instead of IR files."""

    name: str
    key: str
    embed_batch: Callable[[list[Path]], np.ndarray]
    description: str = ""
    meta: dict = field(default_factory=dict)
    row_features: Callable[..., np.ndarray] | None = None
    cached: bool = True  # False: cheaper to compute than to read back (no embedding, controls)


def _ir2vec_embedder(ablation: str | None) -> Embedder:
    if ablation:
        raise UsageError(f"--ablation {ablation} applies to the MIREncoder embedding only, not to ir2vec")
    try:
        import ir2vec  # type: ignore
    except ImportError as exc:
        raise MirtuneError("the ir2vec embedding needs the IR2Vec package: pip install 'mirtune[baselines]' "
                           f"(IR2Vec==2.1.1) ({exc})") from None
    version = getattr(ir2vec, "__version__", "unknown")

    def embed_batch(paths: list[Path]) -> np.ndarray:
        rows = []
        for p in paths:
            try:
                vec = ir2vec.initEmbedding(str(p), "fa", "p").getProgramVector()
            except Exception as exc:  # IR2Vec raises plain RuntimeError/ValueError on unreadable IR
                raise MirtuneError(f"IR2Vec cannot embed this file: {exc}", str(p)) from None
            rows.append(np.asarray(vec, dtype=np.float64))
        return np.stack(rows) if rows else np.zeros((0, 300))

    return Embedder("ir2vec", f"ir2vec-{version}-fa-p", embed_batch,
                    f"IR2Vec {version} flow-aware program vectors (300-d)", {"version": version})


def _no_embedder(ablation: str | None) -> Embedder:
    """No embedding at all: a predictor on it reads the task's context features alone (the control that tells
    what an embedding adds, and the OpenMP predictor's features where the embedding added nothing)."""
    if ablation:
        raise UsageError(f"--ablation {ablation} applies to the MIREncoder embedding only, not to none")
    return Embedder("none", "none", lambda paths: np.zeros((len(paths), 0)),
                    "no embedding: the task's context features alone", cached=False)


PATH_LINES = re.compile(rb"^(; ModuleID = |source_filename = ).*$", re.MULTILINE)  # clang writes the source's path


def random_embedder(dim: int = 256) -> Embedder:
    """The identity control: a random vector per file content (seeded by its hash, without the lines that name the
    source's path, so a program draws the same vector wherever it was compiled), which tells a head which program it
    is and nothing else; an embedding must beat it to show that it carries more than identity."""
    def embed_batch(paths: list[Path]) -> np.ndarray:
        return np.stack([np.random.default_rng(int(hashlib.sha256(PATH_LINES.sub(b"", p.read_bytes())).hexdigest()
                                                   [:15], 16)).standard_normal(dim)
                         for p in paths]) if paths else np.zeros((0, dim))
    return Embedder("random", f"control-identity-{dim}", embed_batch,
                    f"control: a random {dim}-d vector per program", cached=False)


def _grewe_embedder(ablation: str | None) -> Embedder:
    if ablation:
        raise UsageError(f"--ablation {ablation} applies to the MIREncoder embedding only, not to grewe")

    def embed_batch(paths: list[Path]) -> np.ndarray:
        raise UsageError("the grewe features are per-row counts in the device-mapping data, not vectors of IR "
                         "files: they serve devmap only")

    from mirtune.tasks.devmap import grewe_features

    return Embedder("grewe", "grewe-cgo13", embed_batch,
                    "Grewe et al. CGO'13 static kernel counts: log1p of six columns of the device-mapping data",
                    row_features=grewe_features)


def _mirencoder_embedder(ablation: str | None, model_dir: str | os.PathLike | None,
                         precision: str | None = None, readout: str = "mean") -> Embedder:
    from mirtune import embedding

    if ablation is not None and ablation not in ABLATIONS:
        raise UsageError(f"unknown ablation {ablation!r}; choose from {', '.join(ABLATIONS)}")
    # Resolve and load the model now, so a missing or wrong model is one clear line before any work starts.
    if ablation and model_dir is None and not os.environ.get("MIRTUNE_MODEL"):
        model_dir = embedding.ablation_model_dir(ablation)
        if not model_dir.is_dir():
            raise UsageError(f"--ablation {ablation}: no {ablation}-only encoder here; pre-train one with "
                             f"`mirtune pretrain --modality {ablation}` and pass --model-dir DIR, or restore the "
                             f"published one (docs/results_devmap_coarsening.md, Ablations)")
    resolved = embedding.default_model_dir(model_dir)
    precision = embedding.resolve_precision(precision)
    readout = embedding.check_readout(readout)
    modality = embedding.load_encoder(resolved, precision).config.modality
    if ablation and modality != ablation:
        raise MirtuneError(f"--ablation {ablation} needs an encoder pre-trained on the {ablation} modality alone "
                           f"(`mirtune pretrain --modality {ablation}`); this one was pre-trained on {modality}",
                           str(resolved))
    fingerprint = model_fingerprint(resolved)

    def embed_batch(paths: list[Path]) -> np.ndarray:
        return np.asarray(embedding.embed([str(p) for p in paths], model_dir=str(resolved), precision=precision,
                                          readout=readout), dtype=np.float64)

    # (name tag, description) of each way this embedding differs from the default one
    variants = mirencoder_suffix(modality, readout, precision)
    suffix = "".join(f"-{tag}" for tag, _ in variants)
    details = [text for _, text in variants]
    return Embedder("mirencoder" + suffix, mirencoder_key(fingerprint, suffix), embed_batch,
                    f"MIREncoder {resolved}" + (f" ({', '.join(details)})" if details else ""),
                    {"model_dir": str(resolved), "fingerprint": fingerprint, "ablation": ablation,
                     "modality": modality, "precision": precision, "readout": readout})


def get_embedder(name: str, ablation: str | None = None, model_dir: str | os.PathLike | None = None,
                 precision: str | None = None, readout: str = "mean") -> Embedder:
    """The embedder called `name` ("mirencoder", "ir2vec", "grewe", "none" or "random", the identity control); MirtuneError when it cannot run
    here.
    `precision` (fp32 or bf16) and `readout` (mean or meanmax), see mirtune.embedding, apply to mirencoder only."""
    if name == "ir2vec":
        return _ir2vec_embedder(ablation)
    if name == "mirencoder":
        return _mirencoder_embedder(ablation, model_dir, precision, readout)
    if name == "grewe":
        return _grewe_embedder(ablation)
    if name == "none":
        return _no_embedder(ablation)
    if name == "random":
        if ablation:
            raise UsageError(f"--ablation {ablation} applies to the MIREncoder embedding only, not to random")
        return random_embedder()
    raise UsageError(f"unknown embedding {name!r}; choose from {', '.join(EMBEDDERS)}")


def embed_files(embedder: Embedder, paths: Sequence[str | os.PathLike], use_cache: bool = True,
                batch: int = 64, progress_desc: str | None = None) -> np.ndarray:
    """Embeddings [len(paths), dim] in input order; each distinct file content is embedded once and cached."""
    from mirtune.progress import progress

    use_cache = use_cache and embedder.cached
    paths = [Path(p) for p in paths]
    hashes = [file_hash(p) for p in paths]
    vectors: dict[str, np.ndarray] = {}
    missing: dict[str, Path] = {}
    for h, p in zip(hashes, paths):
        if h in vectors or h in missing:
            continue
        cached = load_cached(embedder.key, h) if use_cache else None
        if cached is not None:
            vectors[h] = cached
        else:
            missing[h] = p
    todo = list(missing.items())
    chunks = [todo[i:i + batch] for i in range(0, len(todo), batch)]
    for chunk in progress(chunks, total=len(chunks), desc=progress_desc or f"embed ({embedder.name})"):
        out = embedder.embed_batch([p for _, p in chunk])
        if len(out) != len(chunk):
            raise MirtuneError(f"embedder {embedder.name} returned {len(out)} rows for {len(chunk)} files")
        for (h, _), vec in zip(chunk, out):
            vectors[h] = np.asarray(vec, dtype=np.float64)
            if use_cache:
                store_cached(embedder.key, h, vectors[h])
    if not paths:
        return np.zeros((0, 0))
    return np.stack([vectors[h] for h in hashes])
