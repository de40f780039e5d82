"""Task predictors: nearest-neighbour gain heads, fitting with inner CV over applications, saving without pickle,
refusing corrupt or foreign heads, and the leave-one-application-out evaluation with its baselines."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from mirtune.errors import MirtuneError, UsageError
from mirtune.paths import REPO_DIR
from mirtune.predict.heads import KNNGainHead, KNNConfig, decide, make_head
from mirtune.predict.predictor import fit_predictor, load_predictor, program_ir, program_matrix
from mirtune.tasks import openmp
from mirtune.tasks.embedders import get_embedder
from mirtune.tasks.measured import best_fixed, geomean, load_gain_table, share_of_oracle


@pytest.fixture(scope="module")
def omp():
    table = load_gain_table([REPO_DIR / "datasets" / "openmp"], openmp.SPEC)
    embedder = get_embedder("mirencoder")
    X = program_matrix(table.sources, "openmp", embedder)
    return table, X, embedder


def test_knn_head_blends_neighbours_with_the_mean():
    rng = np.random.RandomState(0)
    X = np.vstack([rng.normal(0, 1, (10, 4)) + 5, rng.normal(0, 1, (10, 4)) - 5])
    G = np.zeros((20, 3))
    G[:10, 1] = 1.0  # the first cluster gains with choice 1
    G[10:, 2] = 0.5  # the second with choice 2
    near = KNNGainHead(3, KNNConfig(k=3, weight=1.0)).fit(X, gains=G)
    assert list(near.predict(np.array([[5.0] * 4, [-5.0] * 4]))) == [1, 2]
    mean_only = KNNGainHead(3, KNNConfig(k=3, weight=0.0)).fit(X, gains=G)
    assert list(mean_only.predict(np.array([[-5.0] * 4]))) == [1]  # the choice best on average
    # a margin keeps the default (choice 0) unless another is predicted to gain more than it
    assert list(decide(np.array([[0.0, 0.05, 0.0]]), margin=0.1)) == [0]
    assert list(decide(np.array([[0.0, 0.2, 0.0]]), margin=0.1)) == [1]
    # the context block weighs as much as the embedding block, whatever their widths
    Xc = np.hstack([rng.normal(0, 1, (20, 50)), np.repeat([[1.0], [-1.0]], 10, axis=0)])
    by_context = make_head(3, {"head": "knn", "k": 3, "weight": 1.0, "context_weight": 4.0}, keep=1).fit(Xc, None, G)
    assert list(by_context.predict(Xc[[0, 15]])) == [1, 2]
    with pytest.raises(ValueError, match="gain of every choice"):
        KNNGainHead(3).fit(X)


def test_knn_median_needs_most_neighbours_to_gain():
    """One neighbour's large win carries the mean but not the median: with the median a choice must help most
    of the k nearest programs; an unknown way of combining them is refused."""
    X = np.array([[1.0, 0.0], [0.9, 0.1], [0.8, 0.2], [-1.0, 0.0]])
    G = np.array([[0.0, 0.9], [0.0, -0.1], [0.0, -0.1], [0.0, 0.0]])  # choice 1: one big win, two small losses
    query = np.array([[1.0, 0.05]])
    mean = KNNGainHead(2, KNNConfig(k=3, weight=1.0)).fit(X, gains=G)
    median = KNNGainHead(2, KNNConfig(k=3, weight=1.0, statistic="median")).fit(X, gains=G)
    assert mean.predict_gains(query)[0, 1] == pytest.approx(0.7 / 3) and list(mean.predict(query)) == [1]
    assert median.predict_gains(query)[0, 1] == pytest.approx(-0.1) and list(median.predict(query)) == [0]
    with pytest.raises(ValueError, match="unknown knn statistic"):
        KNNGainHead(2, KNNConfig(statistic="mode"))


def test_anchor_best_keeps_the_best_on_average_choice_without_evidence():
    """Anchored on "best", a head keeps the one choice best on average over its training rows unless another is
    predicted to beat it by the margin; anchored on the default, it keeps choice 0. An unknown anchor is refused."""
    X = np.array([[1.0, 0.0], [0.9, 0.1], [-1.0, 0.0], [-0.9, -0.1]])
    G = np.array([[0.0, 0.30, 0.20], [0.0, 0.20, 0.25], [0.0, -0.05, 0.20], [0.0, -0.05, 0.15]])  # 2 best on average
    query = np.array([[1.0, 0.05]])  # its neighbours: choice 1 gains 0.25, choice 2 0.225, the default 0
    for head in ("knn", "gain"):
        cfg = {"head": head, "k": 2, "weight": 1.0} if head == "knn" else {"head": head, "alpha": 1e6}
        best = make_head(3, dict(cfg, anchor="best", margin=0.1)).fit(X, None, G)
        default = make_head(3, dict(cfg, anchor="default", margin=0.1)).fit(X, None, G)
        assert best.anchor_index() == 2 and default.anchor_index() == 0
        assert list(best.predict(query)) == [2]  # choice 1 does not beat choice 2 by the margin
        assert list(default.predict(query)) == [1 if head == "knn" else 2]
    assert list(decide(np.array([[0.0, 0.3, 0.25]]), margin=0.1, anchor=2)) == [2]
    with pytest.raises(ValueError, match="unknown anchor"):
        make_head(3, {"head": "knn", "anchor": "median"})


def test_program_ir_compiles_openmp_sources_once(tmp_path, monkeypatch):
    monkeypatch.setenv("MIRTUNE_IR_CACHE", str(tmp_path / "ir"))
    src = REPO_DIR / "mirtune" / "assets" / "examples" / "heat2d.c"
    ll = program_ir(src)
    assert ll.suffix == ".ll" and "__kmpc_fork_call" in ll.read_text()  # -fopenmp was switched on
    assert program_ir(src) == ll and len(list((tmp_path / "ir").iterdir())) == 1
    assert program_ir(ll) == ll
    with pytest.raises(UsageError, match="no such file"):
        program_ir(tmp_path / "missing.c")


def test_fit_save_load_and_refusals(omp, tmp_path):
    table, X, embedder = omp
    assert X.shape == (64, 256 + len(openmp.CONTEXT)) and np.isfinite(X).all()
    predictor = fit_predictor("openmp", table, X, embedder, use_ray=False, n_configs=2)
    assert predictor.head_config["head"] in ("gain", "knn")
    assert predictor.trained_on["applications"] == 32 and predictor.trained_on["logical_cores"] == 2
    assert predictor.trained_on["best_fixed"] == "threads=2,schedule=guided,chunk=1"
    speedups = predictor.predict_speedups(X)
    assert speedups.shape == (64, 25) and (speedups > 0).all()
    out = predictor.save(tmp_path / "head")
    assert sorted(p.name for p in out.iterdir()) == ["head.safetensors", "predictor.json"]
    again = load_predictor(out, fingerprint=embedder.meta["fingerprint"])
    assert np.allclose(again.predict_speedups(X), speedups)
    assert again.labels == predictor.labels
    assert np.allclose(again.head.downside_, predictor.head.downside_) and again.head.downside_.shape == (25,)
    careful = fit_predictor("openmp", table, X, embedder, use_ray=False, n_configs=2, risk=1.0)
    assert careful.head_config["risk"] == 1.0
    assert np.allclose(load_predictor(careful.save(tmp_path / "careful")).head.penalty(), careful.head.downside_)
    # fitted on another encoder: refused with one line naming both
    with pytest.raises(MirtuneError, match="fitted on encoder .* refit"):
        load_predictor(out, fingerprint="0123456789abcdef")
    # corrupt weights: refused by their digest, never used
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    data = bytearray((bad / "head.safetensors").read_bytes())
    data[-8:] = b"\xff" * 8
    (bad / "head.safetensors").write_bytes(bytes(data))
    with pytest.raises(MirtuneError, match="do not match the digest"):
        load_predictor(bad)
    meta = json.loads((out / "predictor.json").read_text())
    (bad / "predictor.json").write_text(json.dumps({**meta, "format": "other"}))
    with pytest.raises(MirtuneError, match="predictor format"):
        load_predictor(bad)
    (bad / "predictor.json").write_text("{not json")
    with pytest.raises(MirtuneError, match="unreadable predictor description"):
        load_predictor(bad)
    with pytest.raises(MirtuneError, match="not a predictor folder"):
        load_predictor(tmp_path)
    with pytest.raises(UsageError, match="must be one of gain, knn"):
        fit_predictor("openmp", table, X, embedder, heads=("mlp",), use_ray=False)


def test_leave_one_application_out_reports_the_baselines(omp):
    from mirtune.experiments import measured_eval
    from mirtune.predict import held_out

    table, _, embedder = omp
    result = held_out.run("openmp", [str(REPO_DIR / "datasets" / "openmp")], [embedder], use_ray=False,
                          n_configs=2, n_inner=3, note=lambda *_: None)
    m = result["methods"]
    assert set(m) == {"default", "best fixed", "mirencoder", "oracle"}
    assert m["default"]["share_of_oracle"] == pytest.approx(0.771, abs=0.002)
    assert m["oracle"]["share_of_oracle"] == pytest.approx(1.0)
    assert m["best fixed"]["share_of_oracle"] == pytest.approx(0.90, abs=0.01)
    assert 0.5 < m["mirencoder"]["share_of_oracle"] <= 1.0 and m["mirencoder"]["groups"] == 64
    # the held-out application never chose its own fixed configuration: each fold's comes from the others
    s = table.speedups
    for fold in result["best_fixed_per_fold"]:
        rows = [i for i, a in enumerate(table.apps) if a != fold["app"]]
        assert fold["config"] == table.labels[best_fixed(s, rows)]
    text = measured_eval.table(result)
    assert "best fixed" in text and "share of oracle" in text
    assert geomean(share_of_oracle(s, [table.labels.index(c) for c in m["mirencoder"]["chosen"]])) == \
        pytest.approx(m["mirencoder"]["share_of_oracle"])


@pytest.mark.parametrize("shorten", ["labels", "configs", "both"])
def test_a_description_shorter_than_its_head_is_one_line(tmp_path, shorten, capsys):
    # issue 33 item 8: labels and configurations that do not match the head's choices
    from mirtune.cli import main
    from mirtune.predict.recommend import HEADS_DIR

    heads = tmp_path / "heads"
    shutil.copytree(HEADS_DIR / "openmp", heads / "openmp")
    meta_path = heads / "openmp" / "predictor.json"
    meta = json.loads(meta_path.read_text())
    for key in (("labels", "configs") if shorten == "both" else (shorten,)):
        meta[key] = meta[key][:3]
    meta_path.write_text(json.dumps(meta))
    with pytest.raises(MirtuneError, match="predictor.json") as exc:
        load_predictor(heads / "openmp")
    assert "\n" not in exc.value.line() and "25" in exc.value.line()
    src = REPO_DIR / "mirtune" / "assets" / "examples" / "heat2d.c"
    assert main(["recommend", str(src), "--task", "openmp", "--heads", str(heads)]) == 2
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and "internal error" not in err[0], err


def test_candidate_configs_give_every_head_each_embedding_cut():
    """`pca` crosses every candidate with each cut (0: the whole embedding), in order, and the cut is part of what
    the inner search tells apart."""
    from mirtune.predict.predictor import candidate_configs

    whole = candidate_configs(("gain", "knn"), 2)
    cut = candidate_configs(("gain", "knn"), 2, pca=(0, 8, 16))
    assert len(cut) == 3 * len(whole)
    assert [c["pca"] for c in whole] == [0] * len(whole)
    assert sorted({c["pca"] for c in cut}) == [0, 8, 16]
    assert [c for c in cut if c["pca"] == 0] == whole  # the whole-embedding candidates are the ones without a cut
    assert len({tuple(sorted(c.items())) for c in cut}) == len(cut)
