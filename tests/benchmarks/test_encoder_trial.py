"""benchmarks/encoder_trial.py's paired interval: what the trial calls a difference beyond the noise."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from encoder_trial import held, intervals, over_draws, paired_interval, pooled  # noqa: E402


def mean(v: np.ndarray) -> float:
    return float(v.mean())


def test_the_same_scores_differ_by_nothing():
    a = np.random.default_rng(0).random(40)
    assert paired_interval(a, a.copy(), [f"p{i // 4}" for i in range(40)], mean) == [0.0, 0.0, 0.0]


def test_a_constant_gain_is_its_own_interval():
    b = np.random.default_rng(1).random(30)
    d, lo, hi = paired_interval(b + 0.1, b, [f"p{i % 6}" for i in range(30)], mean)
    assert d == lo == hi == 0.1


def test_a_gain_from_one_program_alone_is_not_beyond_the_noise():
    # ten programs of five rows: the encoder wins every row of one program and ties elsewhere
    groups = [f"p{i // 5}" for i in range(50)]
    b = np.zeros(50)
    a = b.copy()
    a[:5] = 1.0
    d, lo, hi = paired_interval(a, b, groups, mean)
    assert d == 0.1 and lo == 0.0 < hi
    # the same gain spread over every program is beyond it
    a = b.copy()
    a[::5] = 0.5
    d, lo, hi = paired_interval(a, b, groups, mean)
    assert d == 0.1 and lo == hi == 0.1


def test_reduced_keeps_the_context_and_whitens_the_embedding():
    from encoder_trial import reduced

    rng = np.random.default_rng(0)
    E = rng.normal(size=(30, 40)) * np.linspace(5, 0.1, 40)  # a few strong directions, many weak
    C = rng.normal(size=(30, 3))
    R = reduced(np.hstack([E, C]), n_context=3, k=4)
    assert R.shape == (30, 7)
    np.testing.assert_array_equal(R[:, 4:], C)
    cov = np.cov(R[:, :4], rowvar=False)
    np.testing.assert_allclose(cov, np.eye(4), atol=1e-8)
    # an embedding already as small as k is left as it is
    small = np.hstack([E[:, :3], C])
    np.testing.assert_array_equal(reduced(small, 3, 4), small)


def test_reduced_without_context_columns_reduces_the_whole_matrix():
    from encoder_trial import reduced

    E = np.random.default_rng(1).normal(size=(25, 12))
    assert reduced(E, n_context=0, k=3).shape == (25, 3)


def test_a_tried_encoder_is_also_set_against_the_shipped_one():
    rng = np.random.default_rng(2)
    base = rng.random(24)
    scores = {"shipped MIREncoder": base, "student": base - 0.05, "random": base - 0.1, "default": base - 0.2}
    out = intervals(scores, [f"p{i % 8}" for i in range(24)], mean, "task")
    assert set(out["student"]) == {"vs random", "vs shipped MIREncoder"}
    assert out["student"]["vs shipped MIREncoder"] == [-0.05, -0.05, -0.05]
    assert set(out["shipped MIREncoder"]) == {"vs random"} and set(out["default"]) == {"vs random"}


def test_pooled_shares_are_each_groups_geometric_mean_over_the_draws():
    draws = [{"enc": np.array([0.25, 1.0])}, {"enc": np.array([1.0, 0.5])}]
    np.testing.assert_allclose(pooled(draws)["enc"], [0.5, np.sqrt(0.5)])
    # a failed choice (share 0) weighs as the trial's geometric mean weighs it, not as minus infinity
    failed = pooled([{"enc": np.array([0.0])}, {"enc": np.array([1.0])}])["enc"]
    np.testing.assert_allclose(failed, [np.sqrt(1e-3)])


def test_over_draws_pools_the_draws_and_counts_where_each_difference_held(capsys):
    progs = [f"p{i}" for i in range(12)]
    rng = np.random.default_rng(0)
    draws = [{"shipped MIREncoder": 0.9 + 0.05 * rng.random(12), "random": np.full(12, 0.8)} for _ in range(3)]
    draws[2]["shipped MIREncoder"][:] = 0.8  # level with the control in the last draw
    scores, spans, found = over_draws(draws, [5, 6, 7], progs, "vectorize at 0.1", {})
    assert scores["random"] == 0.8 and scores["shipped MIREncoder"] > 0.85
    assert spans["shipped MIREncoder"]["vs random"][1] > 0  # pooled: above the noise
    assert found["held"] == {"shipped MIREncoder": {"vs random": [2, 0, 3]}}
    assert set(found) == {"5", "6", "7", "held"}
    assert "vectorize at 0.1 pooled" in capsys.readouterr().out
    # one draw: its own scores and intervals, nothing to count
    scores, spans, found = over_draws(draws[:1], [5], progs, "vectorize", {})
    assert found == {} and spans["shipped MIREncoder"]["vs random"][0] > 0.1


def test_held_counts_the_draws_in_which_a_difference_was_beyond_the_noise():
    draws = [{"enc": {"vs random": [0.03, 0.01, 0.05], "vs ir2vec": [0.02, -0.01, 0.04]}},
             {"enc": {"vs random": [0.02, 0.00, 0.04], "vs ir2vec": [-0.02, -0.03, -0.01]}},
             {"enc": {"vs random": [0.04, 0.02, 0.06], "vs ir2vec": [0.01, 0.002, 0.02]}}]
    assert held(draws) == {"enc": {"vs random": [2, 0, 3], "vs ir2vec": [1, 1, 3]}}


def test_seeds_that_are_not_whole_numbers_of_0_or_more_are_one_line(capsys):
    from encoder_trial import main

    for bad in ("1,x", "-1", ""):
        assert main(["--seeds", bad, "--tasks", "vectorize"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--seeds wants whole numbers of 0 or more" in err[0], err


def test_side_by_side_joins_each_files_two_vectors_in_order(tmp_path):
    from encoder_trial import side_by_side

    from mirtune.tasks.embedders import embed_files, random_embedder

    files = []
    for i, text in enumerate(["define i32 @f() {\n  ret i32 0\n}\n", "define i32 @g() {\n  ret i32 1\n}\n"]):
        files.append(tmp_path / f"m{i}.ll")
        files[-1].write_text(text)
    first, second = random_embedder(4), random_embedder(3)
    joined = side_by_side(first, second)
    X = embed_files(joined, files)
    assert X.shape == (2, 7)
    np.testing.assert_array_equal(X[:, :4], embed_files(first, files))
    np.testing.assert_array_equal(X[:, 4:], embed_files(second, files))
    assert joined.key == "control-identity-4+control-identity-3" and not joined.cached


def test_with_ir2vec_without_an_encoder_or_the_ir2vec_control_is_one_line(tmp_path, capsys):
    from encoder_trial import main

    assert main(["--with-ir2vec", "--tasks", "vectorize", "--json", str(tmp_path / "t.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "give at least one --encoder" in err
    assert main(["--with-ir2vec", "--encoder", f"e={tmp_path}", "--controls", "random,none",
                 "--json", str(tmp_path / "t.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "keep ir2vec in --controls" in err


def test_balanced_gives_each_block_k_whitened_columns_and_keeps_the_context():
    from encoder_trial import balanced

    rng = np.random.default_rng(2)
    C = rng.normal(size=(40, 2))
    wide, narrow = rng.normal(size=(40, 60)), rng.normal(size=(40, 9))
    J = balanced(np.hstack([wide, C]), np.hstack([narrow, C]), n_context=2, k=5)
    assert J.shape == (40, 12)
    np.testing.assert_array_equal(J[:, 10:], C)
    np.testing.assert_allclose(np.cov(J[:, :5], rowvar=False), np.eye(5), atol=1e-8)
    np.testing.assert_allclose(np.cov(J[:, 5:10], rowvar=False), np.eye(5), atol=1e-8)
    # with no context column each block is still cut at its own width
    assert balanced(wide, narrow, n_context=0, k=5).shape == (40, 10)


def test_a_paired_name_is_also_set_against_its_own_reference(capsys):
    rng = np.random.default_rng(3)
    scores = {"ir2vec": rng.random(20), "IR2Vec (4)": rng.random(20), "e + IR2Vec (4+4)": rng.random(20)}
    out = intervals(scores, [f"p{i % 5}" for i in range(20)], mean, "t", {"e + IR2Vec (4+4)": "IR2Vec (4)"})
    assert set(out["e + IR2Vec (4+4)"]) == {"vs ir2vec", "vs IR2Vec (4)"}
    assert set(out["IR2Vec (4)"]) == {"vs ir2vec"}


def test_balance_without_its_conditions_is_one_line(tmp_path, capsys):
    from encoder_trial import main

    assert main(["--balance", "8", "--tasks", "vectorize", "--json", str(tmp_path / "t.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--balance K wants" in err


def test_pca_sizes_that_are_not_whole_numbers_of_0_or_more_are_one_line(tmp_path, capsys):
    from encoder_trial import main

    for bad in ("8,x", "-4", ""):
        assert main(["--pca", bad, "--tasks", "vectorize", "--json", str(tmp_path / "t.json")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--pca wants sizes of 0 or more" in err[0], err


def test_head_kinds_that_are_not_gain_heads_are_one_line(tmp_path, capsys):
    from encoder_trial import main

    for bad in ("mlp", "gain,gbt", ""):
        assert main(["--heads", bad, "--tasks", "vectorize", "--json", str(tmp_path / "t.json")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--heads: choose from gain, knn, forest" in err[0], err


def test_fewer_labels_keeps_the_tests_and_cuts_whole_training_programs_nested():
    from encoder_trial import fewer_labels

    from mirtune.tasks.measured import group_kfold

    progs = [f"p{i // 3}" for i in range(60)]  # 20 programs of 3 groups
    outer = group_kfold(np.arange(60), progs, 5, seed=1)
    small, half = fewer_labels(outer, progs, 0.2, 1), fewer_labels(outer, progs, 0.5, 1)
    names = np.asarray(progs)
    for (tr, te), (tr_s, te_s), (tr_h, _) in zip(outer, small, half):
        np.testing.assert_array_equal(te_s, te)
        assert set(tr_s) <= set(tr_h) <= set(tr) and not set(tr_h) & set(te)
        assert len(set(names[tr_s])) == 3 and len(set(names[tr_h])) == 8  # round(0.2 x 16), round(0.5 x 16)
        assert all((names[tr_s] == p).sum() == 3 for p in set(names[tr_s]))  # a program's groups stay together
    assert [tr.tolist() for tr, _ in fewer_labels(outer, progs, 0.2, 2)] != [tr.tolist() for tr, _ in small]


def test_factors_say_from_which_share_each_representation_reaches_anothers_full_score(capsys):
    from encoder_trial import factors

    full = {"enc": 0.91, "ir2vec": 0.90, "best fixed": 0.88}
    curve = {0.1: {"enc": 0.87, "ir2vec": 0.89}, 0.2: {"enc": 0.895, "ir2vec": 0.85}, 0.5: {"enc": 0.905,
                                                                                         "ir2vec": 0.89}}
    out = factors(curve, full, ["enc", "ir2vec"])
    assert out["enc"] == {"vs ir2vec": 2.0, "vs best fixed": 5.0}
    # IR2Vec never reaches the encoder; it reaches best fixed at 0.1, loses it at 0.2: from 0.5 on it counts
    assert out["ir2vec"] == {"vs enc": None, "vs best fixed": 2.0}
    printed = capsys.readouterr().out
    assert "from 1/5 of the labels" in printed and "never" in printed


def test_label_fractions_outside_0_to_1_are_one_line(tmp_path, capsys):
    from encoder_trial import main

    for bad in ("0.2,x", "1.5", "0"):
        assert main(["--label-fractions", bad, "--tasks", "vectorize", "--json", str(tmp_path / "t.json")]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "--label-fractions" in err[0], err


def test_a_task_whose_programs_are_not_built_says_the_command_that_builds_them(tmp_path, monkeypatch):
    import encoder_trial

    absent = tmp_path / "cudagen"
    monkeypatch.setitem(encoder_trial.GAIN_TASKS, "cuda_blocks", ("cuda_blocks", [], [absent], "program"))
    monkeypatch.setitem(encoder_trial.PROGRAM_MAKERS, absent, "python -m collectors.cudagen --out DIR")
    with pytest.raises(encoder_trial.UsageError, match="not built here.*collectors.cudagen --out DIR"):
        encoder_trial.trial_table("cuda_blocks")
