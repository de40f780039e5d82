"""The cuda_blocks task: LS-CAT kernels read as device IR, gain tables judged by the kernel's own time, `mirtune fit
--task cuda_blocks` from the lscat collector's Parquet and `mirtune recommend --task cuda_blocks --matrix N`.

This machine has no GPU, so no lscat timing exists here. The rows below are written by the test in the
collector's schema with invented kernel times (a stated rule per kernel kind), to check the data path: which
column is the label, what the groups and context are, and that a fitted predictor answers. They are test input,
not measurements, and nothing here reports a figure.
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import mirtune
from mirtune.cli import main
from mirtune.errors import MirtuneError
from mirtune.ir.module import IRModule
from mirtune.paths import REPO_DIR
from mirtune.predict.predictor import program_ir
from mirtune.tasks import cuda_blocks
from mirtune.tasks.measured import load_gain_table

CUDA = REPO_DIR / "collectors" / "programs" / "cuda"
TWO_D = ("matmul_naive", "transpose_naive", "jacobi5")   # invented rule: 32x32 wins at 1016, 8x8 at 240
ONE_D = ("sigmoid", "reduce_sum", "histogram_global")    # invented rule: 1x256 wins at both sizes
BLOCKS = ((16, 16), (8, 8), (32, 32), (1, 256))


def _kernel_ms(kernel: str, matrix: int, block: tuple[int, int]) -> float:
    best = ((32, 32) if matrix > 500 else (8, 8)) if kernel in TWO_D else (1, 256)
    return 1.0 if block == best else 2.0 if block == (16, 16) else 3.0


def write_rows(out: Path) -> Path:
    """lscat rows in the collector's schema: median_s (the process) favours (16,16) everywhere, reported_median
    (the kernel's own time) follows the rule above."""
    rows = []
    for k in TWO_D + ONE_D:
        for m in (240, 1016):
            for bx, by in BLOCKS:
                kernel_ms = _kernel_ms(k, m, (bx, by))
                rows.append({"sweep": "lscat", "program": k, "program_path": str(CUDA / k), "program_sha256": "0" * 64,
                             "input_size": m, "is_default": (bx, by) == (16, 16), "status": "ok",
                             "median_s": 0.4 if (bx, by) == (16, 16) else 0.5, "cv": 0.01,
                             "block_x": bx, "block_y": by, "block_threads": bx * by, "matrix_x": m, "matrix_y": m,
                             "reported_median": kernel_ms, "reported_key": "kernel_ms",
                             "host_cpu_model": "test host", "host_logical_cores": 16, "host_gpu_model": "test GPU",
                             "timestamp": "2026-11-24T00:00:00+00:00"})
    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_parquet(out / "part-0.parquet")
    return out


def test_every_shipped_kernel_compiles_to_device_ir():
    for d in sorted(p.parent for p in CUDA.glob("*/main.cu")):
        src = cuda_blocks.kernel_file(d)
        assert src.name == f"{d.name}.cu"
        ir = program_ir(src)
        assert 'target triple = "nvptx64' in ir.read_text(), d.name
        assert '!"kernel", i32 1}' in ir.read_text(), d.name  # a __global__ function, marked for NVPTX
        assert IRModule.from_file(ir).defined_functions, d.name


def test_gain_table_reads_the_kernel_time_and_the_matrix(tmp_path):
    table = load_gain_table([write_rows(tmp_path / "lscat")], cuda_blocks.SPEC)
    assert table.labels[0] == "16x16" and set(table.labels) == {"16x16", "8x8", "32x32", "1x256"}
    assert len(table) == 12 and len(set(table.apps)) == 6
    best = {(p, s): table.labels[i] for p, s, i in zip(table.programs, table.sizes, table.labels_best())}
    # the kernel's time decides, not the process time (which would make 16x16 best everywhere)
    assert best[("matmul_naive", "1016")] == "32x32" and best[("matmul_naive", "240")] == "8x8"
    assert best[("sigmoid", "240")] == "1x256"
    assert all(s.suffix == ".cu" and s.name != "main.cu" for s in table.sources)
    ctx = cuda_blocks.group_context(table)
    assert ctx.shape == (12, 1) and sorted(set(ctx[:, 0].round(6))) == [round(math.log2(240), 6),
                                                                         round(math.log2(1016), 6)]
    assert cuda_blocks.TASK.parameters(table.configs[0]) == {"block_x": 16, "block_y": 16, "block_size": 256}


def test_fit_and_recommend_cuda_blocks(tmp_path, capsys):
    data = write_rows(tmp_path / "lscat")
    heads = tmp_path / "heads"
    assert main(["fit", "--task", "cuda_blocks", "--data", str(data), "-o", str(heads), "--no-ray",
                 "--heads", "gain", "--configs", "2"]) == 0
    meta = json.loads((heads / "predictor.json").read_text())
    assert meta["task"] == "cuda_blocks" and meta["features"]["context"] == ["log2_matrix"]
    assert meta["labels"][0] == "16x16" and meta["trained_on"]["applications"] == 6
    capsys.readouterr()
    # a kernel directory, the matrix from the user
    assert main(["recommend", str(CUDA / "sigmoid"), "--task", "cuda_blocks", "--matrix", "1016", "--heads",
                 str(heads), "--json", "--top", "4"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["best"]["block_size"] == out["best"]["block_x"] * out["best"]["block_y"]
    assert out["label"] in meta["labels"] and len(out["top"]) == 4
    assert any("test GPU" in n for n in out["notes"])
    assert out["apply"][0].endswith(f"dim3 block({out['best']['block_x']}, {out['best']['block_y']}) "
                                    f"({out['best']['block_size']} threads) and a grid that covers the matrix")
    # the matrix size is a feature: the predicted speedups differ between a small and a large launch
    small = mirtune.recommend(CUDA / "jacobi5", task="cuda_blocks", heads=heads, context={"matrix": 240}, top=4)
    large = mirtune.recommend(CUDA / "jacobi5", task="cuda_blocks", heads=heads, context={"matrix": 2024}, top=4)
    assert {r["label"]: r["predicted_speedup"] for r in small.top} != \
        {r["label"]: r["predicted_speedup"] for r in large.top}
    # a folder of kernel directories: every kernel once (main.cu is the host program, not an input)
    folder = tmp_path / "kernels"
    for k in ("sigmoid", "jacobi5"):
        shutil.copytree(CUDA / k, folder / k)
    shutil.copy(CUDA / "harness_device.cuh", folder)
    assert main(["recommend", str(folder), "--task", "cuda_blocks", "--matrix", "496", "--heads", str(heads)]) == 0
    text = capsys.readouterr().out
    assert [ln.split(":")[0] for ln in text.splitlines() if ": cuda_blocks: " in ln] == \
        [str(folder / "jacobi5" / "jacobi5.cu"), str(folder / "sigmoid" / "sigmoid.cu")]


def test_cuda_blocks_refusals(tmp_path, capsys):
    # no predictor ships (no GPU on the machine that built the release): one line
    with pytest.raises(MirtuneError, match="no cuda_blocks predictor ships"):
        mirtune.recommend(CUDA / "sigmoid", task="cuda_blocks", context={"matrix": 1016})
    heads = tmp_path / "heads"
    assert main(["fit", "--task", "cuda_blocks", "--data", str(write_rows(tmp_path / "d")), "-o", str(heads),
                 "--no-ray", "--heads", "gain", "--configs", "1"]) == 0
    capsys.readouterr()
    assert main(["recommend", str(CUDA / "sigmoid"), "--task", "cuda_blocks", "--heads", str(heads)]) == 2
    assert "needs the launch's matrix size: --matrix N" in capsys.readouterr().err
    (tmp_path / "notakernel").mkdir()
    (tmp_path / "notakernel" / "x.txt").write_text("")
    assert main(["recommend", str(tmp_path / "notakernel"), "--task", "cuda_blocks", "--matrix", "240",
                 "--heads", str(heads)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "notakernel" in err[0]
    # rows of another sweep are not cuda_blocks data
    with pytest.raises(Exception, match="no lscat measurements"):
        load_gain_table([REPO_DIR / "datasets" / "openmp"], cuda_blocks.SPEC)
    assert np.isclose(cuda_blocks.matrix_context(1024)[0], 10.0)


def test_kernels_are_grouped_by_family_or_repository():
    from mirtune.tasks.cuda_blocks import application

    assert application("map/cg_map_0041") == "map"          # a generated kernel: its family
    assert application("1234/7") == "1234"                  # an LS-CAT checkout: its source repository
    assert application("sigmoid") == "sigmoid"              # a flat folder: the kernel itself


def test_a_generated_kernel_is_found_below_its_family(tmp_path):
    from collectors import cudagen
    from mirtune.tasks.cuda_blocks import locate

    k = cudagen.kernels()[0]
    cudagen.write_kernels(tmp_path, [k])
    found = locate(f"/gone/{k.family}/{k.name}", k.sha256, [tmp_path])
    assert found == tmp_path / k.family / k.name / f"{k.name}.cu"
