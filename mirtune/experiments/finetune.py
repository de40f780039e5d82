"""End-to-end training of MIREncoder with a small task head, for the data-efficiency study: a classifier (device
mapping) or a regression of every configuration's gain (the measured tasks, openmp and vectorize).

    model, info = fit_end_to_end("finetune", loaded, train_samples, train_context, train_labels, E2EConfig(), seed=0)
    labels = predict(model, test_samples, test_context)
    model, info = fit_end_to_end("scratch", loaded, samples, context, table.train_gains()[rows], config, seed=0,
                                 objective="gain")
    gains = predict_outputs(model, test_samples, test_context)      # [n, n_configs] predicted log speedups
    chosen = predict(model, test_samples, test_context)             # the configuration with the best of them

The model is the frozen-encoder pipeline made trainable: encoder -> embedding (text vector ++ graph vector, the
`embed()` readout) ++ context features -> standardisation -> a head of `mirtune.predict.heads`: the MLP head
(`objective="classify"`, cross-entropy on labels) or the ridge gain head as a linear layer (`objective="gain"`,
mean squared error on the log gain of every configuration, the target `GainTable.train_gains()` that the frozen
method's gain head is fitted on). The encoder starts from random weights (`scratch`, seeded) or from the
pre-trained ones (`finetune`); everything else is the same recipe, for both objectives:
1. probe: one inference pass embeds the training files (cut as in step 2) with the initial encoder, and the head
   is fitted on them exactly as the frozen method fits its head (`MLPHead` with `config.head`; `GainHead` with
   `config.gain_head`, whose ridge solution becomes the linear layer's weights and bias); its standardisation
   becomes the starting statistics of a batch normalisation (no affine part), which then follows the encoder as
   it trains (fixed statistics break a scratch encoder: its initial embeddings barely differ between files, so
   any change is magnified);
2. end to end: encoder and head are trained together with AdamW (encoder and head learning rates of their own,
   linear warm-up over the first tenth of the steps, then linear decay to 0; gradient clipping as in
   pre-training) for max(min_steps, epochs x batches per epoch) steps
   on batches of `batch_size` files; each file in a batch is cut to at most `max_statements` statements drawn
   at random every time (order kept, as pre-training does), while its program graph is kept whole.
Prediction embeds the files in inference mode with all their statements.

Encoder inputs (tokenised statements and program graphs) are built once per IR file and cached on disk next to
the embedding cache (`mirtune.embedding_cache.cache_dir()`), keyed by the tokenizer and the file's sha256.
"""

from __future__ import annotations

import copy
import io
import math
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from mirtune.predict.heads import GainConfig, HeadConfig

INITS = ("scratch", "finetune")
OBJECTIVES = ("classify", "gain")  # labels with the MLP head; every configuration's log gain with the ridge head


@dataclass(frozen=True)
class E2EConfig:
    """The end-to-end recipe (the same for scratch and finetune but for the encoder's learning rate)."""

    epochs: int = 3
    min_steps: int = 20
    batch_size: int = 16
    max_statements: int = 32
    scratch_lr: float = 5e-4      # encoder learning rate from random weights (pre-training's)
    finetune_lr: float = 1e-4     # encoder learning rate from the pre-trained weights
    head_lr: float = 1e-3
    weight_decay: float = 1e-4
    grad_clip: float = 1.0
    head: HeadConfig = field(default_factory=HeadConfig)           # objective "classify"
    gain_head: GainConfig = field(default_factory=GainConfig)      # objective "gain" (no PCA)

    def steps(self, n_rows: int) -> int:
        """Optimizer steps for `n_rows` training rows."""
        return max(self.min_steps, self.epochs * math.ceil(n_rows / max(1, self.batch_size)))

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


# ------------------------------------------------------------------------------------------- encoder inputs

_MEMORY: dict[tuple[str, str], dict[str, np.ndarray]] = {}


def samples_dir(loaded: Any) -> Path:
    """Where the encoder inputs built with this model's tokenizer are cached."""
    from mirtune.embedding_cache import cache_dir, file_hash

    tok = file_hash(Path(loaded.directory) / "tokenizer.json")[:16]
    return cache_dir() / f"samples-{tok}-{loaded.config.seq_len}"


def _build_sample(path: Path, loaded: Any) -> dict[str, np.ndarray]:
    from mirtune.ir.inputs import load_ir
    from mirtune.model.samples import module_to_sample, sample_arrays

    arrays = sample_arrays(module_to_sample(load_ir(path), loaded.tokenizer), loaded.config.seq_len)
    return {"stmt_ids": arrays["stmt_ids"].astype(np.int32), "node_ids": arrays["node_ids"].astype(np.int32),
            "node_type": arrays["node_type"].astype(np.int8), "edges": arrays["edges"].astype(np.int32)}


def load_samples(paths: Sequence[str | Path], loaded: Any) -> list[dict[str, np.ndarray]]:
    """The encoder input of each IR file (statement ids, node ids and types, edges), in order; built once per
    distinct file content and cached on disk and in this process."""
    from mirtune.paths import write_atomic
    from mirtune.embedding_cache import file_hash

    folder = samples_dir(loaded)
    out = []
    for p in paths:
        digest = file_hash(p)
        key = (str(folder), digest)
        if key not in _MEMORY:
            f = folder / f"{digest}.npz"
            sample = None
            if f.is_file():
                try:
                    with np.load(f) as z:
                        sample = {k: z[k] for k in z.files}
                except (OSError, ValueError):
                    sample = None  # a torn write: build again
            if sample is None:
                sample = _build_sample(Path(p), loaded)
                buf = io.BytesIO()
                np.savez_compressed(buf, **sample)
                write_atomic(f, buf.getvalue())
            _MEMORY[key] = sample
        out.append(_MEMORY[key])
    return out


def cut_statements(sample: dict[str, np.ndarray], limit: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """The sample with at most `limit` of its statements, drawn at random (order kept); the graph untouched."""
    n = sample["stmt_ids"].shape[0]
    if n <= limit:
        return sample
    keep = np.sort(rng.choice(n, limit, replace=False))
    return dict(sample, stmt_ids=sample["stmt_ids"][keep])


# ------------------------------------------------------------------------------------------------ the model

def initial_encoder(init: str, loaded: Any, seed: int):
    """A trainable copy of the encoder: the pre-trained weights (`finetune`) or the same architecture with
    fresh random weights drawn with `seed` (`scratch`)."""
    import torch

    from mirtune.model.encoder import MIREncoder

    if init == "finetune":
        return copy.deepcopy(loaded.encoder).float()
    if init != "scratch":
        raise ValueError(f"unknown initialisation {init!r}; choose from {', '.join(INITS)}")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return MIREncoder(loaded.config)


def _end_to_end_class():
    import torch
    from torch import nn

    class EndToEnd(nn.Module):
        """encoder -> embedding ++ context -> batch normalisation (started from the probe's standardisation) ->
        MLP head."""

        def __init__(self, encoder: nn.Module, mean: np.ndarray, std: np.ndarray, head: nn.Module,
                     objective: str = "classify", margin: float = 0.0) -> None:
            super().__init__()
            self.encoder, self.head = encoder, head
            self.objective, self.margin = objective, float(margin)
            self.norm = nn.BatchNorm1d(len(mean), eps=1e-8, affine=False)
            with torch.no_grad():
                self.norm.running_mean.copy_(torch.as_tensor(mean))
                self.norm.running_var.copy_(torch.as_tensor(std) ** 2)

        def forward(self, batch: Any, context: torch.Tensor) -> torch.Tensor:
            out = self.encoder(batch)
            emb = torch.cat([v for v in (out.text, out.graph) if v is not None], dim=1)
            return self.head(self.norm(torch.cat([emb, context], dim=1)))

    return EndToEnd


def embed_samples(encoder: Any, samples: Sequence[dict[str, np.ndarray]], batch_files: int = 16) -> np.ndarray:
    """Embeddings [n, dim] of samples in inference mode (what the frozen method's `embed()` computes)."""
    from mirtune.model.encoder import collate

    parts = [encoder.embed(collate(samples[i:i + batch_files])).numpy().astype(np.float64)
             for i in range(0, len(samples), batch_files)]
    return np.concatenate(parts) if parts else np.zeros((0, encoder.cfg.embedding_dim))


def _probe_head(objective: str, features: np.ndarray, targets: np.ndarray, config: E2EConfig, seed: int,
                n_classes: int):
    """(standardisation mean, std, trainable head module, torch targets, loss function) from the head fitted on the
    initial embeddings exactly as the frozen method fits its own."""
    import torch
    from torch import nn
    from torch.nn import functional as F

    from mirtune.predict.heads import GainHead, MLPHead

    if objective == "classify":
        labels = np.asarray(targets, dtype=np.int64)
        probe = MLPHead(n_classes, config.head, seed).fit(features, labels)
        return probe.scaler.mean_, probe.scaler.std_, probe.model, torch.as_tensor(labels), F.cross_entropy
    if objective != "gain":
        raise ValueError(f"unknown objective {objective!r}; choose from {', '.join(OBJECTIVES)}")
    gains = np.asarray(targets, dtype=np.float64)
    if gains.ndim != 2 or len(gains) != len(features):
        raise ValueError(f"objective 'gain' needs targets [n, n_configs]; got {gains.shape}")
    if config.gain_head.pca:
        raise ValueError("the end-to-end gain head sees the whole embedding: gain_head.pca must be 0")
    probe = GainHead(gains.shape[1], config.gain_head, seed).fit(features, gains=gains)
    linear = nn.Linear(features.shape[1], gains.shape[1])
    with torch.no_grad():  # the ridge solution on standardised features: the frozen method's gain head
        linear.weight.copy_(torch.as_tensor(probe.coef_.T))
        linear.bias.copy_(torch.as_tensor(probe.mean_))
    return probe.scaler.mean_, probe.scaler.std_, linear, torch.as_tensor(gains, dtype=torch.float32), F.mse_loss


def fit_end_to_end(init: str, loaded: Any, samples: Sequence[dict[str, np.ndarray]], context: np.ndarray,
                   targets: np.ndarray, config: E2EConfig, seed: int = 0, n_classes: int = 2,
                   objective: str = "classify") -> tuple[Any, dict[str, float]]:
    """Train encoder and head on the labelled samples (see the module doc): `targets` are class labels [n]
    (`objective` "classify", `n_classes` classes) or every configuration's log gain [n, n_configs] ("gain").
    Returns the model (eval mode) and {embed_s (the inference pass of the probe), probe_s (that pass and the
    head's fit), train_s, fit_s (all), steps, final_loss}."""
    import torch

    from mirtune.model.encoder import collate

    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}; choose from {', '.join(OBJECTIVES)}")
    context = np.asarray(context, dtype=np.float64).reshape(len(samples), -1)
    t0 = time.monotonic()
    encoder = initial_encoder(init, loaded, seed)
    rng = np.random.default_rng(seed)
    emb = embed_samples(encoder, [cut_statements(s, config.max_statements, rng) for s in samples])
    t_embed = time.monotonic() - t0
    mean, std, head, y_t, loss_fn = _probe_head(objective, np.hstack([emb, context]), targets, config, seed,
                                                n_classes)
    t_probe = time.monotonic() - t0
    model = _end_to_end_class()(encoder, mean, std, head, objective,
                                config.gain_head.margin if objective == "gain" else 0.0)
    lr = config.scratch_lr if init == "scratch" else config.finetune_lr
    opt = torch.optim.AdamW([{"params": model.encoder.parameters(), "lr": lr},
                             {"params": model.head.parameters(), "lr": config.head_lr}],
                            weight_decay=config.weight_decay)
    n = len(y_t)
    steps = config.steps(n)
    warmup = max(1, steps // 10)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / warmup) * (1.0 - s / steps))
    ctx_t = torch.as_tensor(context, dtype=torch.float32)
    bs = max(1, min(config.batch_size, n))
    order, pos, losses = rng.permutation(n), 0, []
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model.train()
        for _ in range(steps):
            if pos + bs > n:
                order, pos = rng.permutation(n), 0
            idx = order[pos:pos + bs]
            pos += bs
            batch = collate([cut_statements(samples[i], config.max_statements, rng) for i in idx])
            loss = loss_fn(model(batch, ctx_t[idx]), y_t[idx])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), config.grad_clip)
            opt.step()
            sched.step()
            losses.append(float(loss.detach()))
    model.eval()
    t_fit = time.monotonic() - t0
    return model, {"embed_s": t_embed, "probe_s": t_probe, "train_s": t_fit - t_probe, "fit_s": t_fit, "steps": steps,
                   "final_loss": float(np.mean(losses[-10:])) if losses else float("nan")}


def predict_outputs(model: Any, samples: Sequence[dict[str, np.ndarray]], context: np.ndarray) -> np.ndarray:
    """The head's outputs for the samples with their context features (inference mode, all statements): class
    logits [n, n_classes], or predicted log gains [n, n_configs] for a model of objective "gain"."""
    import torch

    emb = embed_samples(model.encoder, samples)
    x = torch.as_tensor(np.hstack([emb, np.asarray(context, dtype=np.float64).reshape(len(samples), -1)]),
                        dtype=torch.float32)
    with torch.inference_mode():
        return model.head(model.norm(x)).double().numpy()


def predict(model: Any, samples: Sequence[dict[str, np.ndarray]], context: np.ndarray) -> np.ndarray:
    """Labels of the samples with their context features: the class with the highest logit, or the configuration
    with the highest predicted gain (the default winning ties within the gain head's margin, as `heads.decide`)."""
    from mirtune.predict.heads import decide

    out = predict_outputs(model, samples, context)
    if getattr(model, "objective", "classify") == "gain":
        return decide(out, model.margin)
    return out.argmax(axis=1)
