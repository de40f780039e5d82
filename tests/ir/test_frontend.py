"""The clang front end: every supported language to IR, and clear failures."""

from __future__ import annotations

import pytest

from mirtune.errors import CompileError, ToolMissing, UsageError
from mirtune.ir import frontend
from mirtune.ir.frontend import compile_to_ir, find_clang
from mirtune.ir.module import IRModule

C_SRC = "int sum(const int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }\n"
CXX_SRC = "#include <vector>\nint f(std::vector<int>& v) { int s = 0; for (int x : v) s += x; return s; }\n"
CL_SRC = ("__kernel void vadd(__global const float* a, __global const float* b, __global float* c) {\n"
          "  int i = get_global_id(0); c[i] = a[i] + b[i]; barrier(CLK_LOCAL_MEM_FENCE); }\n")
CU_SRC = ("__global__ void saxpy(int n, float a, const float* x, float* y) {\n"
          "  __shared__ float t[256]; int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
          "  if (i < n) { t[threadIdx.x] = x[i]; __syncthreads(); y[i] = a * t[threadIdx.x] + sqrtf(y[i]); } }\n")
OMP_SRC = ("int main(void) { int s = 0;\n#pragma omp parallel for reduction(+:s)\n"
           "for (int i = 0; i < 100; i++) s += i; return s & 1; }\n")


@pytest.mark.parametrize("name,src,needle", [
    ("a.c", C_SRC, "define"),
    ("a.cpp", CXX_SRC, "_Z1fRSt6vectorIiSaIiEE"),
    ("k.cl", CL_SRC, "spir_kernel"),
    ("k.cu", CU_SRC, "nvvm"),
])
def test_each_language_compiles_to_parseable_ir(tmp_path, name, src, needle):
    path = tmp_path / name
    path.write_text(src)
    text = compile_to_ir(path, tmp_path / "out.ll")
    assert needle in text
    assert (tmp_path / "out.ll").read_text() == text
    assert IRModule.from_text(text).defined_functions


@pytest.mark.parametrize("std", ["CL1.2", "CL2.0"])
def test_opencl_versions(tmp_path, std):
    path = tmp_path / "k.cl"
    path.write_text(CL_SRC)
    assert "spir_kernel" in compile_to_ir(path, cl_std=std)


def test_openmp_flag_outlines_parallel_region(tmp_path):
    path = tmp_path / "omp.c"
    path.write_text(OMP_SRC)
    assert "__kmpc_fork_call" in compile_to_ir(path, openmp=True)
    assert "__kmpc_fork_call" not in compile_to_ir(path, openmp=False)


OMP_TARGET_SRC = """
int main(int argc, char **argv) {
  int a[100];
  #pragma omp target teams distribute parallel for map(tofrom: a)
  for (int i = 0; i < 100; i++) a[i] = i * argc;
  return a[5];
}
"""


def test_an_openmp_target_program_gives_the_same_ir_from_any_copy_of_its_file(tmp_path):
    """clang names target regions after the file's inode; two copies of one source must still give one IR."""
    texts = []
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
        path = tmp_path / folder / "target.c"
        path.write_text(OMP_TARGET_SRC)
        ir = compile_to_ir(path, openmp=True, opt=0)
        texts.append("\n".join(x for x in ir.splitlines() if not x.startswith(("; ModuleID", "source_filename"))))
    assert texts[0] == texts[1]
    assert "define internal void @__omp_offloading_0_0_main_l4(" in texts[0]
    assert "call void @__omp_offloading_0_0_main_l4(" in texts[0]
    IRModule.from_text(texts[0])


def test_offload_names_inside_string_constants_are_left_alone():
    entry = '@.omp_offloading.entry_name = internal constant [32 x i8] c"__omp_offloading_fe00_2c_main_l4\\00"'
    assert frontend.stable_offload_names(entry) == entry
    assert frontend.stable_offload_names("@.omp_offloading.entry.__omp_offloading_fe00_2c_main_l4 = ") == (
        "@.omp_offloading.entry.__omp_offloading_0_0_main_l4 = ")


def test_optimisation_level_changes_ir(tmp_path):
    path = tmp_path / "a.c"
    path.write_text(C_SRC)
    assert "alloca" in compile_to_ir(path, opt=0)
    assert "alloca" not in compile_to_ir(path, opt=2)


def test_compile_error_carries_clangs_message(tmp_path):
    path = tmp_path / "bad.c"
    path.write_text("int main( { return 0 }\n")
    with pytest.raises(CompileError) as info:
        compile_to_ir(path)
    line = info.value.line()
    assert "bad.c" in line and "error:" in line and "\n" not in line


def test_language_from_flag_and_unknown_extension(tmp_path):
    path = tmp_path / "kernel.txt"
    path.write_text(C_SRC)
    with pytest.raises(UsageError, match="--lang"):
        compile_to_ir(path)
    assert "define" in compile_to_ir(path, lang="c")


def test_missing_clang_says_what_to_install(monkeypatch):
    monkeypatch.setenv("MIRTUNE_CLANG", "/nonexistent/clang-99")
    frontend.find_clang.cache_clear()
    try:
        with pytest.raises(ToolMissing, match="apt-get install clang"):
            find_clang()
    finally:
        monkeypatch.delenv("MIRTUNE_CLANG")
        frontend.find_clang.cache_clear()
    assert find_clang().major >= 14


def _big_and_small(tmp_path):
    """A source whose 3-million-element initialiser takes clang seconds and over 2 GB, and an ordinary one."""
    big, small = tmp_path / "big.c", tmp_path / "small.c"
    big.write_text("int a[] = {" + ",".join(str(i % 97) for i in range(3_000_000)) + "};\nint main(void){return a[3];}\n")
    small.write_text("int main(void){return 0;}\n")
    return big, small


def test_a_compile_past_its_timeout_is_one_clear_error_and_the_timeout_can_be_raised(tmp_path, monkeypatch):
    # the same initialiser takes clang well over a second: under a 1 s limit it is stopped and named; a job that
    # is stopped while something else is timed raises the limit with $MIRTUNE_COMPILE_TIMEOUT_S
    src, small = _big_and_small(tmp_path)
    monkeypatch.setenv("MIRTUNE_COMPILE_TIMEOUT_S", "1")
    with pytest.raises(CompileError, match="clang timed out after 1s"):
        compile_to_ir(src, opt=0)
    monkeypatch.setenv("MIRTUNE_COMPILE_TIMEOUT_S", "600")
    assert "define" in compile_to_ir(small, opt=0)


def test_a_compile_past_its_memory_cap_is_one_clear_error(tmp_path, monkeypatch):
    # a 3-million-element initialiser takes clang over 2 GB; under a 400 MiB cap it fails at once, by name
    src, small = _big_and_small(tmp_path)
    monkeypatch.setenv("MIRTUNE_COMPILE_MEMORY_MB", "400")
    with pytest.raises(CompileError, match="ran out of its 400 MiB memory cap"):
        compile_to_ir(src, opt=0)
    assert "define" in compile_to_ir(small, opt=0)  # an ordinary file compiles under the same cap


def test_source_flags_keep_what_the_source_means_and_drop_how_it_is_built(tmp_path, monkeypatch):
    """--cflags reach the IR only where they change what the source says: macros, header folders (made absolute:
    the IR cache keys them), forced includes, the dialect; not optimisation, target or link flags."""
    monkeypatch.chdir(tmp_path)
    got = frontend.source_flags(["-O3", "-DN=4", "-D", "M=2", "-Iinc", "-I", "x", "-lz", "-L/usr/lib",
                                 "-fgnu89-inline", "-std=c99", "-march=native", "-include", "a.h", "-Wall",
                                 "-U", "X", "-funroll-loops", "-fopenmp"])
    assert got == ["-DN=4", "-DM=2", "-I", str(tmp_path / "inc"), "-I", str(tmp_path / "x"), "-fgnu89-inline",
                   "-std=c99", "-include", str(tmp_path / "a.h"), "-UX"]
    assert frontend.source_flags(["-O3", "-lm"]) == []
