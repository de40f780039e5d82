"""The numpy inference engine (mirtune.model.numpy_encoder) against torch's MIREncoder.embed, and recommend's
torch-free path.

Tolerance: both compute in float32 and differ only in summation order (matrix products, pooling, the GCN's sparse
product) and in erf (Abramowitz & Stegun 7.1.26 here, |error| < 1.5e-7), so each vector may differ by a few float32
roundings of its largest terms. On the shipped encoders the largest difference seen is 1.4e-6 absolute, 1.6e-7 of
the vector's norm; the bound below, 1e-5 of the norm (plus 1e-6 absolute per element), leaves about 60 times that
and is still thousands of times below what any wrong step (a missing LayerNorm, mask, bias, or an approximate GELU
such as the tanh one, ~1e-3) changes.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mirtune.errors import MirtuneError, UsageError
from mirtune.ir.module import IRModule
from mirtune.model.numpy_encoder import (NumpyStatementCache, erf, expected_shapes, gelu, load_numpy_encoder,
                                         pool)
from mirtune.model.samples import module_to_sample, sample_arrays
from mirtune.paths import ASSETS_DIR, REPO_DIR, data_dir

ENCODER = ASSETS_DIR / "encoder"
OPENMP = REPO_DIR / "collectors" / "programs" / "openmp"
VECTORIZE = REPO_DIR / "collectors" / "programs" / "vectorize" / "kernels"
PROGRAMS = [OPENMP / "gemm.c", OPENMP / "mandelbrot.c", OPENMP / "heat_3d.c", OPENMP / "spmv_skewed.c",
            VECTORIZE / "absdiff_float_0.c"]
REL_TOL, ABS_TOL = 1e-5, 1e-6

pytestmark = pytest.mark.skipif(not (ENCODER / "model.safetensors").is_file(), reason="no shipped encoder")


@pytest.fixture(scope="module", params=["both", "graph", "text"])
def model_dir(request, tmp_path_factory) -> Path:
    """The shipped encoder (both modalities), and a graph-only and a text-only `tiny` one (untrained, seeded: the
    engines must agree on any weights; the ablation encoders themselves are no longer shipped)."""
    if request.param == "both":
        return ENCODER
    import torch

    from mirtune.ir.tokenizer import IRTokenizer
    from mirtune.model.config import preset
    from mirtune.model.encoder import MIREncoder
    from mirtune.model.io import save_model

    tokenizer = IRTokenizer.load(ENCODER / "tokenizer.json")
    cfg = preset("tiny", tokenizer, request.param)
    torch.manual_seed(0)
    return save_model(tmp_path_factory.mktemp(f"tiny-{request.param}"), MIREncoder(cfg), cfg, tokenizer)


def _mean_part(meanmax: np.ndarray, cfg) -> np.ndarray:
    """The "mean" readout's vectors inside the "meanmax" ones ([text mean, text max, graph mean, graph max])."""
    widths = ([cfg.d_model] if cfg.has_text else []) + ([cfg.gcn_hidden] if cfg.has_graph else [])
    parts, start = [], 0
    for w in widths:
        parts.append(meanmax[:, start:start + w])
        start += 2 * w
    return np.concatenate(parts, axis=1)


@pytest.fixture(scope="module")
def ir_files() -> list[Path]:
    """Real IR: OpenMP and vectorisation programs compiled by recommend's own program_ir, and two of the public
    device-mapping kernels' .ll files (clang 9) when the evaluation data is here."""
    from mirtune.predict.predictor import program_ir

    files = [program_ir(p) for p in PROGRAMS]
    shared = data_dir(required=False)
    if shared is not None and (shared / "devmap" / "kernels_ir").is_dir():
        files += sorted((shared / "devmap" / "kernels_ir").glob("*.ll"))[:2]
    return files


@pytest.fixture(scope="module")
def modules(ir_files) -> list[IRModule]:
    return [IRModule.from_file(f) for f in ir_files]


def _samples(engine, modules):
    return [sample_arrays(module_to_sample(m, engine.tokenizer), engine.config.seq_len) for m in modules]


def _assert_close(got: np.ndarray, want: np.ndarray) -> None:
    assert got.shape == want.shape and got.dtype == np.float32
    diff = np.abs(got - want).max(axis=1)
    norm = np.linalg.norm(want, axis=1)
    assert np.all(diff <= REL_TOL * norm + ABS_TOL), f"max abs {diff.max():.3g}, relative {(diff / norm).max():.3g}"


def test_numpy_engine_equals_torch_embed(model_dir, modules):
    from mirtune.model.encoder import collate
    from mirtune.model.io import load_model

    engine = load_numpy_encoder(model_dir)
    loaded = load_model(model_dir)
    assert engine.config == loaded.config and engine.weights_check == loaded.weights_check == "verified"
    samples = _samples(engine, modules)
    want = loaded.encoder.embed(collate(samples, engine.config.n_flows), readout="meanmax").numpy()
    _assert_close(engine.embed(samples, readout="meanmax"), want)
    _assert_close(engine.embed(samples, readout="mean"), _mean_part(want, engine.config))
    # one file alone gives its row of the batch
    _assert_close(engine.embed(samples[:1], readout="meanmax"), want[:1])


def test_the_sparse_graph_product_gives_the_bucket_one(modules, monkeypatch):
    """A batch's graph from SPARSE_PAIRS neighbour pairs on goes through scipy's CSR product: the bucket
    product's vectors, to float32 rounding; below it (one small file) scipy is not needed."""
    from mirtune.model import numpy_encoder

    engine = load_numpy_encoder(ENCODER)
    samples = _samples(engine, modules)
    monkeypatch.setattr(numpy_encoder, "SPARSE_PAIRS", 1 << 62)
    buckets = {readout: engine.embed(samples, readout=readout) for readout in ("meanmax", "mean")}
    assert isinstance(engine.adjacency(np.array([[0, 1], [1, 2]]), 3)[1], list)
    monkeypatch.setattr(numpy_encoder, "SPARSE_PAIRS", 0)
    assert not isinstance(engine.adjacency(np.array([[0, 1], [1, 2]]), 3)[1], list)
    for readout, want in buckets.items():  # "mean" takes graph_means, "meanmax" every node's latent
        _assert_close(engine.embed(samples, readout=readout), want)


def test_graph_means_are_the_mean_node_latents(modules):
    """The mean readout's shortcut (the last GCN layer applied to each graph's row-sum-weighted mean) gives the
    mean of the node latents, graph by graph, an empty graph 0."""
    engine = load_numpy_encoder(ENCODER)
    samples = _samples(engine, modules)
    node_ids = np.concatenate([s["node_ids"] for s in samples]).astype(np.int64)
    node_type = np.concatenate([s["node_type"] for s in samples]).astype(np.int64)
    counts = np.array([len(s["node_type"]) for s in samples] + [0], np.int64)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    edges = np.concatenate([np.asarray(s["edges"], np.int64)[:, :2].T + start
                            for s, start in zip(samples, starts)], axis=1)
    got = engine.graph_means(node_ids, node_type, edges, counts)
    want = pool(engine.node_latents(node_ids, node_type, edges), counts)
    assert not want[-1].any() and not got[-1].any()
    _assert_close(got[:-1], want[:-1])


def test_statement_cache_gives_the_uncached_vectors(modules):
    engine = load_numpy_encoder(ENCODER)
    samples = _samples(engine, modules)
    plain = engine.embed(samples)
    np.testing.assert_allclose(engine.embed(samples, dedup=False), plain, rtol=0, atol=1e-6)
    cache = NumpyStatementCache()
    parts = [engine.embed([s], statement_cache=cache) for s in samples]  # file by file, statements shared
    np.testing.assert_allclose(np.concatenate(parts), plain, rtol=0, atol=1e-6)
    filled = len(cache)
    assert filled == len({row.tobytes() for s in samples for row in s["stmt_ids"]})
    again = engine.embed(samples, statement_cache=cache)  # all hits
    assert len(cache) == filled
    np.testing.assert_allclose(again, plain, rtol=0, atol=1e-6)
    small = NumpyStatementCache(limit=50)  # overflows: starts over, same vectors
    np.testing.assert_allclose(engine.embed(samples[:2], statement_cache=small), plain[:2], rtol=0, atol=1e-6)


def test_statement_groups_on_threads_give_the_serial_vectors_bit_for_bit(modules, monkeypatch):
    """Groups spread over threads are each computed as alone: the vectors do not depend on the thread count."""
    from mirtune.model import numpy_encoder

    engine = load_numpy_encoder(ENCODER)
    samples = _samples(engine, modules)
    monkeypatch.setenv("MIRTUNE_EMBED_THREADS", "1")
    assert numpy_encoder.statement_threads() == 1
    serial = engine.embed(samples)
    monkeypatch.setenv("MIRTUNE_EMBED_THREADS", "3")
    assert numpy_encoder.statement_threads() == 3
    threaded = engine.embed(samples)
    assert numpy_encoder._group_pool is not None and numpy_encoder._group_pool[0] == 3  # the groups did go to it
    np.testing.assert_array_equal(threaded, serial)
    monkeypatch.setenv("MIRTUNE_EMBED_THREADS", "zero")  # not a count: the default, the CPUs this process has
    assert 1 <= numpy_encoder.statement_threads() <= numpy_encoder.STATEMENT_THREADS_MAX


def test_embed_modules_numpy_engine_matches_torch(modules):
    from mirtune.embedding import embed_modules

    want = embed_modules(modules[1:3], engine="torch", readout="meanmax", batch_files=1)
    _assert_close(embed_modules(modules[1:3], engine="numpy", readout="meanmax", batch_files=1), want)
    assert embed_modules([], engine="numpy").shape == (0, 256)
    with pytest.raises(UsageError, match="torch engine"):
        embed_modules(modules[:1], engine="numpy", precision="bf16")
    with pytest.raises(UsageError, match="unknown engine"):
        embed_modules(modules[:1], engine="jax")


def test_gelu_is_the_exact_one():
    x = np.linspace(-10, 10, 20001, dtype=np.float32)
    exact = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(np.float64)])
    assert np.abs(gelu(x) - exact).max() < 1e-6  # float32 rounding of values up to 10
    z = np.linspace(-4, 4, 8001, dtype=np.float32)
    assert np.abs(erf(z) - np.array([math.erf(v) for v in z.astype(np.float64)])).max() < 1e-6


def test_expected_weights_are_what_the_torch_encoder_saves():
    import dataclasses

    from mirtune.model.config import preset
    from mirtune.model.encoder import READOUTS, MIREncoder, PRECISIONS
    from mirtune.model.io import canonical_state
    from mirtune.embedding import PRECISIONS as EMBEDDING_PRECISIONS
    from mirtune.model.numpy_encoder import READOUTS as NUMPY_READOUTS

    assert NUMPY_READOUTS == READOUTS and EMBEDDING_PRECISIONS == PRECISIONS
    for modality in ("both", "text", "graph"):
        cfg = dataclasses.replace(preset("tiny", modality=modality), vocab_size=50)
        want = {k: tuple(v.shape) for k, v in canonical_state(MIREncoder(cfg), "encoder.").items()}
        assert expected_shapes(cfg) == want, modality


def _copy(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    return dst


def test_corrupt_or_mismatched_weights_are_refused_as_torch_refuses_them(tmp_path):
    from mirtune.model.io import WeightsCorrupt, WeightsMismatch, load_model

    bad = _copy(ENCODER, tmp_path / "bad")
    raw = bytearray((bad / "model.safetensors").read_bytes())
    start = 8 + int.from_bytes(raw[:8], "little")
    raw[start + 1000] ^= 0x01  # one flipped bit in the tensor data: still readable, still finite
    (bad / "model.safetensors").write_bytes(bytes(raw))
    with pytest.raises(WeightsCorrupt) as numpy_err:
        load_numpy_encoder(bad)
    with pytest.raises(WeightsCorrupt) as torch_err:
        load_model(bad)
    line = numpy_err.value.line()
    assert line == torch_err.value.line() and "\n" not in line and "sha256" in line
    assert str(bad / "model.safetensors") in line

    other = _copy(ENCODER, tmp_path / "other")
    cfg = json.loads((other / "config.json").read_text())
    (other / "config.json").write_text(json.dumps({**cfg, "gcn_layers": cfg["gcn_layers"] + 1}))
    with pytest.raises(WeightsMismatch) as numpy_err:
        load_numpy_encoder(other)
    with pytest.raises(WeightsMismatch) as torch_err:
        load_model(other)
    assert numpy_err.value.line() == torch_err.value.line()

    truncated = _copy(ENCODER, tmp_path / "truncated")
    (truncated / "model.safetensors").write_bytes((truncated / "model.safetensors").read_bytes()[:5000])
    with pytest.raises(MirtuneError) as numpy_err:
        load_numpy_encoder(truncated)
    with pytest.raises(MirtuneError) as torch_err:
        load_model(truncated)
    assert numpy_err.value.line() == torch_err.value.line()


_RECOMMEND = """
import sys
from mirtune.cli import main
code = main(["recommend", sys.argv[1], "--task", "vectorize"])
print("TORCH", "torch" in sys.modules, "EXIT", code)
"""


def test_recommend_on_a_new_program_does_not_import_torch(tmp_path, ir_files, monkeypatch):
    # the vectorize predictor reads the embedding (the openmp one reads the context features alone)
    if not (ASSETS_DIR / "heads" / "vectorize" / "predictor.json").is_file():
        pytest.skip("no shipped vectorize predictor")
    env = {k: v for k, v in os.environ.items() if k not in ("MIRTUNE_MODEL", "MIRTUNE_PRECISION", "MIRTUNE_HEADS")}
    env["MIRTUNE_EMBED_CACHE"] = str(tmp_path / "embeddings")  # empty: the program is new
    ir = ir_files[0]  # gemm: loops to vectorize
    done = subprocess.run([sys.executable, "-c", _RECOMMEND, str(ir)], capture_output=True, text=True, env=env,
                          cwd=REPO_DIR, timeout=120)
    assert "TORCH False EXIT 0" in done.stdout, done.stdout + done.stderr
    # the vector it embedded and cached is torch's
    from mirtune.embedding import embed_modules
    from mirtune.predict.recommend import _fingerprint
    from mirtune.embedding_cache import file_hash, load_cached, mirencoder_key

    monkeypatch.setenv("MIRTUNE_EMBED_CACHE", env["MIRTUNE_EMBED_CACHE"])
    cached = load_cached(mirencoder_key(_fingerprint(ENCODER)), file_hash(ir))
    assert cached is not None
    want = embed_modules([IRModule.from_file(ir)], model_dir=ENCODER, engine="torch")
    _assert_close(np.asarray(cached, np.float32)[None, :], want)
