"""The frozen MIREncoder's inference in numpy (float32): what `MIREncoder.embed` computes, without torch.

Answering a recommendation for a program not seen before needs one embedding; importing torch and building its
model costs more than computing that embedding, so the inference path runs here instead:

    engine = load_numpy_encoder("mirtune/assets/encoder")      # same checks and one-line errors as io.load_model
    samples = [sample_arrays(module_to_sample(m, engine.tokenizer), engine.config.seq_len) for m in modules]
    vectors = engine.embed(samples, statement_cache=NumpyStatementCache(), readout="mean")

It mirrors mirtune/model/encoder.py step by step (the names below point at their torch counterparts):

  text   token + position embedding, input LayerNorm, the pre-norm Transformer layers (exact GELU, key-padding
         mask), the last layer for the [CLS] query only, the final LayerNorm: each distinct statement encoded once,
         in groups of statements of similar length trimmed to their longest (`StatementEncoder.cls_states`), and
         remembered across calls in a `NumpyStatementCache` (`StatementCache`);
  graph  node features = mean token embedding of the non-pad ids + type embedding, LayerNorm; GCN layers over
         the union of the flows made undirected, D^-1/2 (A + I) D^-1/2 (`undirected_edges`, `gcn_adjacency`,
         `GraphEncoder.forward`), the first layer once per distinct node, ReLU between layers;
  readout "mean" or "meanmax" per file (`pool`), text vector ++ graph vector (those the config has).

The vectors equal torch's up to float32 rounding (summation order differs; tests/model/test_numpy_encoder.py).
This module imports no torch: numpy, safetensors.numpy and the torch-free helpers of mirtune.model.io only.
"""

from __future__ import annotations

import contextlib
import os
import threading
from typing import Any, Callable, Sequence

import numpy as np

from mirtune.model.config import EncoderConfig
from mirtune.model.samples import length_groups

READOUTS = ("mean", "meanmax")  # = mirtune.model.encoder.READOUTS (a test checks), named here without torch
LAYER_NORM_EPS = 1e-5           # nn.LayerNorm's and nn.TransformerEncoderLayer's default
STATEMENT_GROUP_TOKENS = 1024   # StatementEncoder.cls_states' `tokens`
F32 = np.float32
# BLAS threads while embedding. The products here are small ([<=1024, 128] x [128, <=512]); OpenBLAS's threads,
# spinning while they wait for each other, cost more CPU time than they save on them (2 to 4 times the CPU time of one
# thread, seen on a busy 2-core machine), so one thread by default; None leaves the BLAS setting alone.
BLAS_THREADS: int | None = 1
_blas_controller: Any = None
# Threads that encode statement groups side by side (numpy and BLAS release the GIL in their loops, so groups run
# on several cores at once: about 1.5x on this project's 2-core machine); $MIRTUNE_EMBED_THREADS overrides, 1 is
# serial. Each group is computed exactly as alone, so the vectors do not depend on the count.
STATEMENT_THREADS_MAX = 4
_group_pool: tuple[int, Any] | None = None  # (threads, ThreadPoolExecutor), made on first use
_group_pool_lock = threading.Lock()


def blas_threads_limited() -> contextlib.AbstractContextManager:
    """A context limiting the BLAS library numpy calls to BLAS_THREADS threads (threadpoolctl, scanned once)."""
    global _blas_controller
    if BLAS_THREADS is None:
        return contextlib.nullcontext()
    if _blas_controller is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # scikit-learn's dependency, so normally present
            return contextlib.nullcontext()
        _blas_controller = ThreadpoolController()
    return _blas_controller.limit(limits=BLAS_THREADS, user_api="blas")


def statement_threads() -> int:
    """How many threads encode statement groups: $MIRTUNE_EMBED_THREADS, else the CPUs this process may run on
    (at most STATEMENT_THREADS_MAX)."""
    chosen = os.environ.get("MIRTUNE_EMBED_THREADS", "").strip()
    if chosen.isdigit() and int(chosen) >= 1:
        return int(chosen)
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(STATEMENT_THREADS_MAX, cpus))


def _worker_pool() -> Any | None:
    """The shared pool of embedding threads; None when `statement_threads()` is 1."""
    global _group_pool
    threads = statement_threads()
    if threads <= 1:
        return None
    with _group_pool_lock:
        if _group_pool is None or _group_pool[0] != threads:
            from concurrent.futures import ThreadPoolExecutor

            _group_pool = (threads, ThreadPoolExecutor(max_workers=threads, thread_name_prefix="mirtune-embed"))
        return _group_pool[1]


def _quiet(fn: Callable[..., Any], *args: Any) -> Any:
    """fn(*args) with numpy's floating-point warnings off (np.errstate is per thread; embed refuses non-finite
    vectors itself, in one line)."""
    with np.errstate(all="ignore"):
        return fn(*args)


def _run_all(jobs: list[Any], run: Any) -> None:
    """run(job) for every job: on the embedding threads when there are several of both."""
    pool = _worker_pool() if len(jobs) > 1 else None
    if pool is None:
        for job in jobs:
            run(job)
        return
    for future in [pool.submit(_quiet, run, job) for job in jobs]:
        future.result()


def _started(fn: Callable[[], Any]) -> Callable[[], Any]:
    """fn() started on the embedding threads (run now when there is one thread); returns what waits for its
    result. The job must not wait on the pool itself."""
    pool = _worker_pool()
    if pool is None:
        result = fn()
        return lambda: result
    return pool.submit(_quiet, fn).result


def embedding_dim(cfg: EncoderConfig, readout: str = "mean") -> int:
    """Length of an embedding vector with this readout (mirtune.model.encoder.embedding_dim)."""
    return cfg.embedding_dim * (2 if readout == "meanmax" else 1)


# ------------------------------------------------------------------------------------------ weights
def expected_shapes(cfg: EncoderConfig) -> dict[str, tuple[int, ...]]:
    """Name -> shape of every tensor `MIREncoder(cfg)` saves (io.canonical_state, prefix `encoder.`)."""
    d = cfg.d_model
    shapes: dict[str, tuple[int, ...]] = {"token_embedding.weight": (cfg.vocab_size, d)}
    if cfg.has_text:
        shapes.update({"text.position_embedding.weight": (cfg.seq_len, d), "text.input_norm.weight": (d,),
                       "text.input_norm.bias": (d,), "text.layers.norm.weight": (d,), "text.layers.norm.bias": (d,)})
        for i in range(cfg.n_layers):
            p = f"text.layers.layers.{i}."
            shapes.update({p + "self_attn.in_proj_weight": (3 * d, d), p + "self_attn.in_proj_bias": (3 * d,),
                           p + "self_attn.out_proj.weight": (d, d), p + "self_attn.out_proj.bias": (d,),
                           p + "linear1.weight": (cfg.d_ff, d), p + "linear1.bias": (cfg.d_ff,),
                           p + "linear2.weight": (d, cfg.d_ff), p + "linear2.bias": (d,),
                           p + "norm1.weight": (d,), p + "norm1.bias": (d,),
                           p + "norm2.weight": (d,), p + "norm2.bias": (d,)})
    if cfg.has_graph:
        shapes.update({"graph.type_embedding.weight": (cfg.n_node_types, d), "graph.input_norm.weight": (d,),
                       "graph.input_norm.bias": (d,)})
        dims = [d] + [cfg.gcn_hidden] * cfg.gcn_layers
        for i, (a, b) in enumerate(zip(dims[:-1], dims[1:])):
            shapes.update({f"graph.convs.{i}.lin.weight": (b, a), f"graph.convs.{i}.bias": (b,)})
    return {"encoder." + k: v for k, v in shapes.items()}


def check_weights(tensors: dict[str, np.ndarray], cfg: EncoderConfig, source: str) -> None:
    """WeightsMismatch (io.load_into's message) unless the `encoder.` tensors are exactly the config's."""
    from mirtune.model.io import check_names_and_shapes

    check_names_and_shapes(expected_shapes(cfg), tensors, "encoder.", source)


def load_numpy_encoder(directory: str | os.PathLike, require_tokenizer: bool = True) -> "NumpyEncoder":
    """A model folder's encoder as a NumpyEncoder, read and checked as io.load_model does (config, provenance,
    readable weights, their recorded sha256, finite values, names and shapes, tokenizer), with its messages."""
    from mirtune.model.io import WEIGHTS_FILE, check_finite, load_model_tokenizer, read_model_folder

    directory, config, provenance, tensors, weights_check = read_model_folder(directory, framework="np")
    source = str(directory / WEIGHTS_FILE)
    encoder_tensors = {k: v for k, v in tensors.items() if k.startswith("encoder.")}
    check_finite(encoder_tensors, source)
    check_weights(encoder_tensors, config, source)
    tokenizer = load_model_tokenizer(directory, config, require_tokenizer)
    return NumpyEncoder(config, encoder_tensors, tokenizer, provenance, str(directory), weights_check)


# ---------------------------------------------------------------------------------- numeric pieces
def layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """nn.LayerNorm over the last axis (biased variance, eps 1e-5)."""
    mean = x.mean(-1, keepdims=True)
    centred = x - mean
    var = np.mean(centred * centred, -1, keepdims=True)
    return centred / np.sqrt(var + F32(LAYER_NORM_EPS)) * weight + bias


# GELU: torch's default, exact one, 0.5 x (1 + erf(x / sqrt 2)). numpy has no erf (and scipy.special would cost an
# import of its own on the path this module exists to shorten), so erf is Abramowitz & Stegun 7.1.26:
#     erf(z) = 1 - P(t) exp(-z^2),  P(t) = a1 t + ... + a5 t^5,  t = 1 / (1 + p z)   for z >= 0 (erf is odd),
# with |error| < 1.5e-7 for every z: about float32's own rounding of erf near 1, so GELU is off by at most
# ~1e-7 |x|. Written as GELU(x) = max(x, 0) - 0.5 |x| P(t) exp(-x^2 / 2) with z = |x| / sqrt 2 (the same
# function for either sign, and no cancellation for negative x), in place, in rows small enough to stay in cache.
_AS_P = 0.3275911
_AS_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)
_GELU_T = F32(_AS_P / np.sqrt(2.0))             # t = 1 / (1 + _GELU_T |x|)
_GELU_HALF_A = tuple(F32(0.5 * a) for a in _AS_A)  # 0.5 P(t), the 0.5 folded into the coefficients
FEED_FORWARD_ROWS = 256                          # rows per feed-forward block: a [256, d_ff] block stays in cache
SPARSE_PAIRS = 20_000                            # neighbour pairs from which a graph's product goes through scipy


def erf(x: np.ndarray) -> np.ndarray:
    """The error function to 1.5e-7 (Abramowitz & Stegun 7.1.26), in x's float precision."""
    a = np.abs(x)
    t = 1.0 / (1.0 + _AS_P * a)
    poly = ((((_AS_A[4] * t + _AS_A[3]) * t + _AS_A[2]) * t + _AS_A[1]) * t + _AS_A[0]) * t
    return np.copysign(1.0 - poly * np.exp(-a * a), x).astype(x.dtype, copy=False)


def gelu_(x: np.ndarray, work: Sequence[np.ndarray] | None = None) -> np.ndarray:
    """x := GELU(x) in place (float32; see above) and x. `work`: three float32 arrays of x's shape to compute in
    (fresh ones otherwise): a new half-megabyte array per step is fresh pages to fault in, which made this twice
    as slow."""
    a, t, y = work if work is not None else (np.empty_like(x) for _ in range(3))
    np.abs(x, out=a)
    np.multiply(a, _GELU_T, out=t)
    t += F32(1.0)
    np.reciprocal(t, out=t)
    h1, h2, h3, h4, h5 = _GELU_HALF_A
    np.multiply(t, h5, out=y)
    for c in (h4, h3, h2, h1):
        y += c
        y *= t
    np.multiply(a, a, out=t)     # t is free now: exp(-x^2/2) goes there
    t *= F32(-0.5)
    np.exp(t, out=t)
    y *= t
    y *= a                       # 0.5 |x| P(t) exp(-x^2/2) = 0.5 |x| (1 - erf(|x| / sqrt 2))
    x += a                       # x + |x| = 2 max(x, 0)
    x *= F32(0.5)
    x -= y
    return x


_scratch = threading.local()  # each thread's work arrays for the feed-forward blocks


def _scratch_arrays(rows: int, width: int) -> list[np.ndarray]:
    """Four float32 [rows, width] work arrays of the calling thread, kept for its next call."""
    arrays = getattr(_scratch, "arrays", None)
    if arrays is None or arrays[0].shape[0] < rows or arrays[0].shape[1] != width:
        arrays = _scratch.arrays = [np.empty((max(rows, FEED_FORWARD_ROWS), width), F32) for _ in range(4)]
    return [a[:rows] for a in arrays]


def gelu(x: np.ndarray) -> np.ndarray:
    """GELU(x) (a new array)."""
    return gelu_(np.array(x, dtype=F32))


def distinct_rows(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, list[bytes]]:
    """(first, inverse, keys) over the rows of an integer array [N, k] (mirtune.model.encoder.distinct_rows):
    each distinct row's first index, each row's position among the distinct rows, and the distinct rows' bytes in
    that order (the statement cache's keys)."""
    table = np.ascontiguousarray(table, dtype=np.int64)
    n = table.shape[0]
    width = table.shape[1] * 8 if table.ndim == 2 else 8
    raw = table.tobytes()
    seen: dict[bytes, int] = {}
    inverse = np.fromiter((seen.setdefault(raw[i:i + width], len(seen)) for i in range(0, n * width, width)),
                          np.int64, n)
    # distinct rows are numbered in order of first occurrence: a row is the first of its kind where its number
    # passes every number before it
    before = np.maximum.accumulate(np.concatenate([[-1], inverse[:-1]])) if n else inverse
    return np.flatnonzero(inverse > before), inverse, list(seen)


def sorted_unique(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distinct values ascending, each value's index among them) of a 1-d integer array: np.unique(...,
    return_inverse=True) without its first call's import of numpy.ma (about 0.1 s of a cold start)."""
    order = np.argsort(values, kind="stable")
    ordered = values[order]
    new = np.concatenate([[True], ordered[1:] != ordered[:-1]]) if values.size else np.zeros(0, bool)
    inverse = np.empty(values.shape[0], np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse


def positive_values(counts: np.ndarray) -> list[int]:
    """The distinct positive values of a non-negative integer array, ascending (np.unique without numpy.ma)."""
    return (np.flatnonzero(np.bincount(counts)[1:]) + 1).tolist() if counts.size else []


def segment_starts(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(which segments are non-empty, where each non-empty one starts) for consecutive segments of `counts` rows."""
    nonempty = counts > 0
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    return nonempty, starts[nonempty]


def pool(values: np.ndarray, counts: np.ndarray, readout: str = "mean") -> np.ndarray:
    """mirtune.model.encoder.pool over consecutive groups of `counts` rows: each group's mean, ++ its element-wise
    max for "meanmax" (0 for a group with no rows)."""
    groups, dim = len(counts), values.shape[1]
    nonempty, starts = segment_starts(counts)
    sums = np.zeros((groups, dim), F32)
    if starts.size:
        sums[nonempty] = np.add.reduceat(values, starts, axis=0)
    mean = sums / np.maximum(counts, 1).astype(F32)[:, None]
    if readout == "mean":
        return mean
    peak = np.zeros((groups, dim), F32)
    if starts.size:
        peak[nonempty] = np.maximum.reduceat(values, starts, axis=0)
    return np.concatenate([mean, peak], axis=1)


class NumpyStatementCache:
    """[CLS] states of statements already encoded, kept across calls (mirtune.model.encoder.StatementCache): one row
    per distinct statement in a table that grows by doubling, found by the bytes of its ids. At most `limit`
    statements; when a batch would pass that, the cache starts over."""

    def __init__(self, limit: int = 100_000) -> None:
        self.limit = limit
        self.row_of: dict[bytes, int] = {}
        self.table: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.row_of)

    def clear(self) -> None:
        self.row_of.clear()
        self.table = None

    def add(self, keys: list[bytes], states: np.ndarray) -> None:
        """Remember `states[i]` as the state of the statement whose ids' bytes are `keys[i]`."""
        start, end = len(self.row_of), len(self.row_of) + len(keys)
        if self.table is None or end > self.table.shape[0]:
            grown = np.empty((max(end, 2 * (0 if self.table is None else self.table.shape[0]), 1024),
                              states.shape[1]), F32)
            if self.table is not None:
                grown[:start] = self.table[:start]
            self.table = grown
        self.table[start:end] = states
        self.row_of.update(zip(keys, range(start, end)))


class _Layer:
    """One pre-norm nn.TransformerEncoderLayer's weights, transposed for x @ W."""

    def __init__(self, t: dict[str, np.ndarray], prefix: str, d: int) -> None:
        w_in, b_in = t[prefix + "self_attn.in_proj_weight"], t[prefix + "self_attn.in_proj_bias"]
        self.w_in, self.b_in = np.ascontiguousarray(w_in.T), b_in
        self.w_q, self.b_q = np.ascontiguousarray(w_in[:d].T), b_in[:d]
        self.w_kv, self.b_kv = np.ascontiguousarray(w_in[d:].T), b_in[d:]
        self.w_out, self.b_out = np.ascontiguousarray(t[prefix + "self_attn.out_proj.weight"].T), \
            t[prefix + "self_attn.out_proj.bias"]
        self.w1, self.b1 = np.ascontiguousarray(t[prefix + "linear1.weight"].T), t[prefix + "linear1.bias"]
        self.w2, self.b2 = np.ascontiguousarray(t[prefix + "linear2.weight"].T), t[prefix + "linear2.bias"]
        self.norm1 = (t[prefix + "norm1.weight"], t[prefix + "norm1.bias"])
        self.norm2 = (t[prefix + "norm2.weight"], t[prefix + "norm2.bias"])

    def feed_forward(self, x: np.ndarray) -> np.ndarray:
        """linear2(gelu(linear1(norm2(x)))) over the last axis, in blocks of FEED_FORWARD_ROWS rows."""
        shape = x.shape
        h = layer_norm(x, *self.norm2).reshape(-1, shape[-1])
        out = np.empty_like(h)
        for start in range(0, h.shape[0], FEED_FORWARD_ROWS):
            block = h[start:start + FEED_FORWARD_ROWS]
            z, *work = _scratch_arrays(block.shape[0], self.w1.shape[1])
            np.matmul(block, self.w1, out=z)
            z += self.b1
            np.matmul(gelu_(z, work), self.w2, out=out[start:start + FEED_FORWARD_ROWS])
        out += self.b2
        return out.reshape(shape)


class NumpyEncoder:
    """The frozen encoder's `embed` in numpy float32; loads with `load_numpy_encoder`. Has `config`, `tokenizer`,
    `provenance`, `directory`, `weights_check` like io.LoadedModel."""

    engine = "numpy"

    def __init__(self, config: EncoderConfig, tensors: dict[str, np.ndarray], tokenizer: Any = None,
                 provenance: dict[str, Any] | None = None, directory: str | None = None,
                 weights_check: str = "not recorded") -> None:
        self.config, self.tokenizer, self.directory = config, tokenizer, directory
        self.provenance, self.weights_check = provenance or {}, weights_check
        t = {k[len("encoder."):] if k.startswith("encoder.") else k: np.ascontiguousarray(v, dtype=F32)
             for k, v in tensors.items()}
        cfg, d = config, config.d_model
        self.token_embedding = t["token_embedding.weight"]
        if cfg.has_text:
            self.position_embedding = t["text.position_embedding.weight"]
            self.text_norm = (t["text.input_norm.weight"], t["text.input_norm.bias"])
            self.final_norm = (t["text.layers.norm.weight"], t["text.layers.norm.bias"])
            self.layers = [_Layer(t, f"text.layers.layers.{i}.", d) for i in range(cfg.n_layers)]
        if cfg.has_graph:
            self.type_embedding = t["graph.type_embedding.weight"]
            self.graph_norm = (t["graph.input_norm.weight"], t["graph.input_norm.bias"])
            self.convs = [(np.ascontiguousarray(t[f"graph.convs.{i}.lin.weight"].T), t[f"graph.convs.{i}.bias"])
                          for i in range(cfg.gcn_layers)]

    # ------------------------------------------------------------------------------------- text
    def _attention(self, q: np.ndarray, k: np.ndarray, v: np.ndarray, layer: _Layer,
                   key_bias: np.ndarray) -> np.ndarray:
        """Multi-head attention out-projected: q [B, wq, d], k and v [B, w, d] (projected, biased), key_bias
        [B, 1, 1, w] (0, or -inf for padding); [B, wq, d]."""
        b, wq, d = q.shape
        w = k.shape[1]
        heads, dh = self.config.n_heads, d // self.config.n_heads
        q = q.reshape(b, wq, heads, dh).transpose(0, 2, 1, 3) * F32(1.0 / np.sqrt(dh))  # [B, H, wq, dh]
        k = k.reshape(b, w, heads, dh).transpose(0, 2, 3, 1)                            # [B, H, dh, w]
        v = v.reshape(b, w, heads, dh).transpose(0, 2, 1, 3)                            # [B, H, w, dh]
        scores = q @ k
        scores += key_bias                                                             # [B, H, wq, w]
        scores -= scores.max(-1, keepdims=True)
        np.exp(scores, out=scores)
        scores /= scores.sum(-1, keepdims=True)
        a = (scores @ v).transpose(0, 2, 1, 3).reshape(b * wq, d)
        return (a @ layer.w_out + layer.b_out).reshape(b, wq, d)

    def _first_layer_inputs(self, ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(pair [S, L], x0 [P, d], qkv0 [P, 3d]): the first layer's input (token + position embedding, input
        LayerNorm) and its q, k, v projections depend on the (token, position) pair alone, and statements share
        most pairs (several times fewer distinct pairs than positions in IR), so they are computed once per
        distinct pair; `pair` indexes each position's row."""
        length = ids.shape[1]
        keys, pair = sorted_unique((ids * length + np.arange(length)).ravel())
        x0 = layer_norm(self.token_embedding[keys // length] + self.position_embedding[keys % length],
                        *self.text_norm)
        first = self.layers[0]
        qkv0 = layer_norm(x0, *first.norm1) @ first.w_in + first.b_in
        return pair.reshape(ids.shape), x0, qkv0

    def _cls_run(self, pair: np.ndarray, keep: np.ndarray, x0: np.ndarray, qkv0: np.ndarray) -> np.ndarray:
        """Final [CLS] states [B, d] of statements given by their (token, position) rows `pair` [B, w] into x0 and
        qkv0 (StatementEncoder._cls_run): every layer on every position but the last, which runs for the [CLS]
        query alone (its keys and values still see every position)."""
        b, w = pair.shape
        d = self.config.d_model
        key_bias = np.where(keep, F32(0.0), F32(-np.inf)).astype(F32)[:, None, None, :]
        x = x0[pair]                                                                   # [B, w, d]
        n_layers = len(self.layers)
        for i, layer in enumerate(self.layers):
            last = i == n_layers - 1
            if i == 0:
                qkv = qkv0[pair]
                q = qkv[:, :1, :d] if last else qkv[..., :d]
                k, v = qkv[..., d:2 * d], qkv[..., 2 * d:]
            else:
                h = layer_norm(x, *layer.norm1)
                if last:
                    q = (h[:, 0] @ layer.w_q + layer.b_q).reshape(b, 1, d)
                    kv = (h.reshape(b * w, d) @ layer.w_kv + layer.b_kv).reshape(b, w, 2 * d)
                    k, v = kv[..., :d], kv[..., d:]
                else:
                    qkv = (h.reshape(b * w, d) @ layer.w_in + layer.b_in).reshape(b, w, 3 * d)
                    q, k, v = qkv[..., :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
            a = self._attention(q, k, v, layer, key_bias)
            if last:
                c = x[:, 0] + a[:, 0]
                c += layer.feed_forward(c)
                return layer_norm(c, *self.final_norm)
            x = x + a
            x += layer.feed_forward(x)
        raise AssertionError("unreachable: an encoder has at least one layer")

    def cls_states(self, ids: np.ndarray, tokens: int = STATEMENT_GROUP_TOKENS) -> np.ndarray:
        """Final [CLS] states [S, d] of statements ids [S, L] (StatementEncoder.cls_states): sorted by length, in
        groups of about `tokens` padded positions, each trimmed to its longest statement, the groups spread over
        `statement_threads()` threads."""
        keep = ids != self.config.pad_id
        lengths = keep.sum(1)
        out = np.empty((ids.shape[0], self.config.d_model), F32)
        if ids.shape[0] == 0:
            return out
        width = max(int(lengths.max()), 1)
        pair, x0, qkv0 = self._first_layer_inputs(ids[:, :width])
        order = np.argsort(lengths, kind="stable")
        sorted_lengths = lengths[order].tolist()

        def run(group: tuple[int, int]) -> None:
            idx = order[group[0]:group[1]]
            w = max(sorted_lengths[group[1] - 1], 1)
            out[idx] = self._cls_run(pair[idx, :w], keep[idx, :w], x0, qkv0)

        _run_all(list(length_groups(sorted_lengths, tokens)), run)
        return out

    def statement_states(self, ids: np.ndarray, cache: NumpyStatementCache | None = None,
                         dedup: bool = True) -> np.ndarray:
        """[CLS] state [S, d] of every statement: each distinct one encoded once (unless not `dedup`), read from and
        added to `cache` when given (MIREncoder._statement_states)."""
        if ids.shape[0] == 0:
            return np.zeros((0, self.config.d_model), F32)
        if cache is None and not dedup:
            return self.cls_states(ids)
        first, inverse, keys = distinct_rows(ids)
        if cache is None:
            return self.cls_states(ids[first])[inverse]
        if len(cache) + len(keys) > cache.limit:
            cache.clear()
        missing = [i for i, k in enumerate(keys) if k not in cache.row_of]
        if missing:
            cache.add([keys[i] for i in missing], self.cls_states(ids[first[missing]]))
        rows = np.fromiter((cache.row_of[k] for k in keys), np.int64, len(keys))
        return cache.table[rows][inverse]

    # ------------------------------------------------------------------------------------ graph
    def node_features(self, node_ids: np.ndarray, node_type: np.ndarray) -> np.ndarray:
        """[N, d]: mean token embedding of each node's non-pad ids (0 when it has none) + its type embedding,
        LayerNorm (GraphEncoder.node_features: embedding_bag mean with padding_idx)."""
        keep = node_ids != self.config.pad_id
        counts = keep.sum(1)
        sums = np.zeros((node_ids.shape[0], self.config.d_model), F32)
        for c in positive_values(counts):  # the nodes with c ids, summed together
            rows = np.flatnonzero(counts == c)
            cols = np.argsort(~keep[rows], axis=1, kind="stable")[:, :c]  # where each row's c ids are
            sums[rows] = self.token_embedding[node_ids[rows[:, None], cols]].sum(1)
        mean = sums / np.maximum(counts, 1).astype(F32)[:, None]
        return layer_norm(mean + self.type_embedding[node_type], *self.graph_norm)

    @staticmethod
    def adjacency(edges: np.ndarray, num_nodes: int) -> tuple[np.ndarray, Any]:
        """GCN's D^-1/2 (A + I) D^-1/2 of the edges [2, E] made undirected, duplicates and self-loops removed, one
        loop of weight 1 per node (undirected_edges + gcn_adjacency), as (self-loop weight per node, the rest).
        The rest: for a graph of SPARSE_PAIRS or more neighbour pairs (a batch of files), a scipy CSR matrix
        (its product is one C loop, 5 to 10 times faster there; scipy, scikit-learn's dependency, is imported only
        then, so one file's embedding does not pay for it); else buckets of the nodes with neighbours grouped by
        their number of neighbours d, each (targets [k], neighbours [k, d], weights [k, d]), so that a product is a
        few dense gathers and sums rather than one reduction per node. The union is symmetric, so the pairs
        sorted by source are the pairs sorted by target with the ends swapped: one sort serves both."""
        n = max(num_nodes, 1)
        key = sorted_unique(np.concatenate([edges[0] * n + edges[1], edges[1] * n + edges[0]]))[0]
        target, neighbour = key // n, key % n
        off_diagonal = target != neighbour
        target, neighbour = target[off_diagonal], neighbour[off_diagonal]
        count = np.bincount(target, minlength=num_nodes)
        inv = F32(1.0) / np.sqrt((count + 1).astype(F32))  # + the self-loop
        weight = inv[target] * inv[neighbour]
        start = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
        if target.size >= SPARSE_PAIRS:
            try:
                from scipy.sparse import csr_matrix
            except ImportError:
                pass
            else:  # pairs sorted by target, then neighbour: CSR order already
                return inv * inv, csr_matrix((weight, neighbour, np.append(start, target.size)),
                                             shape=(num_nodes, num_nodes))
        buckets = []
        for d in positive_values(count):
            nodes = np.flatnonzero(count == d)
            at = start[nodes][:, None] + np.arange(d)
            buckets.append((nodes, neighbour[at], weight[at]))
        return inv * inv, buckets

    @staticmethod
    def propagate(x: np.ndarray, adjacency: tuple[np.ndarray, Any]) -> np.ndarray:
        """adjacency @ x: the self-loop term plus each target's weighted neighbours (CSR product, or bucket by
        bucket)."""
        loop, rest = adjacency
        out = x * loop[:, None]
        if not isinstance(rest, list):
            out += rest @ x
            return out
        for nodes, neighbours, weights in rest:
            out[nodes] += (weights[:, None, :] @ x[neighbours])[:, 0]
        return out

    def node_latents(self, node_ids: np.ndarray, node_type: np.ndarray, edges: np.ndarray) -> np.ndarray:
        """Node latents [N, gcn_hidden] (GraphEncoder.forward in eval mode): the features and first-layer transform
        once per distinct (ids, type) node, then adj @ (x W) + b per layer, ReLU between layers."""
        x, adj = self._last_layer_input(node_ids, node_type, edges)
        w, b = self.convs[-1]
        return self.propagate(x if len(self.convs) == 1 else x @ w, adj) + b

    def graph_means(self, node_ids: np.ndarray, node_type: np.ndarray, edges: np.ndarray,
                    counts: np.ndarray) -> np.ndarray:
        """Each graph's mean node latent [G, gcn_hidden] (graphs of `counts` consecutive nodes; 0 for none), as
        pool(node_latents(...), counts) but without the last layer's product over every node: the normalised
        adjacency is symmetric and block-diagonal by graph, so a graph's mean of adj @ h is its mean of h weighted
        by adj's row sums."""
        x, (loop, rest) = self._last_layer_input(node_ids, node_type, edges)
        row_sums = loop.copy()
        if isinstance(rest, list):
            for nodes, _, weights in rest:
                row_sums[nodes] += weights.sum(1)
        else:
            row_sums += np.asarray(rest.sum(axis=1), F32).ravel()
        w, b = self.convs[-1]
        mean = pool(x * row_sums[:, None], counts)
        if len(self.convs) > 1:
            mean = mean @ w
        mean += b
        mean[counts == 0] = F32(0.0)
        return mean

    def _last_layer_input(self, node_ids: np.ndarray, node_type: np.ndarray,
                          edges: np.ndarray) -> tuple[np.ndarray, tuple[np.ndarray, Any]]:
        """(what the last GCN layer multiplies, the adjacency): every layer but the last run (ReLU after each), or,
        with one layer, the first transform of each node's features."""
        adj = self.adjacency(edges, node_ids.shape[0])
        first, inverse, _ = distinct_rows(np.concatenate([node_ids, node_type[:, None]], axis=1))
        x = (self.node_features(node_ids[first], node_type[first]) @ self.convs[0][0])[inverse]
        for i, (w, b) in enumerate(self.convs[:-1]):
            x = self.propagate(x if i == 0 else x @ w, adj) + b
            np.maximum(x, F32(0.0), out=x)
        return x, adj

    # ------------------------------------------------------------------------------------ files
    def embed(self, samples: Sequence[dict[str, np.ndarray]], statement_cache: NumpyStatementCache | None = None,
              readout: str = "mean", dedup: bool = True) -> np.ndarray:
        """Embeddings [len(samples), embedding_dim(config, readout)] float32 of samples shaped by
        mirtune.model.samples.sample_arrays: text vector ++ graph vector (those the config has), each pooled by
        `readout` (MIREncoder.embed on collate(samples))."""
        if readout not in READOUTS:
            raise ValueError(f"unknown readout {readout!r}; choose from {', '.join(READOUTS)}")
        with blas_threads_limited():
            return _quiet(self._embed, samples, statement_cache, readout, dedup)

    def _embed(self, samples: Sequence[dict[str, np.ndarray]], statement_cache: NumpyStatementCache | None,
               readout: str, dedup: bool) -> np.ndarray:
        cfg, parts = self.config, []
        seq_len = samples[0]["stmt_ids"].shape[1] if samples else cfg.seq_len

        def cat(key: str, shape: tuple[int, ...]) -> np.ndarray:
            return np.concatenate([np.asarray(s[key], np.int64) for s in samples]) if samples else \
                np.zeros(shape, np.int64)

        def graph_part() -> np.ndarray:
            node_ids, node_type = cat("node_ids", (0, seq_len)), cat("node_type", (0,))
            counts = np.array([s["node_ids"].shape[0] for s in samples], np.int64)
            flows, offset = [], 0
            for s, n_nodes in zip(samples, counts):
                e = np.asarray(s["edges"], np.int64)
                sel = e[(e[:, 2] >= 0) & (e[:, 2] < cfg.n_flows)]  # collate keeps flows 0 .. n_flows-1
                flows.append(sel[:, :2].T + offset)
                offset += int(n_nodes)
            edges = np.concatenate(flows, axis=1) if flows else np.zeros((2, 0), np.int64)
            if not node_ids.shape[0]:
                return pool(np.zeros((0, cfg.gcn_hidden), F32), counts, readout)
            if readout == "mean":
                return self.graph_means(node_ids, node_type, edges, counts)
            return pool(self.node_latents(node_ids, node_type, edges), counts, readout)

        # the graph part on one embedding thread while the statement groups take the others (and then it)
        graph = _started(graph_part) if cfg.has_graph else None
        if cfg.has_text:
            ids = cat("stmt_ids", (0, seq_len))
            counts = np.array([s["stmt_ids"].shape[0] for s in samples], np.int64)
            parts.append(pool(self.statement_states(ids, statement_cache, dedup), counts, readout))
        if graph is not None:
            parts.append(graph())
        return np.concatenate(parts, axis=1).astype(F32, copy=False)
