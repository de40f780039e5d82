"""The CUDA front end on CUDA written as people write it: CUDA 11.8's headers from PyPI, assembled on first use,
and mirtune's prelude as the fallback when they are not installed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from mirtune.cli import main
from mirtune.errors import CompileError
from mirtune.ir import frontend
from mirtune.ir.frontend import compile_to_ir
from mirtune.ir.module import IRModule
from mirtune.predict.predictor import program_ir

FIXTURES = Path(__file__).resolve().parent / "cuda"
needs_headers = pytest.mark.skipif(frontend.cuda_path() is None,
                                   reason="CUDA 11.8's headers are not installed (pip install -e '.[cuda]')")

# fixture -> (kernels it defines, as mangled-name stems; what its device IR must hold)
CASES = {
    "rgba_vectors.cu": (["rgba_to_float", "blend"], ["llvm.nvvm.ldg", "%struct.uchar4", "%struct.float4"]),
    "tiled_template.cu": (["matmul_tiledIfLi16", "matmul_tiledIdLi8", "block_scanIi"],
                          ["addrspace(3)", "llvm.nvvm.barrier0"]),
    "curand_pi.cu": (["setup_states", "count_hits"], ["curandStateXORWOW", "shfl.sync", "atomicrmw add i64"]),
    "math_atomics.cu": (["activations", "histogram_argmax"],
                        ["__nv_erff", "__nv_powf", "__nv_atan2", "atomicrmw fadd float", "atomicrmw fadd double",
                         "atomicrmw max", "cmpxchg"]),
}


def kernels_of(text: str) -> list[str]:
    """The functions device IR marks as kernels (!nvvm.annotations)."""
    return re.findall(r"@(\w+), !\"kernel\", i32 1", text)


@needs_headers
@pytest.mark.parametrize("name", sorted(CASES))
def test_real_cuda_compiles_to_device_ir_with_its_kernels(name):
    stems, needles = CASES[name]
    text = compile_to_ir(FIXTURES / name)
    kernels = kernels_of(text)
    for stem in stems:
        assert any(stem in k for k in kernels), (stem, kernels)
        assert re.search(rf"^define .*@\w*{stem}\w*\(", text, re.M)
    for needle in needles:
        assert needle in text, needle
    assert IRModule.from_text(text).defined_functions


@needs_headers
def test_mirtune_compile_command_on_real_cuda(tmp_path, capsys):
    out = tmp_path / "k.ll"
    assert main(["compile", str(FIXTURES / "curand_pi.cu"), "-o", str(out)]) == 0
    assert "count_hits" in " ".join(kernels_of(out.read_text()))
    bad = tmp_path / "bad.cu"
    bad.write_text("#include <curand_kernel.h>\n__global__ void k(float4 *a) { a[0] = make_float4(1, 2); }\n")
    capsys.readouterr()
    assert main(["compile", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "make_float4" in err[0] and err[0].startswith("mirtune"), err


@needs_headers
def test_header_tree_is_assembled_on_first_use_in_the_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MIRTUNE_CACHE", str(tmp_path))
    frontend.cuda_path.cache_clear()
    try:
        tree = frontend.cuda_path()
        assert tree is not None and tree.parent == tmp_path / "cuda"
        for part in ("include/cuda.h", "include/cuda_runtime.h", "include/curand_kernel.h", "include/crt",
                     "include/thrust", "nvvm/libdevice/libdevice.10.bc", "bin", "lib64"):
            assert (tree / part).exists(), part
        assert frontend.cuda_path() == tree
        assert f"--cuda-path={tree}" in frontend.compile_command(FIXTURES / "rgba_vectors.cu", tmp_path / "o.ll",
                                                                  "cuda")
        assert "rgba_to_float" in " ".join(kernels_of(compile_to_ir(FIXTURES / "rgba_vectors.cu")))
    finally:
        monkeypatch.delenv("MIRTUNE_CACHE")
        frontend.cuda_path.cache_clear()


def test_prelude_is_the_fallback_and_says_so_once(tmp_path, monkeypatch, capsys):
    # the CUDA packages as if not installed: simple kernels still compile, real CUDA code does not
    monkeypatch.setattr(frontend, "cuda_path", lambda: None)
    monkeypatch.setenv("MIRTUNE_CACHE", str(tmp_path))
    frontend._prelude_file.cache_clear()
    try:
        src = tmp_path / "saxpy.cu"
        src.write_text("__global__ void saxpy(int n, float a, const float *x, float *y) {\n"
                       "  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = a * x[i] + sqrtf(y[i]); }\n")
        for _ in range(2):
            assert "saxpy" in " ".join(kernels_of(compile_to_ir(src)))
        with pytest.raises(CompileError):
            compile_to_ir(FIXTURES / "curand_pi.cu")
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "CUDA 11.8's headers are not installed" in err[0] and "prelude" in err[0]
    finally:
        frontend._prelude_file.cache_clear()


@needs_headers
def test_kernel_folders_own_cuda_h_does_not_hide_the_real_one(tmp_path, monkeypatch):
    # some LS-CAT kernel folders hold their own cuda.h or stdlib.h: they are found only by #include "..."
    monkeypatch.setenv("MIRTUNE_IR_CACHE", str(tmp_path / "ir"))
    k = tmp_path / "lscat" / "7" / "0"
    k.mkdir(parents=True)
    (k / "cuda.h").write_text("#error this is the kernel folder's cuda.h\n")
    (k / "stdlib.h").write_text("#error this is the kernel folder's stdlib.h\n")
    (k / "helpers.h").write_text("__device__ inline float sq(float v) { return v * v; }\n")
    (k / "norm.cu").write_text('#include <stdlib.h>\n#include "helpers.h"\n'
                               "__global__ void norm(const float4 *v, float *out, int n) {\n"
                               "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                               "  if (i < n) out[i] = sqrtf(sq(v[i].x) + sq(v[i].y) + sq(v[i].z)); }\n")
    (k / "main.cu").write_text('#include "norm.cu"\nint main(int argc, char **argv) { return 0; }\n')
    assert "norm" in " ".join(kernels_of(program_ir(k / "norm.cu").read_text()))
