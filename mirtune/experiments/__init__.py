"""The experiments, not the product: the paper tables, the measured-task evaluations, data efficiency, fine-tuning and
the tuning replay, used by `mirtune evaluate` and the benchmarks, never by the product."""
