"""Find clang and compile C, C++, OpenCL and CUDA device code to LLVM IR text."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from mirtune.errors import CompileError, ToolMissing, UsageError

LANGS = ("c", "cxx", "opencl", "cuda")
SUFFIX_LANG = {
    ".c": "c",
    ".cc": "cxx", ".cpp": "cxx", ".cxx": "cxx", ".C": "cxx",
    ".cl": "opencl",
    ".cu": "cuda",
}
SOURCE_SUFFIXES = frozenset(SUFFIX_LANG)
INSTALL_HINT = "install clang (Debian: apt-get install clang-14 libomp-14-dev) or set MIRTUNE_CLANG"
_CLANG_NAMES = ("clang", "clang-19", "clang-18", "clang-17", "clang-16", "clang-15", "clang-14")
MIN_CLANG_MAJOR = 14
COMPILE_TIMEOUT_S = 120

# Clang's CUDA front end needs a few definitions that the CUDA toolkit headers normally provide.
# The installed toolkit's headers do not work with every clang, so mirtune ships its own minimal prelude.
_CUDA_PRELUDE = """\
#define __host__ __attribute__((host))
#define __device__ __attribute__((device))
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __managed__ __attribute__((managed))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))
#define __forceinline__ __inline__ __attribute__((always_inline))
#include <__clang_cuda_builtin_vars.h>
typedef unsigned long size_t;
extern "C" __device__ void __syncthreads(void) __asm__("llvm.nvvm.barrier0");
extern "C" __device__ float sqrtf(float);
extern "C" __device__ float expf(float);
extern "C" __device__ float logf(float);
extern "C" __device__ float fabsf(float);
extern "C" __device__ float sinf(float);
extern "C" __device__ float cosf(float);
extern "C" __device__ float powf(float, float);
extern "C" __device__ float fminf(float, float);
extern "C" __device__ float fmaxf(float, float);
extern "C" __device__ double sqrt(double);
extern "C" __device__ double exp(double);
extern "C" __device__ double fabs(double);
extern "C" __device__ int atomicAdd(int*, int) __asm__("__mirtune_atomic_add_i32");
extern "C" __device__ float __mirtune_atomic_add_f32(float*, float);
__device__ inline float atomicAdd(float* p, float v) { return __mirtune_atomic_add_f32(p, v); }
extern "C" __device__ unsigned __mirtune_atomic_add_u32(unsigned*, unsigned);
__device__ inline unsigned atomicAdd(unsigned* p, unsigned v) { return __mirtune_atomic_add_u32(p, v); }
extern "C" __device__ int atomicMax(int*, int) __asm__("__mirtune_atomic_max_i32");
extern "C" __device__ int __mirtune_shfl_down_i32(unsigned, int, unsigned, int);
__device__ inline int __shfl_down_sync(unsigned m, int v, unsigned d, int w = 32) { return __mirtune_shfl_down_i32(m, v, d, w); }
extern "C" __device__ float __expf(float);
extern "C" __device__ float rsqrtf(float);
struct float3 { float x, y, z; };
struct float4 { float x, y, z, w; };
struct uchar3 { unsigned char x, y, z; };
__device__ inline float3 make_float3(float x, float y, float z) { float3 r = {x, y, z}; return r; }
__device__ inline int min(int a, int b) { return a < b ? a : b; }
__device__ inline int max(int a, int b) { return a > b ? a : b; }
"""


@dataclass(frozen=True)
class Clang:
    """An installed clang: its path and major version."""

    path: str
    major: int


def _clang_major(path: str) -> int | None:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"clang version (\d+)", out)
    return int(m.group(1)) if m else None


@lru_cache(maxsize=None)
def find_clang() -> Clang:
    """Return the clang to use: $MIRTUNE_CLANG if set, else the first clang >= 14 on PATH."""
    wanted = os.environ.get("MIRTUNE_CLANG")
    candidates = [wanted] if wanted else list(_CLANG_NAMES)
    for name in candidates:
        path = shutil.which(name) if name else None
        if path is None:
            continue
        major = _clang_major(path)
        if major is not None and major >= MIN_CLANG_MAJOR:
            return Clang(path, major)
        if wanted:
            raise ToolMissing(f"MIRTUNE_CLANG={wanted} is not clang >= {MIN_CLANG_MAJOR}; {INSTALL_HINT}")
    if wanted:
        raise ToolMissing(f"MIRTUNE_CLANG={wanted} not found; {INSTALL_HINT}")
    raise ToolMissing(f"no clang >= {MIN_CLANG_MAJOR} on PATH; {INSTALL_HINT}")


def language_of(path: Path, lang: str | None = None) -> str:
    """The source language: `lang` if given, else from the file extension."""
    if lang is not None:
        if lang not in LANGS:
            raise UsageError(f"unknown language {lang!r}; choose one of {', '.join(LANGS)}")
        return lang
    found = SUFFIX_LANG.get(path.suffix) or SUFFIX_LANG.get(path.suffix.lower())
    if found is None:
        raise UsageError(f"cannot tell the language of {path.name}; pass --lang {'|'.join(LANGS)}", str(path))
    return found


def _lang_flags(lang: str, cuda_prelude: Path | None) -> list[str]:
    if lang == "c":
        return ["-x", "c", "-std=gnu11"]
    if lang == "cxx":
        return ["-x", "c++", "-std=c++17"]
    if lang == "opencl":
        return ["-x", "cl", "-cl-std=CL2.0", "-Xclang", "-finclude-default-header", "-target", "spir64"]
    assert cuda_prelude is not None
    return ["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80", "-nocudalib", "-nocudainc",
            "-include", str(cuda_prelude)]


OPENMP_HINT = re.compile(r"^\s*#\s*pragma\s+omp\b|<omp\.h>|\b_Pragma\s*\(\s*\"\s*omp\b", re.M)


def mentions_openmp(text: str) -> bool:
    """Whether source text uses OpenMP (a `#pragma omp`, `_Pragma("omp ...")` or omp.h), so that it should be
    compiled with -fopenmp."""
    return bool(OPENMP_HINT.search(text))


def source_uses_openmp(path: str | os.PathLike, lang: str | None = None) -> bool:
    """Whether a C/C++ source file uses OpenMP (see mentions_openmp); False for IR, other languages and files
    that cannot be read (the compile then says why)."""
    path = Path(path)
    try:
        if lang not in (None, "c", "cxx") or (lang is None and SUFFIX_LANG.get(path.suffix) not in ("c", "cxx")):
            return False
        return mentions_openmp(path.read_bytes().decode("utf-8", "surrogateescape"))
    except OSError:
        return False


def resolve_openmp(path: str | os.PathLike, openmp: bool | None, lang: str | None = None) -> tuple[bool, bool]:
    """(compile with -fopenmp?, was that detected rather than asked for?): `openmp` when given (--openmp or
    --no-openmp), else whether the source uses OpenMP."""
    if openmp is not None:
        return bool(openmp), False
    found = source_uses_openmp(path, lang)
    return found, found


def compile_command(src: Path, out: Path, lang: str, opt: int = 2, openmp: bool = False,
                    extra: list[str] | None = None, cuda_prelude: Path | None = None,
                    cl_std: str | None = None) -> list[str]:
    """The clang command line that turns `src` into IR text at `out` (no shell involved)."""
    clang = find_clang()
    cmd = [clang.path, "-S", "-emit-llvm", f"-O{opt}", "-w"]
    cmd += _lang_flags(lang, cuda_prelude)
    if cl_std and lang == "opencl":
        cmd = [c if not c.startswith("-cl-std=") else f"-cl-std={cl_std}" for c in cmd]
    if openmp:
        cmd.append("-fopenmp")
    cmd += list(extra or [])
    cmd += [str(src), "-o", str(out)]
    return cmd


def _first_errors(stderr: str, limit: int = 3) -> str:
    lines = [ln for ln in stderr.splitlines() if "error" in ln]
    if lines:
        return "\n".join(lines[:limit])
    rest = stderr.strip().splitlines()
    return rest[-1] if rest else "clang failed"


def compile_to_ir(src: str | os.PathLike, out: str | os.PathLike | None = None, *, lang: str | None = None,
                  opt: int = 2, openmp: bool = False, extra: list[str] | None = None,
                  cl_std: str | None = None) -> str:
    """Compile a source file to LLVM IR text; write it to `out` if given and return the text.

    Raises CompileError with clang's own diagnostics when the source does not compile.
    """
    src = Path(src)
    if not src.is_file():
        raise UsageError("no such file", str(src))
    if not 0 <= opt <= 3:
        raise UsageError(f"optimisation level must be 0..3, got {opt}")
    language = language_of(src, lang)
    with tempfile.TemporaryDirectory(prefix="mirtune-cc-") as tmp:
        tmpdir = Path(tmp)
        prelude = None
        if language == "cuda":
            prelude = tmpdir / "mirtune_cuda_prelude.h"
            prelude.write_text(_CUDA_PRELUDE)
        ll = tmpdir / "out.ll"
        cmd = compile_command(src, ll, language, opt, openmp, extra, prelude, cl_std)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise CompileError(f"clang timed out after {COMPILE_TIMEOUT_S}s", str(src)) from None
        if proc.returncode != 0 or not ll.exists():
            raise CompileError(_first_errors(proc.stderr), str(src))
        text = ll.read_text()
    if out is not None:
        Path(out).write_text(text)
    return text


def compile_executable(src: str | os.PathLike, out: str | os.PathLike, *, opt: int = 2, openmp: bool = False,
                       defines: dict[str, str] | None = None, extra: list[str] | None = None,
                       timeout: float = COMPILE_TIMEOUT_S) -> None:
    """Build a native executable from C/C++ source (used by the collectors)."""
    src = Path(src)
    language = language_of(src)
    if language not in ("c", "cxx"):
        raise UsageError(f"cannot build a native executable from {language} source", str(src))
    cmd = [find_clang().path, f"-O{opt}", "-march=native"] + _lang_flags(language, None)
    if openmp:
        cmd.append("-fopenmp")
    cmd += [f"-D{k}={v}" if v != "" else f"-D{k}" for k, v in (defines or {}).items()]
    cmd += list(extra or []) + [str(src), "-o", str(out), "-lm"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise CompileError(f"clang timed out after {timeout}s", str(src)) from None
    if proc.returncode != 0:
        raise CompileError(_first_errors(proc.stderr), str(src))
