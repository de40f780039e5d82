"""LS-CAT checkouts as they are: kernel directories whose main.cu is LS-CAT's harness (`./main N` loops over the
sizes and blocks itself), next to mirtune's own per-point kernels. The kernels in lscat_checkout/ are written for
these tests in that form: one works, one hangs, one prints nothing, one does not build.

Building and the no-GPU path run here for real; running the harnesses needs a GPU and is skipped without one.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from collectors import cudagen
from collectors.lscat import (DEFAULT_PROGRAMS, HARNESS, POINTS, build_spec, collect_lscat, find_cuda_kernels,
                              harness_n, kernel_form, run_harness)
from mirtune.errors import UsageError
from mirtune.measure.build import build, find_nvcc
from mirtune.measure.host import host_info
from mirtune.measure.records import point_id, read_rows
from mirtune.measure.sandbox import RunLimits
from mirtune.predict.predictor import program_ir
from mirtune.tasks.cuda_blocks import kernel_file

REPO = Path(__file__).resolve().parents[2]
CHECKOUT = Path(__file__).resolve().parent / "lscat_checkout"
KERNELS = CHECKOUT / "data" / "kernels"
needs_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="nvcc (CUDA toolkit) not installed")
HOST = host_info()
needs_gpu = pytest.mark.skipif(HOST.gpu_count < 1, reason="running an LS-CAT harness needs an NVIDIA GPU; this "
                               f"machine has none ({HOST.gpu_reason or 'NVML sees none'})")


def test_kernel_form_tells_lscat_harnesses_from_per_point_kernels(tmp_path):
    kernels = {k.name: k for k in find_cuda_kernels([CHECKOUT])}  # the checkout's root stands for data/kernels
    assert sorted(kernels) == ["101/0", "101/1", "202/0", "202/1"]
    assert {k.form for k in kernels.values()} == {HARNESS}
    assert {k.source_repo for k in kernels.values()} == {"101", "202"}
    assert kernel_form(KERNELS / "101" / "0", ()) == HARNESS  # cout << '[' ... with strtol(argv[1])
    assert kernel_form(KERNELS / "101" / "1", ()) == HARNESS  # printf("[%...") with atoi(argv[1])
    # mirtune's own kernels read argv[1] too (XSIZE) but print kernel_ms lines: one run per point
    shipped = find_cuda_kernels([DEFAULT_PROGRAMS])
    assert {k.form for k in shipped} == {POINTS} and shipped[0].source_repo == shipped[0].name
    # the generated kernels print LS-CAT's lines from the family's header, found through the quoted includes
    cudagen.write_kernels(tmp_path / "cg", cudagen.kernels()[:2])
    assert {k.form for k in find_cuda_kernels([tmp_path / "cg"])} == {HARNESS}
    assert [k.name for k in find_cuda_kernels([KERNELS / "202"])] == ["0", "1"]


def test_harness_n_and_sizes_it_cannot_run():
    assert harness_n([240]) == 1 and harness_n([496, 240]) == 2 and harness_n([2024]) == 7
    with pytest.raises(UsageError, match="runs only the sizes 240"):
        harness_n([240, 300])


def test_the_harness_form_builds_in_place_and_its_kernel_compiles_to_ir(tmp_path, monkeypatch):
    k = next(k for k in find_cuda_kernels([CHECKOUT]) if k.name == "101/0")
    spec = build_spec(k, arch="sm_90")
    assert spec.source == f'#include "{KERNELS / "101" / "0" / "main.cu"}"\n'
    assert str(KERNELS / "101" / "0") not in spec.include_dirs and "-arch=sm_90" in spec.extra
    # the kernel folder's own cuda.h (an #error) hides CUDA's neither from the device IR compile...
    monkeypatch.setenv("MIRTUNE_IR_CACHE", str(tmp_path / "ir"))
    assert "@_Z10scale_rowsPfPKfii" in program_ir(kernel_file(k.path)).read_text()
    # ...nor from nvcc
    if find_nvcc() is not None:
        res = build(build_spec(k), tmp_path / "builds")
        assert res.status == "ok", res.reason


@needs_nvcc
def test_checkout_builds_and_nothing_is_timed_without_a_gpu(ray_cluster, tmp_path):
    """No GPU in the cluster: every kernel is built once with nvcc, the one that does not build gets build_failed
    rows for each of its points, the rest are left for GPU nodes; mirtune's per-point kernels go the same way."""
    out = tmp_path / "lscat"
    s = collect_lscat([CHECKOUT, DEFAULT_PROGRAMS / "sigmoid"], out, space=["matrix=240,496"],
                      cache_dir=tmp_path / "builds", progress=False)
    assert s.builds == 5 and s.build_failures == 1 and not s.errors, s.lines()
    assert s.not_timed == 4 * 2 * 20  # three harness kernels and sigmoid, 2 sizes x 20 blocks each
    df = read_rows(out)
    assert len(df) == 2 * 20 and set(df["program"]) == {"202/1"} and set(df["status"]) == {"build_failed"}
    assert set(df["source_repo"]) == {"202"} and df["reason"].str.contains('"yy" is undefined').all()
    assert df["reported_median"].isna().all() and df["median_s"].isna().all()  # nothing fake
    sha = next(k.sha256 for k in find_cuda_kernels([CHECKOUT]) if k.name == "202/1")
    assert point_id("lscat", "202/1", sha, 496, {"block_x": 1, "block_y": 1024}, False) in set(df["point_id"])
    note = [line for line in s.lines() if "nothing can be timed" in line]
    assert len(note) == 1 and "4 of 5 kernel(s) built, 1 failed to build" in note[0]
    again = collect_lscat([CHECKOUT], out, space=["matrix=240,496"], cache_dir=tmp_path / "builds", progress=False)
    assert again.measured == 0 and again.already_done == 2 * 20 and again.not_timed == 3 * 2 * 20


@needs_nvcc
def test_job_takes_a_checkout_and_refuses_a_size_the_harness_lacks(ray_cluster, tmp_path, capsys):
    spec = importlib.util.spec_from_file_location("collect_lscat_job", REPO / "jobs" / "collect_lscat.py")
    job = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(job)
    rc = job.main(["--lscat-dir", str(KERNELS / "101"), "--out", str(tmp_path / "o"), "--space", "matrix=240",
                   "--build-dir", str(tmp_path / "builds"), "--no-progress"])
    out = capsys.readouterr()
    assert rc == 0, out.err[-2000:]
    said = [line for line in out.out.splitlines() if "nothing can be timed" in line]
    assert len(said) == 1 and "2 of 2 kernel(s) built" in said[0] and "Traceback" not in out.err
    rc = job.main(["--lscat-dir", str(CHECKOUT), "--out", str(tmp_path / "o"), "--space", "matrix=300"])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and "runs only the sizes" in err[0], err


@needs_gpu
@needs_nvcc
def test_harness_runs_once_and_each_ending_becomes_rows(tmp_path):
    """On a GPU: the working kernel gives 2 x 20 ok rows with its time per launch, the hanging one timeout rows,
    the silent one rows that say it printed nothing."""
    kernels = {k.name: k for k in find_cuda_kernels([CHECKOUT])}
    blocks = [(16, 16), (8, 8), (24, 24), (32, 32)] + [(1, 64 * i) for i in range(1, 17)]

    def rows(name: str, timeout: float) -> list[dict]:
        res = build(build_spec(kernels[name]), tmp_path)
        assert res.status == "ok", res.reason
        return run_harness(res.exe, kernels[name], [240, 496], blocks,
                           RunLimits(timeout_s=timeout, limit_address_space=False), {"source_repo": name[:3]})

    ok = rows("101/0", 120)
    assert len(ok) == 40 and {r["status"] for r in ok} == {"ok"}, {r["reason"] for r in ok}
    assert all(0 < r["reported_median"] < 1 for r in ok) and {r["matrix_x"] for r in ok} == {240, 496}
    hung = rows("101/1", 5)
    assert {r["status"] for r in hung} == {"timeout"} and "time limit" in hung[0]["reason"]
    silent = rows("202/0", 60)
    assert {r["status"] for r in silent} == {"wrong_output"} and "printed no line" in silent[0]["reason"]
