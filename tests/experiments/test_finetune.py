"""The end-to-end models (scratch, finetune) of the data-efficiency study: their starting weights, a fit that
trains the encoder and predicts, and the regression of every configuration's gain."""

from __future__ import annotations

import numpy as np
import pytest


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
