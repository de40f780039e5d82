"""MIREncoder: the statement Transformer + GCN encoder of LLVM IR, its pre-training objectives and weights I/O."""

from mirtune.model.config import PRESETS, EncoderConfig, preset

__all__ = ["EncoderConfig", "PRESETS", "preset"]
