"""Run a program once, properly sandboxed.

`run_once()` starts the binary with `subprocess` (no shell) in a fresh private directory, in its own
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
"""

from __future__ import annotations

import ctypes
import hashlib
import math
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Sequence

from mirtune.measure.host import logical_cores, node_tag
from mirtune.paths import private_temp_dir

DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"
_OUTPUT_TAIL_BYTES = 1 << 20
_PR_SET_PDEATHSIG = 1



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


def run_tool(cmd: Sequence[str], timeout_s: float, **popen: Any) -> subprocess.CompletedProcess:
    """Run a build tool (clang, llvm-cov...) in a process group of its own and capture its text output; past
    `timeout_s` kill the whole group, then raise subprocess.TimeoutExpired: a killed clang driver leaves its cc1
    child running otherwise (one did, at full speed, beside a timed sitting)."""
    proc = subprocess.Popen(list(cmd), stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            text=True, start_new_session=True, **popen)
    try:
        out, err = proc.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        _killpg(proc.pid)
        proc.communicate()
        raise
    return subprocess.CompletedProcess(list(cmd), proc.returncode, out, err)


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


def launcher_folder() -> Path:
    """Where the launcher is built: $TMPDIR/mirtune-<uid>, a private folder (see mirtune.private); when that
    name is another user's or open to others, a fresh private folder of this process (one warning line on
    stderr), removed at exit."""
    import atexit
    import sys

    from mirtune.private import UnsafePath, private_dir

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
    from mirtune.private import UnsafePath, check_private_file, is_private_dir

    if not is_private_dir(exe.parent):
        return False
    try:
        check_private_file(exe)
    except UnsafePath:
        return False
    return bytes_match(exe, digest)


def bytes_match(path: Path, digest: str) -> bool:
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
    folder = launcher_folder()
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
