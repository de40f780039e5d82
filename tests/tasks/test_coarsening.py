"""Thread coarsening: labels, leave-one-kernel-out folds, the speedup metric with missing runtimes."""

from __future__ import annotations

import numpy as np
import pytest

from mirtune.tasks import coarsening as tc

NAN = float("nan")


@pytest.fixture(scope="module")
def data(shared_data):
    return tc.CoarseningData(shared_data)


def test_seventeen_kernels_and_labels_equal_the_oracle_file(data):
    assert len(data.kernels) == 17 and data.kernels == sorted(data.kernels)
    for p in tc.PLATFORMS:
        labels = [tc.FACTORS[i] for i in data.labels(p)]
        assert labels == [int(v) for v in data.oracle_csv[f"cf_{p}"]]


def test_mt_and_mtlocal_are_the_one_identical_pair(data):
    assert [[data.kernels[i] for i in g] for g in data.identical_groups()] == [["mt", "mtLocal"]]
    i, j = data.kernels.index("mt"), data.kernels.index("mtLocal")
    assert all(data.labels(p)[i] != data.labels(p)[j] for p in tc.PLATFORMS)


def test_speedup_clamps_to_a_measured_factor():
    # measured at 1, 2, 4, 8 (nothing at 16 or 32), like blackscholes
    row = np.array([10.0, 5.0, 4.0, 8.0, NAN, NAN])
    assert tc.speedup(row, 0) == 1.0
    assert tc.speedup(row, 2) == pytest.approx(2.5)
    assert tc.speedup(row, 5) == pytest.approx(10 / 8)      # 32 -> 8
    # a hole in the middle, like nbody cf=16 on Fermi/Kepler
    row = np.array([10.0, 5.0, 4.0, 2.0, NAN, 1.0])
    assert tc.effective_factor_index(row, 4) == 3            # 16 -> 8
    assert tc.speedup(row, 4) == pytest.approx(5.0)
    assert tc.speedup(row, 5) == pytest.approx(10.0)
    assert tc.speedups(np.array([row, row]), [0, 5]).tolist() == [1.0, 10.0]


def test_missing_runtimes_in_the_real_data(data):
    nb = data.kernels.index("nbody")
    bs = data.kernels.index("blackscholes")
    for p in ("Fermi", "Kepler"):
        rt = data.runtimes[p]
        assert np.isnan(rt[nb, 4])
        assert tc.speedup(rt[nb], 4) == pytest.approx(rt[nb, 0] / rt[nb, 3])  # 16 -> 8
        assert tc.speedup(rt[bs], 5) == pytest.approx(rt[bs, 0] / rt[bs, 3])  # 32 -> 8
    for p in tc.PLATFORMS:
        assert np.isfinite(tc.speedups(data.runtimes[p], [5] * 17)).all()


def test_oracle_and_code_only_ceiling(data):
    groups = data.identical_groups()
    oracle = np.mean([tc.oracle_speedups(data.runtimes[p]).mean() for p in tc.PLATFORMS])
    assert oracle == pytest.approx(1.355, abs=2e-3)
    for p in tc.PLATFORMS:
        assert tc.code_only_ceiling(data.runtimes[p], groups) <= tc.oracle_speedups(data.runtimes[p]).mean()
        perfect = tc.speedups(data.runtimes[p], data.labels(p)).mean()
        assert perfect == pytest.approx(tc.oracle_speedups(data.runtimes[p]).mean())
    # hand-made: two identical kernels whose best factors differ
    rt = np.array([[10.0, 5.0, NAN, NAN, NAN, NAN], [10.0, 20.0, NAN, NAN, NAN, NAN]])
    assert tc.code_only_ceiling(rt, [[0, 1]]) == pytest.approx(1.25)  # both factor 2: (2 + 0.5) / 2 > (1 + 1) / 2
    assert tc.oracle_speedups(rt).mean() == pytest.approx(1.5)


def test_metric_code_reproduces_ir2vec_reruns(shared_data):
    rows = {r["model"]: r for r in tc.prior_from_predictions(shared_data)}
    magni = rows["Magni et al. (IR2Vec re-run)"]
    assert [round(magni[p], 3) for p in tc.PLATFORMS] == [1.106, 1.000, 0.892, 0.868]
    ncc = rows["NCC (IR2Vec re-run)"]
    assert [round(ncc[p], 3) for p in tc.PLATFORMS] == [1.254, 1.071, 0.976, 1.008]


def test_leave_one_kernel_out_problem(data):
    prob = tc.make_problem(data, np.zeros((17, 4)), "Tahiti")
    assert len(prob.outer) == 17 and prob.n_classes == 6
    for j, (tr, te) in enumerate(prob.outer):
        assert te.tolist() == [j] and sorted(tr.tolist()) == [i for i in range(17) if i != j]
    sub = tc.make_problem(data, np.zeros((17, 4)), "Tahiti", kernels=["sgemm"])
    assert sub.fold_ids == [data.kernels.index("sgemm")]
    # the validation score is the mean speedup of the predicted factors
    idx = np.array([0, 1])
    assert prob.score(idx, data.labels("Tahiti")[idx]) == pytest.approx(
        tc.oracle_speedups(data.runtimes["Tahiti"])[idx].mean())
    # gain heads learn what the metric scores: each factor's clamped speedup, the oracle's where it is best
    rt = data.runtimes["Tahiti"]
    assert prob.gains.shape == (17, 6) and np.isfinite(prob.gains).all()
    assert np.allclose(prob.gains.max(axis=1), tc.oracle_speedups(rt)) and (prob.gains[:, 0] == 1).all()
    assert all(prob.gains[k, j] == tc.speedup(rt[k], j) for k in range(17) for j in range(6))


def test_pluggable_encoder_embeds_each_content_once_and_caches(data, tmp_path, monkeypatch):
    """The shipped encoder through mirtune.embed: called once per distinct file (mt = mtLocal), then cached."""
    import shutil

    import mirtune.embedding as membed
    from mirtune.tasks import embedders

    calls = []
    real_embed = membed.embed

    def spy(paths, model_dir=None, **kwargs):
        calls.append(list(paths))
        return real_embed(paths, model_dir, **kwargs)

    model = tmp_path / "model"
    shutil.copytree(membed.DEFAULT_MODEL_DIR, model)
    monkeypatch.setattr(membed, "embed", spy)
    monkeypatch.setenv("MIRTUNE_MODEL", str(model))
    monkeypatch.setenv("MIRTUNE_EMBED_CACHE", str(tmp_path / "cache"))
    emb = embedders.get_embedder("mirencoder")
    X = embedders.embed_files(emb, data.ir_paths)
    assert X.shape == (17, 256) and sum(len(c) for c in calls) == 16
    i, j = data.kernels.index("mt"), data.kernels.index("mtLocal")
    assert np.array_equal(X[i], X[j])
    again = embedders.embed_files(emb, data.ir_paths)
    assert np.array_equal(X, again) and sum(len(c) for c in calls) == 16
    # a different model is a different cache key
    (model / "model.safetensors").write_bytes((model / "model.safetensors").read_bytes() + b" ")
    assert embedders.get_embedder("mirencoder").key != emb.key
    # an ablation needs an encoder pre-trained on that modality alone: a clear error
    with pytest.raises(embedders.MirtuneError, match="pre-trained on both"):
        embedders.get_embedder("mirencoder", ablation="text")


def test_fixed_factor_baseline_uses_only_the_other_kernels():
    # kernel 0 loves factor 2, kernels 1 and 2 love factor 1 (factor 2 halves their speed)
    rt = np.array([[10.0, 2.0, NAN, NAN, NAN, NAN],
                   [10.0, 20.0, NAN, NAN, NAN, NAN],
                   [10.0, 20.0, NAN, NAN, NAN, NAN]])
    # held out 0: others prefer 1 -> 1.0; held out 1: others average (5 + 0.5)/2 > 1 -> factor 2 -> 0.5; same for 2
    assert tc.fixed_factor_baseline(rt) == pytest.approx((1.0 + 0.5 + 0.5) / 3)
    assert tc.fixed_factor_baseline(rt, held=[0]) == pytest.approx(1.0)


def test_ir2vec_joint_protocol_problem(data):
    X = np.arange(17 * 3, dtype=float).reshape(17, 3)
    prob = tc.make_joint_problem(data, X)
    assert prob.X.shape == (68, 3 + 4) and len(prob.outer) == 68
    assert prob.y.tolist() == np.concatenate([data.labels(p) for p in tc.PLATFORMS]).tolist()
    for i, p in enumerate(tc.PLATFORMS):
        assert (prob.X[i * 17:(i + 1) * 17, 3 + i] == 1).all()
    tr, te = prob.outer[0]
    assert te.tolist() == [0] and len(tr) == 67
    assert np.allclose(prob.gains.max(axis=1), np.concatenate([tc.oracle_speedups(data.runtimes[p])
                                                               for p in tc.PLATFORMS]))
    # the leak that makes this protocol incomparable: kernel 0's code is in training via the other platforms
    assert {17, 34, 51} <= set(tr.tolist())
    sub = tc.make_joint_problem(data, X, kernels=["sgemm"])
    k = data.kernels.index("sgemm")
    assert sub.fold_ids == [k, 17 + k, 34 + k, 51 + k]


def test_truncated_coarsening_csvs_are_one_line_naming_the_file(shared_data, tmp_path):
    import shutil

    from mirtune.errors import MirtuneError

    src, root = shared_data / "thread-coarsening", tmp_path / "thread-coarsening"
    root.mkdir()
    (root / "kernels_ir").symlink_to(src / "kernels_ir")
    for name in ("pact-2014-runtimes.csv", "pact-2014-oracles.csv"):
        shutil.copyfile(src / name, root / name)
    runtimes = root / "pact-2014-runtimes.csv"
    raw = runtimes.read_bytes()
    runtimes.write_bytes(raw[: len(raw) - 7])  # the last row cut short
    with pytest.raises(MirtuneError) as err:
        tc.CoarseningData(tmp_path)
    assert str(runtimes) in err.value.line() and "truncated" in err.value.line()
    runtimes.write_bytes(raw)
    oracles = root / "pact-2014-oracles.csv"
    lines = oracles.read_bytes().splitlines(keepends=True)
    oracles.write_bytes(b"".join(lines[:-3]))  # whole rows missing: cut at a line end
    with pytest.raises(MirtuneError) as err:
        tc.CoarseningData(tmp_path)
    assert str(oracles) in err.value.line() and "\n" not in err.value.line()
