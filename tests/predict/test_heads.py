"""The MLP, GBT and gain heads (ridge, nearest neighbours, forest), the inner-CV splitters and the head selection (in-process; the Ray path is in test_cmd_evaluate)."""

from __future__ import annotations

import numpy as np
import pytest

from mirtune.predict import select
from mirtune.predict.heads import (EmbeddingPCA, ForestConfig, ForestGainHead, GainConfig, GainHead, GBTConfig, GBTHead,
                                   HeadConfig, MLPHead, ReducedHead, Standardiser, fit_predict, make_head)
from mirtune.predict.select import Problem, inner_cv_scores, kfold, search_space, select_configs, stratified_kfold


def _blobs(n_per: int = 8, n_classes: int = 3, dim: int = 5, seed: int = 0):
    rng = np.random.RandomState(seed)
    centres = rng.randn(n_classes, dim) * 5
    X = np.concatenate([c + rng.randn(n_per, dim) * 0.3 for c in centres])
    y = np.repeat(np.arange(n_classes), n_per)
    return X, y


def test_head_overfits_a_tiny_separable_set():
    X, y = _blobs()
    head = MLPHead(3, HeadConfig(hidden=32, lr=1e-2, weight_decay=0.0, epochs=150, batch_size=24, dropout=0.0), 0)
    assert (head.fit(X, y).predict(X) == y).all()
    proba = head.predict_proba(X)
    assert proba.shape == (len(y), 3) and np.allclose(proba.sum(axis=1), 1.0)


def test_head_is_deterministic_per_seed_and_keeps_global_rng():
    import torch

    X, y = _blobs(seed=1)
    Xt = X + np.random.RandomState(2).randn(*X.shape)
    cfg = HeadConfig(hidden=16, epochs=5, batch_size=4)
    torch.manual_seed(123)
    before = torch.rand(1)
    torch.manual_seed(123)
    a = MLPHead(3, cfg, 7).fit(X, y).predict_proba(Xt)
    after = torch.rand(1)
    b = MLPHead(3, cfg, 7).fit(X, y).predict_proba(Xt)
    c = MLPHead(3, cfg, 8).fit(X, y).predict_proba(Xt)
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    assert torch.equal(before, after)  # fitting does not advance the caller's torch RNG


def test_standardiser_uses_training_statistics_and_survives_constant_columns():
    X = np.array([[1.0, 5.0], [3.0, 5.0]])
    s = Standardiser().fit(X)
    assert np.allclose(s.transform(X), [[-1.0, 0.0], [1.0, 0.0]])
    assert np.allclose(s.transform([[5.0, 6.0]]), [[3.0, 1.0]])


def test_fit_predict_accepts_dict_configs():
    X, y = _blobs(n_classes=2)
    pred = fit_predict(X, y, X, 2, {"hidden": 16, "epochs": 50, "lr": 1e-2, "inner_score": 0.5}, seed=0)
    assert pred.shape == y.shape


def test_head_rejects_bad_labels():
    with pytest.raises(ValueError):
        MLPHead(2).fit(np.zeros((3, 2)), np.array([0, 1, 2]))


def test_splitters_partition_the_training_rows():
    train = np.array([0, 2, 3, 5, 7, 8, 9, 11, 12, 13])
    labels = np.zeros(14, dtype=int)
    labels[[2, 5, 9, 12]] = 1
    for splits in (stratified_kfold(train, labels, 3, seed=0), kfold(train, 3, seed=0)):
        assert len(splits) == 3
        vals = np.concatenate([va for _, va in splits])
        assert sorted(vals.tolist()) == train.tolist()
        for tr, va in splits:
            assert not set(tr) & set(va)
            assert sorted(np.concatenate([tr, va]).tolist()) == train.tolist()
    # stratified: every validation fold holds at least one row of the minority class
    for _, va in stratified_kfold(train, labels, 3, seed=0):
        assert labels[va].sum() >= 1


def test_gbt_head_fits_blobs_and_maps_probabilities_to_all_classes():
    X, y = _blobs(n_per=10)
    head = GBTHead(4, GBTConfig(max_iter=50, max_leaf_nodes=7, min_samples_leaf=2), seed=0).fit(X, y)  # class 3 never seen
    assert (head.predict(X) == y).all()
    proba = head.predict_proba(X)
    assert proba.shape == (len(y), 4) and np.allclose(proba.sum(axis=1), 1.0) and (proba[:, 3] == 0).all()


def test_gbt_feature_subsampling_follows_the_seed():
    X, y = _blobs(n_per=12, n_classes=2, dim=8, seed=4)
    Xt = np.random.RandomState(5).randn(30, 8) * 5
    cfg = GBTConfig(max_iter=30, max_features=0.3, min_samples_leaf=2)
    a, b, c = (GBTHead(2, cfg, s).fit(X, y).predict_proba(Xt) for s in (1, 1, 2))
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_configs_name_their_head_and_unknown_heads_are_refused():
    assert isinstance(make_head(2, {"head": "gbt", "max_iter": 10, "inner_score": 0.5}), GBTHead)
    assert isinstance(make_head(2, {"hidden": 16}), MLPHead)
    assert HeadConfig().to_dict()["head"] == "mlp" and GBTConfig().to_dict()["head"] == "gbt"
    with pytest.raises(ValueError, match="unknown head"):
        make_head(2, {"head": "svm"})
    gbt = search_space(6, head="gbt")
    assert gbt == search_space(6, head="gbt") and len({tuple(sorted(c.items())) for c in gbt}) == 6
    assert all(c["head"] == "gbt" for c in gbt)
    with pytest.raises(ValueError, match="unknown head"):
        search_space(2, head="svm")


def test_search_space_is_small_distinct_and_fixed():
    a, b = search_space(8, epochs=(30, 60)), search_space(8, epochs=(30, 60))
    assert a == b and len(a) == 8
    assert len({tuple(sorted(c.items())) for c in a}) == 8
    assert {c["epochs"] for c in a} <= {30, 60}


def test_search_space_crosses_the_draws_with_the_pca_sizes():
    base = search_space(4, head="gbt")
    crossed = search_space(4, head="gbt", pca=(0, 8, 8, 2))
    assert [c["pca"] for c in crossed] == [0] * 4 + [8] * 4 + [2] * 4  # repeated sizes once, in the given order
    assert [dict(c, pca=0) for c in crossed[4:8]] == base  # the draws do not depend on pca
    assert all(c["pca"] == 0 for c in base) and all(c["pca"] == 0 for c in search_space(3))
    with pytest.raises(ValueError, match="pca"):
        search_space(2, pca=(-1,))


def _hidden_direction(n: int = 240, dim: int = 60, seed: int = 0):
    """The label is the sign of one latent spread over all `dim` noisy columns, plus a kept context column."""
    rng = np.random.RandomState(seed)
    z = rng.randn(n)
    X = np.outer(z, rng.randn(dim)) * 2 + rng.randn(n, dim) * 0.5
    context = rng.rand(n, 1) * 1e6  # large-scale column that must pass through untouched
    return np.hstack([X, context]), (z > 0).astype(int)


def test_embedding_pca_fits_on_training_rows_and_passes_context_through():
    X, _ = _hidden_direction()
    red = EmbeddingPCA(3, keep=1).fit(X[:200])
    Z = red.transform(X)
    assert Z.shape == (240, 4) and np.array_equal(Z[:, -1], X[:, -1])
    train = Z[:200, :3]
    assert np.allclose(train.mean(axis=0), 0, atol=1e-9)  # centred on the training rows
    var = train.var(axis=0)
    assert var[0] > 10 * var[1] and var[1] >= var[2]  # the latent direction comes first
    assert np.allclose(np.corrcoef(train.T) - np.eye(3), 0, atol=1e-6)
    assert not np.allclose(Z[200:, :3].mean(axis=0), 0, atol=1e-3)  # test rows use the training statistics
    assert EmbeddingPCA(50).fit(X[:10]).transform(X).shape == (240, 10)  # at most as many components as rows
    alone = EmbeddingPCA(2, keep=61).fit(X)  # no embedding column (the context alone): nothing cut, nothing lost
    assert np.array_equal(alone.transform(X), X)
    with pytest.raises(ValueError, match="fewer than the 62 to keep"):
        EmbeddingPCA(2, keep=62).fit(X)


def test_pca_heads_find_a_direction_spread_over_many_columns():
    X, y = _hidden_direction()
    for cfg in ({"head": "gbt", "max_iter": 50, "min_samples_leaf": 5, "pca": 2},
                {"hidden": 16, "epochs": 60, "lr": 1e-2, "pca": 2}):
        head = make_head(2, cfg, seed=0, keep=1)
        assert isinstance(head, ReducedHead) and head.reducer.keep == 1
        assert (head.fit(X[:200], y[:200]).predict(X[200:]) == y[200:]).mean() >= 0.9
        assert np.array_equal(fit_predict(X[:200], y[:200], X[200:], 2, cfg, 0, keep=1), head.predict(X[200:]))
    assert isinstance(make_head(2, {"head": "gbt", "pca": 0}), GBTHead)


def _gain_rows(n: int = 120, seed: int = 0):
    """Three choices: choice 0 gains 1.1 everywhere; choice 1 gains 3 where the latent z > 0.5 and 0.2 elsewhere;
    choice 2 wins (1.2 vs 1.1) where z < -0.5 and is poor elsewhere. z is spread over 8 noisy columns."""
    rng = np.random.RandomState(seed)
    z = rng.randn(n)
    X = np.outer(z, rng.randn(8)) + rng.randn(n, 8) * 0.1
    G = np.stack([np.full(n, 1.1), np.where(z > 0.5, 3.0, 0.2), np.where(z < -0.5, 1.2, 0.5)], axis=1)
    return X, G


def test_gain_head_learns_the_gains_and_shrinks_to_the_best_average_choice():
    X, G = _gain_rows()
    y = G.argmax(axis=1)
    head = GainHead(3, GainConfig(alpha=1.0)).fit(X[:80], y[:80], G[:80])
    pred = head.predict(X[80:])
    assert head.predict_gains(X[80:]).shape == (40, 3)
    # it earns most of the oracle's gain on unseen rows (a label-only head would not know choice 0 is safe)
    assert G[80:][np.arange(40), pred].mean() >= 0.9 * G[80:].max(axis=1).mean()
    # a huge ridge forgets the features: one choice everywhere, the best on average over the training rows
    flat = GainHead(3, GainConfig(alpha=1e9)).fit(X[:80], y[:80], G[:80]).predict(X[80:])
    assert set(flat.tolist()) == {int(G[:80].mean(axis=0).argmax())}
    assert np.array_equal(pred, fit_predict(X[:80], y[:80], X[80:], 3, {"head": "gain", "alpha": 1.0},
                                            gains_train=G[:80]))
    reduced = make_head(3, {"head": "gain", "alpha": 1.0, "pca": 2})
    assert isinstance(reduced, ReducedHead) and reduced.fit(X[:80], y[:80], G[:80]).predict(X[80:]).shape == (40,)
    with pytest.raises(ValueError, match="gain of every choice"):
        GainHead(3).fit(X, y)
    for bad in (G[:, :2], np.where(G == 3.0, np.nan, G)):  # a choice short, a missing gain
        with pytest.raises(ValueError, match="gains must be finite"):
            GainHead(3).fit(X, y, bad)
    with pytest.raises(RuntimeError, match="before fit"):
        GainHead(3).predict(X)


def test_gain_search_space_and_problems_without_gains():
    gain = search_space(8, head="gain")
    assert len(gain) == 8 and all(c["head"] == "gain" for c in gain)
    alphas = [c["alpha"] for c in gain]
    assert alphas == sorted(alphas, reverse=True)  # strongest first: ties go to the simpler head
    assert isinstance(make_head(3, gain[0]), GainHead)
    with pytest.raises(select.MirtuneError, match="gain head needs"):
        select_configs([_toy_problem()], gain[:2], n_inner=2, use_ray=False)


def _gain_problem() -> tuple[Problem, np.ndarray]:
    """A gain problem of 80 rows of `_gain_rows` in 4 outer folds, scored by the mean gain of the picks; and G."""
    X, G = _gain_rows(n=80, seed=1)
    y = G.argmax(axis=1)
    fold = np.arange(len(y)) % 4
    outer = [(np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in range(4)]
    return Problem(name="gain", X=X, y=y, n_classes=3, outer=outer,
                   inner_splits=lambda tr, n_inner, seed: kfold(tr, n_inner, seed),
                   score=lambda idx, pred: float(G[idx, pred].mean()), gains=G), G


def test_gain_head_through_selection_and_outer_fits():
    prob, G = _gain_problem()
    y = prob.y
    shown = []

    def bar(items, total, desc):  # what a progress bar sees: every candidate, in order
        for item in items:
            shown.append((item[0], total, desc))
            yield item

    chosen = select_configs([prob], search_space(8, head="gain"), n_inner=3, use_ray=False, progress=bar)
    assert [c for c, _, _ in shown] == list(range(8)) and shown[0][1:] == (8, "head candidates")
    assert all(chosen[("gain", k)]["alpha"] < 1e5 for k in range(4))  # the features pay here
    preds = select.evaluate_outer([prob], chosen, seeds=[0, 1], use_ray=False)["gain"]
    assert np.array_equal(preds[0], preds[1])  # deterministic
    earned = G[np.arange(len(y)), preds[0]].mean()
    assert earned >= 0.85 * G.max(axis=1).mean() and earned > G.mean(axis=0).max() + 0.3  # beats one fixed choice


def test_shared_fits_give_every_candidate_its_own_labels():
    """fit_predict_many fits once per fit_key yet answers as fit_predict does for each candidate: every head kind,
    margin, anchor, risk and neighbour rule, with PCA, context columns, and tied (duplicated) rows."""
    from mirtune.predict.heads import fit_key, fit_predict_many
    from mirtune.predict.predictor import candidate_configs

    X, G = _gain_rows(n=90, seed=4)
    X = np.vstack([X, X[:10]])  # duplicated rows: neighbours tie, and ties go to the earlier row
    G = np.vstack([G, G[:10] + 0.05]) + np.random.RandomState(0).randn(100, 3) * 0.05
    y = G.argmax(axis=1)
    configs = candidate_configs(("gain", "knn"), 4, anchors=("default", "best")) + [
        dict(c, pca=3) for c in candidate_configs(("gain", "knn"), 2)] + [
        {"head": "forest", "n_trees": 5, "margin": m} for m in (0.0, 0.1)] + [{"head": "gbt", "max_iter": 20}] + [
        dict(c, risk=r) for c in candidate_configs(("gain", "knn"), 2) for r in (0.5, 2.0)]
    assert len({fit_key(c) for c in configs}) < len(configs) / 3  # the point: far fewer fits than candidates
    tr, te = np.arange(0, 100, 2), np.arange(1, 100, 2)
    many = fit_predict_many(X[tr], y[tr], X[te], 3, configs, 0, keep=2, gains_train=G[tr])
    for cfg, labels in zip(configs, many):
        assert np.array_equal(labels, fit_predict(X[tr], y[tr], X[te], 3, cfg, 0, keep=2, gains_train=G[tr])), cfg
    assert len({tuple(labels) for labels in many}) > 3  # the candidates do differ



def test_measured_offsets_are_added_before_deciding_and_the_heads_learn_the_rest():
    """A column measured per row (the thread probe: `Problem.offsets`) carries the gain of one group of choices;
    the heads learn only what is left, and the decision adds the measurement back. Here choice 2's gain is the
    measured value itself, which no feature predicts: with the offsets every row picks its best choice."""
    from mirtune.predict.heads import fit_predict_many

    rng = np.random.RandomState(1)
    X = rng.randn(80, 3)
    measured = rng.uniform(-1, 1, 80)  # e.g. log2 of one thread's speedup, measured, not predictable from X
    G = np.stack([np.zeros(80), np.full(80, 0.1), measured], axis=1)
    offsets = np.outer(measured, [0.0, 0.0, 1.0])
    tr, te = np.arange(0, 80, 2), np.arange(1, 80, 2)
    cfg = [{"head": "gain", "alpha": 1.0, "margin": 0.0}, {"head": "knn", "k": 5, "weight": 1.0}]
    best = G[te].argmax(axis=1)
    with_offsets = fit_predict_many(X[tr], G[tr].argmax(1), X[te], 3, cfg, gains_train=(G - offsets)[tr],
                                    offsets_test=offsets[te])
    without = fit_predict_many(X[tr], G[tr].argmax(1), X[te], 3, cfg, gains_train=G[tr])
    for labels in with_offsets:
        assert np.array_equal(labels, best)
    assert all(not np.array_equal(labels, best) for labels in without)
    with pytest.raises(ValueError, match="gain head"):
        fit_predict_many(X[tr], G[tr].argmax(1), X[te], 3, [{"head": "gbt", "max_iter": 5}], offsets_test=offsets[te])

def _toy_problem(n: int = 40, n_folds: int = 4) -> Problem:
    X, y = _blobs(n_per=n // 2, n_classes=2, seed=3)
    fold = np.arange(len(y)) % n_folds
    outer = [(np.flatnonzero(fold != k), np.flatnonzero(fold == k)) for k in range(n_folds)]
    return Problem(name="toy", X=X, y=y, n_classes=2, outer=outer,
                   inner_splits=lambda tr, n_inner, seed: stratified_kfold(tr, y, n_inner, seed),
                   score=lambda idx, pred: float((y[idx] == pred).mean()))


def test_inner_cv_never_sees_the_test_fold(monkeypatch):
    prob = _toy_problem()
    calls = []

    def recorder(problem, train_idx, val_idx, configs, seed):
        calls.append((train_idx.copy(), val_idx.copy()))
        return [problem.y[val_idx], 1 - problem.y[val_idx]]  # a perfect "model" and a wrong one

    for k, (train, test) in enumerate(prob.outer):
        calls.clear()
        assert inner_cv_scores(prob, k, [{}, {}], n_inner=3, fit=recorder).tolist() == [1.0, 0.0]
        assert len(calls) == 3
        for tr, va in calls:
            assert not set(tr.tolist()) & set(test.tolist())
            assert not set(va.tolist()) & set(test.tolist())
            assert set(tr.tolist()) | set(va.tolist()) == set(train.tolist())

    # the same holds through select_configs, which picks per outer fold by inner score only
    seen = []

    def scored(problem, train_idx, val_idx, configs, seed):
        seen.append((train_idx, val_idx))
        return [problem.y[val_idx] if config["hidden"] == 64 else 1 - problem.y[val_idx] for config in configs]

    monkeypatch.setattr(select, "_fit", scored)
    configs = [HeadConfig(hidden=32).to_dict(), HeadConfig(hidden=64).to_dict()]
    chosen = select_configs([prob], configs, n_inner=2, use_ray=False)
    assert all(chosen[("toy", k)]["hidden"] == 64 for k in range(4))
    assert all(chosen[("toy", k)]["inner_score"] == 1.0 for k in range(4))
    tests = [set(te.tolist()) for _, te in prob.outer]
    assert len(seen) == 2 * 4 * 2
    for i, (tr, va) in enumerate(seen):
        k = (i // 2) % 4  # candidate-major, then outer fold, then inner split
        assert not (set(tr.tolist()) | set(va.tolist())) & tests[k]


def test_the_one_se_rule_keeps_the_linear_head_unless_another_kind_beats_it_beyond_the_inner_folds_spread():
    from mirtune.predict.select import chosen_by_rule

    configs = [{"head": "knn", "k": 5}, {"head": "gain", "alpha": 100.0}, {"head": "gain", "alpha": 1.0},
               {"head": "forest"}]
    scores = np.array([0.968, 0.967, 0.960, -np.inf])  # the forest was not scored
    assert chosen_by_rule(scores, np.full(4, 0.004), configs, "best") == 0
    assert chosen_by_rule(scores, np.full(4, 0.004), configs, "one-se") == 1  # the best gain head within 1 SE
    assert chosen_by_rule(scores, np.full(4, 0.0005), configs, "one-se") == 0  # knn beats it beyond the spread
    assert chosen_by_rule(np.array([0.9, 0.7]), np.zeros(2), configs[2:], "one-se") == 0


def test_select_configs_applies_the_rule_from_each_candidates_inner_fold_spread(monkeypatch):
    """Inner scores per fold: the knn candidate is right on three inner folds of four (0.75, standard error 0.25),
    the gain one on 70% of every fold's rows (0.7): "best" takes the knn, one-se keeps the gain head, whose score
    is within one standard error of the knn's; an unknown rule is one clear error."""
    import dataclasses

    prob = _toy_problem()
    prob = dataclasses.replace(prob, gains=np.zeros((len(prob.y), 2)))  # gain-head candidates need gains
    calls = iter(range(10_000))

    def scored(problem, train_idx, val_idx, configs, seed):
        inner = next(calls) % 4  # one call per inner split, four per outer fold
        y = problem.y[val_idx]
        part = np.where(np.arange(len(y)) < round(0.7 * len(y)), y, 1 - y)
        return [(y if inner != 3 else 1 - y) if c["head"] == "knn" else part for c in configs]

    monkeypatch.setattr(select, "_fit", scored)
    monkeypatch.setattr(select, "fit_families", lambda cs: [[0, 1]])  # both candidates in each call
    configs = [{"head": "knn", "k": 1}, {"head": "gain", "alpha": 1.0}]
    best = select_configs([prob], configs, n_inner=4, use_ray=False)
    one_se = select_configs([prob], configs, n_inner=4, use_ray=False, rule="one-se")
    assert all(best[("toy", k)]["head"] == "knn" and best[("toy", k)]["inner_score"] == 0.75 for k in range(4))
    assert all(one_se[("toy", k)]["head"] == "gain" and abs(one_se[("toy", k)]["inner_score"] - 0.7) < 0.05
               for k in range(4))
    with pytest.raises(select.MirtuneError, match="unknown selection rule"):
        select_configs([prob], configs, n_inner=2, use_ray=False, rule="lowest")


def test_evaluate_outer_fills_every_test_row():
    prob = _toy_problem()
    chosen = {("toy", k): HeadConfig(hidden=16, epochs=30, lr=1e-2).to_dict() for k in range(4)}
    preds = select.evaluate_outer([prob], chosen, seeds=[0, 1], use_ray=False)["toy"]
    assert preds.shape == (2, len(prob.y)) and (preds >= 0).all()
    assert (preds == prob.y).mean() > 0.9  # well separated blobs


def test_forest_head_learns_a_threshold_the_ridge_head_cannot_and_predicts_with_numpy_alone():
    # choice 1 pays only where feature 0 passes a threshold (as one thread pays where regions are short); a second,
    # wider column of noise makes the ridge head's straight line worse
    rng = np.random.RandomState(5)
    X = np.column_stack([rng.uniform(0, 1, 300), rng.randn(300) * 10])
    G = np.column_stack([np.zeros(300), np.where(X[:, 0] > 0.8, 1.0, -0.3)])
    train, test = np.arange(200), np.arange(200, 300)
    forest = make_head(2, {"head": "forest", "n_trees": 30, "min_samples_leaf": 3}, seed=1).fit(X[train], None,
                                                                                                G[train])
    assert isinstance(forest, ForestGainHead)
    right = (forest.predict(X[test]) == G[test].argmax(axis=1)).mean()
    ridge = (GainHead(2, GainConfig(alpha=1.0)).fit(X[train], None, G[train]).predict(X[test])
             == G[test].argmax(axis=1)).mean()
    assert right >= 0.95 and right > ridge
    # the same trees as scikit-learn's forest, walked in numpy
    from sklearn.ensemble import RandomForestRegressor

    rf = RandomForestRegressor(30, min_samples_leaf=3, max_features=0.5, random_state=1, n_jobs=1)
    assert np.allclose(forest.predict_gains(X[test]), rf.fit(X[train], G[train]).predict(X[test]), atol=1e-6)
    # its arrays give the same head back; a corrupt node index is refused
    stored = forest.arrays()
    assert stored["value"].dtype == np.float32 and stored["left"].dtype == np.int32  # small, as saved
    assert len(stored["value"]) == (stored["left"] < 0).sum()  # gains are kept at the leaves only
    again = ForestGainHead(2, ForestConfig(n_trees=30)).set_arrays(stored)
    assert np.array_equal(again.predict_gains(X[test]), forest.predict_gains(X[test]))
    bad = dict(stored, left=np.where(stored["left"] > 0, len(stored["left"]) + 5, -1))
    with pytest.raises(ValueError, match="node indices"):
        ForestGainHead(2).set_arrays(bad)
    with pytest.raises(RuntimeError, match="before fit"):
        ForestGainHead(2).predict(X)
    with pytest.raises(ValueError, match="gain of every choice"):
        ForestGainHead(2).fit(X, None)
    # the anchor rule applies as to the other gain heads: a margin larger than any gain keeps the default
    assert set(make_head(2, {"head": "forest", "n_trees": 10, "margin": 5.0}).fit(X, None, G).predict(X)) == {0}


def test_forest_search_space():
    forest = search_space(4, head="forest")
    assert len(forest) == 4 and all(c["min_samples_leaf"] >= 3 for c in forest) and all(c["head"] == "forest" for c in forest)
    assert len({(c["min_samples_leaf"], c["max_features"]) for c in forest}) == 4
    assert search_space(4, head="forest") == forest  # fixed draws


def test_head_selection_on_ray_chooses_as_in_process():
    """The Ray Tune path (one trial per family of candidates sharing a fit) reads back every candidate's scores
    and chooses what the in-process path chooses."""
    from mirtune.predict.predictor import candidate_configs

    prob, _ = _gain_problem()
    configs = candidate_configs(("gain", "knn"), 2)
    assert select_configs([prob], configs, n_inner=3, use_ray=True) == \
        select_configs([prob], configs, n_inner=3, use_ray=False)


def test_risk_weighs_each_choice_by_the_shortfalls_of_its_training_rows():
    """A choice that pays a lot on a few rows and costs on many others (two threads, static,1) can lead on average;
    its downside (the root mean square shortfall of its rows under the head's prediction) is large, that of a steady
    choice small. With `risk` the steady choice wins; without, the volatile one; `risk` shares the fit."""
    from mirtune.predict.heads import decide, downside, fit_key

    rng = np.random.RandomState(2)
    X = rng.randn(60, 2)
    volatile = np.where(np.arange(60) % 4 == 0, 0.9, -0.2)  # mean 0.075, unpredictable from X
    G = np.stack([np.zeros(60), volatile, np.full(60, 0.05)], axis=1)
    for cfg in ({"head": "gain", "alpha": 1e6}, {"head": "knn", "k": 60, "weight": 1.0},
                {"head": "forest", "n_trees": 10, "min_samples_leaf": 30}):
        calm = make_head(3, cfg).fit(X, None, G)
        careful = make_head(3, dict(cfg, risk=1.0)).fit(X, None, G)
        assert fit_key(dict(cfg, risk=1.0)) == fit_key(cfg)
        d = careful.downside_
        assert d[0] == pytest.approx(0.0, abs=1e-9) and d[2] < 0.02 and d[1] > 0.2, (cfg, d)
        assert set(calm.predict(X[:5])) == {1} and set(careful.predict(X[:5])) == {2}, cfg
    assert np.allclose(downside(G, G), 0.0)
    assert np.allclose(downside(np.array([[0.0, -1.0]]), np.zeros((1, 2))), [0.0, 1.0])  # gains over go uncounted
    assert np.allclose(downside(np.array([[0.0, 1.0]]), np.zeros((1, 2))), 0.0)
    assert list(decide(np.array([[0.0, 0.3, 0.2]]), penalty=np.array([0.0, 0.2, 0.0]))) == [2]
