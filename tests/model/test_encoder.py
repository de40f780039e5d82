"""MIREncoder: shapes, determinism, statement de-duplication and chunking, batching, presets."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from mirtune.ir.frontend import compile_to_ir
from mirtune.ir.graph import build_graph
from mirtune.ir.module import IRModule
from mirtune.ir.tokenizer import IRTokenizer
from mirtune.model.config import PRESETS, preset
from mirtune.model.encoder import MIREncoder, StatementCache, collate, distinct_rows
from mirtune.model.samples import module_to_sample, sample_arrays

PROGRAMS = {
    "sum": "int sum(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }",
    "stencil": "void st(float *a, float *b, int n) { for (int i = 1; i < n - 1; i++) "
               "b[i] = (a[i-1] + a[i] + a[i+1]) / 3.0f; }",
    "calls": "static int sq(int x) { return x * x; }\nint f(int *a, int n) { int s = 0; "
             "for (int i = 0; i < n; i++) { if (a[i] > 0) s += sq(a[i]); else s -= a[i]; } return s; }",
    "matmul": "void mm(double *c, const double *a, const double *b, int n) { for (int i = 0; i < n; i++) "
              "for (int j = 0; j < n; j++) { double s = 0; for (int k = 0; k < n; k++) "
              "s += a[i*n+k] * b[k*n+j]; c[i*n+j] = s; } }",
}


@pytest.fixture(scope="module")
def modules(tmp_path_factory):
    d = tmp_path_factory.mktemp("src")
    out = []
    for name, code in PROGRAMS.items():
        (d / f"{name}.c").write_text(code + "\n")
        for opt in (0, 2):
            out.append(IRModule.from_text(compile_to_ir(d / f"{name}.c", opt=opt), f"{name}-O{opt}"))
    return out


@pytest.fixture(scope="module")
def tokenizer(modules):
    return IRTokenizer.train([s for m in modules for s in m.statements()], vocab_size=400, min_frequency=1)


@pytest.fixture(scope="module")
def samples(modules, tokenizer):
    return [sample_arrays(module_to_sample(m, tokenizer)) for m in modules]


@pytest.fixture(scope="module")
def model(tokenizer):
    torch.manual_seed(0)
    return MIREncoder(preset("small", tokenizer)).eval()


def test_embedding_shape_is_text_plus_graph(model, samples):
    batch = collate(samples)
    out = model(batch)
    cfg = model.cfg
    assert out.text.shape == (len(samples), cfg.d_model)
    assert out.graph.shape == (len(samples), cfg.gcn_hidden)
    assert out.nodes.shape == (batch.num_nodes, cfg.gcn_hidden)
    emb = model.embed(batch)
    assert emb.shape == (len(samples), cfg.embedding_dim) == (len(samples), 256)
    assert torch.isfinite(emb).all()
    assert not emb.requires_grad


def test_embed_is_deterministic_and_leaves_training_mode_alone(model, samples):
    batch = collate(samples)
    model.train()
    a = model.embed(batch)
    assert model.training  # restored
    b = model.embed(batch)
    model.eval()
    assert torch.equal(a, b)


def test_a_file_embeds_the_same_alone_or_in_a_batch(model, samples):
    together = model.embed(collate(samples))
    for i, s in enumerate(samples):
        alone = model.embed(collate([s]))
        torch.testing.assert_close(alone[0], together[i], atol=1e-5, rtol=1e-4)


def test_dedup_gives_the_same_embedding_as_no_dedup(model, samples):
    # the same files twice: every statement occurs at least twice in the batch
    batch = collate(samples + samples)
    uniq = torch.unique(batch.stmt_ids, dim=0).shape[0]
    assert uniq <= batch.stmt_ids.shape[0] // 2
    torch.testing.assert_close(model.embed(batch, dedup=True), model.embed(batch, dedup=False),
                               atol=1e-5, rtol=1e-4)


def test_length_chunking_does_not_change_statement_states(model, samples):
    ids = collate(samples).stmt_ids
    with torch.inference_mode():
        whole = model.text(ids, chunk=10**6)
        chunked = model.text(ids, chunk=7)
    keep = (ids != model.cfg.pad_id)[:, : whole.shape[1]]
    assert whole.shape == chunked.shape
    torch.testing.assert_close(whole[keep], chunked[keep], atol=1e-5, rtol=1e-4)


def test_token_groups_do_not_change_statement_states(model, samples):
    ids = collate(samples).stmt_ids
    with torch.inference_mode():
        whole = model.text(ids, chunk=10**6)
        model.text.group_tokens = 40  # a few statements per group: many groups
        try:
            grouped = model.text(ids, chunk=7)
        finally:
            model.text.group_tokens = None
    keep = (ids != model.cfg.pad_id)[:, : whole.shape[1]]
    assert whole.shape == grouped.shape
    torch.testing.assert_close(whole[keep], grouped[keep], atol=1e-5, rtol=1e-4)


@pytest.mark.parametrize("n_layers", [1, 2])
def test_cls_only_last_layer_equals_the_full_pass(tokenizer, samples, n_layers):
    import dataclasses

    torch.manual_seed(1)
    enc = MIREncoder(dataclasses.replace(preset("small", tokenizer), n_layers=n_layers)).eval()
    ids = collate(samples).stmt_ids
    with torch.inference_mode():
        full = enc.text(ids)[:, 0]
        fast = enc.text.cls_states(ids, tokens=40)
    torch.testing.assert_close(fast, full, atol=1e-5, rtol=1e-4)


def test_length_groups_cover_every_statement_within_the_budget():
    from mirtune.model.encoder import length_groups

    lengths = sorted([3, 3, 4, 5, 9, 9, 20, 64, 64, 64, 0])
    groups = list(length_groups(lengths, 20))
    assert groups[0][0] == 0 and groups[-1][1] == len(lengths)
    assert all(a[1] == b[0] for a, b in zip(groups, groups[1:]))
    assert all(e - s == 1 or (e - s) * max(lengths[e - 1], 1) <= 20 for s, e in groups)
    assert (7, 8) in groups and (8, 9) in groups  # a statement longer than the budget runs alone


def test_statement_cache_gives_the_same_embeddings_and_fills_once(model, samples):
    cache = StatementCache()
    first = model.embed(collate(samples[:3]), statement_cache=cache)
    n = len(cache)
    assert n == torch.unique(collate(samples[:3]).stmt_ids, dim=0).shape[0]
    everything = model.embed(collate(samples), statement_cache=cache)  # the first three now come from the cache
    torch.testing.assert_close(everything, model.embed(collate(samples)), atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(everything[:3], first, atol=1e-5, rtol=1e-4)
    assert len(cache) == torch.unique(collate(samples).stmt_ids, dim=0).shape[0] > n


def test_a_full_statement_cache_starts_over_and_stays_right(model, samples):
    cache = StatementCache(limit=40)
    for start in range(0, len(samples), 2):
        got = model.embed(collate(samples[start:start + 2]), statement_cache=cache)
        torch.testing.assert_close(got, model.embed(collate(samples[start:start + 2])), atol=1e-5, rtol=1e-4)
        assert len(cache) <= max(40, torch.unique(collate(samples[start:start + 2]).stmt_ids, dim=0).shape[0])


def test_collate_offsets_edges_to_global_node_indices(modules, samples):
    batch = collate(samples[:3])
    sizes = [s["node_ids"].shape[0] for s in samples[:3]]
    assert batch.num_nodes == sum(sizes)
    assert batch.node_file.tolist() == sum(([i] * n for i, n in enumerate(sizes)), [])
    graphs = [build_graph(m) for m in modules[:3]]
    for flow in range(3):
        want = sum(sum(1 for e in g.edges if e[2] == flow) for g in graphs)
        ei = batch.edge_index[flow]
        assert ei.shape == (2, want)
        # every edge stays inside its own file
        assert torch.equal(batch.node_file[ei[0]], batch.node_file[ei[1]])


def test_node_features_ignore_padding(model, samples):
    s = samples[0]
    ids = torch.from_numpy(s["node_ids"][:5])
    types = torch.from_numpy(s["node_type"][:5])
    emb = model.token_embedding.weight
    feats = model.graph.node_features(ids, types)
    keep = ids != model.cfg.pad_id
    manual = torch.stack([emb[r[k]].mean(0) for r, k in zip(ids, keep)]) + model.graph.type_embedding(types)
    torch.testing.assert_close(feats, model.graph.input_norm(manual))


def test_presets_sizes():
    small = MIREncoder(PRESETS["small"]).parameter_counts()["total"]
    assert 0.5e6 < small < 3e6
    from mirtune.model.objectives import PretrainingHeads

    paper_cfg = PRESETS["paper"]
    paper = MIREncoder(paper_cfg).parameter_counts()["total"]
    heads = sum(p.numel() for p in PretrainingHeads(paper_cfg).parameters())
    assert 20e6 < paper + heads < 24e6  # "about 22M parameters", as in the paper
    tiny, medium = (MIREncoder(PRESETS[n]).parameter_counts()["total"] for n in ("tiny", "medium"))
    assert tiny < small < medium < paper  # the ladder the model-size study climbs


def test_empty_graph_flows_and_single_file(model, samples):
    one = dict(samples[0])
    one["edges"] = one["edges"][one["edges"][:, 2] != 2]  # drop the call flow
    emb = model.embed(collate([one]))
    assert emb.shape == (1, model.cfg.embedding_dim) and torch.isfinite(emb).all()


def test_graph_propagation_equals_torch_geometric_gcnconv(model, samples):
    """One sparse product per layer with the shared normalised adjacency, and each distinct node's features
    computed once, = calling torch_geometric's GCNConv with the same weights on the edges, node by node."""
    from torch_geometric.nn import GCNConv
    from torch_geometric.utils import to_undirected

    batch = collate(samples, model.cfg.n_flows)
    g = model.graph.eval()
    with torch.no_grad():
        ours = g(batch.node_ids, batch.node_type, batch.edge_index)
        x = g.node_features(batch.node_ids, batch.node_type)
        ei = g.union_edges(batch.edge_index, batch.num_nodes)
        assert torch.equal(ei, to_undirected(torch.cat(batch.edge_index, dim=1), num_nodes=batch.num_nodes))
        for i, weights in enumerate(g.convs):
            conv = GCNConv(weights.lin.in_features, weights.lin.out_features)
            conv.load_state_dict(weights.state_dict())  # the same parameter names as torch_geometric's layer
            x = conv(x, ei)
            if i < len(g.convs) - 1:
                x = F.relu(x)
    assert ours.shape == x.shape and torch.allclose(ours, x, atol=1e-5)
    # out of training, repeated nodes share one feature row (and the result above still equals the full pass)
    assert distinct_rows(batch.node_ids, batch.node_type)[0].shape[0] < 0.8 * batch.num_nodes


def test_gcn_adjacency_replaces_existing_self_loops():
    from torch_geometric.nn.conv.gcn_conv import gcn_norm

    from mirtune.model.encoder import gcn_adjacency, undirected_edges

    edges = undirected_edges([torch.tensor([[0, 1, 2, 2], [1, 2, 2, 0]])], 4)  # a self-loop on 2; node 3 alone
    ei, w = gcn_norm(edges, None, 4, add_self_loops=True)
    reference = torch.sparse_coo_tensor(ei.flip(0), w, (4, 4)).to_dense()
    assert torch.allclose(gcn_adjacency(edges, 4).to_dense(), reference, atol=1e-7)


def test_inference_does_not_import_torch_geometric():
    import subprocess
    import sys

    code = ("import sys; from mirtune.embedding import embed; from mirtune.paths import ASSETS_DIR; "
            "embed([str(ASSETS_DIR / 'examples' / 'heat2d.c')]); "
            "print(any(m.startswith('torch_geometric') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_graph_encoder_trains_through_the_sparse_product(model, samples):
    batch = collate(samples[:2], model.cfg.n_flows)
    g = model.graph.train()
    g.zero_grad()
    g(batch.node_ids, batch.node_type, batch.edge_index).pow(2).mean().backward()
    assert all(conv.lin.weight.grad is not None and conv.lin.weight.grad.abs().sum() > 0 for conv in g.convs)
    assert model.token_embedding.weight.grad.abs().sum() > 0
    g.zero_grad()


def test_bf16_copy_lowers_the_statement_transformer_only(model, samples):
    low = model.in_precision("bf16")
    assert model.in_precision("fp32") is model
    assert low is not model and low.text.layers.layers[0].linear1.weight.dtype == torch.bfloat16
    assert low.graph.convs[0].lin.weight.dtype == torch.float32
    assert model.text.layers.layers[0].linear1.weight.dtype == torch.float32  # the original is untouched
    assert model.token_embedding.weight.dtype == torch.float32
    batch = collate(samples)
    exact, lowered = model.embed(batch), low.embed(batch)
    cached = low.embed(batch, statement_cache=StatementCache())
    assert lowered.dtype == cached.dtype == torch.float32
    torch.testing.assert_close(cached, lowered, atol=1e-2, rtol=1e-2)  # two bf16 paths: same to bf16 rounding
    graph_part = slice(model.cfg.d_model, None)
    torch.testing.assert_close(lowered[:, graph_part], exact[:, graph_part])  # the GCN stays float32
    assert not torch.equal(lowered, exact)
    torch.testing.assert_close(lowered, exact, atol=5e-2, rtol=5e-2)
    with pytest.raises(ValueError, match="unknown precision"):
        model.in_precision("fp16")


def test_meanmax_readout_is_the_mean_and_the_max_of_each_modality(model, samples):
    from mirtune.model.encoder import embedding_dim, max_by_group

    batch = collate(samples)
    mean = model.embed(batch)
    both = model.embed(batch, readout="meanmax", statement_cache=StatementCache())
    d, g = model.cfg.d_model, model.cfg.gcn_hidden
    assert both.shape == (len(samples), embedding_dim(model.cfg, "meanmax")) == (len(samples), 2 * (d + g))
    torch.testing.assert_close(both[:, :d], mean[:, :d], atol=1e-5, rtol=1e-4)
    torch.testing.assert_close(both[:, 2 * d:2 * d + g], mean[:, d:], atol=1e-5, rtol=1e-4)
    with torch.inference_mode():
        states = model.text.cls_states(batch.stmt_ids)
        nodes = model.graph(batch.node_ids, batch.node_type, batch.edge_index)
    for i in range(len(samples)):
        torch.testing.assert_close(both[i, d:2 * d], states[batch.stmt_file == i].max(0).values, atol=1e-5, rtol=1e-4)
        torch.testing.assert_close(both[i, 2 * d + g:], nodes[batch.node_file == i].max(0).values, atol=1e-5,
                                   rtol=1e-4)
    assert max_by_group(torch.ones(2, 3), torch.tensor([0, 0]), 2)[1].tolist() == [0, 0, 0]  # an empty group
    with pytest.raises(ValueError, match="unknown readout"):
        model.embed(batch, readout="sum")


def test_distinct_rows_finds_first_occurrences_across_columns():
    ids = torch.tensor([[1, 2], [3, 4], [1, 2], [1, 2], [3, 4]])
    kind = torch.tensor([0, 0, 0, 1, 0])
    first, inverse = distinct_rows(ids, kind)
    assert first.tolist() == [0, 1, 3] and inverse.tolist() == [0, 1, 0, 2, 1]
    assert torch.equal(torch.cat([ids, kind[:, None]], 1)[first][inverse], torch.cat([ids, kind[:, None]], 1))
