"""mirtune: autotuning driven by MIREncoder embeddings of LLVM IR."""

__version__ = "0.1.0"
