"""The data-efficiency study's plan: subsets (stratified by label, and by application for the measured tasks),
the test folds never trained on, the reduction factor, and the command's one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

from mirtune.experiments import data_efficiency as de

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
    from mirtune.experiments.data_efficiency_devmap import _head_job
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
        _head_job(X, frames["amd"].label.to_numpy(), test, {0.5: np.concatenate([subsets[0.5], test[:1]])}, 0,
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
    fac = de.factor_figures(curves, FRACTIONS)
    assert fac["data_reduction_factor"] == 5.0 and fac["scratch_full_error"] == 0.10
    assert de.factor_figures({"frozen": curves["frozen"]}, FRACTIONS)["data_reduction_factor"] is None


def test_subsets_by_application_are_nested_and_never_split_an_application(openmp_problem):
    apps = np.array([f"app{i // 3}" for i in range(60)])  # 20 applications of 3 groups each
    train = np.flatnonzero(apps != "app7")
    subsets = de.app_subsets(train, apps, FRACTIONS, seed=3)
    for f, rows in subsets.items():
        chosen = set(apps[rows])
        assert "app7" not in chosen and set(rows) <= set(train)
        assert len(chosen) == min(19, max(de.MIN_APPS, round(f * 19)))
        for a in chosen:  # every group of a chosen application, none split off
            assert set(np.flatnonzero(apps == a)) <= set(rows)
    assert len(set(apps[subsets[0.05]])) == de.MIN_APPS  # round(0.95) = 1 application raised to the minimum
    for small, big in zip(FRACTIONS, FRACTIONS[1:]):
        assert set(subsets[small]) <= set(subsets[big])
    assert set(subsets[0.2]) < set(subsets[0.5])
    assert np.array_equal(subsets[1.0], train)
    assert all(np.array_equal(v, de.app_subsets(train, apps, FRACTIONS, seed=3)[f]) for f, v in subsets.items())
    assert not np.array_equal(de.app_subsets(train, apps, FRACTIONS, seed=4)[0.2], subsets[0.2])
    # on the real leave-one-application-out folds: the held-out application is never trained on
    _, (_, table, folds, _) = openmp_problem
    plan = de.plan_app_subsets(table.apps, folds, range(len(folds)), FRACTIONS, 2)
    assert len(plan) == 2 * len(folds)
    table_apps = np.asarray(table.apps)
    for (k, r), (test, subs) in plan.items():
        assert set(table_apps[test]) == {folds[k][2]}
        for rows in subs.values():
            assert folds[k][2] not in set(table_apps[rows])
    with pytest.raises(AssertionError):  # a plan whose subsets leak the held-out application is refused
        de.plan_app_subsets(table.apps, [(folds[0][1], folds[0][1], folds[0][2])], [0], [1.0], 1)
    assert de.resolve_folds(["a", "b", "c"], "c,0", "--folds") == [0, 2]
    with pytest.raises(de.UsageError, match="no held-out application 'd'"):
        de.resolve_folds(["a", "b", "c"], "d", "--folds")


def _main(argv):
    from mirtune import cli

    return cli.main(["evaluate", *argv])


@pytest.mark.parametrize("argv, fragment", [
    (["data-efficiency", "devmap", "--label-fractions", "0,0.5"], "(0, 1]"),
    (["data-efficiency", "devmap", "--label-fractions", "0.5,1.5"], "(0, 1]"),
    (["data-efficiency", "devmap", "--label-fractions", "half"], "takes numbers"),
    (["data-efficiency", "devmap", "--label-fractions", "0.5", "--compare", "frozen,bogus"], "unknown method 'bogus'"),
    (["data-efficiency", "devmap", "--label-fractions", "0.5", "--repeats", "0"], "--repeats"),
    (["data-efficiency", "coarsening", "--label-fractions", "0.5"], "openmp, vectorize, devmap, cuda_blocks only"),
    (["data-efficiency", "openmp", "--label-fractions", "0.5,2"], "(0, 1]"),
    (["data-efficiency", "vectorize", "--label-fractions", "0.5", "--compare", "frozen,bogus"], "unknown method 'bogus'"),
    (["data-efficiency", "openmp", "--label-fractions", "0.5", "--data", "/no/such/folder"], "no such file or directory"),
    (["data-efficiency", "openmp", "--label-fractions", "0.5", "--data-dir", "/tmp"], "--data-dir does not apply"),
    (["data-efficiency", "openmp", "--label-fractions", "0.5", "--head", "mlp"], "gain (default) or knn"),
    (["data-efficiency", "openmp", "--label-fractions", "0.5", "--head", "knn"], "ridge gain head"),
    (["data-efficiency", "openmp", "--label-fractions", "0.5", "--compare", "frozen", "--e2e-folds", "2mm"], "--e2e-folds applies"),
    (["data-efficiency", "openmp", "--label-fractions", "0.5", "--data", "datasets/openmp", "--folds", "2mm,nosuchapp"],
     "no held-out application 'nosuchapp'"),
    (["data-efficiency", "openmp", "--label-fractions", "0.5", "--data", "datasets/openmp", "--folds", "2mm", "--e2e-folds", "3mm"],
     "among --folds"),
    (["data-efficiency", "devmap", "--label-fractions", "0.5", "--e2e-folds", "12"], "no fold 12"),
    (["data-efficiency", "devmap", "--label-fractions", "0.5", "--head", "gbt"], "MLP head"),
    (["data-efficiency", "devmap", "--label-fractions", "0.5", "--compare", "frozen", "--head", "gain"], "mlp (default) or gbt"),
])
def test_bad_options_are_one_line_and_exit_2(capsys, monkeypatch, argv, fragment):
    from mirtune.paths import REPO_DIR

    monkeypatch.chdir(REPO_DIR)
    rc = _main(argv)
    err = capsys.readouterr().err.strip()
    assert rc == 2, err
    assert len(err.splitlines()) == 1 and fragment in err, err
