"""Build a program once per node, into a cache that only this user can write.

`build(spec, cache_dir)` compiles a `BuildSpec` (the source TEXT plus the flags, so that any node can
build it without the driver's files) into `cache_dir/<key>-<tag>/prog`. The key hashes the source (every file
of a program of several, and the headers they include) and the flags; the tag hashes this node's CPU model and flags (binaries use -march=native) and its clang version, so a
cache shared between unlike nodes never hands one of them a binary it cannot run. A compile error is cached
too (it is deterministic); a missing compiler or a compile timeout is not. A cached binary is used only when it
and its folder are this user's and writable by no one else and its bytes match the SHA-256 recorded at its build
(prog.sha256); anything else found there is rebuilt, never run (a cache root every user can write to draws one
warning).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import re
import shutil
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping, Sequence

from mirtune.measure.host import node_tag
from mirtune.measure.sandbox import bytes_match, run_tool
from mirtune.paths import write_atomic


@dataclass(frozen=True)
class BuildSpec:
    """Everything needed to build one program under one build configuration, on any node.

    `source` is the text to compile (already rewritten where a sweep rewrites it); the user's file is never
    touched. `include_dirs` lets the copy in the cache still find headers beside the original (they are part
    of the key: the same text next to different headers is a different program).

    A program of several files: `source` is its first translation unit, `units` the others, as (file name in the
    build folder, text, the original file's path: its folder is searched first for its headers, then
    `include_dirs`); each is compiled on its own and all are linked into one binary (`compile_program`).
    `depends` is a digest of the headers they include, so that editing one rebuilds (both enter the key only
    when set).
    """

    name: str
    source: str
    suffix: str = ".c"
    defines: Mapping[str, str] = field(default_factory=dict)
    openmp: bool = False
    opt: int = 2
    extra: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    compiler: str = "clang"  # or "nvcc" (CUDA programs: host and device code, see `build`)
    units: tuple[tuple[str, str, str], ...] = ()
    depends: str = ""

    def key(self) -> str:
        """Hash of the source and the flags: the same key means the same binary."""
        d = {"source": self.source, "suffix": self.suffix,
             "defines": sorted((str(k), str(v)) for k, v in self.defines.items()),
             "openmp": self.openmp, "opt": self.opt, "extra": list(self.extra),
             "include_dirs": list(self.include_dirs)}
        if self.compiler != "clang":  # clang keys stay what they were before the field existed
            d["compiler"] = self.compiler
        if self.units:  # so do the keys of programs of one file
            d["units"] = [list(u) for u in self.units]
        if self.depends:
            d["depends"] = self.depends
        blob = json.dumps(d, sort_keys=True)
        return hashlib.sha256(blob.encode()).hexdigest()[:24]

    def to_json(self) -> str:
        """The spec as JSON text (it travels to the nodes that build or run it: `from_json` reads it back)."""
        d = dataclasses.asdict(self)
        d["defines"] = dict(self.defines)
        return json.dumps(d)

    @classmethod
    def from_json(cls, text: str) -> "BuildSpec":
        """The spec `to_json` wrote."""
        d = json.loads(text)
        d["extra"] = tuple(d["extra"])
        d["include_dirs"] = tuple(d["include_dirs"])
        d["units"] = tuple(tuple(u) for u in d.get("units", ()))
        return cls(**d)


@dataclass
class BuildResult:
    """The outcome of a build on this node: a binary, or `build_failed` with the compiler's reason."""

    key: str
    status: str
    reason: str
    exe: str | None
    seconds: float
    cached: bool
    tag: str
    transient: bool = False  # a failure that is not the program's (no compiler, a compile timeout): retry later


def spec_tag(spec: BuildSpec) -> str:
    """The compatibility tag of `spec`'s binary on this node.

    clang builds use -march=native: `node_tag()`. nvcc builds are not tuned to the host CPU (their device code
    is chosen by -arch), so any node of the same machine architecture can run a binary built elsewhere.
    """
    if spec.compiler == "nvcc":
        import platform

        return hashlib.sha256(f"nvcc|{platform.system()}|{platform.machine()}".encode()).hexdigest()[:12]
    return node_tag()


def find_nvcc() -> str | None:
    """$MIRTUNE_NVCC, else `nvcc` on PATH, else /usr/local/cuda/bin/nvcc; None when there is none."""
    for cand in (os.environ.get("MIRTUNE_NVCC"), shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if cand and os.path.isfile(cand) and os.access(cand, os.X_OK):
            return cand
    return None


NVCC_TIMEOUT_S = 600.0


def _compile_nvcc(spec: BuildSpec, src: Path, out: Path) -> None:
    """Build a CUDA program with nvcc (-O<opt>, the defines, -I dirs and `extra` flags such as -arch=sm_90)."""
    from mirtune.errors import CompileError, ToolMissing

    nvcc = find_nvcc()
    if nvcc is None:
        raise ToolMissing("nvcc not found (install the CUDA toolkit or set MIRTUNE_NVCC)")
    cmd = [nvcc, f"-O{spec.opt}"]
    cmd += [f"-D{k}={v}" if v != "" else f"-D{k}" for k, v in spec.defines.items()]
    cmd += [f"-I{d}" for d in spec.include_dirs] + list(spec.extra) + [str(src), "-o", str(out)]
    try:
        proc = run_tool(cmd, NVCC_TIMEOUT_S, cwd=str(src.parent))
    except subprocess.TimeoutExpired:
        raise CompileError(f"nvcc timed out after {NVCC_TIMEOUT_S:g}s", str(src)) from None
    if proc.returncode != 0:
        lines = [ln for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
        errors = [ln for ln in lines if "error" in ln.lower()] or lines
        raise CompileError("\n".join(errors[:8]) or f"nvcc exited with status {proc.returncode}", str(src))


def default_cache_dir() -> Path:
    """$MIRTUNE_BUILD_CACHE, else ~/.cache/mirtune/builds."""
    env = os.environ.get("MIRTUNE_BUILD_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mirtune" / "builds"


def _safe_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name) or "program"


def unit_names(sources: Sequence[str | os.PathLike]) -> list[str]:
    """Each file's name in a build folder (a program of several files, `BuildSpec.units`): its own name as the cache
    writes it, made unique (`name_2.c`) where two files of the program share one."""
    names: list[str] = []
    for i, src in enumerate(map(Path, sources)):
        name = _safe_name(src.stem) + src.suffix
        if name in names:
            name = f"{_safe_name(src.stem)}_{i + 1}{src.suffix}"
        names.append(name)
    return names


_WARNED_OPEN_CACHES: set[str] = set()


def _cache_folder(spec: BuildSpec, cache_dir: str | os.PathLike | None) -> tuple[str, str, Path]:
    """(key, tag, folder) of `spec`'s cache entry; warns once per process (one line on stderr) when the cache's
    root is a folder every user can write to."""
    import stat
    import sys

    key, tag = spec.key(), spec_tag(spec)
    root = Path(cache_dir or default_cache_dir())
    try:
        mode = stat.S_IMODE(os.stat(root).st_mode)
    except OSError:
        mode = 0
    if mode & 0o002 and str(root) not in _WARNED_OPEN_CACHES:
        _WARNED_OPEN_CACHES.add(str(root))
        print(f"mirtune: warning: the build cache {root} is writable by every user (mode {mode:o}): a binary found "
              "there runs only when it is yours, writable by no one else and matches the digest recorded at its "
              "build, else it is rebuilt; set MIRTUNE_BUILD_CACHE to a folder of your own", file=sys.stderr)
    return key, tag, root / f"{key}-{tag}"


def _trusted(path: Path) -> bool:
    """True when `path` is a regular file of this user's, in a folder of this user's, that no one else can change."""
    from mirtune.private import UnsafePath, check_private_file

    try:
        check_private_file(path)
    except UnsafePath:
        return False
    return True


def _trusted_binary(exe: Path) -> bool:
    """True when the cached `exe` may run: it and its digest record (prog.sha256, written at its build) are
    trusted files (`_trusted`) and its bytes match that digest."""
    record = exe.with_name(exe.name + ".sha256")
    if not (_trusted(exe) and _trusted(record)):
        return False
    try:
        digest = record.read_text().strip()
    except OSError:
        return False
    return bytes_match(exe, digest)


def _own_entry(folder: Path) -> None:
    """Make `folder` a cache entry that is this user's and writable by no one else: one that is a link, a file,
    another user's or open to others is removed first (OSError when it cannot be)."""
    from mirtune.private import UnsafePath, check_own_folder

    folder.parent.mkdir(parents=True, exist_ok=True)
    try:
        check_own_folder(folder)
        return
    except UnsafePath:
        pass
    if folder.is_symlink() or folder.is_file():
        folder.unlink()
    elif folder.exists():
        shutil.rmtree(folder)
    os.mkdir(folder, 0o755)


def _install_binary(folder: Path, tmp_exe: Path) -> Path:
    """Move a freshly built (or received) binary into `folder` as prog (mode 0755), with its digest recorded."""
    exe = folder / "prog"
    os.chmod(tmp_exe, 0o755)
    write_atomic(folder / "prog.sha256", hashlib.sha256(tmp_exe.read_bytes()).hexdigest().encode(), 0o644)
    os.replace(tmp_exe, exe)
    return exe


def cached(spec: BuildSpec, cache_dir: str | os.PathLike | None = None) -> BuildResult | None:
    """The cached outcome of building `spec` on this node (a binary or a compile error), or None: None too when
    what is there cannot be trusted (see `_trusted_binary`), so that it is rebuilt, never run."""
    key, tag, folder = _cache_folder(spec, cache_dir)
    exe, failed = folder / "prog", folder / "build_failed.txt"
    if exe.exists() or exe.is_symlink():
        return BuildResult(key, "ok", "", str(exe), 0.0, True, tag) if _trusted_binary(exe) else None
    if _trusted(failed):
        return BuildResult(key, "build_failed", failed.read_text().strip(), None, 0.0, True, tag)
    return None


def build(spec: BuildSpec, cache_dir: str | os.PathLike | None = None) -> BuildResult:
    """Build `spec` into the cache (or find it there); never raises for a bad program."""
    from mirtune.errors import CompileError, MirtuneError
    from mirtune.ir.frontend import compile_executable, compile_program

    hit = cached(spec, cache_dir)
    if hit is not None:
        return hit
    key, tag, folder = _cache_folder(spec, cache_dir)
    failed = folder / "build_failed.txt"
    try:
        _own_entry(folder)
    except OSError as exc:
        return BuildResult(key, "build_failed", f"cannot use the build cache entry {folder}: {exc.strerror} (remove "
                           "it, or set MIRTUNE_BUILD_CACHE to a folder of your own)", None, 0.0, False, tag, True)
    src = folder / f"{_safe_name(spec.name)}{spec.suffix}"
    write_atomic(src, spec.source.encode())
    tmp_exe = folder / f".prog.{os.getpid()}.{uuid.uuid4().hex[:8]}"
    extra = [f"-I{d}" for d in spec.include_dirs] + list(spec.extra)
    start = time.perf_counter()
    try:
        if spec.compiler == "nvcc":
            _compile_nvcc(spec, src, tmp_exe)
        elif spec.compiler == "clang" and spec.units:
            units = [(src, [f"-I{d}" for d in spec.include_dirs], src.name)]
            for name, text, origin in spec.units:
                path = folder / _safe_name(name)
                write_atomic(path, text.encode())
                shown = name if name == Path(origin).name else origin
                units.append((path, [f"-I{Path(origin).parent}"] + [f"-I{d}" for d in spec.include_dirs], shown))
            compile_program(units, tmp_exe, opt=spec.opt, openmp=spec.openmp,
                            defines={str(k): str(v) for k, v in spec.defines.items()}, extra=list(spec.extra))
        elif spec.compiler == "clang":
            compile_executable(src, tmp_exe, opt=spec.opt, openmp=spec.openmp,
                               defines={str(k): str(v) for k, v in spec.defines.items()}, extra=extra)
        else:
            raise MirtuneError(f"unknown compiler {spec.compiler!r} (clang or nvcc)")
    except CompileError as exc:
        reason = " | ".join(ln.strip() for ln in str(exc).replace(f"{folder}/", "").splitlines() if ln.strip())
        tmp_exe.unlink(missing_ok=True)
        transient = "timed out" in reason
        if not transient:
            write_atomic(failed, reason.encode())
        return BuildResult(key, "build_failed", reason, None, time.perf_counter() - start, False, tag, transient)
    except MirtuneError as exc:  # no clang, unsupported language: not the program's fault, not cached
        return BuildResult(key, "build_failed", exc.line(), None, time.perf_counter() - start, False, tag, True)
    if not tmp_exe.exists():
        return BuildResult(key, "build_failed", "the compiler wrote no executable", None,
                           time.perf_counter() - start, False, tag)
    exe = _install_binary(folder, tmp_exe)
    return BuildResult(key, "ok", "", str(exe), time.perf_counter() - start, False, tag)


def install(spec: BuildSpec, exe_bytes: bytes | None, built_tag: str | None,
            cache_dir: str | os.PathLike | None = None) -> BuildResult:
    """Make the binary of `spec` available on this node.

    Uses the local cache, else the bytes built elsewhere when that node had the same tag, else builds here.
    """
    key, tag, folder = _cache_folder(spec, cache_dir)
    if cached(spec, cache_dir) is None and exe_bytes is not None and built_tag == tag:
        try:
            _own_entry(folder)
            tmp = folder / f".prog.{os.getpid()}.{uuid.uuid4().hex[:8]}"
            tmp.write_bytes(exe_bytes)
            _install_binary(folder, tmp)
        except OSError:
            pass  # build() below says why the entry cannot be used
    return build(spec, cache_dir)
