"""MIREncoder: a statement Transformer (text modality) and a GCN over the program graph (graph modality).

Both modalities read tokens through ONE shared token embedding table.

Text: each statement's 64 ids run through a pre-norm Transformer encoder on their own; the statement's
vector is the final state of its [CLS] position, and a file's text vector is the mean of its statement
vectors. Identical statements in a batch of files are encoded once and scattered back (IR repeats itself
a lot), and each batch is trimmed to its longest statement (padding is masked, so this changes nothing).

Graph: a node's feature is the mean of the token embeddings of its tokenised full_text (padding
excluded) plus a node-type embedding. GCNConv layers run over the UNION of the control, data and call
flows, made undirected. Why the union and not one convolution per flow: GCNConv has no edge types, and
a relational (per-flow) GCN triples the graph parameters and the message passing for graphs whose three
flows mostly connect the same neighbourhoods (a data edge and a control edge usually join consecutive
instructions); the flows are kept apart where they matter, in the pre-training decoder, which
reconstructs each flow's adjacency separately from the shared latents (see objectives.py). Undirected
edges let a node hear both its producers and its users. The graph vector is the mean of the node latents.

The embedding of a file is text vector ++ graph vector (`MIREncoder.embed`, inference mode, deterministic).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from mirtune.model.config import EncoderConfig
from mirtune.model.samples import length_groups


GPU_GROUP_TOKENS = 65536  # StatementEncoder.group_tokens when training on a GPU: few large chunks


@dataclass
class IRBatch:
    """A batch of files: their statements, graph nodes and per-flow edges, with global node indices."""

    stmt_ids: Tensor            # [S, L] long
    stmt_file: Tensor           # [S] long: which file each statement belongs to
    node_ids: Tensor            # [N, L] long
    node_type: Tensor           # [N] long
    node_file: Tensor           # [N] long
    edge_index: list[Tensor]    # per flow (CONTROL, DATA, CALL): [2, E_f] long, global node indices
    num_files: int
    ids: list[str] = field(default_factory=list)
    # per flow: [2, E'_f] sampled non-edges for graph auto-encoding, drawn where the batch is built (a GPU
    # training step would otherwise wait on PyG's per-graph sampling loop); None: drawn in the loss
    negatives: list[Tensor] | None = None

    def to(self, device: Any) -> "IRBatch":
        return IRBatch(self.stmt_ids.to(device), self.stmt_file.to(device), self.node_ids.to(device),
                       self.node_type.to(device), self.node_file.to(device),
                       [e.to(device) for e in self.edge_index], self.num_files, self.ids,
                       None if self.negatives is None else [e.to(device) for e in self.negatives])

    @property
    def num_nodes(self) -> int:
        return int(self.node_ids.shape[0])


def collate(samples: Sequence[dict[str, np.ndarray]], n_flows: int = 3) -> IRBatch:
    """Stack samples shaped by `mirtune.pretrain.samples.sample_arrays` into one IRBatch."""
    stmt, stmt_file, nodes, node_type, node_file = [], [], [], [], []
    flows: list[list[np.ndarray]] = [[] for _ in range(n_flows)]
    offset = 0
    for i, s in enumerate(samples):
        n_stmt, n_nodes = s["stmt_ids"].shape[0], s["node_ids"].shape[0]
        stmt.append(s["stmt_ids"])
        stmt_file.append(np.full(n_stmt, i, dtype=np.int64))
        nodes.append(s["node_ids"])
        node_type.append(s["node_type"])
        node_file.append(np.full(n_nodes, i, dtype=np.int64))
        e = s["edges"]
        for f in range(n_flows):
            sel = e[e[:, 2] == f]
            flows[f].append(sel[:, :2].T + offset)
        offset += n_nodes
    seq_len = samples[0]["stmt_ids"].shape[1] if samples else 64

    def cat(parts: list[np.ndarray], shape: tuple[int, ...]) -> Tensor:
        arr = np.concatenate(parts) if parts else np.zeros(shape, dtype=np.int64)
        return torch.from_numpy(np.ascontiguousarray(arr, dtype=np.int64))

    return IRBatch(
        stmt_ids=cat(stmt, (0, seq_len)), stmt_file=cat(stmt_file, (0,)),
        node_ids=cat(nodes, (0, seq_len)), node_type=cat(node_type, (0,)), node_file=cat(node_file, (0,)),
        edge_index=[torch.from_numpy(np.ascontiguousarray(np.concatenate(f, axis=1) if f else
                                                          np.zeros((2, 0)), dtype=np.int64)) for f in flows],
        num_files=len(samples), ids=[str(s.get("id", "")) for s in samples])


def mean_by_group(values: Tensor, group: Tensor, num_groups: int) -> Tensor:
    """Mean of the rows of `values` per group id (0 for a group with no rows)."""
    out = values.new_zeros((num_groups, values.shape[1]))
    out.index_add_(0, group, values)
    counts = torch.bincount(group, minlength=num_groups).clamp(min=1).to(values.dtype)
    return out / counts.unsqueeze(1)


def distinct_rows(*columns: Tensor) -> tuple[Tensor, Tensor]:
    """(first, inverse) over the rows of integer tensors of equal length ([N, k] or [N]), compared across all of
    them: the index of each distinct row's first occurrence, and for each row the position of its distinct row in
    `first`. A dict of row bytes: several times faster than torch.unique(dim=0) on CPU."""
    device = columns[0].device
    n = columns[0].shape[0]
    table = np.concatenate([c.reshape(n, -1).cpu().numpy().astype(np.int64, copy=False) for c in columns], axis=1)
    seen: dict[bytes, int] = {}
    inverse = np.fromiter((seen.setdefault(row.tobytes(), len(seen)) for row in table), np.int64, n)
    first = np.unique(inverse, return_index=True)[1]
    return torch.from_numpy(first).to(device), torch.from_numpy(inverse).to(device)


def max_by_group(values: Tensor, group: Tensor, num_groups: int) -> Tensor:
    """Element-wise max of the rows of `values` per group id (0 for a group with no rows)."""
    out = values.new_zeros((num_groups, values.shape[1]))
    return out.scatter_reduce_(0, group.unsqueeze(1).expand_as(values), values, "amax", include_self=False)


READOUTS = ("mean", "meanmax")


def pool(values: Tensor, group: Tensor, num_groups: int, readout: str = "mean") -> Tensor:
    """A vector per group from its rows: their mean ("mean", the paper's), or their mean ++ their element-wise
    max ("meanmax": the max keeps what a few statements or nodes say, which a mean over hundreds dilutes)."""
    mean = mean_by_group(values, group, num_groups)
    return mean if readout == "mean" else torch.cat([mean, max_by_group(values, group, num_groups)], dim=1)


def embedding_dim(cfg: EncoderConfig, readout: str = "mean") -> int:
    """Length of an embedding vector with this readout."""
    return cfg.embedding_dim * (2 if readout == "meanmax" else 1)


class StatementCache:
    """[CLS] states of statements already encoded, kept across batches (IR repeats the same statements across
    files): one row per distinct statement in a table that grows by doubling, found by the bytes of its ids.
    At most `limit` statements; when a batch would pass that, the cache starts over."""

    def __init__(self, limit: int = 100_000) -> None:
        self.limit = limit
        self.row_of: dict[bytes, int] = {}
        self.table: Tensor | None = None

    def __len__(self) -> int:
        return len(self.row_of)

    def clear(self) -> None:
        self.row_of.clear()
        self.table = None

    def add(self, keys: list[bytes], states: Tensor) -> None:
        """Remember `states[i]` as the state of the statement whose ids' bytes are `keys[i]`."""
        start, end = len(self.row_of), len(self.row_of) + len(keys)
        if self.table is None or end > self.table.shape[0]:
            grown = states.new_empty((max(end, 2 * (0 if self.table is None else self.table.shape[0]), 1024),
                                      states.shape[1]))
            if self.table is not None:
                grown[:start] = self.table[:start]
            self.table = grown
        self.table[start:end] = states
        self.row_of.update(zip(keys, range(start, end)))


class StatementEncoder(nn.Module):
    """Pre-norm Transformer encoder over one statement's ids; returns every position's final state."""

    def __init__(self, cfg: EncoderConfig, token_embedding: nn.Embedding) -> None:
        super().__init__()
        self.cfg = cfg
        self.token_embedding = token_embedding
        self.position_embedding = nn.Embedding(cfg.seq_len, cfg.d_model)
        self.input_norm = nn.LayerNorm(cfg.d_model)
        self.dropout = nn.Dropout(cfg.dropout)
        layer = nn.TransformerEncoderLayer(cfg.d_model, cfg.n_heads, cfg.d_ff, cfg.dropout, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.layers = nn.TransformerEncoder(layer, cfg.n_layers, norm=nn.LayerNorm(cfg.d_model),
                                            enable_nested_tensor=False)
        self.group_tokens: int | None = None  # forward(): chunks of this many padded positions (GPU_GROUP_TOKENS)

    def forward(self, ids: Tensor, chunk: int = 64) -> Tensor:
        """States [S, L', d] for ids [S, L] (right padding), L' = the longest statement of the batch.

        Statements are sorted by length and run in chunks of `chunk`, each trimmed to its own longest
        statement: IR statements are mostly short, so this saves most of the padding's work. With
        `group_tokens` set, a chunk is instead as many statements as fit that many padded positions: on a GPU
        each chunk costs launches and a host sync whatever its size, so few large ones pay. Padding is masked,
        so the states of real positions do not depend on the chunking.
        """
        keep = ids != self.cfg.pad_id
        lengths = keep.sum(1)
        n = ids.shape[0]
        width = max(int(lengths.max().item()) if n else 1, 1)
        if n <= chunk or (self.group_tokens and n * width <= self.group_tokens):
            return self._run(ids[:, :width], keep[:, :width])
        order = torch.argsort(lengths, stable=True)
        sorted_lengths = lengths[order].tolist()
        groups = (length_groups(sorted_lengths, self.group_tokens) if self.group_tokens
                  else ((start, min(start + chunk, n)) for start in range(0, n, chunk)))
        parts = []
        for start, end in groups:
            idx = order[start:end]
            w = max(sorted_lengths[end - 1], 1)
            h = self._run(ids[idx, :w], keep[idx, :w])
            parts.append(F.pad(h, (0, 0, 0, width - w)))
        inverse = torch.empty_like(order)
        inverse[order] = torch.arange(n, device=order.device)
        return torch.cat(parts)[inverse]

    def _inputs(self, ids: Tensor) -> Tensor:
        """Token + position embeddings, normalised: the first layer's input."""
        pos = torch.arange(ids.shape[1], device=ids.device)
        return self.input_norm(self.token_embedding(ids) + self.position_embedding(pos).unsqueeze(0))

    def _run(self, ids: Tensor, keep: Tensor) -> Tensor:
        return self.layers(self.dropout(self._inputs(ids)), src_key_padding_mask=~keep)

    @torch.inference_mode()
    def cls_states(self, ids: Tensor, tokens: int = 1024) -> Tensor:
        """Final [CLS] states [S, d] in inference mode: what forward()[:, 0] gives, with the last layer run
        for the [CLS] query alone (its keys and values still see every position), which saves most of that
        layer's work. Statements are sorted by length and run in groups of about `tokens` padded positions, each
        trimmed to its longest statement: small products that stay in cache, and little padding even among the
        long statements (faster than groups of a fixed count). The states are float32 whatever
        the encoder's precision (see MIREncoder.in_precision)."""
        keep = ids != self.cfg.pad_id
        lengths = keep.sum(1)
        order = torch.argsort(lengths, stable=True)
        sorted_lengths = lengths[order].tolist()
        out = ids.new_empty((ids.shape[0], self.cfg.d_model), dtype=torch.float32)
        for start, end in length_groups(sorted_lengths, tokens):
            idx = order[start:end]
            w = max(sorted_lengths[end - 1], 1)
            out[idx] = self._cls_run(ids[idx, :w], keep[idx, :w]).float()
        return out

    def _cls_run(self, ids: Tensor, keep: Tensor) -> Tensor:
        x = self._inputs(ids)
        *first, last = self.layers.layers
        for layer in first:
            x = layer(x, src_key_padding_mask=~keep)
        # the last pre-norm layer for the [CLS] position only
        h = last.norm1(x)
        attn = last.self_attn
        d, n_heads = self.cfg.d_model, self.cfg.n_heads
        w_q, w_kv = attn.in_proj_weight[:d], attn.in_proj_weight[d:]
        b_q, b_kv = attn.in_proj_bias[:d], attn.in_proj_bias[d:]
        q = F.linear(h[:, :1], w_q, b_q)                                  # [B, 1, d]
        k, v = F.linear(h, w_kv, b_kv).chunk(2, dim=-1)                  # [B, L, d] each
        b = h.shape[0]
        heads = lambda t: t.view(b, -1, n_heads, d // n_heads).transpose(1, 2)  # noqa: E731
        a = F.scaled_dot_product_attention(heads(q), heads(k), heads(v), attn_mask=keep[:, None, None, :])
        a = a.transpose(1, 2).reshape(b, 1, d)
        c = x[:, :1] + attn.out_proj(a)
        c = c + last.linear2(last.activation(last.linear1(last.norm2(c))))
        return self.layers.norm(c)[:, 0]


class GCNWeights(nn.Module):
    """The parameters of one GCN layer, named and initialised as torch_geometric's GCNConv (`lin.weight`,
    Glorot; `bias`, zeros), so that saved weights load either way. The encoder propagates them itself
    (`GraphEncoder.forward`), which keeps torch_geometric off the inference path (it costs seconds to import)."""

    def __init__(self, in_channels: int, out_channels: int) -> None:
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_channels))
        nn.init.xavier_uniform_(self.lin.weight)

    def forward(self, x: Tensor, adjacency: Tensor) -> Tensor:
        """One layer on its own: adjacency @ (x W) + b."""
        return propagate(adjacency, self.lin(x), self.bias)


def propagate(adjacency: Tensor, h: Tensor, bias: Tensor) -> Tensor:
    """adjacency @ h + bias, in fp32 outside autocast: CUDA has no bf16 sparse addmm."""
    with torch.autocast(device_type=h.device.type, enabled=False):
        return torch.sparse.mm(adjacency, h.float()) + bias


def undirected_edges(edge_index: list[Tensor], num_nodes: int) -> Tensor:
    """All flows' edges in both directions, duplicates removed, sorted by (source, target)."""
    ei = torch.cat(edge_index, dim=1) if edge_index else torch.zeros((2, 0), dtype=torch.long)
    n = max(num_nodes, 1)
    key = torch.unique(torch.cat([ei[0] * n + ei[1], ei[1] * n + ei[0]]))
    return torch.stack([key // n, key % n])


def gcn_adjacency(edges: Tensor, num_nodes: int) -> Tensor:
    """GCN's normalised adjacency D^-1/2 (A + I) D^-1/2 as a sparse [N, N] matrix (row = target): every
    existing self-loop replaced by one of weight 1 per node, degrees counted at the target, as GCNConv does."""
    keep = edges[0] != edges[1]
    loops = torch.arange(num_nodes, dtype=edges.dtype, device=edges.device)
    row = torch.cat([edges[0][keep], loops])  # source
    col = torch.cat([edges[1][keep], loops])  # target
    weight = torch.ones(row.numel(), device=edges.device)
    deg = torch.zeros(num_nodes, device=edges.device).index_add_(0, col, weight)
    inv = deg.pow(-0.5)
    inv[torch.isinf(inv)] = 0
    norm = inv[row] * weight * inv[col]
    return torch.sparse_coo_tensor(torch.stack([col, row]), norm, (num_nodes, num_nodes),
                                   check_invariants=False).coalesce()


class GraphEncoder(nn.Module):
    """Node features from token embeddings + node type, GCN layers over the union of the flows."""

    def __init__(self, cfg: EncoderConfig, token_embedding: nn.Embedding) -> None:
        super().__init__()
        self.cfg = cfg
        self.token_embedding = token_embedding
        self.type_embedding = nn.Embedding(cfg.n_node_types, cfg.d_model)
        self.input_norm = nn.LayerNorm(cfg.d_model)
        dims = [cfg.d_model] + [cfg.gcn_hidden] * cfg.gcn_layers
        self.convs = nn.ModuleList(GCNWeights(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.dropout = nn.Dropout(cfg.dropout)

    def node_features(self, node_ids: Tensor, node_type: Tensor) -> Tensor:
        """[N, d]: mean token embedding of each node's ids (padding excluded) + its type embedding."""
        tokens = F.embedding_bag(node_ids, self.token_embedding.weight, mode="mean",
                                 padding_idx=self.cfg.pad_id)
        return self.input_norm(tokens + self.type_embedding(node_type))

    @staticmethod
    def union_edges(edge_index: list[Tensor], num_nodes: int) -> Tensor:
        """All flows' edges in both directions, duplicates removed."""
        return undirected_edges(edge_index, num_nodes)

    def adjacency(self, edge_index: list[Tensor], num_nodes: int) -> Tensor:
        """GCN's normalised adjacency of the union of the flows (`gcn_adjacency`), built once for all layers:
        GCNConv would rebuild it in every layer and gather and scatter per edge, which costs about twice as much
        as one sparse product per layer."""
        return gcn_adjacency(self.union_edges(edge_index, num_nodes), num_nodes)

    def forward(self, node_ids: Tensor, node_type: Tensor, edge_index: list[Tensor]) -> Tensor:
        """Node latents [N, gcn_hidden]: each GCNConv layer's own weights and bias, propagated as adj @ (x W).

        Out of training, nodes with the same ids and type (every `i32` variable, every `0` constant, every
        repeated statement) share their features and first-layer transform, so those are computed once per
        distinct node. In training, dropout makes each row its own."""
        adj = self.adjacency(edge_index, node_ids.shape[0])
        if self.training:
            x = self.convs[0].lin(self.dropout(self.node_features(node_ids, node_type)))
        else:
            first, inverse = distinct_rows(node_ids, node_type)
            x = self.convs[0].lin(self.node_features(node_ids[first], node_type[first]))[inverse]
        for i, conv in enumerate(self.convs):
            x = propagate(adj, x if i == 0 else conv.lin(x), conv.bias)
            if i < len(self.convs) - 1:
                x = self.dropout(F.relu(x))
        return x


@dataclass
class EncoderOutput:
    """What one pass gives; the fields of a modality the encoder does not have are None."""

    text: Tensor | None         # [B, d_model] file text vectors
    graph: Tensor | None        # [B, gcn_hidden] file graph vectors
    nodes: Tensor | None        # [N, gcn_hidden] node latents
    statements: Tensor | None   # [S, L', d_model] statement states (masked ids in pre-training), unique rows
    stmt_inverse: Tensor | None  # [S_batch] index into `statements` for each statement of the batch


PRECISIONS = ("fp32", "bf16")


class MIREncoder(nn.Module):
    """The two-modality encoder; `embed` gives the frozen embedding, `forward` what pre-training needs.

    With `cfg.modality` "text" or "graph" only that half exists (the single-modality ablations)."""

    def __init__(self, cfg: EncoderConfig) -> None:
        super().__init__()
        cfg.validate()
        self.cfg = cfg
        self.token_embedding = nn.Embedding(cfg.vocab_size, cfg.d_model, padding_idx=cfg.pad_id)
        self.text = StatementEncoder(cfg, self.token_embedding) if cfg.has_text else None
        self.graph = GraphEncoder(cfg, self.token_embedding) if cfg.has_graph else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        nn.init.normal_(self.token_embedding.weight, std=0.02)
        if self.text is not None:
            nn.init.normal_(self.text.position_embedding.weight, std=0.02)
        if self.graph is not None:
            nn.init.normal_(self.graph.type_embedding.weight, std=0.02)
        with torch.no_grad():
            self.token_embedding.weight[self.cfg.pad_id].zero_()

    def in_precision(self, precision: str) -> "MIREncoder":
        """This encoder for embedding in `precision` (one of PRECISIONS): itself for "fp32"; for "bf16" a copy
        whose statement Transformer (most of the embedding time) computes in bfloat16, which CPUs with AMX or
        AVX512-BF16 and GPUs run much faster, at about 3 significant digits. The GCN, a small share of the time,
        stays float32, and [CLS] states come back as float32."""
        if precision not in PRECISIONS:
            raise ValueError(f"unknown precision {precision!r}; choose from {', '.join(PRECISIONS)}")
        if precision == "fp32" or self.text is None:
            return self
        lowered = copy.deepcopy(self)
        lowered.text = copy.deepcopy(self.text).to(torch.bfloat16)  # its own token table: the GCN keeps float32
        return lowered.eval()

    def encode_statements(self, ids: Tensor) -> Tensor:
        """Final states [S, L', d] of each statement (no de-duplication)."""
        return self.text(ids)

    def forward(self, batch: IRBatch, stmt_ids: Tensor | None = None, stmt_inverse: Tensor | None = None,
                dedup: bool = True) -> EncoderOutput:
        """Encode a batch. Pre-training passes de-duplicated, masked `stmt_ids` with their `stmt_inverse`
        (one index per statement of the batch); otherwise the batch's statements are de-duplicated here."""
        text = graph = nodes = states = None
        if self.text is not None:
            if stmt_ids is None:
                if dedup and batch.stmt_ids.shape[0] > 1:
                    stmt_ids, stmt_inverse = torch.unique(batch.stmt_ids, dim=0, return_inverse=True)
                else:
                    stmt_ids = batch.stmt_ids
                    stmt_inverse = torch.arange(stmt_ids.shape[0], device=stmt_ids.device)
            assert stmt_inverse is not None
            states = self.encode_statements(stmt_ids)
            cls = states[:, 0][stmt_inverse].float()
            text = mean_by_group(cls, batch.stmt_file, batch.num_files)
        if self.graph is not None:
            nodes = self.graph(batch.node_ids, batch.node_type, batch.edge_index)
            graph = mean_by_group(nodes, batch.node_file, batch.num_files)
        return EncoderOutput(text, graph, nodes, states, stmt_inverse)

    def embed(self, batch: IRBatch, dedup: bool = True, statement_cache: StatementCache | None = None,
              readout: str = "mean") -> Tensor:
        """Embeddings [B, embedding_dim(cfg, readout)] = text vector ++ graph vector (those present), in inference
        mode. Each vector pools its rows (statement [CLS] states, node latents) by `readout` (see pool()).

        With `statement_cache`, each distinct statement's [CLS] state is computed once and kept there across
        calls; the vectors equal the uncached ones up to float rounding."""
        if readout not in READOUTS:
            raise ValueError(f"unknown readout {readout!r}; choose from {', '.join(READOUTS)}")
        was_training = self.training
        self.eval()
        try:
            with torch.inference_mode():
                parts = []
                if self.text is not None:
                    cls = self._statement_states(batch, statement_cache, dedup)
                    parts.append(pool(cls, batch.stmt_file, batch.num_files, readout))
                if self.graph is not None:
                    nodes = self.graph(batch.node_ids, batch.node_type, batch.edge_index)
                    parts.append(pool(nodes, batch.node_file, batch.num_files, readout))
                return torch.cat(parts, dim=1)
        finally:
            self.train(was_training)

    def _statement_states(self, batch: IRBatch, cache: StatementCache | None, dedup: bool) -> Tensor:
        """Final [CLS] state [S, d] (float32) of every statement of the batch: each distinct one encoded once
        (unless not `dedup`), read from and added to `cache` when given."""
        ids = batch.stmt_ids
        if ids.shape[0] == 0:
            return ids.new_zeros((0, self.cfg.d_model), dtype=torch.float32)
        if cache is None and not dedup:
            return self.text.cls_states(ids)
        first, inverse = distinct_rows(ids)
        if cache is None:
            return self.text.cls_states(ids[first])[inverse]
        keys = [row.tobytes() for row in ids[first].cpu().numpy()]
        if len(cache) + len(keys) > cache.limit:
            cache.clear()
        missing = [i for i, k in enumerate(keys) if k not in cache.row_of]
        if missing:
            cache.add([keys[i] for i in missing], self.text.cls_states(ids[first[missing]]))
        rows = torch.as_tensor([cache.row_of[k] for k in keys], device=ids.device)
        return cache.table[rows][inverse]

    def parameter_counts(self) -> dict[str, int]:
        """Parameters per part (the shared token embedding counted once, on its own)."""
        def count(m: nn.Module, skip: set[int] = set()) -> int:
            return sum(p.numel() for p in m.parameters() if id(p) not in skip)

        shared = {id(self.token_embedding.weight)}
        parts = {
            "token_embedding": self.token_embedding.weight.numel(),
            "statement_transformer": count(self.text, shared) if self.text is not None else 0,
            "graph_gcn": count(self.graph, shared) if self.graph is not None else 0,
        }
        parts["total"] = sum(parts.values())
        return parts
