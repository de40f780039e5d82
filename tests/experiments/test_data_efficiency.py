"""The data-efficiency study: subsets, folds, the reduction factor, the end-to-end models' starting weights, and
the command's one-line errors; on devmap and on the measured tasks (openmp, vectorize: subsets by application,
gain heads, the code-free baselines, the end-to-end regression of every configuration's gain)."""

from __future__ import annotations

import dataclasses

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
    from mirtune.experiments.finetune import initial_encoder

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
    from mirtune.experiments import finetune
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
    from mirtune.experiments.finetune import E2EConfig
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
    (["data-efficiency", "devmap", "--label-fractions", "0,0.5"], "(0, 1]"),
    (["data-efficiency", "devmap", "--label-fractions", "0.5,1.5"], "(0, 1]"),
    (["data-efficiency", "devmap", "--label-fractions", "half"], "takes numbers"),
    (["data-efficiency", "devmap", "--label-fractions", "0.5", "--compare", "frozen,bogus"], "unknown method 'bogus'"),
    (["data-efficiency", "devmap", "--label-fractions", "0.5", "--repeats", "0"], "--repeats"),
    (["data-efficiency", "coarsening", "--label-fractions", "0.5"], "openmp, vectorize, devmap only"),
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


# ------------------------------------------------------------------------------------------------ measured tasks

def _openmp_problem():
    from mirtune.paths import REPO_DIR
    from mirtune.predict.held_out import held_out_problem

    data = [str(REPO_DIR / "datasets" / "openmp")]
    return data, held_out_problem("openmp", data)


def test_subsets_by_application_are_nested_and_never_split_an_application():
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
    _, (_, table, folds, _) = _openmp_problem()
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


def test_measured_study_on_a_slice_of_openmp():
    from mirtune.tasks.measured import best_fixed, geomean, share_of_oracle

    data, problem = _openmp_problem()
    _, table, folds, _ = problem
    fractions = [0.1, 0.5, 1.0]
    result = de.run_measured("openmp", data, fractions, ["frozen", "ir2vec"], 2, folds=[0, 1, 2],
                             use_ray=False, note=lambda m: None, problem=problem)
    assert result["status"] == "complete" and result["comparison_folds"] == [folds[k][2] for k in (0, 1, 2)]
    assert result["methods"] == ["frozen", "ir2vec", "best_fixed", "default"]
    for m in result["methods"]:
        curve = result["curves"][m]
        assert [c["fraction"] for c in curve] == fractions and all(c["repeats"] == 2 for c in curve)
        assert all(0 < c["share_mean"] <= 1 and c["error_mean"] == pytest.approx(1 - c["share_mean"]) for c in curve)
        assert [c["n_apps"] for c in curve] == sorted(c["n_apps"] for c in curve) and curve[0]["n_apps"] >= 2
        assert curve[-1]["n_apps"] == len(folds) - 1
    # the code-free baselines: the default everywhere, the best fixed configuration of each subset's own groups
    s = table.speedups
    test = np.concatenate([folds[k][1] for k in (0, 1, 2)])
    assert result["curves"]["default"][0]["share_mean"] == pytest.approx(
        geomean(share_of_oracle(s, np.zeros(len(test), dtype=int), test)), abs=1e-5)
    chosen = np.concatenate([np.full(len(folds[k][1]), best_fixed(s, folds[k][0])) for k in (0, 1, 2)])
    assert result["curves"]["best_fixed"][-1]["share_mean"] == pytest.approx(
        geomean(share_of_oracle(s, chosen, test)), abs=1e-5)
    # the factors as defined: none against scratch (not run); against best fixed on all the data, from the curves
    assert result["data_reduction_factor"] is None and "not run" in result["factor"]["vs_scratch"]["why"]
    fixed_full = result["curves"]["best_fixed"][-1]["error_mean"]
    expected = de.reduction_factor(fractions, [c["error_mean"] for c in result["curves"]["frozen"]], fixed_full)
    fac = result["factor"]["vs_best_fixed"]
    assert (fac["data_reduction_factor"], fac["fraction"]) == expected
    assert result["data_reduction_factor_vs_best_fixed"] == expected[0]
    assert {"frozen_fit_s", "ir2vec_fit_s", "best_fixed_fit_s"} <= set(result["cost"]["1.0"])
    text = de.table(result)
    assert "share of the oracle" in text and "best_fixed" in text and "vs best fixed" in text


def test_measured_study_runs_end_to_end_methods_on_their_folds_only(monkeypatch):
    """The wiring of scratch/finetune on a measured task, with the trainer replaced by a stand-in that picks the
    configuration best on average over its training rows (the real trainer is tested below)."""
    from mirtune.experiments import finetune
    from mirtune.tasks import openmp

    data, problem = _openmp_problem()
    _, table, folds, _ = problem
    gains = table.train_gains()
    seen = []

    def fake_job(init, model_dir, train_paths, train_ctx, train_y, test_paths, test_ctx, config, seed, objective):
        assert objective == "gain" and train_y.shape == (len(train_paths), gains.shape[1])
        assert train_ctx.shape == (len(train_paths), len(openmp.CONTEXT)) and len(test_ctx) == len(test_paths)
        seen.append((init, len(train_paths), seed))
        pick = int(np.argmax(train_y.mean(axis=0)))
        return np.full(len(test_paths), pick), {"fit_s": 1.0, "steps": 20, "final_loss": 0.1}

    monkeypatch.setattr(de, "_e2e_job", fake_job)
    monkeypatch.setattr(de, "_frozen_embed_cost", lambda *a: {})
    monkeypatch.setattr(finetune, "load_samples", lambda paths, loaded: [])
    fractions = [0.5, 1.0]
    result = de.run_measured("openmp", data, fractions, ["frozen", "scratch"], 2, folds=[0, 1, 2, 3],
                             e2e_folds=[1, 3], e2e_repeats=1, use_ray=False, note=lambda m: None, problem=problem)
    assert len(seen) == 2 * 2 and {s[2] for s in seen} == {0}  # 2 folds x 2 fractions, the first repeat only
    assert result["comparison_folds"] == [folds[1][2], folds[3][2]] and len(result["curves_all_folds"]) == 3
    assert [c["repeats"] for c in result["curves"]["scratch"]] == [1, 1]
    assert [c["repeats"] for c in result["curves"]["frozen"]] == [2, 2]
    fac = result["factor"]["vs_scratch"]
    expected = de.reduction_factor(fractions, [c["error_mean"] for c in result["curves"]["frozen"]],
                                   result["curves"]["scratch"][-1]["error_mean"])
    assert (fac["data_reduction_factor"], fac["fraction"]) == expected == (result["data_reduction_factor"],
                                                                          fac["fraction"])
    assert fac["folds"] == result["comparison_folds"]
    assert result["factor"]["vs_best_fixed"]["folds"] == result["folds"]  # heads and baselines: all 4 folds
    assert result["cost"]["1.0"]["scratch_fit_s"] == 1.0 and len(result["fits"]) == 4


def test_end_to_end_gain_regression_on_a_tiny_slice(tmp_path, monkeypatch):
    import torch

    from mirtune.embedding import load_encoder
    from mirtune.paths import REPO_DIR
    from mirtune.experiments import finetune
    from mirtune.predict.heads import GainConfig, GainHead, HeadConfig
    from mirtune.predict.predictor import program_ir
    from mirtune.tasks import vectorize
    from mirtune.tasks.measured import load_gain_table

    table = load_gain_table([REPO_DIR / "datasets" / "vectorize"], vectorize.SPEC)
    rows = np.arange(6)
    ir = [program_ir(table.sources[i]) for i in rows]
    gains = table.train_gains()[rows]
    context = np.zeros((6, 0))  # vectorize has no context features
    monkeypatch.setenv("MIRTUNE_EMBED_CACHE", str(tmp_path))
    loaded = load_encoder()
    samples = finetune.load_samples(ir, loaded)
    config = finetune.E2EConfig(epochs=1, min_steps=3, batch_size=4, max_statements=8, head=HeadConfig(epochs=2),
                                gain_head=GainConfig(alpha=10.0))
    # the head starts as the frozen method's ridge gain head on the initial embeddings
    feats = np.random.RandomState(0).rand(6, 5)
    mean, std, linear, target, _ = finetune._probe_head("gain", feats, gains, config, 0, 0)
    ridge = GainHead(gains.shape[1], config.gain_head).fit(feats, gains=gains)
    with torch.no_grad():
        start = linear(torch.as_tensor((feats - mean) / std, dtype=torch.float32)).numpy()
    assert np.allclose(start, ridge.predict_gains(feats), atol=1e-4) and target.shape == gains.shape
    model, info = finetune.fit_end_to_end("scratch", loaded, samples, context, gains, config, seed=0,
                                          objective="gain")
    assert info["steps"] == 3 and np.isfinite(info["final_loss"])
    out = finetune.predict_outputs(model, samples, context)
    assert out.shape == gains.shape and np.isfinite(out).all()
    chosen = finetune.predict(model, samples, context)
    assert chosen.shape == (6,) and ((0 <= chosen) & (chosen < gains.shape[1])).all()
    assert np.array_equal(chosen, out.argmax(axis=1))  # margin 0: the highest predicted gain
    with pytest.raises(ValueError, match="objective"):
        finetune.fit_end_to_end("scratch", loaded, samples, context, gains, config, objective="rank")


def test_measured_command_writes_json_and_chart(tmp_path, capsys):
    import json

    from mirtune.paths import REPO_DIR

    out = tmp_path / "de.json"
    rc = _main(["data-efficiency", "vectorize", "--label-fractions", "0.5,1.0", "--compare", "frozen", "--repeats", "2", "--folds",
                "0,1,2,3", "--data", str(REPO_DIR / "datasets" / "vectorize"), "--no-ray", "--json", str(out)])
    assert rc == 0, capsys.readouterr().err
    result = json.loads(out.read_text())
    assert result["task"] == "vectorize" and result["status"] == "complete" and len(result["folds"]) == 4
    assert set(result["curves"]) == {"frozen", "best_fixed", "default"}
    assert result["head"]["head"] == "gain" and result["data_reduction_factor"] is None
    assert out.with_suffix(".png").stat().st_size > 10_000
    assert "vs best fixed" in capsys.readouterr().out
