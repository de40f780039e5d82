"""Encoder configurations: the shipped `small` preset and the paper-sized `paper` preset.

`small` pre-trains on a 2-core CPU in about an hour and embeds a typical kernel in a few milliseconds;
`paper` has about 22M parameters like the MIREncoder paper's model (a BERT-style text encoder of six
512-wide layers with an 8000-piece vocabulary, and a 3-layer GCN).
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Any

from mirtune.errors import MirtuneError, UsageError


MODALITIES = ("both", "text", "graph")


@dataclass(frozen=True)
class EncoderConfig:
    """Every size and special id the encoder and its pre-training heads need."""

    vocab_size: int = 8000
    seq_len: int = 64
    d_model: int = 128          # token embedding and statement Transformer width
    n_layers: int = 2           # Transformer encoder layers
    n_heads: int = 4
    d_ff: int = 512             # Transformer feed-forward width
    dropout: float = 0.1
    gcn_hidden: int = 128       # GCN width = node latent size = graph vector size
    gcn_layers: int = 3
    n_node_types: int = 3       # INSTRUCTION, VARIABLE, CONSTANT
    n_flows: int = 3            # CONTROL, DATA, CALL
    match_hidden: int = 128     # hidden width of the IR-graph matching classifier
    pad_id: int = 0
    unk_id: int = 1
    cls_id: int = 2
    sep_id: int = 3
    mask_id: int = 4
    n_special: int = 5          # ids below this are special tokens (never drawn as random MLM tokens)
    preset: str = "custom"
    modality: str = "both"      # both; or text / graph: a single-modality encoder (the paper's ablations)

    @property
    def has_text(self) -> bool:
        return self.modality in ("both", "text")

    @property
    def has_graph(self) -> bool:
        return self.modality in ("both", "graph")

    @property
    def embedding_dim(self) -> int:
        """Length of an embedding vector: text vector ++ graph vector (only one of them for one modality)."""
        return (self.d_model if self.has_text else 0) + (self.gcn_hidden if self.has_graph else 0)

    def with_tokenizer(self, tokenizer: Any) -> "EncoderConfig":
        """The same sizes with the vocabulary size and special ids of an IRTokenizer."""
        return dataclasses.replace(self, vocab_size=tokenizer.vocab_size, seq_len=tokenizer.seq_len,
                                   pad_id=tokenizer.pad_id, unk_id=tokenizer.unk_id, cls_id=tokenizer.cls_id,
                                   sep_id=tokenizer.sep_id, mask_id=tokenizer.mask_id,
                                   n_special=max(tokenizer.pad_id, tokenizer.unk_id, tokenizer.cls_id,
                                                 tokenizer.sep_id, tokenizer.mask_id) + 1)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True)

    @classmethod
    def from_dict(cls, data: Any, source: str | None = None) -> "EncoderConfig":
        """Validate and build a config from parsed JSON; MirtuneError naming the problem otherwise."""
        if not isinstance(data, dict):
            raise MirtuneError("model config is not a JSON object", source)
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - set(fields))
        if unknown:
            raise MirtuneError(f"model config has unknown fields: {', '.join(unknown)}", source)
        values = {}
        for name, value in data.items():
            want = type(getattr(cls(), name))
            if want is float and isinstance(value, int) and not isinstance(value, bool):
                value = float(value)
            if not isinstance(value, want) or isinstance(value, bool):
                raise MirtuneError(f"model config field {name!r} should be {want.__name__}, got {value!r}", source)
            values[name] = value
        cfg = cls(**values)
        cfg.validate(source)
        return cfg

    def validate(self, source: str | None = None) -> None:
        """Raise MirtuneError if the sizes cannot make a model."""
        for name in ("vocab_size", "seq_len", "d_model", "n_layers", "n_heads", "d_ff", "gcn_hidden",
                     "gcn_layers", "match_hidden"):
            if getattr(self, name) < 1:
                raise MirtuneError(f"model config field {name!r} must be positive", source)
        if self.d_model % self.n_heads:
            raise MirtuneError(f"d_model {self.d_model} is not a multiple of n_heads {self.n_heads}", source)
        if self.modality not in MODALITIES:
            raise MirtuneError(f"model config field 'modality' must be one of {', '.join(MODALITIES)}, "
                               f"got {self.modality!r}", source)
        if not 0.0 <= self.dropout < 1.0:
            raise MirtuneError("model config field 'dropout' must be in [0, 1)", source)
        ids = (self.pad_id, self.unk_id, self.cls_id, self.sep_id, self.mask_id)
        if len(set(ids)) != 5 or min(ids) < 0 or max(ids) >= self.vocab_size:
            raise MirtuneError("model config special token ids are invalid", source)


PRESETS: dict[str, EncoderConfig] = {
    "small": EncoderConfig(d_model=128, n_layers=2, n_heads=4, d_ff=512, gcn_hidden=128, gcn_layers=3,
                           match_hidden=128, preset="small"),
    # Between the two, for model-size studies on CPU (about 5.7x small's parameters besides the token table).
    "medium": EncoderConfig(d_model=256, n_layers=3, n_heads=8, d_ff=1024, gcn_hidden=256, gcn_layers=3,
                            match_hidden=256, preset="medium"),
    "paper": EncoderConfig(d_model=512, n_layers=5, n_heads=8, d_ff=2048, gcn_hidden=512, gcn_layers=3,
                           match_hidden=512, preset="paper"),
    # For tests: a model that trains in seconds.
    "tiny": EncoderConfig(d_model=32, n_layers=1, n_heads=2, d_ff=64, gcn_hidden=32, gcn_layers=2,
                          match_hidden=32, dropout=0.0, preset="tiny"),
}


def preset(name: str, tokenizer: Any = None, modality: str = "both") -> EncoderConfig:
    """A named preset, sized to a tokenizer's vocabulary when one is given, for one or both modalities."""
    if name not in PRESETS:
        raise UsageError(f"unknown model preset {name!r}; choose from {', '.join(PRESETS)}")
    if modality not in MODALITIES:
        raise UsageError(f"unknown modality {modality!r}; choose from {', '.join(MODALITIES)}")
    cfg = dataclasses.replace(PRESETS[name], modality=modality)
    return cfg.with_tokenizer(tokenizer) if tokenizer is not None else cfg
