"""benchmarks/openmp_by_kind.py and openmp_anchor.py: a program's kind is the folder holding its source, the
retired held-out sets included, and a split by kind gives each kind the geometric mean of its own groups."""

from __future__ import annotations

import math

import pytest


@pytest.fixture(scope="module")
def by_kind(benchmark_module):
    return benchmark_module("openmp_by_kind")


def test_kinds_follow_the_folders(by_kind):
    assert by_kind.kind_of("gemm") == "PolyBench-like"
    assert by_kind.kind_of("mandel") == "ordinary (arguments, input files)"
    assert by_kind.kind_of("kmeans") == "retired held-out sets (ordinary)"      # openmp_unseen
    assert by_kind.kind_of("seam_carve") == "retired held-out sets (ordinary)"  # openmp_unseen3
    assert by_kind.kind_of("viewshed") == "other"  # a blind set is never a training kind
    assert by_kind.kind_of("no_such_program") == "other"


def test_anchor_split_is_per_kind_geometric_means(benchmark_module):
    anchor = benchmark_module("openmp_anchor")
    result = {"group_programs": ["gemm", "gemm", "mandel"],
              "methods": {"m": {"per_group_share": [0.5, 1.0, 0.9]}}}
    split = anchor.by_kind(result, "m")
    assert math.isclose(split["PolyBench-like"], math.sqrt(0.5))
    assert math.isclose(split["ordinary (arguments, input files)"], 0.9)
    assert math.isclose(split["all"], (0.5 * 1.0 * 0.9) ** (1 / 3))
