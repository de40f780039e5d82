"""The data-efficiency study on the measured tasks (openmp, vectorize, cuda_blocks): gain heads and the code-free
baselines on a slice of openmp, the end-to-end methods on their folds only, a task whose context is the group's
(cuda_blocks' matrix size), and the command's JSON and chart."""

from __future__ import annotations

import numpy as np
import pytest

from mirtune.experiments import data_efficiency as de
from mirtune.experiments import data_efficiency_measured as dem
from mirtune.experiments import data_efficiency_report as report


def test_measured_study_on_a_slice_of_openmp(openmp_problem):
    from mirtune.tasks.measured import best_fixed, geomean, share_of_oracle

    data, problem = openmp_problem
    _, table, folds, _ = problem
    fractions = [0.1, 0.5, 1.0]
    result = dem.run_measured("openmp", data, fractions, ["frozen", "ir2vec"], 2, folds=[0, 1, 2],
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
    text = report.table(result)
    assert "share of the oracle" in text and "best_fixed" in text and "vs best fixed" in text


def test_measured_study_runs_end_to_end_methods_on_their_folds_only(monkeypatch, openmp_problem):
    """The wiring of scratch/finetune on a measured task, with the trainer replaced by a stand-in that picks the
    configuration best on average over its training rows (the real trainer: test_finetune.py)."""
    from mirtune.experiments import finetune
    from mirtune.tasks import openmp

    data, problem = openmp_problem
    _, table, folds, _ = problem
    gains = table.train_gains()
    seen = []

    def fake_job(init, model_dir, train_paths, train_ctx, train_y, test_paths, test_ctx, config, seed, objective):
        assert objective == "gain" and train_y.shape == (len(train_paths), gains.shape[1])
        assert train_ctx.shape == (len(train_paths), len(openmp.CONTEXT)) and len(test_ctx) == len(test_paths)
        seen.append((init, len(train_paths), seed))
        pick = int(np.argmax(train_y.mean(axis=0)))
        return np.full(len(test_paths), pick), {"fit_s": 1.0, "steps": 20, "final_loss": 0.1}

    monkeypatch.setattr(dem, "end_to_end_job", fake_job)
    monkeypatch.setattr(dem, "frozen_embed_cost", lambda *a: {})
    monkeypatch.setattr(finetune, "load_samples", lambda paths, loaded: [])
    fractions = [0.5, 1.0]
    result = dem.run_measured("openmp", data, fractions, ["frozen", "scratch"], 2, folds=[0, 1, 2, 3],
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


def test_cuda_blocks_study_reads_each_group_s_matrix_size(monkeypatch):
    """cuda_blocks has no context in the IR: the heads and the end-to-end models get the group's matrix size (the
    shipped H100 kernels; the trainer is the stand-in above)."""
    from mirtune.experiments import finetune
    from mirtune.predict.held_out import held_out_problem
    from mirtune.tasks import cuda_blocks

    from mirtune.paths import REPO_DIR

    data = [str(REPO_DIR / "datasets" / cuda_blocks.DATASETS[0])]
    problem = held_out_problem("cuda_blocks", data)
    _, table, folds, _ = problem
    matrix = cuda_blocks.group_context(table)[:, 0]
    assert len(set(matrix.round(6))) > 1  # several matrix sizes, so a wrong row order would show
    contexts = []

    def fake_job(init, model_dir, train_paths, train_ctx, train_y, test_paths, test_ctx, config, seed, objective):
        contexts.append((train_ctx[:, 0], test_ctx[:, 0]))
        return np.zeros(len(test_paths), dtype=int), {"fit_s": 1.0, "steps": 20, "final_loss": 0.1}

    monkeypatch.setattr(dem, "end_to_end_job", fake_job)
    monkeypatch.setattr(dem, "frozen_embed_cost", lambda *a: {})
    monkeypatch.setattr(finetune, "load_samples", lambda paths, loaded: [])
    seen_X = {}
    real_job = dem._measured_head_job

    def head_job(X, gains, speedups, n_context, test, subsets, seed, head):
        seen_X.update(X, n_context=n_context)
        return real_job(X, gains, speedups, n_context, test, subsets, seed, head)

    monkeypatch.setattr(dem, "_measured_head_job", head_job)
    result = dem.run_measured("cuda_blocks", data, [0.5, 1.0], ["frozen", "scratch"], 1, folds=[0, 1],
                              use_ray=False, note=lambda m: None, problem=problem)
    assert result["status"] == "complete" and seen_X["n_context"] == 1
    assert np.allclose(seen_X["frozen"][:, -1], matrix)  # the last column, the one the gain head keeps
    fold_contexts = [matrix[folds[k][1]] for k in (0, 1)]
    assert len(contexts) == 4  # 2 folds x 2 fractions
    for train_ctx, test_ctx in contexts:
        assert any(len(c) == len(test_ctx) and np.allclose(c, test_ctx) for c in fold_contexts)
        assert len(train_ctx) > 0 and set(train_ctx.round(6)) <= set(matrix.round(6))


def test_measured_command_writes_json_and_chart(tmp_path, capsys):
    import json

    from mirtune import cli
    from mirtune.paths import REPO_DIR

    out = tmp_path / "de.json"
    rc = cli.main(["evaluate", "data-efficiency", "vectorize", "--label-fractions", "0.5,1.0", "--compare", "frozen",
                   "--repeats", "2", "--folds", "0,1,2,3", "--data", str(REPO_DIR / "datasets" / "vectorize"),
                   "--no-ray", "--json", str(out)])
    assert rc == 0, capsys.readouterr().err
    result = json.loads(out.read_text())
    assert result["task"] == "vectorize" and result["status"] == "complete" and len(result["folds"]) == 4
    assert set(result["curves"]) == {"frozen", "best_fixed", "default"}
    assert result["head"]["head"] == "gain" and result["data_reduction_factor"] is None
    assert out.with_suffix(".png").stat().st_size > 10_000
    assert "vs best fixed" in capsys.readouterr().out


def test_the_fine_tuned_encoder_gets_its_own_factor_against_scratch(monkeypatch, openmp_problem):
    """With finetune and scratch both run, the result also says how many labels the pre-trained start saves: the
    same rule as the frozen head's, on the fine-tuned curve (stand-in trainers: finetune always picks the
    configuration best on its rows, scratch always the default)."""
    from mirtune.experiments import finetune

    data, problem = openmp_problem

    def fake_job(init, model_dir, train_paths, train_ctx, train_y, test_paths, test_ctx, config, seed, objective):
        pick = int(np.argmax(train_y.mean(axis=0))) if init == "finetune" else 0
        return np.full(len(test_paths), pick), {"fit_s": 1.0, "steps": 20, "final_loss": 0.1}

    monkeypatch.setattr(dem, "end_to_end_job", fake_job)
    monkeypatch.setattr(dem, "frozen_embed_cost", lambda *a: {})
    monkeypatch.setattr(finetune, "load_samples", lambda paths, loaded: [])
    fractions = [0.5, 1.0]
    result = dem.run_measured("openmp", data, fractions, ["frozen", "finetune", "scratch"], 1, folds=[0, 1, 2],
                              use_ray=False, note=lambda m: None, problem=problem)
    fac = result["factor"]["finetune_vs_scratch"]
    curves = result["curves"]
    assert fac["method"] == "finetune" and fac["reference"] == "scratch"
    assert (fac["data_reduction_factor"], fac["fraction"]) == de.reduction_factor(
        fractions, [c["error_mean"] for c in curves["finetune"]], curves["scratch"][-1]["error_mean"])
    assert fac["finetune_share"] == {str(c["fraction"]): c["share_mean"] for c in curves["finetune"]}
    assert result["factor"]["vs_scratch"]["method"] == "frozen"  # the headline factor stays the frozen head's
    assert "finetune 0.5: " in report.table(result)
