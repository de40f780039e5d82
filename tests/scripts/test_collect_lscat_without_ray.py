"""scripts/collect_lscat_without_ray.py: the lscat sweep's own points, ordered so that a stopped run keeps whole
groups spread over the matrix sizes, and one line with nothing written on a machine without a GPU."""

from __future__ import annotations

from pathlib import Path

import pytest

from collectors.lscat import DEFAULT_PROGRAMS, find_cuda_kernels, plan_lscat
from mirtune.measure.host import host_info

@pytest.fixture(scope="module")
def script(script_module):
    return script_module("collect_lscat_without_ray")


def test_groups_default_first_sizes_in_the_order_asked(script):
    kernels = find_cuda_kernels([DEFAULT_PROGRAMS / "sigmoid", DEFAULT_PROGRAMS / "jacobi5"])
    plan = plan_lscat(kernels, restrict={"matrix": (240, 1016, 2024)})
    groups = script.group_order(plan.points, [1016, 240])
    assert len(groups) == 6 and all(len(g) == 20 for g in groups)
    assert [(g[0].input_size, g[0].program) for g in groups] == [
        (1016, "jacobi5"), (1016, "sigmoid"), (240, "jacobi5"), (240, "sigmoid"), (2024, "jacobi5"), (2024, "sigmoid")]
    for g in groups:
        assert g[0].is_default and not any(p.is_default for p in g[1:])
        assert len({p.group for p in g}) == 1
    assert sorted(p.point_id for g in groups for p in g) == sorted(p.point_id for p in plan.points)


@pytest.mark.skipif(host_info().gpu_count > 0, reason="this machine has a GPU: the script would time runs")
def test_without_a_gpu_one_line_and_nothing_written(script, tmp_path, capsys):
    out = tmp_path / "lscat"
    assert script.main(["--programs", str(DEFAULT_PROGRAMS / "sigmoid"), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no GPU on this machine" in err[0]
    assert not out.exists()


def test_lscat_harness_form_is_refused_in_one_line(script, tmp_path, capsys):
    checkout = Path(__file__).resolve().parents[1] / "collectors" / "lscat_checkout"
    assert script.main(["--programs", str(checkout), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "LS-CAT's harness form" in err[0] and "mirtune collect lscat" in err[0]
    assert not (tmp_path / "o").exists()
