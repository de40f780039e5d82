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
from mirtune.measure.sandbox import run_tool
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
COMPILE_TIMEOUT_S = 120  # seconds a compiler process may take ($MIRTUNE_COMPILE_TIMEOUT_S overrides)
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


def compile_timeout_s() -> float:
    """Seconds a compiler process may run ($MIRTUNE_COMPILE_TIMEOUT_S, else COMPILE_TIMEOUT_S): raised for slow or
    busy machines, or for a job that is stopped (SIGSTOP) while something else is timed."""
    try:
        return max(1.0, float(os.environ.get("MIRTUNE_COMPILE_TIMEOUT_S", COMPILE_TIMEOUT_S)))
    except ValueError:
        return COMPILE_TIMEOUT_S


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


#: flags of a program's own build that decide what its source means (macros, headers, the language dialect), as
#: opposed to how it is optimised or linked (-O, -march, -l, -L, -W); all but -std= may take their value as the
#: next word, and those of _PATH_FLAGS name a file or folder
_MEANING_FLAGS = ("-D", "-U", "-I", "-std=", "-include", "-isystem", "-iquote", "-idirafter")
_MEANING_SWITCHES = frozenset({"-fgnu89-inline", "-fno-gnu89-inline", "-fsigned-char", "-funsigned-char",
                               "-fcommon", "-fno-common", "-fms-extensions", "-fgnu-keywords", "-fno-gnu-keywords"})
_PATH_FLAGS = ("-include", "-isystem", "-iquote", "-idirafter", "-I")


def source_flags(flags: list[str] | tuple[str, ...]) -> list[str]:
    """The flags of a program's build (--cflags) that its IR must be compiled with for the source to mean what it
    means in the build: macros (-D, -U), header folders and forced includes (-I, -include, ...), the language
    dialect (-std=, -fgnu89-inline, ...). Those that only say how to optimise or link are left out, so that the
    IR is compiled as the predictors' training programs were (-O2, for no particular CPU)."""
    kept: list[str] = []
    it = iter(flags)
    for flag in it:
        if flag in _MEANING_SWITCHES:
            kept.append(flag)
            continue
        if flag in _MEANING_FLAGS and flag != "-std=":  # "-I DIR": the value is the next word
            flag += next(it, "")
        if not flag.startswith(_MEANING_FLAGS):
            continue
        path_flag = next((f for f in _PATH_FLAGS if flag.startswith(f)), None)
        if path_flag and len(flag) > len(path_flag):  # a folder or file: absolute, as the IR cache keys it
            kept += [path_flag, str(Path(flag[len(path_flag):]).resolve())]
        else:
            kept.append(flag)
    return kept


# clang 14 names an OpenMP target region's outlined function after the device and inode of its source file
# (`__omp_offloading_fe00_22c134_main_l9`), so two copies of one source gave two IRs. The match needs `@` or `.`
# before the name: names inside string constants (offload entries, whose `[N x i8]` length counts them) stay.
_OFFLOAD_NAME = re.compile(r"(?<=[@.])__omp_offloading_[0-9a-f]+_[0-9a-f]+_")


def stable_offload_names(ir: str) -> str:
    """`ir` with the file identity in OpenMP offload function names set to 0_0: the same source gives the same IR
    wherever its file lives (the corpus compiles each program from a fresh temporary file)."""
    return _OFFLOAD_NAME.sub("__omp_offloading_0_0_", ir)


def compile_to_ir(src: str | os.PathLike, out: str | os.PathLike | None = None, *, lang: str | None = None,
                  opt: int = 2, openmp: bool = False, extra: list[str] | None = None,
                  cl_std: str | None = None) -> str:
    """Compile a source file to LLVM IR text; write it to `out` if given and return the text.

    OpenMP offload function names are made independent of the file's inode (stable_offload_names). Raises
    CompileError with clang's own diagnostics when the source does not compile.
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
            proc = run_tool(cmd, compile_timeout_s(), preexec_fn=limit_compiler_memory)
        except subprocess.TimeoutExpired:
            raise CompileError(f"clang timed out after {compile_timeout_s():g}s", str(src)) from None
        if proc.returncode != 0 or not ll.exists():
            raise CompileError(_compile_failure(proc.stderr, proc.returncode), str(src))
        text = stable_offload_names(ll.read_text())
    if out is not None:
        Path(out).write_text(text)
    return text


def compile_executable(src: str | os.PathLike, out: str | os.PathLike, *, opt: int = 2, openmp: bool = False,
                       defines: dict[str, str] | None = None, extra: list[str] | None = None,
                       timeout: float | None = None) -> None:
    """Build a native executable from C/C++ source (used by the collectors); `timeout`: seconds, else
    `compile_timeout_s()`."""
    timeout = timeout or compile_timeout_s()
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
        proc = run_tool(cmd, timeout, preexec_fn=limit_compiler_memory)
    except subprocess.TimeoutExpired:
        raise CompileError(f"clang timed out after {timeout:g}s", str(src)) from None
    if proc.returncode != 0:
        raise CompileError(_compile_failure(proc.stderr, proc.returncode), str(src))


# --------------------------------------------------------------------------------------------- programs of several files


@lru_cache(maxsize=None)
def find_llvm_link() -> str:
    """llvm-link of clang's own LLVM ($MIRTUNE_LLVM_LINK, else beside clang's real path, else llvm-link-<major>, else
    llvm-link of that major version): the modules it writes must stay readable by the tools that read clang's IR."""
    wanted = os.environ.get("MIRTUNE_LLVM_LINK")
    clang = find_clang()
    hint = f"install llvm-{clang.major} (Debian: apt-get install llvm-{clang.major}) or set MIRTUNE_LLVM_LINK"
    if wanted:
        path = shutil.which(wanted)
        if path is None:
            raise ToolMissing(f"MIRTUNE_LLVM_LINK={wanted} not found; {hint}")
        return path
    beside = Path(clang.path).resolve().parent / "llvm-link"
    candidates = [str(beside)] if beside.is_file() else []
    candidates += [p for p in (shutil.which(f"llvm-link-{clang.major}"), shutil.which("llvm-link")) if p]
    for path in candidates:
        try:
            out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30,
                                 stdin=subprocess.DEVNULL).stdout
        except (OSError, subprocess.SubprocessError):
            continue
        m = re.search(r"LLVM version (\d+)", out)
        if m and int(m.group(1)) == clang.major:
            return path
    raise ToolMissing(f"no llvm-link of LLVM {clang.major} (clang's version) found; {hint}")


def link_ir(modules: list[Path], out: str | os.PathLike | None = None, names: list[str] | None = None) -> str:
    """Link IR files into one module with llvm-link (text); write it to `out` if given and return the text.
    CompileError (naming the files, `names` when given) when they do not link (a symbol defined twice)."""
    with tempfile.TemporaryDirectory(prefix="mirtune-link-") as tmp:
        ll = Path(tmp) / "linked.ll"
        cmd = [find_llvm_link(), "-S", *map(str, modules), "-o", str(ll)]
        try:
            proc = run_tool(cmd, compile_timeout_s(), preexec_fn=limit_compiler_memory)
        except subprocess.TimeoutExpired:
            raise CompileError(f"llvm-link timed out after {compile_timeout_s():g}s") from None
        if proc.returncode != 0 or not ll.exists():
            shown = list(names or map(str, modules))
            twice = re.search(r"Linking globals named '([^']+)'", proc.stderr)
            if twice:  # llvm-link does not say where: the modules that define the symbol
                where = [n for m, n in zip(modules, shown) if _defines(m, twice.group(1))]
                raise CompileError(f"the files do not link into one program: {twice.group(1)} is defined in "
                                   f"{' and '.join(where) or 'more than one file'}")
            text = proc.stderr
            for m, name in zip(modules, shown):
                text = text.replace(str(m), name)
            lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
            raise CompileError("the files do not link into one program: " + " | ".join(lines[:3] or ["llvm-link failed"]))
        text = ll.read_text()
    if out is not None:
        Path(out).write_text(text)
    return text


def _defines(module: Path, symbol: str) -> bool:
    """Whether an IR text file defines the function or global `symbol` (False for bitcode or an unreadable file)."""
    try:
        text = module.read_text(errors="replace")
    except OSError:
        return False
    name = re.escape(symbol) if re.fullmatch(r"[-a-zA-Z$._][-a-zA-Z$._0-9]*", symbol) else re.escape(f'"{symbol}"')
    return bool(re.search(rf"^(define\b[^\n]*@{name}\(|@{name} = (?!external)[^\n]*\b(global|constant)\b)", text,
                          re.M))


def user_headers(src: str | os.PathLike, flags: list[str] | None = None) -> list[Path] | None:
    """The headers outside the system's that `src` includes, directly or not (`clang -MM` with `flags`, which say
    the include folders and defines); None when clang cannot tell (the source does not preprocess: its compile says
    why)."""
    src = Path(src)
    try:
        language = language_of(src)
    except UsageError:
        return None
    cmd = [find_clang().path, "-MM", *_lang_flags(language), *(flags or []), str(src)]
    try:
        proc = run_tool(cmd, compile_timeout_s(), preexec_fn=limit_compiler_memory, cwd=str(src.parent))
    except subprocess.TimeoutExpired:
        return None
    if proc.returncode != 0:
        return None
    body = proc.stdout.replace("\\\n", " ").partition(":")[2]
    names = [t.replace("\0", " ") for t in body.replace("\\ ", "\0").split()]
    return [(src.parent / n).resolve() for n in names[1:]]  # the first is the source itself


def headers_digest(sources: list[Path] | tuple[Path, ...], include_dirs=(), flags=()) -> str:
    """A digest of every header outside the system's that `sources` include (`user_headers`, each with its own
    folder, then `include_dirs`, then `flags` such as -D), by path and content: part of a build's key, so that
    editing one rebuilds."""
    h = hashlib.sha256()
    found: set[Path] = set()
    for src in sources:
        src = Path(src).resolve()
        found.update(user_headers(src, [f"-I{src.parent}", *(f"-I{Path(d).resolve()}" for d in include_dirs),
                                        *flags]) or [])
    for header in sorted(found):
        try:
            h.update(str(header).encode() + b"\0" + header.read_bytes() + b"\0")
        except OSError:
            continue
    return h.hexdigest()[:24]


def _link_failure(stderr: str, folder: str) -> str:
    """The linker's own reason, without the temporary folder: its symbol errors, else its error lines."""
    lines = [ln.replace(f"{folder}/", "").strip() for ln in stderr.splitlines() if ln.strip()]
    twice = [re.search(r"([^\s:]+):\([^)]*\): multiple definition of [`']([^'`]+)'; (?:[^\s:]+:)?([^\s:]+):\(", ln)
             for ln in lines]
    found = [f"{m.group(2)} is defined in {m.group(3)} and {m.group(1)}" for m in twice if m]
    found = found or [ln for ln in lines if "multiple definition" in ln or "undefined reference" in ln]
    found = found or [ln for ln in lines if "error" in ln] or lines[-1:] or ["the linker failed"]
    return " | ".join(found[:3])


def compile_program(units: list[tuple[Path, list[str], str]], out: str | os.PathLike, *, opt: int = 2,
                    openmp: bool = False, defines: dict[str, str] | None = None, extra: list[str] | None = None,
                    timeout: float | None = None) -> None:
    """Build one native executable from several C/C++ translation units, (source, its own flags, its name in
    messages) each: every unit compiled to an object (-c, as `compile_executable` compiles one file), then all
    linked (with C++'s runtime when a unit is C++). CompileError naming the unit that does not compile, or
    saying that the program does not link (a symbol defined twice, one missing)."""
    timeout = timeout or compile_timeout_s()
    clang = find_clang().path
    base = [f"-O{opt}", "-march=native"] + (["-fopenmp"] if openmp else [])
    defs = [f"-D{k}={v}" if v != "" else f"-D{k}" for k, v in (defines or {}).items()]
    langs = []
    with tempfile.TemporaryDirectory(prefix="mirtune-objs-") as tmp:
        objects = []
        for i, (src, flags, name) in enumerate(units):
            language = language_of(src)
            if language not in ("c", "cxx"):
                raise UsageError(f"cannot build a native executable from {language} source", name)
            langs.append(language)
            obj = Path(tmp) / f"{i}-{_safe_stem(src)}.o"
            cmd = [clang, "-c", *base, *_lang_flags(language), *defs, *flags, *(extra or []), str(src), "-o", str(obj)]
            try:
                proc = run_tool(cmd, timeout, preexec_fn=limit_compiler_memory)
            except subprocess.TimeoutExpired:
                raise CompileError(f"clang timed out after {timeout:g}s", name) from None
            if proc.returncode != 0 or not obj.exists():
                raise CompileError(f"{name} does not compile: {_compile_failure(proc.stderr, proc.returncode)}", name)
            objects.append(str(obj))
        link = [clang, *base, *(["--driver-mode=g++"] if "cxx" in langs else []), *objects, "-o", str(out),
                *(extra or []), "-lm"]
        try:
            proc = run_tool(link, timeout, preexec_fn=limit_compiler_memory)
        except subprocess.TimeoutExpired:
            raise CompileError(f"linking timed out after {timeout:g}s") from None
        if proc.returncode != 0:
            stderr = proc.stderr
            for i, (src, _, name) in enumerate(units):  # the objects by the names of their sources
                stderr = stderr.replace(f"{tmp}/{i}-{_safe_stem(src)}.o", name)
            raise CompileError(f"the files do not link into one program: {_link_failure(stderr, tmp)}")


def _safe_stem(src: Path) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", src.stem) or "unit"
