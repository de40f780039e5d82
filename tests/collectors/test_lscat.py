"""The CUDA block-size sweep: the shipped kernels in the LS-CAT layout, Table 5's space, nvcc builds, the no-GPU path.

Building every shipped kernel with nvcc takes about a minute on two cores, so the builds are cached in pytest's
cache folder (.pytest_cache/d/mirtune-cuda-builds, keyed by the sources and flags like any build cache): the
first run builds, later runs check the cached outcome of exactly these sources. `pytest --cache-clear` rebuilds.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from collectors.lscat import (BLOCKS, DEFAULT_BLOCK, DEFAULT_PROGRAMS, DIMENSIONS, MATRICES, collect_lscat,
                              find_cuda_kernels, parse_block, plan_lscat)
from mirtune.errors import UsageError
from mirtune.measure.build import BuildSpec, build, find_nvcc
from mirtune.measure.measurement import measure
from mirtune.measure.records import read_rows
from mirtune.measure.sandbox import RunLimits
from mirtune.measure.space import parse_space

REPO = Path(__file__).resolve().parents[2]
needs_nvcc = pytest.mark.skipif(find_nvcc() is None, reason="nvcc (CUDA toolkit) not installed")


@pytest.fixture(scope="module")
def cuda_cache(request, tmp_path_factory) -> Path:
    """pytest's cache folder, kept between runs; a fresh one when the cache plugin is off (-p no:cacheprovider)."""
    cache = getattr(request.config, "cache", None)
    return Path(cache.mkdir("mirtune-cuda-builds")) if cache else tmp_path_factory.mktemp("mirtune-cuda-builds")


def test_table5_space_and_the_shipped_kernels():
    assert MATRICES == (240, 496, 784, 1016, 1232, 1680, 2024)
    assert len(BLOCKS) == 20 and BLOCKS[:5] == ((8, 8), (16, 16), (24, 24), (32, 32), (1, 64))
    assert BLOCKS[-1] == (1, 1024)
    kernels = find_cuda_kernels([DEFAULT_PROGRAMS])
    assert len(kernels) >= 20
    for k in kernels:
        folder = Path(k.path)
        assert (folder / "main.cu").is_file() and (folder / f"{folder.name}.cu").is_file()
        assert "__global__" in (folder / f"{folder.name}.cu").read_text()
        assert str(DEFAULT_PROGRAMS.resolve()) in k.include_dirs  # harness.cuh beside the kernel folders
    plan = plan_lscat(kernels)
    assert len(plan.points) == len(kernels) * 7 * 20 and len(plan.builds) == len(kernels)
    assert plan.num_gpus == 1.0 and plan.report == "kernel_ms"
    first = plan.points[0]
    assert first.is_default and (first.params["block_x"], first.params["block_y"]) == DEFAULT_BLOCK
    assert first.args == ("240", "240", "16", "16")
    assert sum(p.is_default for p in plan.points) == len(kernels) * 7
    spec = plan.builds[first.build_key].spec
    assert spec.compiler == "nvcc" and spec.suffix == ".cu"
    one = find_cuda_kernels([DEFAULT_PROGRAMS / "sigmoid"])
    assert [k.name for k in one] == ["sigmoid"] and one[0].sha256 == \
        next(k.sha256 for k in kernels if k.name == "sigmoid")
    small = plan_lscat(one, restrict=parse_space(["matrix=240", "block=1x64,8x8"], DIMENSIONS))
    assert [(p.params["block_x"], p.params["block_y"]) for p in small.points] == [(16, 16), (1, 64), (8, 8)]
    assert parse_block("32x32") == (32, 32) and parse_block("(1,1024)") == (1, 1024)
    for bad in ("2x1024", "axb", "0x4"):
        with pytest.raises(UsageError):
            parse_block(bad)


def test_programs_report_their_own_time(tmp_path):
    """`report`: a figure the program prints (CUDA event time) is kept per run; a run without it is wrong."""
    src = textwrap.dedent("""
        #include <stdio.h>
        int main(int argc, char **argv) {
            if (argc > 1) printf("kernel_ms: 0.25\\n");
            printf("checksum: 0x01\\n");
            return 0;
        }
    """)
    res = build(BuildSpec(name="rep", source=src), tmp_path)
    assert res.status == "ok", res.reason
    m = measure([res.exe, "x"], repeats=2, warmup=0, report="kernel_ms",
                limits=RunLimits(timeout_s=20, limit_address_space=False))
    assert m.status == "ok" and m.reported == [0.25, 0.25] and m.reported_median == 0.25
    bad = measure([res.exe], repeats=1, warmup=0, report="kernel_ms")
    assert bad.status == "wrong_output" and "kernel_ms" in bad.reason


@needs_nvcc
def test_every_kernel_builds_and_nothing_is_timed_without_a_gpu(ray_cluster, tmp_path, cuda_cache):
    """With no GPU: every shipped kernel builds with nvcc, a broken one becomes build_failed rows, nothing else."""
    broken = tmp_path / "broken" / "oops"
    broken.mkdir(parents=True)
    (broken / "oops.cu").write_text("__global__ void oops(float *a) { a[threadIdx.x] = undeclared; }\n")
    (broken / "main.cu").write_text('#include "oops.cu"\nint main() { return 0; }\n')
    shipped = find_cuda_kernels([DEFAULT_PROGRAMS])
    out = tmp_path / "lscat"
    s = collect_lscat([DEFAULT_PROGRAMS, broken.parent], out, space=["matrix=240,2024"], cache_dir=cuda_cache,
                      progress=False)
    assert s.builds == len(shipped) + 1
    assert s.build_failures == 1, [line for line in s.lines()]
    assert not s.errors
    assert s.not_timed == len(shipped) * 2 * 20
    df = read_rows(out)
    assert len(df) == 2 * 20 and set(df["program"]) == {"oops"} and set(df["status"]) == {"build_failed"}
    assert df["reason"].str.contains("undeclared").all()
    assert df["median_s"].isna().all() and df["reported_median"].isna().all()  # nothing fake
    notes = [line for line in s.lines() if "nothing can be timed" in line]
    assert len(notes) == 1 and f"{len(shipped)} of {len(shipped) + 1} kernel(s) built" in notes[0]


@needs_nvcc
def test_job_without_a_gpu_exits_cleanly(ray_cluster, tmp_path, cuda_cache, capsys):
    """jobs/collect_lscat.py --lscat-dir ... on a cluster without GPUs: exit 0, one line says nothing can be timed."""
    spec = importlib.util.spec_from_file_location("collect_lscat_job", REPO / "jobs" / "collect_lscat.py")
    job = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(job)
    rc = job.main(["--lscat-dir", str(DEFAULT_PROGRAMS / "sigmoid"), "--out", str(tmp_path / "o"),
                   "--build-dir", str(cuda_cache), "--no-progress"])
    out = capsys.readouterr()
    assert rc == 0, out.err[-2000:]
    said = [line for line in out.out.splitlines() if "nothing can be timed" in line]
    assert len(said) == 1 and "1 of 1 kernel(s) built" in said[0]
    assert "Traceback" not in out.err
    assert not list((tmp_path / "o").glob("part-*.parquet"))


def test_job_rejects_bad_input_in_one_line(tmp_path):
    proc = subprocess.run([sys.executable, str(REPO / "jobs" / "collect_lscat.py"), "--lscat-dir", str(tmp_path),
                           "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "no CUDA kernel directory" in lines[0]


def test_summary_reports_the_noise_of_the_kernel_times_themselves():
    """datasets/lscat-h100: the label is the kernel time each run reports; its spread is summarised beside the
    process times', over the points run more than once (the first 23 groups, 3 runs each)."""
    from collectors.summarize import summarize, summary_dict

    d = summary_dict(REPO / "datasets" / "lscat-h100")
    assert d["lscat"]["groups"] == 182 and d["reported_cv"]["points"] == 460 == d["cv"]["points"]
    assert 0 < d["reported_cv"]["p10"] < d["reported_cv"]["median"] < d["reported_cv"]["p90"] < 1
    lines = summarize(REPO / "datasets" / "lscat-h100")
    assert sum("CV of the times the programs reported" in line for line in lines) == 1
