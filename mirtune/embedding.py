"""Frozen MIREncoder embeddings of IR files and sources: `mirtune.embed(paths) -> numpy array`.

The model comes from `model_dir`, else $MIRTUNE_MODEL, else the shipped default in mirtune/assets/encoder
(the single-modality ablation encoders, when restored or pre-trained there, in mirtune/assets/encoder-text and
encoder-graph).
Files are embedded in batches; identical statements across a batch are encoded once.
`precision` ("fp32", the default, or "bf16"; else $MIRTUNE_PRECISION) is the statement Transformer's arithmetic:
bf16 is faster on CPUs with AMX or AVX512-BF16 and gives vectors within about 1e-2 of fp32's.
`readout` ("mean", the default, or "meanmax") pools statement states and node latents into a file's vector
(see mirtune.model.encoder.pool); "meanmax" doubles the length.
`engine` ("torch", the default, or "numpy") is what computes them: "numpy" is mirtune.model.numpy_encoder, the same
vectors (to float32 rounding) without importing torch, which costs more than embedding a file or two (it is what
`mirtune recommend` and fp32 `mirtune embed` use); bf16 precision is torch's alone.
`iter_embeddings(..., cache=True)` (what `mirtune embed` does) reads and keeps IR files' vectors in the embedding cache
that `recommend` and the evaluations share (VectorCache, `mirtune.embedding_cache`).
"""

from __future__ import annotations

import os
import weakref
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Iterator, Sequence

from mirtune.errors import MirtuneError, UsageError
from mirtune.ir.module import gc_paused
from mirtune.paths import ASSETS_DIR

DEFAULT_MODEL_DIR = ASSETS_DIR / "encoder"
BATCH_FILES = 8  # files per encoder batch: 8 embedded the 669 devmap kernels 5% faster than 16 (and 4), same vectors
ENGINES = ("torch", "numpy")
PRECISIONS = ("fp32", "bf16")  # mirtune.model.encoder.PRECISIONS, named here so that choosing one needs no torch
STATEMENT_CACHE_ENTRIES = 100_000  # [CLS] states kept per model (about 50 MB for the small preset)

if TYPE_CHECKING:  # numpy and torch load on first use, so `import mirtune` stays fast
    import numpy as np


def resolve_precision(precision: str | None = None) -> str:
    """`precision`, else $MIRTUNE_PRECISION, else "fp32"; UsageError for anything but fp32 or bf16."""
    chosen = precision or os.environ.get("MIRTUNE_PRECISION") or "fp32"
    if chosen not in PRECISIONS:
        raise UsageError(f"unknown precision {chosen!r}; choose from {', '.join(PRECISIONS)}")
    return chosen


def native_bf16() -> bool:
    """Whether this CPU does bfloat16 arithmetic in hardware (AMX-BF16 or AVX512-BF16); elsewhere PyTorch
    emulates it and bf16 embedding can be slower than fp32."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "amx_bf16" in flags or "avx512_bf16" in flags


def ablation_model_dir(modality: str) -> Path:
    """Where an encoder pre-trained on `modality` ("text" or "graph") alone is looked for when none is named (none
    is shipped; docs/results_devmap_coarsening.md, Ablations)."""
    return ASSETS_DIR / f"encoder-{modality}"


def default_model_dir(model_dir: str | os.PathLike | None = None) -> Path:
    """`model_dir`, else $MIRTUNE_MODEL, else the shipped model; UsageError if none exists."""
    chosen = model_dir or os.environ.get("MIRTUNE_MODEL")
    if chosen:
        if not Path(chosen).is_dir():
            raise UsageError("model directory not found", str(chosen))
        return Path(chosen)
    if not (DEFAULT_MODEL_DIR / "model.safetensors").is_file():
        raise UsageError("no shipped encoder in mirtune/assets/encoder; pre-train one with `mirtune pretrain` "
                         "and pass --model DIR (or set MIRTUNE_MODEL)")
    return DEFAULT_MODEL_DIR


@lru_cache(maxsize=4)
def _load(resolved_dir: str, precision: str = "fp32"):
    import dataclasses

    from mirtune.model.io import load_model

    loaded = load_model(resolved_dir)
    _tokenizers.add(loaded.tokenizer)
    return dataclasses.replace(loaded, encoder=loaded.encoder.in_precision(precision))


def load_encoder(model_dir: str | os.PathLike | None = None, precision: str | None = None):
    """The LoadedModel (encoder, config, tokenizer, provenance), cached per directory and precision."""
    return _load(str(default_model_dir(model_dir).resolve()), resolve_precision(precision))


@lru_cache(maxsize=4)
def _load_numpy(resolved_dir: str):
    from mirtune.model.numpy_encoder import load_numpy_encoder

    engine = load_numpy_encoder(resolved_dir)
    _tokenizers.add(engine.tokenizer)
    return engine


def load_engine(model_dir: str | os.PathLike | None = None, precision: str | None = None, engine: str = "torch"):
    """What embeds: the torch LoadedModel (`load_encoder`) or, for engine "numpy", the NumpyEncoder (no torch import),
    cached per directory; both have .config, .tokenizer, .directory. UsageError for an unknown engine or for bf16 with
    numpy."""
    if engine not in ENGINES:
        raise UsageError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    precision = resolve_precision(precision)
    if engine == "torch":
        return load_encoder(model_dir, precision)
    if precision != "fp32":
        raise UsageError(f"precision {precision} needs the torch engine; the numpy engine computes in fp32")
    return _load_numpy(str(default_model_dir(model_dir).resolve()))


# per loaded model, dropped with it (weak references: an evicted model's id can never reach a new one's cache)
_statement_caches: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # encoder or NumpyEncoder -> cache
_tokenizers: weakref.WeakSet = weakref.WeakSet()


def clear_caches() -> None:
    """Forget remembered statement states and tokenisations (a benchmark round that starts cold)."""
    _statement_caches.clear()
    for tokenizer in _tokenizers:
        tokenizer.clear_cache()


def check_readout(readout: str) -> str:
    """`readout` itself; UsageError when it is not one of mirtune.model.encoder.READOUTS."""
    from mirtune.model.numpy_encoder import READOUTS  # = mirtune.model.encoder.READOUTS, without importing torch

    if readout not in READOUTS:
        raise UsageError(f"unknown readout {readout!r}; choose from {', '.join(READOUTS)}")
    return readout


def _embed_samples(model, samples: list[dict], readout: str = "mean") -> np.ndarray:
    """Vectors of samples (mirtune.model.samples.sample_arrays) by `model`, a LoadedModel or a NumpyEncoder, each
    with its own statement cache."""
    import numpy as np

    if getattr(model, "engine", "torch") == "numpy":
        from mirtune.model.numpy_encoder import NumpyStatementCache

        cache = _statement_caches.get(model)
        if cache is None:
            cache = _statement_caches[model] = NumpyStatementCache(STATEMENT_CACHE_ENTRIES)
        vectors = model.embed(samples, statement_cache=cache, readout=readout)
    else:
        from mirtune.model.encoder import StatementCache, collate

        batch = collate(samples, model.config.n_flows)
        cache = _statement_caches.get(model.encoder)
        if cache is None:
            cache = _statement_caches[model.encoder] = StatementCache(STATEMENT_CACHE_ENTRIES)
        vectors = model.encoder.embed(batch, statement_cache=cache, readout=readout).cpu().numpy()
    vectors = vectors.astype(np.float32, copy=False)
    if not np.isfinite(vectors).all():
        raise MirtuneError("the encoder produced non-finite values (NaN or inf); its weights are unusable "
                           "(corrupt, or from a diverged training run)", model.directory)
    return vectors


def embed_modules(modules: Sequence, model_dir: str | os.PathLike | None = None,
                  batch_files: int = BATCH_FILES, precision: str | None = None, readout: str = "mean",
                  engine: str = "torch") -> np.ndarray:
    """Embeddings [len(modules), dim] of parsed IRModules, rows in order, computed by `engine` (see the module doc)."""
    import numpy as np

    from mirtune.model.numpy_encoder import embedding_dim
    from mirtune.model.samples import module_to_sample, sample_arrays

    check_readout(readout)
    model = load_engine(model_dir, precision, engine)
    rows = []
    for start in range(0, len(modules), batch_files):
        chunk = modules[start:start + batch_files]
        with gc_paused():
            samples = [sample_arrays(module_to_sample(m, model.tokenizer), model.config.seq_len) for m in chunk]
            rows.append(_embed_samples(model, samples, readout))
    if not rows:
        return np.zeros((0, embedding_dim(model.config, readout)), np.float32)
    return np.concatenate(rows)


class VectorCache:
    """Vectors of IR files (.ll/.bc) already embedded, in the cache that `recommend` and the evaluations share
    (`mirtune.embedding_cache`), under this encoder's key (its fingerprint, and its modality, readout and precision
    where they are not the default's). Sources are never cached: their IR depends on the clang that compiles
    them."""

    def __init__(self, model, precision: str, readout: str) -> None:
        from mirtune.embedding_cache import mirencoder_key, mirencoder_suffix, model_fingerprint
        from mirtune.model.numpy_encoder import embedding_dim

        suffix = "".join(f"-{tag}" for tag, _ in mirencoder_suffix(model.config.modality, readout, precision))
        self.key = mirencoder_key(model_fingerprint(Path(model.directory)), suffix)
        self.shape = (embedding_dim(model.config, readout),)

    def get(self, path: Path) -> tuple[str | None, np.ndarray | None]:
        """(the sha256 `path`'s vector is kept under, or None for a source or an unreadable file; the vector, when
        one of the right shape is kept)."""
        import numpy as np

        from mirtune.embedding_cache import file_hash, load_cached
        from mirtune.ir.inputs import IR_SUFFIXES

        if path.suffix not in IR_SUFFIXES:
            return None, None
        try:
            digest = file_hash(path)
        except OSError:
            return None, None
        vector = load_cached(self.key, digest)
        if vector is None or vector.shape != self.shape or not np.isfinite(vector).all():
            return digest, None
        return digest, vector.astype(np.float32)

    def put(self, digest: str, vector: np.ndarray) -> None:
        """Keep `vector` for the file of sha256 `digest` (written whole or not at all; a cache that cannot be
        written is skipped)."""
        from mirtune.embedding_cache import store_cached

        try:
            store_cached(self.key, digest, vector)
        except OSError:
            pass


def embed_jobs(jobs: int | None = None) -> int:
    """How many processes `mirtune embed` embeds in: `jobs`, else $MIRTUNE_EMBED_JOBS, else the CPUs this process
    may use; UsageError below 1."""
    from mirtune.batch_pool import available_cpus

    chosen = jobs if jobs is not None else os.environ.get("MIRTUNE_EMBED_JOBS", "").strip() or available_cpus()
    try:
        chosen = int(chosen)
    except ValueError:
        chosen = 0
    if chosen < 1:
        raise UsageError(f"the number of embedding processes must be a whole number of at least 1, not {jobs!r}"
                         if jobs is not None else "$MIRTUNE_EMBED_JOBS must be a whole number of at least 1")
    return chosen


def _one_thread_per_worker() -> None:
    """A worker process's start: the processes are the parallelism, so each encodes statements on one thread (and
    never touches the parent's thread pool, which did not survive the fork)."""
    os.environ["MIRTUNE_EMBED_THREADS"] = "1"


def _embed_files(paths: list[Path], model_dir: str, opt: int, openmp: bool | None, precision: str, readout: str,
                 engine: str) -> list[tuple[np.ndarray | None, str | None]]:
    """(vector, None) or (None, reason) for each of `paths`, in order: each parsed (sources compiled first), and the
    ones that parse encoded as one batch (their repeated statements once)."""
    from mirtune.ir.inputs import load_ir
    from mirtune.model.samples import module_to_sample, sample_arrays

    model = load_engine(model_dir, precision, engine)
    samples, reasons = [], []
    for path in paths:
        try:
            module = load_ir(path, opt=opt, openmp=openmp)
            with gc_paused():
                samples.append(sample_arrays(module_to_sample(module, model.tokenizer), model.config.seq_len))
            reasons.append(None)
        except MirtuneError as exc:
            reasons.append(exc.line())
    with gc_paused():
        vectors = iter(_embed_samples(model, samples, readout)) if samples else iter(())
    return [(next(vectors), None) if reason is None else (None, reason) for reason in reasons]


def _died(path: Path) -> tuple[None, str]:
    return None, (f"{path}: the process embedding it died (a crash in the IR reader or the compiler, or the "
                  "out-of-memory killer); the other inputs were embedded")


def iter_embeddings(paths: Iterable[str | os.PathLike], model_dir: str | os.PathLike | None = None,
                    batch_files: int = BATCH_FILES, opt: int = 2, openmp: bool | None = None,
                    precision: str | None = None, readout: str = "mean", engine: str = "torch",
                    cache: bool = False, jobs: int = 1) -> Iterator[tuple[Path, np.ndarray | None, str | None]]:
    """Yield (path, vector, None) or (path, None, reason) for every input, in input order.

    Directories are expanded (sorted, recursively); sources are compiled first, with -fopenmp when `openmp` is
    True or, when it is None (the default), when the source uses OpenMP. With `cache`, IR files' vectors are read
    from and written to the on-disk VectorCache. With `jobs` above 1 (numpy engine only), batches are parsed and
    encoded in that many forked processes (mirtune.batch_pool); the vectors are the same.
    """
    from functools import partial

    from mirtune.batch_pool import map_batches
    from mirtune.ir.inputs import expand_inputs

    check_readout(readout)
    precision = resolve_precision(precision)
    model = load_engine(model_dir, precision, engine)
    vector_cache = VectorCache(model, precision, readout) if cache else None
    work = partial(_embed_files, model_dir=str(model.directory), opt=opt, openmp=openmp, precision=precision,
                   readout=readout, engine=engine)

    def batches() -> Iterator[tuple[list[tuple[Path, np.ndarray | None, str | None, str | None]], list[Path]]]:
        """(every input since the last batch as (path, vector known, reason it failed, sha256 to keep its vector
        under), the inputs among them to embed), each time batch_files of them are to be embedded (or 16 times as
        many inputs were found in the cache)."""
        entries, todo = [], []
        for path, reason in expand_inputs(list(paths)):
            keep = known = None
            if reason is None and vector_cache is not None:
                keep, known = vector_cache.get(path)
            entries.append((path, known, reason and f"{path}: {reason}", keep))
            if reason is None and known is None:
                todo.append(path)
            if len(todo) >= batch_files or len(entries) >= 16 * batch_files:  # cached files stream too
                yield entries, todo
                entries, todo = [], []
        if entries:
            yield entries, todo

    workers = jobs if engine == "numpy" else 1  # torch in a forked child is not safe
    for entries, results in map_batches(work, batches(), workers, _died, _one_thread_per_worker):
        found = iter(results)
        for path, known, reason, keep in entries:
            if known is None and reason is None:
                known, reason = next(found)
                if known is not None and keep is not None:
                    vector_cache.put(keep, known)
            yield (path, known, None) if known is not None else (path, None, reason)


def embed(paths: str | os.PathLike | Iterable[str | os.PathLike], model_dir: str | os.PathLike | None = None,
          precision: str | None = None, readout: str = "mean", engine: str = "torch") -> np.ndarray:
    """Embeddings [n_files, dim] (float32) of .ll/.bc files or sources, rows in input order.

    Raises MirtuneError on the first input that cannot be read or compiled.
    """
    import numpy as np

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    vectors = []
    for path, vector, reason in iter_embeddings(paths, model_dir, precision=precision, readout=readout,
                                                engine=engine):
        if vector is None:
            raise MirtuneError(reason or "cannot embed", None)
        vectors.append(vector)
    if not vectors:
        from mirtune.model.numpy_encoder import embedding_dim

        return np.zeros((0, embedding_dim(load_engine(model_dir, precision, engine).config, readout)), np.float32)
    return np.stack(vectors)
