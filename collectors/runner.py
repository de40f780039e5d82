"""Build a program once, and measure one configuration of it properly.

Building: `build(spec, cache_dir)` compiles a `BuildSpec` (the source TEXT plus the flags, so that any node can
build it without the driver's files) into `cache_dir/<key>-<tag>/prog`. The key hashes the source (every file
of a program of several, and the headers they include) and the flags; the tag hashes this node's CPU model and flags (binaries use -march=native) and its clang version, so a
cache shared between unlike nodes never hands one of them a binary it cannot run. A compile error is cached
too (it is deterministic); a missing compiler or a compile timeout is not. A cached binary is used only when it
and its folder are this user's and writable by no one else and its bytes match the SHA-256 recorded at its build
(prog.sha256); anything else found there is rebuilt, never run (a cache root every user can write to draws one
warning).

Running: `run_once()` starts the binary with `subprocess` (no shell) in a fresh private directory, in its own
process group (not its own session: see below), with a minimal environment, RLIMIT_CORE=0, an address-space limit, a CPU-time limit
(a backstop should the timer itself die), an output-size limit and PR_SET_PDEATHSIG=SIGKILL (the program
dies with the worker that started it). Output goes to files, not pipes, so a grandchild that keeps a stream
open cannot stall the collector. A timer kills everything the run started at the timeout, and the process group
is killed after every run, so a program's stray grandchildren never outlive it, not even one that left the group
or the session (setsid, a daemon's double fork): the launcher (below) is a child subreaper that kills whatever
the program left behind once it has ended, and at a timeout every descendant is found through /proc (psutil)
and killed, round after round, before the group (`_killpg`). Should the process that started the run die first
(SIGKILL, Ctrl-C of a command whose Ray worker is then stopped), the launcher's death signal is SIGTERM, which it
catches: it kills the program and everything the program left, in any session, before it ends. (Without a launcher, no clang, the child of a
program that ended normally after calling setsid() is no longer anyone's to find: only the group is killed.)

Why not a new session: with the kernel's autogroup scheduling (on by default in most distributions), a new
session is a new scheduling group, and on a machine shared with other work a program in a fresh group ran
1.4-1.6x slower than the same program run bare (benchmarks/bench_collect.py). A new process group keeps the
caller's scheduling group, still receives no terminal signals, and is killed as a whole just the same.

The program is started through a small C launcher (built with clang once per process, like the programs, into a
folder only this user can write, $TMPDIR/mirtune-<uid> with mode 0700, or a fresh private folder when that name
is someone else's or open to others; owner, mode and the SHA-256 of the bytes this process built, kept in memory,
are checked before every use, so a file planted there, whatever its name, is never run):
the launcher forks the program, waits for it with wait4 and writes the program's wait status, wall time
(CLOCK_MONOTONIC from just before the program's exec, read in the child, to its reaping) and rusage to a file.
(Reading the start in the launcher instead, once the exec is done, made runs look up to 1000x faster on a
machine so busy that the launcher got the CPU back only after the program had nearly finished.) This matters for peak RSS:
a child forked straight from a Ray worker inherits the worker's resident pages, and Linux reports
max(worker, program) as its ru_maxrss; forked from the small launcher the figure is the program's own. The
launcher also keeps the fork of a large parent out of the measured time.

Measuring: `measure()` holds this machine's timed-run lock (`timed_run_lock`: measurements of two processes, two
commands each with a Ray cluster of its own, take turns instead of corrupting each other's times), does W warm-up
runs and R timed runs, keeps every time, the median and the coefficient
of variation, and checks every run's `checksum:` line against the default configuration's (`reference`).
The first failing run ends the measurement with its status: `timeout`, `crash` (exit status or signal name),
`wrong_output` (no checksum, a different checksum, or one that changes between runs). Telemetry: CPU
frequency and load average from psutil/os, peak RSS and CPU times of the child from wait4, and on GPU nodes
NVML samples (power, clocks, temperature, energy) taken while the timed runs execute; without NVML the GPU
fields are None and `gpu_telemetry` says why.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import json
import math
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from collectors.check import CheckTimeout, OutputCheck, checksums_match  # noqa: F401  (checksums_match: re-exported)
from collectors.host import NvmlStatus, clang_version, cpu_tag, load_nvml, logical_cores
from mirtune.paths import private_temp_dir, write_atomic
from mirtune.tasks.measured import spread

STATUSES = ("ok", "timeout", "crash", "wrong_output", "build_failed", "unsupported")
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
_OUTPUT_TAIL_BYTES = 1 << 20
_PR_SET_PDEATHSIG = 1


# --------------------------------------------------------------------------------------------- building


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


@lru_cache(maxsize=None)
def node_tag() -> str:
    """This node's binary compatibility tag: CPU model and flags, and the clang version."""
    return hashlib.sha256(f"{cpu_tag()}|{clang_version()}".encode()).hexdigest()[:12]


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
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=NVCC_TIMEOUT_S,
                              stdin=subprocess.DEVNULL, cwd=str(src.parent))
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
    from collectors.private import UnsafePath, check_private_file

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
    return _bytes_match(exe, digest)


def _own_entry(folder: Path) -> None:
    """Make `folder` a cache entry that is this user's and writable by no one else: one that is a link, a file,
    another user's or open to others is removed first (OSError when it cannot be)."""
    from collectors.private import UnsafePath, check_own_folder

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


# --------------------------------------------------------------------------------------------- running


@dataclass(frozen=True)
class RunLimits:
    """Limits for one run of a program.

    memory_bytes: RLIMIT_AS (None: the machine's memory, at least 8 GiB, since OpenMP threads reserve address
    space generously). cpu_s: RLIMIT_CPU, a backstop should the wall-clock timer die with its worker (None:
    timeout x logical cores + 10 s). output_bytes: RLIMIT_FSIZE, the largest file (stdout included) it may write.
    limit_address_space: False leaves RLIMIT_AS alone (CUDA programs reserve far more address space than memory,
    and fail to initialise under any realistic RLIMIT_AS).
    """

    timeout_s: float = 300.0
    memory_bytes: int | None = None
    cpu_s: int | None = None
    output_bytes: int = 64 << 20
    limit_address_space: bool = True


@dataclass
class ProcessRun:
    """One execution of a program: its wall time, how it ended, its output tails and its resource usage."""

    seconds: float
    exit_code: int | None
    signal: str | None
    timed_out: bool
    stdout: str
    stderr: str
    maxrss_kib: int | None
    user_s: float
    sys_s: float
    output_file: str | None = None


def minimal_env(variables: Mapping[str, Any] | None = None, home: str | None = None) -> dict[str, str]:
    """The environment a program runs with: PATH, C locale, HOME/TMPDIR = its private directory,
    OMP_PROC_BIND=false, LD_LIBRARY_PATH if the caller has one, then `variables` (a None value removes one).

    Nothing else leaks in: Ray sets OMP_NUM_THREADS=1 in its workers, for example.
    """
    env = {"PATH": DEFAULT_PATH, "LANG": "C", "LC_ALL": "C", "OMP_PROC_BIND": "false"}
    if home:
        env["HOME"] = env["TMPDIR"] = home
    if os.environ.get("LD_LIBRARY_PATH"):
        env["LD_LIBRARY_PATH"] = os.environ["LD_LIBRARY_PATH"]
    for k, v in (variables or {}).items():
        if v is None:
            env.pop(k, None)
        else:
            env[str(k)] = str(v)
    return env


def _prctl() -> Any | None:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl
    except (OSError, AttributeError):
        return None


def _clip(value: int, hard: int) -> int:
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


def _preexec(limits: RunLimits, death_signal: int = signal.SIGKILL):
    """The function the child runs between fork and exec: limits and `death_signal`, sent to it when this thread
    dies (all resolved before fork)."""
    import psutil

    mem = limits.memory_bytes or max(int(psutil.virtual_memory().total), 8 << 30)
    cpu = limits.cpu_s or int(math.ceil(limits.timeout_s * logical_cores() + 10))
    wanted = [(resource.RLIMIT_CORE, 0), (resource.RLIMIT_AS, mem), (resource.RLIMIT_CPU, cpu),
              (resource.RLIMIT_FSIZE, limits.output_bytes)]
    if not limits.limit_address_space:
        wanted = [w for w in wanted if w[0] != resource.RLIMIT_AS]
    settings = []
    for which, value in wanted:
        _, hard = resource.getrlimit(which)
        v = _clip(value, hard)
        settings.append((which, (v, v)))
    prctl = _prctl()
    parent = os.getpid()

    def child() -> None:
        for which, pair in settings:
            resource.setrlimit(which, pair)
        if prctl is not None:
            prctl(_PR_SET_PDEATHSIG, death_signal, 0, 0, 0)
            if os.getppid() != parent:  # the parent died before the death signal was armed
                os._exit(137)

    return child


def _unreaped_child(pid: int) -> bool:
    """True while `pid` is a child of this process not yet reaped (so the pid cannot have been reused)."""
    try:
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return False
    return True


def _kill_descendants(pid: int, limit_s: float = 5.0) -> None:
    """SIGKILL every descendant of `pid`, round after round until none is left alive (or `limit_s` passes).

    Found through /proc (psutil), so a process that left the group or the session (setsid) is killed too.
    Under the launcher, a child subreaper, an orphan (its parent killed in an earlier round, a daemon's double
    fork) is re-parented to the launcher and found in the next round.
    """
    import psutil

    try:
        root = psutil.Process(pid)
    except psutil.Error:
        return
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        try:
            procs = root.children(recursive=True)
        except psutil.Error:
            return
        alive = 0
        for p in procs:
            try:
                if p.status() != psutil.STATUS_ZOMBIE:
                    p.kill()
                    alive += 1
            except psutil.Error:
                pass
        if not alive:
            return
        time.sleep(0.002)  # let the signals land (a killed process's children are re-parented as it exits)


def _killpg(pgid: int) -> None:
    """SIGKILL the process `pgid` started (the launcher, or the program without one): every descendant while
    it is our unreaped child (see `_kill_descendants`), then its whole process group."""
    if _unreaped_child(pgid):
        _kill_descendants(pgid)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _tail(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - _OUTPUT_TAIL_BYTES))
            return f.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


class _Killer:
    """Fires once at the timeout: marks the run timed out and kills its whole process group."""

    def __init__(self, pgid: int) -> None:
        self.pgid = pgid
        self.lock = threading.Lock()
        self.done = False
        self.fired = False

    def fire(self) -> None:
        with self.lock:
            if self.done:
                return
            self.fired = True
        _killpg(self.pgid)

    def finish(self) -> None:
        with self.lock:
            self.done = True


_LAUNCHER_C = r"""
/* mirtune-launch REPORT PROGRAM [ARGS...]: run PROGRAM as a child of this small process and write its wait
 * status, wall time and rusage to REPORT. A child forked straight from a large parent (a Ray worker) would
 * report the parent's memory as its own peak RSS; forked from here it reports its own.
 * This process is a child subreaper: whatever the program leaves behind (a child in a session of its own, a
 * daemon's double fork) is re-parented here, not to init, and killed once the program has ended. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* SIGKILL every live child of `self` (found in /proc: its stat line names the parent); returns how many. */
static int kill_children(pid_t self)
{
    DIR *d = opendir("/proc");
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end, path[64], buf[512], state;
        long pid = strtol(e->d_name, &end, 10);
        if (*end || pid <= 0)
            continue;
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t len = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (len <= 0)
            continue;
        buf[len] = 0;
        char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
        int ppid;
        if (p && sscanf(p + 1, " %c %d", &state, &ppid) == 2 && ppid == self && state != 'Z') {
            kill((pid_t)pid, SIGKILL);
            n++;
        }
    }
    closedir(d);
    return n;
}

/* The program's pid, for the handler below: SIGTERM, SIGINT or SIGHUP (the death signal this process gets when the
 * process that started it dies, however it dies, or a reaper's SIGTERM) kills the program at once; main then kills
 * whatever it left behind, in any session, before this process ends: nothing outlives the one who asked for it. */
static volatile sig_atomic_t child_pid = 0, stop_signal = 0;

static void on_stop(int sig)
{
    stop_signal = sig;
    if (child_pid > 0)
        kill((pid_t)child_pid, SIGKILL);
}

/* Kill and reap everything left below this process. Every live descendant has a chain of parents up to here
 * (orphans are re-parented to this subreaper), so none is left once this process has no child. */
static void kill_leftovers(pid_t self)
{
    for (;;) {
        int st;
        pid_t r;
        while ((r = waitpid(-1, &st, __WALL | WNOHANG)) > 0)
            ;
        if (r < 0 && errno == ECHILD)
            return;
        if (kill_children(self) > 0) {
            waitpid(-1, &st, __WALL);
        } else {
            struct timespec pause = {0, 1000000};
            nanosleep(&pause, NULL);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 125;
    pid_t self = getpid();
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigset_t stops, old;
    sigemptyset(&stops);
    int stop_signals[] = {SIGTERM, SIGINT, SIGHUP};
    for (int i = 0; i < 3; i++) {
        sigaction(stop_signals[i], &sa, NULL); /* no SA_RESTART: wait4 returns, and is retried */
        sigaddset(&stops, stop_signals[i]);
    }
    sigprocmask(SIG_BLOCK, &stops, &old); /* until child_pid is set (the child restores them) */
    /* The child reads the clock just before its exec and sends the time here: on a busy machine this process
     * may get the CPU back long after the program started, so a clock read here would start late. */
    int gate[2];
    if (pipe2(gate, O_CLOEXEC) != 0)
        return 125;
    struct timespec t0, t1;
    pid_t pid = fork();
    if (pid < 0)
        return 125;
    if (pid == 0) {
        close(gate[0]);
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        sigprocmask(SIG_SETMASK, &old, NULL);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != self)
            _exit(137);
        struct timespec start;
        clock_gettime(CLOCK_MONOTONIC, &start);
        if (write(gate[1], &start, sizeof start) != (ssize_t)sizeof start)
            _exit(125);
        execv(argv[2], argv + 2);
        fprintf(stderr, "mirtune-launch: cannot execute %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    child_pid = pid;
    sigprocmask(SIG_SETMASK, &old, NULL); /* a stop signal that came meanwhile is handled here */
    close(gate[1]);
    ssize_t got;
    while ((got = read(gate[0], &t0, sizeof t0)) < 0 && errno == EINTR)
        ;
    if (got != (ssize_t)sizeof t0)
        clock_gettime(CLOCK_MONOTONIC, &t0);
    close(gate[0]);
    int status = 0;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR)
            return 125;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    FILE *f = fopen(argv[1], "w");
    int ok = f != NULL;
    if (f) {
        fprintf(f, "%d %.9f %ld %.6f %.6f\n", status,
                (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9, (long)ru.ru_maxrss,
                (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
                (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
        ok = fclose(f) == 0;
    }
    kill_leftovers(self);
    if (stop_signal) { /* end as the signal would have ended this process */
        signal(stop_signal, SIG_DFL);
        raise(stop_signal);
    }
    return ok ? 0 : 125;
}
"""


def _launcher_folder() -> Path:
    """Where the launcher is built: $TMPDIR/mirtune-<uid>, a private folder (see collectors.private); when that
    name is another user's or open to others, a fresh private folder of this process (one warning line on
    stderr), removed at exit."""
    import atexit
    import sys

    from collectors.private import UnsafePath, private_dir

    try:
        return private_dir(Path(tempfile.gettempdir()) / f"mirtune-{os.getuid()}")
    except UnsafePath as exc:
        folder = Path(tempfile.mkdtemp(prefix="mirtune-launch-"))  # mode 0700, this user's
        atexit.register(shutil.rmtree, folder, True)
        print(f"mirtune: warning: {exc.line()}; the launcher is built in {folder} instead", file=sys.stderr)
        return folder


def _launcher_ok(exe: Path, digest: str) -> bool:
    """True when `exe` may run as the launcher: a file of this user's that no one else can change, in a private
    folder, whose bytes have the SHA-256 `digest` of the launcher this process built itself (kept in memory, never
    read from the file's name: a file planted under the right name with its own digest in it fails). The bytes
    are hashed again whenever the file's inode, size, mtime or ctime differ from when they last matched."""
    from collectors.private import UnsafePath, check_private_file, is_private_dir

    if not is_private_dir(exe.parent):
        return False
    try:
        check_private_file(exe)
    except UnsafePath:
        return False
    return _bytes_match(exe, digest)


def _bytes_match(path: Path, digest: str) -> bool:
    """True when the bytes of `path` have the SHA-256 `digest`; hashed again only when the file's inode, size,
    mtime or ctime differ from when they last matched."""
    try:
        st = os.lstat(path)
        seen = (digest, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)
        if _VERIFIED.get(str(path)) == seen:
            return True
        if hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            return False
    except OSError:
        return False
    _VERIFIED[str(path)] = seen
    return True


_VERIFIED: dict[str, tuple] = {}  # path -> (digest, its stat) when its bytes last matched the digest


@lru_cache(maxsize=1)
def _built_launcher() -> tuple[str, str] | None:
    """Build this node's launcher, once per process: (its path, the SHA-256 of the bytes this process built).

    clang's output is the same every time, so processes share one file, launch-<tag>-<digest>: one already there is
    used only when its bytes are the ones just built, and is replaced otherwise. None without clang or when the
    build fails."""
    from mirtune.ir.frontend import find_clang

    try:
        clang = find_clang().path
    except Exception:
        return None
    name = hashlib.sha256(f"{_LAUNCHER_C}|{node_tag()}".encode()).hexdigest()[:12]
    folder = _launcher_folder()
    tmp = folder / f".launch-{name}.{os.getpid()}.{uuid.uuid4().hex[:8]}"
    try:
        proc = subprocess.run([clang, "-O2", "-w", "-x", "c", "-", "-o", str(tmp)], input=_LAUNCHER_C.encode(),
                              capture_output=True, timeout=120)
        if proc.returncode != 0 or not tmp.exists():
            return None
        digest = hashlib.sha256(tmp.read_bytes()).hexdigest()
        exe = folder / f"launch-{name}-{digest}"
        if not _launcher_ok(exe, digest):
            os.replace(tmp, exe)
    except (OSError, subprocess.SubprocessError):
        return None
    finally:
        tmp.unlink(missing_ok=True)
    return (str(exe), digest) if _launcher_ok(exe, digest) else None


def launcher() -> str | None:
    """The launcher binary for this node, or None: built once per process with clang into a private per-user
    folder, and checked before every use (owner, mode, and the digest of the bytes this process built); one that
    fails the check is never run, but rebuilt."""
    built = _built_launcher()
    if built is not None and not _launcher_ok(Path(built[0]), built[1]):
        _built_launcher.cache_clear()
        built = _built_launcher()
    return built[0] if built is not None else None


MAX_INPUT_BYTES = 256 << 20


def read_inputs(paths: Sequence[str | os.PathLike]) -> dict[str, bytes]:
    """name -> bytes of a program's input files and folders (a folder keeps its name and its tree), to be written
    into every run's private working folder (`run_once(inputs=...)`); UsageError for a missing path, two inputs
    with one name, or more than MAX_INPUT_BYTES in all."""
    from mirtune.errors import UsageError

    files: dict[str, bytes] = {}
    total = 0
    for raw in paths:
        p = Path(raw)
        if not p.exists():
            raise UsageError("input file not found", str(p))
        members = [(p.name, p)] if p.is_file() else \
            [(f"{p.name}/{f.relative_to(p).as_posix()}", f) for f in sorted(p.rglob("*")) if f.is_file()]
        for name, f in members:
            if name in files:
                raise UsageError(f"two inputs are named {name!r}; rename one")
            files[name] = f.read_bytes()
            total += len(files[name])
            if total > MAX_INPUT_BYTES:
                raise UsageError(f"the input files exceed {MAX_INPUT_BYTES >> 20} MiB (they are copied into every "
                                 "run's private folder and sent to every node)")
    return files


def write_inputs(folder: Path, inputs: Mapping[str, bytes]) -> None:
    """Write input files (relative name -> bytes) under `folder`; a name that leaves it is refused."""
    root = folder.resolve()
    for name, data in inputs.items():
        target = (folder / name).resolve()
        if root not in target.parents:
            raise ValueError(f"input file name {name!r} leaves the working folder")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def _captured(folder: Path, name: str | None) -> str | None:
    """The tail of the file `name` the program wrote in `folder` (not following a link out of it), or None."""
    if not name:
        return None
    path = folder / name
    if path.is_symlink() or not path.is_file():
        return None
    return _tail(path)


def _program_path(cmd: Sequence[str]) -> list[str]:
    cmd = [str(c) for c in cmd]
    if "/" not in cmd[0]:
        found = shutil.which(cmd[0])
        if found:
            cmd[0] = found
    return cmd


def run_once(cmd: Sequence[str], env: Mapping[str, Any] | None = None, limits: RunLimits = RunLimits(),
             workdir_parent: str | None = None, inputs: Mapping[str, bytes] | None = None,
             capture: str | None = None) -> ProcessRun:
    """Run `cmd` once in a fresh private directory, under `limits`; `env` is added to `minimal_env()`.

    `inputs` are files written into that directory first (relative name -> bytes: the program's input files,
    which its arguments name relatively); `capture` names a file the program writes there, whose text (its
    tail) comes back in `output_file`.

    The program runs under the small launcher (see `launcher()`), which reports its exact wall time, status
    and rusage; without a launcher it runs directly and its peak RSS is None (unknown).
    """
    outer = private_temp_dir("mirtune-run-", workdir_parent)  # one a killed process left goes at its next start
    work = outer / "cwd"
    work.mkdir()
    write_inputs(work, inputs or {})
    out_path, err_path, report = outer / "stdout", outer / "stderr", outer / "report"
    launch = launcher()
    argv = _program_path(cmd)
    if launch is not None:
        argv = [launch, str(report)] + argv
    try:
        full_env = minimal_env(env, home=str(work))
        # the launcher, told by SIGTERM, kills the program and everything it left (in any session) before it ends
        preexec = _preexec(limits, signal.SIGTERM if launch is not None else signal.SIGKILL)
        try:
            with open(out_path, "wb") as fo, open(err_path, "wb") as fe:
                proc = subprocess.Popen(argv, cwd=work, env=full_env, stdin=subprocess.DEVNULL, stdout=fo,
                                        stderr=fe, process_group=0, preexec_fn=preexec, close_fds=True)
        except OSError as exc:  # only without the launcher: the program itself could not be started
            return ProcessRun(seconds=0.0, exit_code=127, signal=None, timed_out=False, stdout="",
                              stderr=f"cannot execute {argv[0]}: {exc.strerror}", maxrss_kib=None, user_s=0.0,
                              sys_s=0.0)
        start = time.perf_counter()
        killer = _Killer(proc.pid)
        timer = threading.Timer(limits.timeout_s, killer.fire)
        timer.daemon = True
        timer.start()
        status = None
        usage = None
        try:
            _, status, usage = os.wait4(proc.pid, 0)
            elapsed = time.perf_counter() - start
        finally:
            killer.finish()
            timer.cancel()
            _killpg(proc.pid)  # stray grandchildren, or the program itself on KeyboardInterrupt
            if status is None:
                _, status, usage = os.wait4(proc.pid, 0)
                elapsed = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
        # Without the launcher, ru_maxrss would include the parent's memory at fork: unknown, not guessed.
        maxrss: int | None = None
        user_s, sys_s = usage.ru_utime, usage.ru_stime
        if launch is not None:
            try:
                fields = report.read_text().split()
                status = int(fields[0])
                elapsed, maxrss = float(fields[1]), int(fields[2])
                user_s, sys_s = float(fields[3]), float(fields[4])
            except (OSError, ValueError, IndexError):
                pass  # the launcher itself was killed (timeout): its own status stands
        code = os.waitstatus_to_exitcode(status)
        sig = _signal_name(-code) if code < 0 else None
        return ProcessRun(seconds=elapsed, exit_code=code if code >= 0 else None, signal=sig,
                          timed_out=killer.fired and sig == "SIGKILL", stdout=_tail(out_path),
                          stderr=_tail(err_path), maxrss_kib=maxrss, user_s=user_s, sys_s=sys_s,
                          output_file=_captured(work, capture))
    finally:
        shutil.rmtree(outer, ignore_errors=True)


# --------------------------------------------------------------------------------------------- checking


def parse_checksum(stdout: str) -> str | None:
    """The value of the last `checksum: <value>` line, or None."""
    return OutputCheck("checksum").answer(stdout)


def parse_reported(stdout: str, key: str) -> float | None:
    """The number on the last `<key>: <number>` line (a figure the program measured itself), or None."""
    found = re.findall(rf"^\s*{re.escape(key)}:\s*(\S+)\s*$", stdout, re.MULTILINE)
    if not found:
        return None
    try:
        value = float(found[-1])
    except ValueError:
        return None
    return value if math.isfinite(value) else None


# --------------------------------------------------------------------------------------------- telemetry


@dataclass
class Telemetry:
    """What the machine was doing around a measurement. None means "could not be read", never a guess."""

    cpu_freq_mhz: float | None = None
    loadavg_1m: float | None = None
    loadavg_1m_after: float | None = None
    gpu_telemetry: str = "not sampled"
    gpu_power_w_mean: float | None = None
    gpu_power_w_max: float | None = None
    gpu_sm_clock_mhz: float | None = None
    gpu_mem_clock_mhz: float | None = None
    gpu_temp_c_max: float | None = None
    gpu_energy_j: float | None = None


def _cpu_freq() -> float | None:
    try:
        import psutil

        f = psutil.cpu_freq()
        return float(f.current) if f and f.current else None
    except Exception:
        return None


def _loadavg() -> float | None:
    try:
        return float(os.getloadavg()[0])
    except OSError:
        return None


@lru_cache(maxsize=1)
def _default_nvml() -> NvmlStatus:
    return load_nvml()


class GpuSampler:
    """Samples NVML power, clocks and temperature on a thread while timed runs execute, and the energy counter
    before and after. Construct with a module-like NVML object; `status` explains when it cannot sample."""

    def __init__(self, nvml: NvmlStatus, index: int = 0, interval_s: float = 0.1) -> None:
        self.reason = nvml.reason
        self.nvml = nvml.nvml
        self.interval_s = interval_s
        self.handle = None
        self.samples: list[tuple[float | None, float | None, float | None, float | None]] = []
        self.energy0: float | None = None
        self.energy_j: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if self.nvml is not None:
            try:
                self.handle = self.nvml.nvmlDeviceGetHandleByIndex(index)
            except Exception as exc:
                self.reason = f"NVML device {index}: {type(exc).__name__}: {exc}"
                self.nvml = None

    def _call(self, name: str, *args: Any) -> float | None:
        try:
            return float(getattr(self.nvml, name)(self.handle, *args))
        except Exception:
            return None

    def _sample(self) -> None:
        n = self.nvml
        power = self._call("nvmlDeviceGetPowerUsage")  # milliwatts
        sm = self._call("nvmlDeviceGetClockInfo", getattr(n, "NVML_CLOCK_SM", 1))
        mem = self._call("nvmlDeviceGetClockInfo", getattr(n, "NVML_CLOCK_MEM", 2))
        temp = self._call("nvmlDeviceGetTemperature", getattr(n, "NVML_TEMPERATURE_GPU", 0))
        self.samples.append((power / 1000.0 if power is not None else None, sm, mem, temp))

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._sample()

    def start(self) -> None:
        """Begin sampling (a no-op without NVML)."""
        if self.nvml is None:
            return
        self.energy0 = self._call("nvmlDeviceGetTotalEnergyConsumption")  # millijoules
        self._sample()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop sampling and read the energy counter again."""
        if self.nvml is None or self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._sample()
        end = self._call("nvmlDeviceGetTotalEnergyConsumption")
        if end is not None and self.energy0 is not None:
            self.energy_j = (end - self.energy0) / 1000.0

    def fill(self, t: Telemetry) -> None:
        """Write the GPU fields of `t`."""
        if self.nvml is None:
            t.gpu_telemetry = f"unavailable: {self.reason}"
            return

        def col(i: int) -> list[float]:
            return [s[i] for s in self.samples if s[i] is not None]

        power, sm, mem, temp = col(0), col(1), col(2), col(3)
        t.gpu_telemetry = "ok" if self.samples else "no samples"
        t.gpu_power_w_mean = statistics.fmean(power) if power else None
        t.gpu_power_w_max = max(power) if power else None
        t.gpu_sm_clock_mhz = statistics.fmean(sm) if sm else None
        t.gpu_mem_clock_mhz = statistics.fmean(mem) if mem else None
        t.gpu_temp_c_max = max(temp) if temp else None
        t.gpu_energy_j = self.energy_j


# --------------------------------------------------------------------------------------------- measuring


@dataclass
class Measurement:
    """One configuration measured: status and reason, every time, the median and the spread, the checksum."""

    status: str
    reason: str = ""
    runtimes_s: list[float] = field(default_factory=list)
    warmup_s: list[float] = field(default_factory=list)
    median_s: float | None = None
    cv: float | None = None
    checksum: str | None = None
    reference_checksum: str | None = None
    exit_code: int | None = None
    signal: str | None = None
    peak_rss_kib: int | None = None
    user_s: float | None = None
    sys_s: float | None = None
    reported: list[float] = field(default_factory=list)
    reported_median: float | None = None
    telemetry: Telemetry = field(default_factory=Telemetry)

    def row(self) -> dict[str, Any]:
        """Flat columns for a dataset row (telemetry fields inlined)."""
        d = asdict(self)
        d.update(d.pop("telemetry"))
        return d


def failed(status: str, reason: str) -> Measurement:
    """A measurement that never ran (`build_failed`, `unsupported`)."""
    assert status in STATUSES, status
    return Measurement(status=status, reason=reason)


def _process_failure(run: ProcessRun, limits: RunLimits) -> tuple[str, str] | None:
    """(status, reason) when the run itself failed (timeout, signal, non-zero exit), else None."""
    if run.timed_out:
        return "timeout", f"exceeded {limits.timeout_s:g}s; process group killed"
    if run.signal is not None:
        return "crash", f"killed by {run.signal}"
    if run.exit_code:
        last = run.stderr.strip().splitlines()[-1:] or [""]
        return "crash", f"exit status {run.exit_code}" + (f": {last[0][:200]}" if last[0] else "")
    return None


def _answer_problem(check: OutputCheck, answer: str | None, answers: list[str], reference: str | None) -> str | None:
    """Why this run's answer is wrong, or None. `answers` are this measurement's earlier answers: without a
    reference (the default configuration) they must agree with each other (`OutputCheck.stable_problem`)."""
    if answer is None:
        return check.mismatch(None, "")
    if check.kind == "checksum" and answers and not checksums_match(answer, answers[-1], check.rtol):
        return f"checksum changed between runs: {answers[-1]} then {answer}"
    if reference is not None:
        return check.mismatch(answer, reference)
    return check.stable_problem([*answers, answer])


_LOCK_WAIT_SAID: list[bool] = [False]  # whether this process has said that it waits for the lock


@contextlib.contextmanager
def timed_run_lock() -> Iterator[None]:
    """Hold this machine's timed-run lock (an flock on /tmp/mirtune-<uid>/timed-run.lock, fixed whatever $TMPDIR
    says), so that measurements of two processes (two `mirtune tune` or `collect`, each with its own Ray cluster)
    never overlap; the first time a process waits for it, one line on stderr says so."""
    import fcntl
    import sys

    from collectors.private import UnsafePath, private_dir

    try:
        folder = private_dir(Path("/tmp") / f"mirtune-{os.getuid()}")
    except UnsafePath:
        folder = _launcher_folder()  # a folder of this process (the launcher's warning said why): no exclusion
    path = folder / "timed-run.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not _LOCK_WAIT_SAID[0]:
                _LOCK_WAIT_SAID[0] = True
                print(f"mirtune: waiting for another timed run on this machine to finish (runs take turns; lock "
                      f"{path})", file=sys.stderr, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def measure(cmd: Sequence[str], env: Mapping[str, Any] | None = None, *, repeats: int = 3, warmup: int = 1,
            limits: RunLimits = RunLimits(), reference: str | None = None, rtol: float = 1e-9,
            nvml: NvmlStatus | None = None, gpu_index: int = 0, report: str | None = None,
            check: OutputCheck | None = None, inputs: Mapping[str, bytes] | None = None) -> Measurement:
    """Warm up `warmup` times, then time `repeats` runs of `cmd` with `env` (see `minimal_env`).

    `reference` is the default configuration's checksum (None when this IS the default configuration).
    `nvml` injects an NVML status (tests); by default NVML is loaded once per process.
    `check` says what answer to compare (default: the `checksum:` line with `rtol`; see collectors.check); the
    default configuration's answer (its runs must agree) is the reference the others are checked against, and
    ends in `checksum`. `inputs` are files written into each run's working folder (see `run_once`).
    `report` names a figure the program prints itself (`<report>: <number>`, e.g. a CUDA kernel's time
    measured with events, which the process wall time would bury under the context creation): every timed
    run's value goes into `reported` and their median into `reported_median`; a run without it is
    `wrong_output`.
    """
    if repeats < 1 or warmup < 0:
        raise ValueError("repeats must be >= 1 and warmup >= 0")
    m = Measurement(status="ok", reference_checksum=reference)
    m.telemetry.loadavg_1m = _loadavg()
    sampler = GpuSampler(nvml if nvml is not None else _default_nvml(), gpu_index)
    freqs: list[float] = []
    rss: list[int] = []
    user: list[float] = []
    system: list[float] = []
    check = check or OutputCheck("checksum", rtol=rtol)
    answers: list[str] = []
    with timed_run_lock():  # one measurement at a time on this machine, whichever process makes it
        try:
            for i in range(warmup + repeats):
                timed = i >= warmup
                if timed and i == warmup:
                    sampler.start()
                f = _cpu_freq()
                if f is not None:
                    freqs.append(f)
                run = run_once(cmd, env, limits, inputs=inputs, capture=check.output_file)
                if run.maxrss_kib is not None:
                    rss.append(run.maxrss_kib)
                failure = _process_failure(run, limits)
                try:  # the answer check runs under the run's time limit too (a regex that backtracks)
                    answer = check.answer(run.stdout, run.output_file, timeout_s=limits.timeout_s)
                except CheckTimeout as exc:
                    answer, failure = None, failure or ("timeout", exc.line())
                if failure is None:
                    problem = _answer_problem(check, answer, answers, reference)
                    failure = ("wrong_output", problem) if problem else None
                value = parse_reported(run.stdout, report) if report else None
                if failure is None and report and value is None:
                    failure = ("wrong_output", f"no '{report}: <number>' line in the output")
                if failure is not None:
                    m.status, m.reason = failure
                    m.exit_code, m.signal = run.exit_code, run.signal
                    m.checksum = answer
                    break
                answers.append(answer)
                m.exit_code = run.exit_code
                if timed:
                    m.runtimes_s.append(run.seconds)
                    if value is not None:
                        m.reported.append(value)
                    user.append(run.user_s)
                    system.append(run.sys_s)
                else:
                    m.warmup_s.append(run.seconds)
        finally:
            sampler.stop()
    if m.status == "ok":
        m.checksum = check.reference(answers) if reference is None else answers[-1]
        m.median_s = statistics.median(m.runtimes_s)
        m.cv = spread(m.runtimes_s)
        m.reported_median = statistics.median(m.reported) if m.reported else None
    m.peak_rss_kib = max(rss) if rss else None
    m.user_s = statistics.fmean(user) if user else None
    m.sys_s = statistics.fmean(system) if system else None
    m.telemetry.cpu_freq_mhz = statistics.fmean(freqs) if freqs else None
    m.telemetry.loadavg_1m_after = _loadavg()
    sampler.fill(m.telemetry)
    return m
