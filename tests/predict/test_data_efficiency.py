"""The data-efficiency study: subsets, folds, the reduction factor, the end-to-end models' starting weights, and
the command's one-line errors."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mirtune.predict import data_efficiency as de

FRACTIONS = [0.05, 0.1, 0.2, 0.5, 1.0]


def test_subsets_are_stratified_nested_and_seeded():
    rng = np.random.RandomState(0)
    labels = (rng.rand(400) < 0.3).astype(int)
    train = np.sort(rng.choice(400, 360, replace=False))
    subsets = de.stratified_subsets(train, labels, FRACTIONS, seed=7)
    n_class = {c: int((labels[train] == c).sum()) for c in (0, 1)}
    for f, rows in subsets.items():
        assert set(rows) <= set(train)
        for c in (0, 1):  # class proportions kept: round(f x class count) of each class
            assert (labels[rows] == c).sum() == max(1, round(f * n_class[c]))
    for small, big in zip(FRACTIONS, FRACTIONS[1:]):
        assert set(subsets[small]) < set(subsets[big])
    assert np.array_equal(subsets[1.0], train)
    again = de.stratified_subsets(train, labels, FRACTIONS, seed=7)
    assert all(np.array_equal(again[f], subsets[f]) for f in FRACTIONS)
    other = de.stratified_subsets(train, labels, FRACTIONS, seed=8)
    assert not np.array_equal(other[0.1], subsets[0.1])


def test_test_folds_are_never_trained_on(shared_data):
    from mirtune.tasks.devmap import N_FOLDS, PLATFORMS, load_platform

    frames = {p: load_platform(shared_data, p) for p in PLATFORMS}
    fold_of = {p: f.fold.to_numpy() for p, f in frames.items()}  # each platform's own stratified folds
    plan = de.plan_subsets({p: f.label.to_numpy() for p, f in frames.items()}, fold_of, range(N_FOLDS), FRACTIONS, 2)
    assert len(plan) == 2 * N_FOLDS * 2
    for (p, k, r), (test, subsets) in plan.items():
        assert np.array_equal(test, np.flatnonzero(fold_of[p] == k))
        for rows in subsets.values():
            assert not np.intersect1d(rows, test).size
            assert (fold_of[p][rows] != k).all()
    # a head job refuses a subset that holds a test row
    test, subsets = plan[("amd", 0, 0)]
    X = {"frozen": np.zeros((len(frames["amd"]), 3))}
    with pytest.raises(AssertionError):
        de._head_job(X, frames["amd"].label.to_numpy(), test, {0.5: np.concatenate([subsets[0.5], test[:1]])}, 0,
                     {"epochs": 1})


def test_reduction_factor_on_known_curves():
    assert de.reduction_factor(FRACTIONS, [0.20, 0.15, 0.10, 0.09, 0.08], 0.10) == (5.0, 0.2)
    assert de.reduction_factor(FRACTIONS, [0.05, 0.06, 0.07, 0.08, 0.09], 0.10) == (20.0, 0.05)
    # one lucky small fraction does not decide it: every larger fraction must be as good too
    assert de.reduction_factor(FRACTIONS, [0.09, 0.15, 0.10, 0.09, 0.08], 0.10) == (5.0, 0.2)
    assert de.reduction_factor(FRACTIONS, [0.20, 0.15, 0.12, 0.11, 0.11], 0.10) == (None, None)
    assert de.reduction_factor([1.0, 0.5], [0.1, 0.1], 0.1) == (2.0, 0.5)  # order of the inputs does not matter
    curves = {"scratch": [{"fraction": 1.0, "error_mean": 0.10, "error_std": 0.01}],
              "frozen": [{"fraction": f, "error_mean": e} for f, e in zip(FRACTIONS, [0.2, 0.15, 0.1, 0.09, 0.08])]}
    fac = de._factor(curves, FRACTIONS)
    assert fac["data_reduction_factor"] == 5.0 and fac["scratch_full_error"] == 0.10
    assert de._factor({"frozen": curves["frozen"]}, FRACTIONS)["data_reduction_factor"] is None


def test_scratch_starts_random_and_finetune_starts_pretrained():
    import torch

    from mirtune.embedding import load_encoder
    from mirtune.predict.finetune import initial_encoder

    loaded = load_encoder()

    def weight(enc):
        return enc.text.layers.layers[0].linear1.weight

    fine = initial_encoder("finetune", loaded, 0)
    scratch = initial_encoder("scratch", loaded, 0)
    assert torch.equal(weight(fine), weight(loaded.encoder))
    assert weight(fine).data_ptr() != weight(loaded.encoder).data_ptr()  # a copy: training it leaves the original
    assert not torch.allclose(weight(scratch), weight(loaded.encoder))
    assert torch.equal(weight(scratch), weight(initial_encoder("scratch", loaded, 0)))  # seeded
    assert not torch.equal(weight(scratch), weight(initial_encoder("scratch", loaded, 1)))
    with pytest.raises(ValueError):
        initial_encoder("frozen", loaded, 0)


def test_end_to_end_fit_trains_the_encoder_and_predicts(devmap_ir_dir, tmp_path, monkeypatch):
    import torch

    from mirtune.embedding import load_encoder
    from mirtune.predict import finetune
    from mirtune.predict.heads import HeadConfig

    monkeypatch.setenv("MIRTUNE_EMBED_CACHE", str(tmp_path))
    loaded = load_encoder()
    files = sorted(devmap_ir_dir.glob("*.ll"), key=lambda f: f.stat().st_size)[:8]
    samples = finetune.load_samples(files, loaded)
    assert list(tmp_path.glob("samples-*/*.npz"))  # cached on disk
    labels = np.array([0, 1] * 4)
    context = np.random.RandomState(0).rand(8, 2)
    config = finetune.E2EConfig(epochs=1, min_steps=3, batch_size=4, max_statements=8, head=HeadConfig(epochs=5))
    model, info = finetune.fit_end_to_end("finetune", loaded, samples, context, labels, config, seed=0)
    assert info["steps"] == 3 and info["fit_s"] >= info["probe_s"] >= info["embed_s"] > 0
    before = loaded.encoder.text.layers.layers[0].linear1.weight
    after = model.encoder.text.layers.layers[0].linear1.weight
    assert not torch.equal(before, after)  # trained end to end, the pre-trained weights left alone
    pred = finetune.predict(model, samples, context)
    assert pred.shape == (8,) and set(pred.tolist()) <= {0, 1}
    cut = finetune.cut_statements(samples[-1], 2, np.random.default_rng(0))
    assert cut["stmt_ids"].shape[0] == min(2, samples[-1]["stmt_ids"].shape[0])
    assert cut["node_ids"] is samples[-1]["node_ids"]


def test_heads_only_study_in_process(shared_data):
    from mirtune.predict.finetune import E2EConfig
    from mirtune.predict.heads import HeadConfig

    config = dataclasses.replace(E2EConfig(), head=HeadConfig(epochs=5))
    result = de.run_devmap(shared_data, [0.1, 1.0], ["frozen", "ir2vec"], 2, folds=[0, 1], config=config,
                           use_ray=False, note=lambda m: None)
    assert result["status"] == "complete" and result["comparison_folds"] == [0, 1]
    for p in ("amd", "nvidia"):
        for m in ("frozen", "ir2vec"):
            curve = result["curves"][p][m]
            assert [c["fraction"] for c in curve] == [0.1, 1.0] and all(c["repeats"] == 2 for c in curve)
            assert curve[0]["n_train"] < curve[1]["n_train"]
            assert all(0 <= c["error_mean"] <= 1 for c in curve)
        assert result["factor"][p]["data_reduction_factor"] is None  # no scratch model to compare with
    assert "frozen_fit_s" in result["cost"]["1.0"]
    assert "data_reduction_factor" in de.table(result)


def _main(argv):
    from mirtune import cli

    return cli.main(["evaluate", *argv])


@pytest.mark.parametrize("argv, fragment", [
    (["devmap", "--label-fractions", "0,0.5"], "(0, 1]"),
    (["devmap", "--label-fractions", "0.5,1.5"], "(0, 1]"),
    (["devmap", "--label-fractions", "half"], "takes numbers"),
    (["devmap", "--label-fractions", "0.5", "--compare", "frozen,bogus"], "unknown method 'bogus'"),
    (["devmap", "--label-fractions", "0.5", "--repeats", "0"], "--repeats"),
    (["devmap", "--compare", "scratch"], "add --label-fractions"),
    (["openmp", "--label-fractions", "0.5"], "devmap only"),
    (["devmap", "--label-fractions", "0.5", "--e2e-folds", "12"], "no fold 12"),
    (["devmap", "--label-fractions", "0.5", "--head", "gbt"], "MLP head"),
    (["devmap", "--label-fractions", "0.5", "--compare", "frozen", "--head", "gain"], "mlp (default) or gbt"),
    (["devmap", "--label-fractions", "0.5", "--pca", "8"], "--pca does not apply"),
])
def test_bad_options_are_one_line_and_exit_2(capsys, argv, fragment):
    rc = _main(argv)
    err = capsys.readouterr().err.strip()
    assert rc == 2, err
    assert len(err.splitlines()) == 1 and fragment in err, err
