"""The published tasks' tables and charts: every published row, this run as mean±std over its seeds, the oracle."""

from __future__ import annotations

from mirtune.experiments.published_report import coarsening_table, devmap_table, plot_coarsening, plot_devmap
from mirtune.tasks import coarsening, devmap


def devmap_result() -> dict:
    platform = {"accuracy": 0.9176, "accuracy_std": 0.004, "f1": 0.91, "f1_std": 0.01, "speedup": 3.1,
                "speedup_std": 0.05, "oracle_speedup": 3.6}
    return {"task": devmap.NAME, "embedding": "ir2vec", "head": "gbt", "seeds": [0, 1], "fold_column": "fold",
            "folds": list(range(10)), "amd": dict(platform), "nvidia": {**platform, "accuracy": 0.8926}}


def coarsening_result() -> dict:
    per_gpu = {p: 1.0 + 0.1 * i for i, p in enumerate(coarsening.PLATFORMS)}
    return {"task": coarsening.NAME, "embedding": "mirencoder", "head": "mlp", "seeds": [0], "per_gpu": per_gpu,
            "per_gpu_std": {p: 0.01 for p in coarsening.PLATFORMS}, "average": 1.15, "average_std": 0.01,
            "kernels": ["mt", "nbody"], "oracle": {**{p: 1.5 for p in coarsening.PLATFORMS}, "average": 1.5},
            "fixed_factor_baseline": {**{p: 1.02 for p in coarsening.PLATFORMS}, "average": 1.02}}


def test_devmap_table_has_the_papers_rows_this_run_and_the_oracle():
    lines = devmap_table(devmap_result(), prior=[]).splitlines()
    assert all(any(r["model"] in line for line in lines) for r in devmap.PUBLISHED)
    ours = next(line for line in lines if "(this run)" in line)
    assert "mirtune + ir2vec, gbt head" in ours and "91.76±0.40" in ours and "89.26±0.40" in ours
    assert "over 2 head seeds" in ours
    assert any(line.startswith("Oracle") and "3.60" in line for line in lines)


def test_coarsening_table_names_the_kernels_of_a_partial_run_and_the_baselines():
    text = coarsening_table(coarsening_result(), prior=[])
    ours = next(line for line in text.splitlines() if "(this run)" in line)
    assert "1.150±0.010" in ours and "(2 kernels)" in ours  # fewer than the 17 kernels: say how many
    assert "Best fixed factor (no code)" in text and "1.020" in text
    assert "Code-only ceiling" not in text  # only where the result has one


def test_charts_are_written(tmp_path):
    plot_devmap(devmap_result(), tmp_path / "d.png")
    plot_coarsening(coarsening_result(), tmp_path / "c.png")
    for name in ("d.png", "c.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
