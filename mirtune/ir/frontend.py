"""Find clang and compile C, C++, OpenCL and CUDA device code to LLVM IR text."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from mirtune.errors import CompileError, ToolMissing, UsageError
from mirtune.paths import cache_dir, write_atomic

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
# Address-space cap of a compiler process (MiB; $MIRTUNE_COMPILE_MEMORY_MB overrides): a pathological source (GCC's
# testsuite has some) can drive clang past 20 GB, which would take the machine, and every Ray worker on it, along.
COMPILE_MEMORY_MB = 4096

# CUDA device code is compiled with CUDA 11.8's headers from PyPI (the `cuda` extra: distribution, folder under
# nvidia/), assembled into a --cuda-path tree on first use. clang 14 knows CUDA up to 11.5 only, hence the SDK
# version and PTX 7.5 given explicitly (../shared/data/ls-cat/PROVENANCE.md: 99 of 100 sampled LS-CAT kernels
# compile so). The CUDA 13 headers of a current toolkit do not work with clang 14.
CUDA_PACKAGES = (("nvidia-cuda-runtime-cu11", "cuda_runtime"), ("nvidia-cuda-nvcc-cu11", "cuda_nvcc"),
                 ("nvidia-cuda-cccl-cu11", "cuda_cccl"), ("nvidia-curand-cu11", "curand"))
CUDA_ARCH = "sm_80"
_CUDA_SDK_FLAGS = ["-Xclang", "-target-sdk-version=11.5", "-Xclang", "-target-feature", "-Xclang", "+ptx75"]
_CUDA_TREE_VERSION = 1  # bump when the layout of the assembled tree changes

# Without those headers: a few definitions the CUDA headers normally provide, enough for simple kernels only.
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


def _cuda_packages() -> list[tuple[str, str, Path]] | None:
    """(distribution, version, its nvidia/<folder>) of each package of the `cuda` extra; None if one is missing."""
    found = []
    for dist_name, folder in CUDA_PACKAGES:
        try:
            dist = importlib.metadata.distribution(dist_name)
        except importlib.metadata.PackageNotFoundError:
            return None
        root = Path(str(dist.locate_file(f"nvidia/{folder}")))
        if not (root / "include").is_dir():
            return None
        found.append((dist_name, dist.version, root))
    return found


def _assemble_cuda_tree(packages: list[tuple[str, str, Path]], target: Path) -> None:
    """Lay out a CUDA installation clang accepts at `target`: include/ (every package's headers, linked), empty
    bin/ and lib64/, and nvvm/libdevice/libdevice.10.bc; built beside it and renamed into place whole."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    for sub in ("include", "bin", "lib64", "nvvm/libdevice"):
        (tmp / sub).mkdir(parents=True)
    for _, _, root in packages:
        for entry in sorted((root / "include").iterdir()):
            if entry.name not in ("__init__.py", "__pycache__") and not (tmp / "include" / entry.name).exists():
                (tmp / "include" / entry.name).symlink_to(entry)
        libdevice = root / "nvvm" / "libdevice" / "libdevice.10.bc"
        if libdevice.is_file():
            (tmp / "nvvm" / "libdevice" / libdevice.name).symlink_to(libdevice)
    try:
        tmp.rename(target)
    except OSError:  # another process assembled it first
        shutil.rmtree(tmp, ignore_errors=True)


@lru_cache(maxsize=None)
def cuda_path() -> Path | None:
    """The --cuda-path tree of CUDA 11.8's headers (the `cuda` extra), assembled on first use under mirtune's
    cache folder (one per set of package versions and places); None when the packages are not installed."""
    packages = _cuda_packages()
    if packages is None:
        return None
    key = hashlib.sha256(repr([_CUDA_TREE_VERSION, [(n, v, str(r)) for n, v, r in packages]]).encode())
    target = cache_dir() / "cuda" / f"cuda-11.8-{key.hexdigest()[:12]}"
    if not target.exists():
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            _assemble_cuda_tree(packages, target)
        except OSError as exc:
            raise ToolMissing(f"cannot assemble the CUDA header tree in {target}: {exc.strerror or exc}") from None
    if not (target / "include" / "cuda.h").is_file() or not (target / "nvvm/libdevice/libdevice.10.bc").is_file():
        raise ToolMissing(f"the CUDA header tree {target} is broken (no cuda.h or libdevice): remove it, and the "
                          "next compile assembles it again")
    return target


@lru_cache(maxsize=None)
def _prelude_file() -> Path:
    """mirtune's CUDA prelude as a file in the cache folder, named by its content; says once on stderr that the
    CUDA headers are missing."""
    print("mirtune: CUDA 11.8's headers are not installed (pip install -e '.[cuda]', as make setup does): compiling "
          "CUDA with mirtune's minimal prelude, which most real CUDA code does not compile with", file=sys.stderr)
    digest = hashlib.sha256(_CUDA_PRELUDE.encode()).hexdigest()[:12]
    path = cache_dir() / "cuda" / f"mirtune_cuda_prelude-{digest}.h"
    if not path.is_file():
        try:
            write_atomic(path, _CUDA_PRELUDE)
        except OSError as exc:
            raise ToolMissing(f"cannot write mirtune's CUDA prelude to {path}: {exc.strerror or exc}") from None
    return path


def cuda_header_flags() -> list[str]:
    """clang's flags that provide the CUDA headers: the CUDA 11.8 tree (`cuda_path`), else mirtune's prelude."""
    tree = cuda_path()
    if tree is not None:
        return [f"--cuda-path={tree}", *_CUDA_SDK_FLAGS]
    return ["-nocudainc", "-include", str(_prelude_file())]


def _lang_flags(lang: str) -> list[str]:
    if lang == "c":
        return ["-x", "c", "-std=gnu11"]
    if lang == "cxx":
        return ["-x", "c++", "-std=c++17"]
    if lang == "opencl":
        return ["-x", "cl", "-cl-std=CL2.0", "-Xclang", "-finclude-default-header", "-target", "spir64"]
    # -nocudalib: math functions stay calls to libdevice's __nv_* rather than its inlined bodies
    return ["-x", "cuda", "--cuda-device-only", f"--cuda-gpu-arch={CUDA_ARCH}", "-nocudalib", *cuda_header_flags()]


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
                    extra: list[str] | None = None, cl_std: str | None = None) -> list[str]:
    """The clang command line that turns `src` into IR text at `out` (no shell involved)."""
    clang = find_clang()
    cmd = [clang.path, "-S", "-emit-llvm", f"-O{opt}", "-w"]
    cmd += _lang_flags(lang)
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


def compiler_memory_mb() -> int:
    """The address-space cap of compiler processes in MiB ($MIRTUNE_COMPILE_MEMORY_MB, else COMPILE_MEMORY_MB)."""
    try:
        return max(256, int(os.environ.get("MIRTUNE_COMPILE_MEMORY_MB", COMPILE_MEMORY_MB)))
    except ValueError:
        return COMPILE_MEMORY_MB


def limit_compiler_memory() -> None:
    """preexec_fn of compiler subprocesses: cap the address space (see COMPILE_MEMORY_MB)."""
    import resource

    cap = compiler_memory_mb() * 2**20
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))


def _compile_failure(stderr: str, returncode: int) -> str:
    """clang's first errors, or that it ran out of its memory cap (killed, or LLVM's out-of-memory abort)."""
    if returncode < 0 or "out of memory" in stderr.lower() or "bad_alloc" in stderr:
        return f"clang ran out of its {compiler_memory_mb()} MiB memory cap (MIRTUNE_COMPILE_MEMORY_MB)"
    return _first_errors(stderr)


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
        ll = Path(tmp) / "out.ll"
        cmd = compile_command(src, ll, language, opt, openmp, extra, cl_std)
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S,
                                  stdin=subprocess.DEVNULL, preexec_fn=limit_compiler_memory)
        except subprocess.TimeoutExpired:
            raise CompileError(f"clang timed out after {COMPILE_TIMEOUT_S}s", str(src)) from None
        if proc.returncode != 0 or not ll.exists():
            raise CompileError(_compile_failure(proc.stderr, proc.returncode), str(src))
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
    cmd = [find_clang().path, f"-O{opt}", "-march=native"] + _lang_flags(language)
    if openmp:
        cmd.append("-fopenmp")
    cmd += [f"-D{k}={v}" if v != "" else f"-D{k}" for k, v in (defines or {}).items()]
    cmd += list(extra or []) + [str(src), "-o", str(out), "-lm"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL,
                              preexec_fn=limit_compiler_memory)
    except subprocess.TimeoutExpired:
        raise CompileError(f"clang timed out after {timeout}s", str(src)) from None
    if proc.returncode != 0:
        raise CompileError(_compile_failure(proc.stderr, proc.returncode), str(src))
