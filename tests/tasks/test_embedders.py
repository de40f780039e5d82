"""Embedders for the tasks: single-modality (ablation) encoders are recognised by their config and checked."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from mirtune.embedding import DEFAULT_MODEL_DIR
from mirtune.errors import MirtuneError, UsageError
from mirtune.ir.tokenizer import IRTokenizer
from mirtune.model.config import preset
from mirtune.model.encoder import MIREncoder
from mirtune.model.io import save_model
from mirtune.tasks.embedders import embed_files, get_embedder

KERNEL = "void scale(float *a, float s, int n) { for (int i = 0; i < n; i++) a[i] *= s; }\n"


@pytest.fixture(scope="module")
def graph_model(tmp_path_factory):
    """An untrained graph-only tiny encoder on the shipped tokenizer: enough to check shapes and routing."""
    tokenizer = IRTokenizer.load(DEFAULT_MODEL_DIR / "tokenizer.json")
    cfg = preset("tiny", tokenizer, "graph")
    torch.manual_seed(0)
    return save_model(tmp_path_factory.mktemp("graph-model"), MIREncoder(cfg), cfg, tokenizer), cfg


def test_graph_only_encoder_gives_graph_vectors(graph_model, tmp_path, monkeypatch):
    model_dir, cfg = graph_model
    monkeypatch.setenv("MIRTUNE_EMBED_CACHE", str(tmp_path / "cache"))
    src = tmp_path / "scale.c"
    src.write_text(KERNEL)
    emb = get_embedder("mirencoder", ablation="graph", model_dir=model_dir)
    assert emb.name == "mirencoder-graph" and emb.key.endswith("-graph")
    x = embed_files(emb, [src, src])
    assert x.shape == (2, cfg.gcn_hidden) and np.isfinite(x).all() and np.abs(x).sum() > 0
    # without --ablation the model's own modality still names the rows, so caches never mix
    assert get_embedder("mirencoder", model_dir=model_dir).key == emb.key


def test_no_embedding_is_zero_wide(tmp_path, monkeypatch):
    """`none` leaves a predictor the task's context features alone: no columns, whatever the file."""
    ll = tmp_path / "a.ll"
    ll.write_text("; empty module\n")
    none = get_embedder("none")
    assert none.embed_batch([ll, ll]).shape == (2, 0)
    monkeypatch.setenv("MIRTUNE_EMBED_CACHE", str(tmp_path / "cache"))
    assert embed_files(none, [ll]).shape == (1, 0) and not (tmp_path / "cache").exists()  # nothing worth caching
    with pytest.raises(MirtuneError, match="MIREncoder embedding only"):
        get_embedder("none", ablation="text")


def test_ablation_of_the_other_modality_is_refused(graph_model):
    model_dir, _ = graph_model
    with pytest.raises(MirtuneError, match="text modality alone.*pre-trained on graph"):
        get_embedder("mirencoder", ablation="text", model_dir=model_dir)


def test_an_ablation_without_an_encoder_of_its_own_is_one_line_saying_how_to_get_one(tmp_path, monkeypatch):
    """None is shipped: `--ablation text` without --model-dir looks in mirtune/assets/encoder-text, and says how to
    pre-train or restore one when nothing is there."""
    from mirtune import embedding

    monkeypatch.delenv("MIRTUNE_MODEL", raising=False)
    monkeypatch.setattr(embedding, "ablation_model_dir", lambda modality: tmp_path / f"encoder-{modality}")
    with pytest.raises(UsageError, match="no text-only encoder here; pre-train one with `mirtune pretrain "
                                         "--modality text`.*restore the published one") as err:
        get_embedder("mirencoder", ablation="text")
    assert "\n" not in err.value.line()


def test_an_ablation_encoder_put_where_it_is_looked_for_is_found_by_default(graph_model, monkeypatch):
    """`--ablation graph` without --model-dir uses mirtune/assets/encoder-graph when one was put there."""
    from mirtune import embedding

    model_dir, cfg = graph_model
    monkeypatch.delenv("MIRTUNE_MODEL", raising=False)
    monkeypatch.setattr(embedding, "ablation_model_dir", lambda modality: Path(model_dir))
    emb = get_embedder("mirencoder", ablation="graph")
    assert emb.name == "mirencoder-graph" and emb.meta["model_dir"] == str(model_dir)


def test_random_control_is_one_fixed_vector_per_program(tmp_path):
    """The identity control: the same content gives the same vector, another program another one."""
    a, b, a2 = tmp_path / "a.ll", tmp_path / "b.ll", tmp_path / "a2.ll"
    a.write_text("; one\n")
    a2.write_text("; one\n")
    b.write_text("; two\n")
    x = get_embedder("random").embed_batch([a, b, a2])
    assert x.shape == (3, 256) and np.array_equal(x[0], x[2]) and not np.allclose(x[0], x[1])
    with pytest.raises(MirtuneError, match="MIREncoder embedding only"):
        get_embedder("random", ablation="graph")


def test_random_control_does_not_depend_on_where_the_program_was_compiled(tmp_path):
    """clang writes the source's path into the IR; the control's vector is the program's, not its folder's."""
    body = "target triple = \"x86_64-pc-linux-gnu\"\ndefine i32 @main() {\n  ret i32 0\n}\n"
    here, there, other = tmp_path / "here.ll", tmp_path / "there.ll", tmp_path / "other.ll"
    here.write_text(f"; ModuleID = '/work/main/k.c'\nsource_filename = \"/work/main/k.c\"\n{body}")
    there.write_text(f"; ModuleID = '/tmp/ci/main/k.c'\nsource_filename = \"/tmp/ci/main/k.c\"\n{body}")
    other.write_text(f"; ModuleID = '/work/main/k.c'\nsource_filename = \"/work/main/k.c\"\n{body.replace('0', '1')}")
    x = get_embedder("random").embed_batch([here, there, other])
    assert np.array_equal(x[0], x[1]) and not np.allclose(x[0], x[2])
