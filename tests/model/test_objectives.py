"""The three pre-training objectives on real IR: MLM masking, per-flow graph reconstruction, IR-graph matching."""

from __future__ import annotations

import math

import pytest
import torch

from mirtune.ir.frontend import compile_to_ir
from mirtune.ir.module import IRModule
from mirtune.ir.tokenizer import IRTokenizer
from mirtune.model.config import preset
from mirtune.model.encoder import MIREncoder, collate
from mirtune.model.objectives import (IGNORE, FlowDecoders, MatchingHead, MLMHead, PretrainingHeads, mask_tokens,
                                      matching_loss, matching_pairs, mlm_loss, reconstruction_loss, roc_auc,
                                      sample_negatives)
from mirtune.model.samples import module_to_sample, sample_arrays

PROGRAMS = {
    "sum": "int sum(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }",
    "stencil": "void st(float *a, float *b, int n) { for (int i = 1; i < n - 1; i++) "
               "b[i] = (a[i-1] + a[i] + a[i+1]) / 3.0f; }",
    "calls": "static int sq(int x) { return x * x; }\nint f(int *a, int n) { int s = 0; "
             "for (int i = 0; i < n; i++) { if (a[i] > 0) s += sq(a[i]); else s -= a[i]; } return s; }",
    "saxpy": "void saxpy(int n, float a, float *x, float *y) { for (int i = 0; i < n; i++) y[i] += a * x[i]; }",
}


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    d = tmp_path_factory.mktemp("src")
    out = []
    for name, code in PROGRAMS.items():
        (d / f"{name}.c").write_text(code + "\n")
        for opt in (0, 1):
            out.append(IRModule.from_text(compile_to_ir(d / f"{name}.c", opt=opt), f"{name}-O{opt}"))
    return out


@pytest.fixture(scope="module")
def tokenizer(modules):
    return IRTokenizer.train([s for m in modules for s in m.statements()], vocab_size=400, min_frequency=1)


@pytest.fixture(scope="module")
def samples(modules, tokenizer):
    return [sample_arrays(module_to_sample(m, tokenizer)) for m in modules]


@pytest.fixture(scope="module")
def cfg(tokenizer):
    return preset("tiny", tokenizer)


# ------------------------------------------------------------------------------------------- MLM
def test_mlm_selection_proportions_on_a_large_batch(samples, cfg):
    ids = torch.cat([collate(samples).stmt_ids] * 40)  # tens of thousands of ordinary positions
    g = torch.Generator().manual_seed(1)
    m = mask_tokens(ids, cfg, g)
    ordinary = ids >= cfg.n_special
    n_ordinary = int(ordinary.sum())
    assert n_ordinary > 50_000
    assert not m.selected[~ordinary].any()  # never [PAD] [CLS] [SEP] [UNK] [MASK]
    frac = m.selected.sum().item() / n_ordinary
    assert abs(frac - 0.15) < 0.01
    sel = m.selected
    became_mask = (m.ids[sel] == cfg.mask_id).float().mean().item()
    unchanged = (m.ids[sel] == ids[sel]).float().mean().item()
    other = ((m.ids[sel] != ids[sel]) & (m.ids[sel] != cfg.mask_id)).float().mean().item()
    assert abs(became_mask - 0.8) < 0.02
    assert abs(unchanged - 0.1) < 0.02  # 10% kept (+ random draws that hit the same token, ~0.1/V)
    assert abs(other - 0.1) < 0.02
    assert (m.ids[sel & (m.ids != cfg.mask_id)] >= cfg.n_special).all()  # random tokens are ordinary
    # untouched outside the selection; labels only at selected positions
    assert torch.equal(m.ids[~sel], ids[~sel])
    assert torch.equal(m.labels[sel], ids[sel]) and (m.labels[~sel] == IGNORE).all()


def test_mlm_loss_counts_selected_positions_only(samples, cfg):
    ids = collate(samples).stmt_ids
    m = mask_tokens(ids, cfg, torch.Generator().manual_seed(2))
    enc = MIREncoder(cfg)
    head = MLMHead(cfg)
    states = enc.encode_statements(m.ids).detach().requires_grad_(True)
    res = mlm_loss(head, states, m.labels, enc.token_embedding.weight)
    assert res.n_selected == int(m.selected.sum()) > 0
    assert 0.0 <= res.accuracy <= 1.0 and math.isfinite(res.loss.item())
    res.loss.backward()
    width = states.shape[1]
    sel = m.selected[:, :width]
    grad_norm = states.grad.abs().sum(-1)
    assert (grad_norm[~sel] == 0).all() and (grad_norm[sel] > 0).all()
    # changing unselected positions' states leaves the loss unchanged
    other = states.detach().clone()
    other[~sel] += 5.0
    again = mlm_loss(head, other, m.labels, enc.token_embedding.weight)
    assert again.loss.item() == pytest.approx(res.loss.item(), rel=1e-6)


# ------------------------------------------------------------------------------------------- AUC
def test_rank_auc_matches_pairwise_counting():
    g = torch.Generator().manual_seed(3)
    scores = torch.randint(0, 20, (300,), generator=g).float()  # many ties
    labels = torch.rand(300, generator=g) < 0.4
    pos, neg = scores[labels], scores[~labels]
    diff = pos[:, None] - neg[None, :]
    pairwise = ((diff > 0).float() + 0.5 * (diff == 0).float()).mean().item()
    assert roc_auc(scores, labels) == pytest.approx(pairwise, abs=1e-6)
    assert roc_auc(torch.tensor([0.1, 0.2, 0.9, 0.8]), torch.tensor([0, 0, 1, 1])) == 1.0
    assert roc_auc(torch.tensor([0.9, 0.8, 0.1, 0.2]), torch.tensor([0, 0, 1, 1])) == 0.0
    assert roc_auc(torch.ones(4), torch.tensor([0, 1, 0, 1])) == 0.5
    assert math.isnan(roc_auc(torch.ones(3), torch.ones(3)))


# -------------------------------------------------------------------------------- reconstruction
def test_reconstruction_sums_three_flows_and_learns_a_tiny_graph(samples, cfg):
    torch.manual_seed(0)
    batch = collate(samples[:2])
    enc, dec = MIREncoder(cfg), FlowDecoders(cfg)
    g = torch.Generator().manual_seed(4)
    first = reconstruction_loss(dec, enc(batch).nodes, batch, g)
    assert first.loss.item() == pytest.approx(sum(first.per_flow_loss), rel=1e-5)
    assert all(0.0 <= a <= 1.0 for a in first.per_flow_auc)
    opt = torch.optim.Adam(list(enc.parameters()) + list(dec.parameters()), lr=1e-2)
    for _ in range(20):
        res = reconstruction_loss(dec, enc(batch).nodes, batch, g)
        opt.zero_grad()
        res.loss.backward()
        opt.step()
    with torch.no_grad():
        final = reconstruction_loss(dec, enc(batch).nodes, batch, torch.Generator().manual_seed(5))
    assert final.loss.item() < first.loss.item()
    assert all(0.5 < a <= 1.0 for a in final.per_flow_auc), final.per_flow_auc


def test_a_graph_without_edges_of_a_flow_beside_others_in_a_batch(samples, tokenizer, cfg, tmp_path):
    # `ret void` alone: no control or data edges. Batched before other graphs, PyG's negative sampling
    # returns float pairs for it; the loss must still index with integers (this crashed pre-training once).
    (tmp_path / "empty.c").write_text("void nothing(void) {}\n")
    empty = IRModule.from_text(compile_to_ir(tmp_path / "empty.c", opt=0), "empty")
    lone = sample_arrays(module_to_sample(empty, tokenizer))
    assert not (lone["edges"][:, 2] == 0).any() and not (lone["edges"][:, 2] == 1).any()
    batch = collate([lone, samples[0], lone, samples[2]])
    res = reconstruction_loss(FlowDecoders(cfg), MIREncoder(cfg)(batch).nodes, batch, torch.Generator().manual_seed(1))
    assert math.isfinite(res.loss.item()) and all(0.0 <= a <= 1.0 for a in res.per_flow_auc)


def test_negative_pairs_stay_inside_their_graph(samples, cfg):
    batch = collate(samples[:3])
    for pos, neg in zip(batch.edge_index, sample_negatives(batch, torch.Generator().manual_seed(0))):
        assert neg.dtype == pos.dtype and neg.shape[1] == pos.shape[1]
        assert torch.equal(batch.node_file[neg[0]], batch.node_file[neg[1]])


def test_negatives_drawn_with_the_batch_give_the_loss_drawn_inside(samples, cfg):
    torch.manual_seed(0)
    batch = collate(samples[:3])
    enc, dec = MIREncoder(cfg).eval(), FlowDecoders(cfg)
    with torch.no_grad():
        z = enc(batch).nodes
        inside = reconstruction_loss(dec, z, batch, torch.Generator().manual_seed(3))
        batch.negatives = sample_negatives(batch, torch.Generator().manual_seed(3))
        given = reconstruction_loss(dec, z, batch, torch.Generator().manual_seed(99))  # generator unused
        moved = batch.to("cpu")
    assert given.loss.item() == pytest.approx(inside.loss.item(), rel=1e-6)
    assert given.per_flow_auc == inside.per_flow_auc
    assert moved.negatives is not None and all(torch.equal(a, b) for a, b in zip(moved.negatives, batch.negatives))


# ------------------------------------------------------------------------------------- matching
def test_matching_pairs_are_half_negatives_from_other_files():
    g = torch.Generator().manual_seed(6)
    total_neg = 0
    for _ in range(50):
        p = matching_pairs(8, g)
        neg = p.labels == 0
        assert int(neg.sum()) == 4
        assert (p.graph_index[neg] != torch.arange(8)[neg]).all()
        assert torch.equal(p.graph_index[~neg], torch.arange(8)[~neg])
        total_neg += int(neg.sum())
    assert total_neg == 200


def test_matching_loss_is_bce_and_learns(samples, cfg):
    torch.manual_seed(0)
    batch = collate(samples)
    enc, head = MIREncoder(cfg), MatchingHead(cfg)
    g = torch.Generator().manual_seed(7)
    out = enc(batch)
    pairs = matching_pairs(batch.num_files, g)
    res = matching_loss(head, out.text, out.graph, pairs)
    logits = head(out.text, out.graph[pairs.graph_index])
    manual = torch.nn.functional.binary_cross_entropy(torch.sigmoid(logits), pairs.labels)
    assert res.loss.item() == pytest.approx(manual.item(), rel=1e-5)
    # the head learns to tell a fixed set of pairs apart (encoder outputs frozen)
    text, graph = out.text.detach(), out.graph.detach()
    opt = torch.optim.Adam(head.parameters(), lr=1e-2)
    first = res.loss.item()
    for _ in range(60):
        res = matching_loss(head, text, graph, pairs)
        opt.zero_grad()
        res.loss.backward()
        opt.step()
    assert res.loss.item() < first
    assert res.accuracy >= 0.75


def test_matching_head_takes_a_single_file_batch(cfg):
    head = MatchingHead(cfg).train()
    logit = head(torch.randn(1, cfg.d_model), torch.randn(1, cfg.gcn_hidden))
    assert logit.shape == (1,) and torch.isfinite(logit).all()
    pairs = matching_pairs(1)
    assert pairs.labels.tolist() == [1.0] and pairs.graph_index.tolist() == [0]


# ------------------------------------------------------------------------------------ all three
def test_all_objectives_in_one_backward_reach_every_parameter(samples, cfg):
    torch.manual_seed(0)
    batch = collate(samples)
    enc, heads = MIREncoder(cfg), PretrainingHeads(cfg)
    res = heads.losses(enc, batch, torch.Generator().manual_seed(8))
    for key in ("loss", "mlm_loss", "mlm_accuracy", "recon_loss", "match_loss", "match_accuracy",
                "auc_control", "auc_data", "auc_call"):
        assert key in res.metrics and math.isfinite(res.metrics[key]), key
    assert res.metrics["loss"] == pytest.approx(res.metrics["mlm_loss"] + res.metrics["recon_loss"]
                                                + res.metrics["match_loss"], rel=1e-5)
    res.loss.backward()
    missing = [n for n, p in list(enc.named_parameters()) + list(heads.named_parameters()) if p.grad is None]
    assert missing == []


@pytest.mark.parametrize("modality", ["text", "graph"])
def test_single_modality_encoder_trains_its_own_objective_only(samples, tokenizer, modality):
    """The ablation encoders: text = statement Transformer + MLM, graph = GCN + auto-encoding, no matching."""
    torch.manual_seed(0)
    cfg = preset("tiny", tokenizer, modality)
    batch = collate(samples)
    enc, heads = MIREncoder(cfg), PretrainingHeads(cfg)
    assert (enc.text is None) == (modality == "graph") and (enc.graph is None) == (modality == "text")
    res = heads.losses(enc, batch, torch.Generator().manual_seed(8))
    own = "mlm_loss" if modality == "text" else "recon_loss"
    other = "recon_loss" if modality == "text" else "mlm_loss"
    assert math.isfinite(res.metrics[own]) and math.isnan(res.metrics[other])
    assert math.isnan(res.metrics["match_loss"]) and math.isnan(res.metrics["match_accuracy"])
    assert res.metrics["loss"] == pytest.approx(res.metrics[own], rel=1e-5)
    res.loss.backward()
    missing = [n for n, p in list(enc.named_parameters()) + list(heads.named_parameters()) if p.grad is None]
    assert missing == []
    vectors = enc.embed(batch)
    width = cfg.d_model if modality == "text" else cfg.gcn_hidden
    assert vectors.shape == (len(samples), width) == (len(samples), cfg.embedding_dim)


def test_unknown_modality_is_refused(tokenizer):
    from mirtune.errors import UsageError

    with pytest.raises(UsageError, match="modality"):
        preset("tiny", tokenizer, "audio")
