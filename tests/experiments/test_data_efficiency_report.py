"""The data-efficiency study's tables and plots (mirtune.experiments.data_efficiency_report), on the studies' saved
results in benchmarks/results: every one renders, and what it says agrees with its JSON."""

from __future__ import annotations

import json

import pytest

from mirtune.experiments import data_efficiency_report as report
from mirtune.paths import REPO_DIR

SAVED = sorted((REPO_DIR / "benchmarks" / "results").glob("data_efficiency_*.json"))


def _load(name: str) -> dict:
    return json.loads((REPO_DIR / "benchmarks" / "results" / name).read_text())


def test_there_are_saved_studies_of_both_kinds():
    kinds = {report._measured(json.loads(p.read_text())) for p in SAVED}
    assert kinds == {True, False}, [p.name for p in SAVED]


@pytest.mark.parametrize("path", SAVED, ids=lambda p: p.stem)
def test_every_saved_study_renders_its_factor_and_fractions(path):
    result = json.loads(path.read_text())
    text = report.table(result)
    factor = result["data_reduction_factor"]
    assert f"data_reduction_factor ({result['task']}" in text and f"): {factor}" in text
    for fraction in result.get("fractions") or []:
        assert f"\n{fraction:g} " in text or f" {fraction:g} " in text, fraction


def test_cost_table_lists_each_fraction_and_the_scratch_ratio():
    result = _load("data_efficiency_devmap.json")
    assert result["cost"], "this study was timed"
    text = report.table(result)
    cost = text[text.index("cost: mean wall seconds"):]
    header = cost.splitlines()[1]
    assert "scratch / frozen_total" in header
    for fraction, r in result["cost"].items():
        row = next(line for line in cost.splitlines()[2:] if line.split()[:1] == [fraction])
        if "scratch_fit_s" in r and "frozen_total_s" in r:
            assert row.split()[-1] == f"{r['scratch_fit_s'] / r['frozen_total_s']:.0f}x"


def test_a_study_without_timings_has_no_cost_table():
    result = {**_load("data_efficiency_vectorize_gcc.json"), "cost": {}}
    assert "cost: mean wall seconds" not in report.table(result)


@pytest.mark.parametrize("name", ["data_efficiency_devmap.json", "data_efficiency_vectorize_gcc.json"])
def test_plot_writes_a_png(tmp_path, name):
    out = tmp_path / "curves.png"
    report.plot(_load(name), out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
