"""The on-disk cache of embedding vectors, and what names an encoder in it: one `.npy` per (embedder key, sha256
of the file's bytes) under $MIRTUNE_EMBED_CACHE or ~/.cache/mirtune/embeddings, shared by `mirtune embed`,
`recommend` and the evaluations. A MIREncoder's key carries its fingerprint (a hash of its weights and config),
so a re-trained encoder never reads stale vectors. numpy is imported where it is used (`mirtune --help`)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np


def cache_dir() -> Path:
    """Where embedding vectors are cached: $MIRTUNE_EMBED_CACHE, else ~/.cache/mirtune/embeddings."""
    env = os.environ.get("MIRTUNE_EMBED_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "mirtune" / "embeddings"


def file_hash(path: str | os.PathLike) -> str:
    """sha256 of a file's bytes."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def mirencoder_key(fingerprint: str, suffix: str = "") -> str:
    """The cache key of an encoder's embeddings (suffix: its non-default modality, readout or precision)."""
    return f"mirencoder-{fingerprint}{suffix}"


def load_cached(key: str, digest: str) -> "np.ndarray | None":
    """The cached vector of the file with sha256 `digest` under embedder `key`, or None (absent or torn)."""
    import numpy as np

    f = cache_dir() / key / f"{digest}.npy"
    if not f.is_file():
        return None
    try:
        return np.load(f)
    except (OSError, ValueError):
        return None  # a torn write: embed again


def store_cached(key: str, digest: str, vector: "np.ndarray") -> None:
    """Cache one file's vector (written whole or not at all)."""
    import io

    import numpy as np

    from mirtune.paths import write_atomic

    buf = io.BytesIO()
    np.save(buf, np.asarray(vector, dtype=np.float64))
    write_atomic(cache_dir() / key / f"{digest}.npy", buf.getvalue())


WEIGHTS_SHA_KEY = "weights_sha256"  # mirtune.model.io.WEIGHTS_SHA_KEY, named here so that no torch import is needed


def model_fingerprint(model_dir: Path) -> str:
    """A short hash of the model files (weights and config) that identifies one trained encoder.

    The weights' own sha256, recorded in provenance.json, is left out of the hash (it only restates the weights,
    which are hashed already), so that recording it did not change the fingerprint the fitted heads carry."""
    h = hashlib.sha256()
    for f in sorted(model_dir.iterdir()):
        if f.is_file() and f.suffix in (".safetensors", ".json"):
            h.update(f.name.encode())
            h.update(_provenance_bytes(f) if f.name == "provenance.json" else f.read_bytes())
    return h.hexdigest()[:16]


def _provenance_bytes(path: Path) -> bytes:
    """provenance.json's bytes as written before `weights_sha256` was recorded in it."""
    raw = path.read_bytes()
    if WEIGHTS_SHA_KEY.encode() not in raw:
        return raw
    try:
        data = json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return raw
    if not isinstance(data, dict):
        return raw
    data.pop(WEIGHTS_SHA_KEY, None)
    return (json.dumps(data, indent=2, sort_keys=True) + "\n").encode()


def mirencoder_suffix(modality: str, readout: str, precision: str) -> list[tuple[str, str]]:
    """(name tag, description) of each way an encoder's embedding differs from the default one (both modalities,
    mean readout, fp32); their tags joined make the cache key's suffix."""
    return [(tag, text) for tag, text, default in ((modality, f"{modality}-only", modality == "both"),
                                                   (readout, f"{readout} readout", readout == "mean"),
                                                   (precision, precision, precision == "fp32"))
            if not default]
