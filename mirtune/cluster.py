"""Connect to a Ray cluster, or start a private local one that listens on loopback only.

`ray.init()` on its own binds Ray's servers to every interface and re-resolves 127.0.0.1 to the
machine's address, so a local cluster is started with `ray start --head --node-ip-address 127.0.0.1`
(every server then binds to loopback) and the driver joins it. The head is stopped when the driver exits.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Iterator

from mirtune.errors import MirtuneError

# One timed measurement per node at a time: every node offers one unit of this custom resource.
TIMED_RUN_RESOURCE = "mirtune_timed_run"
_START_TIMEOUT_S = 60.0
_READY = "Ray runtime started."  # what `ray start` prints once every service of the head is up
_head: subprocess.Popen | None = None
_reaper: subprocess.Popen | None = None
_owner_fd: int | None = None  # write end of the pipe the reaper waits on
_temp_dir: str | None = None  # the private head's temp dir
# A private cluster has no dashboard to read metrics from and no cloud that preempts it, yet Ray's metrics export and
# Ray Train's metrics and preemption watcher run in every process of a training run, each taking a little of a
# core; on a 2-core machine that is what the second training worker needs (docs/results.md, pre-training
# throughput). Set for the private head and the driver that starts it; a value the user set wins.
PRIVATE_CLUSTER_ENV = {"RAY_enable_metrics_collection": "0", "RAY_TRAIN_METRICS_ENABLED": "0",
                       "RAY_TRAIN_ENABLE_PREEMPTION_WATCHER": "0"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray_executable() -> str:
    exe = Path(sys.executable).with_name("ray")
    return str(exe) if exe.exists() else "ray"


def _stop_head() -> None:
    global _head, _reaper, _owner_fd
    if _head is None:
        return
    try:
        import ray

        ray.shutdown()
    except Exception:
        pass
    try:
        os.killpg(_head.pid, signal.SIGTERM)
        _head.wait(timeout=40)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        try:
            os.killpg(_head.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _head = None
    if _owner_fd is not None:  # the reaper wakes, kills whatever the head left behind and removes its temp dir
        os.close(_owner_fd)
        _owner_fd = None
    if _reaper is not None:
        try:
            _reaper.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass
        _reaper = None


def _start_reaper(head_pid: int, temp_dir: str) -> None:
    """Start the watchdog that stops the head and removes temp_dir once this process is gone (even by SIGKILL).

    It waits on a pipe whose write end only this process holds: the end closes when this process exits, however
    it exits. The write end is not inherited by programs this process starts (close-on-exec).
    """
    global _reaper, _owner_fd
    read_fd, write_fd = os.pipe()
    try:
        _reaper = subprocess.Popen([sys.executable, str(Path(__file__).with_name("reaper.py")), str(read_fd),
                                    str(head_pid), temp_dir], pass_fds=(read_fd,), start_new_session=True,
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    finally:
        os.close(read_fd)
    _owner_fd = write_fd


def _keep_log(temp_dir: str) -> str:
    """Copy the head's log, and Ray's own logs, out of temp_dir (which is removed with the head); the copy's path."""
    kept = Path(tempfile.mkdtemp(prefix="mirtune-ray-failed-"))
    log = Path(temp_dir) / "mirtune-head.log"
    if log.exists():
        shutil.copy(log, kept / log.name)
    logs = Path(temp_dir) / "session_latest" / "logs"
    if logs.is_dir():
        for f in logs.iterdir():
            if f.is_file() and f.suffix in (".log", ".err", ".out"):
                with contextlib.suppress(OSError):
                    shutil.copy(f, kept / f.name)
    return str(kept / log.name)


def _fail_start(reason: str, temp_dir: str) -> MirtuneError:
    """Stop the half-started head and give one line with the reason and the kept log."""
    log = _keep_log(temp_dir)
    _stop_head()
    try:
        last = [ln.strip() for ln in Path(log).read_text(errors="replace").splitlines() if ln.strip()][-1:]
    except OSError:
        last = []
    cause = f": {last[0][:200]}" if last and reason.startswith("the local Ray head exited") else ""
    return MirtuneError(f"{reason}{cause}; see {log}")


def start_local_head(num_cpus: int | None = None, resources: dict[str, float] | None = None) -> str:
    """Start a Ray head bound to 127.0.0.1 in a fresh temp dir; return its address.

    The head lives in its own session; a watchdog process stops it and removes its temp dir when this process
    ends, even when it is killed. Returns once `ray start` reports the runtime started (every service up).
    """
    global _head, _temp_dir
    port = _free_port()
    temp_dir = _temp_dir = tempfile.mkdtemp(prefix="mirtune-ray-")
    res = {TIMED_RUN_RESOURCE: 1.0, **(resources or {})}
    cmd = [_ray_executable(), "start", "--head", "--block", "--node-ip-address", "127.0.0.1",
           "--port", str(port), "--include-dashboard", "false", "--dashboard-agent-listen-port", "0",
           "--temp-dir", temp_dir, "--disable-usage-stats", "--resources", json.dumps(res)]
    if num_cpus is not None:
        cmd += ["--num-cpus", str(num_cpus)]
    log_path = Path(temp_dir) / "mirtune-head.log"
    env = {**PRIVATE_CLUSTER_ENV, **os.environ, "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "0"}  # nothing to drain
    with open(log_path, "w") as log:
        _head = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                 start_new_session=True, env=env)
    _start_reaper(_head.pid, temp_dir)
    atexit.register(_stop_head)
    address = f"127.0.0.1:{port}"
    deadline = time.monotonic() + _START_TIMEOUT_S
    while time.monotonic() < deadline:
        if _head.poll() is not None:
            raise _fail_start(f"the local Ray head exited early (status {_head.returncode})", temp_dir)
        if _READY in log_path.read_text(errors="replace"):
            return address
        time.sleep(0.2)
    raise _fail_start(f"the local Ray head did not start in {_START_TIMEOUT_S:.0f}s", temp_dir)


def init_ray(address: str | None = None, num_cpus: int | None = None,
             resources: dict[str, float] | None = None) -> Any:
    """Join the cluster at `address` (or $RAY_ADDRESS), else start a private loopback-only one.

    A no-op when Ray is already initialised. The private cluster offers the custom resource that
    serialises timed runs per node; a user's cluster declares it in cluster.yaml.
    """
    import ray

    if ray.is_initialized():
        return ray.get_runtime_context()
    with _sigterm_kept():
        return _init_ray(ray, address, num_cpus, resources)


@contextlib.contextmanager
def _sigterm_kept() -> Iterator[None]:
    """Keep this process's SIGTERM handling across `ray.init`, which replaces it with its own (an exit without a
    word; in the C++ core, lines of stack addresses): the command line's handler makes SIGTERM stop work as Ctrl-C
    does, with one line (mirtune.cli)."""
    main_thread = threading.current_thread() is threading.main_thread()
    saved = signal.getsignal(signal.SIGTERM) if main_thread else None
    try:
        yield
    finally:
        if saved is not None:
            signal.signal(signal.SIGTERM, saved)


def _init_ray(ray: Any, address: str | None, num_cpus: int | None, resources: dict[str, float] | None) -> Any:
    """`init_ray`'s work once Ray is known not to be initialised."""
    address = address or os.environ.get("RAY_ADDRESS")
    if not address:
        # A private cluster on loopback: nobody else can reach it, so token auth adds nothing.
        # Ray reads RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER when it is imported; with it off, the driver keeps
        # 127.0.0.1 instead of re-resolving it to the machine's address. Ray may have been imported
        # before this call, so the constant it read is set too.
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        for key, value in PRIVATE_CLUSTER_ENV.items():
            os.environ.setdefault(key, value)
        from ray._private import ray_constants

        ray_constants.ENABLE_RAY_CLUSTER = False
        address = start_local_head(num_cpus, resources)
        try:
            return ray.init(address=address, log_to_driver=False, configure_logging=False)
        except (ConnectionError, TimeoutError, RuntimeError) as exc:
            raise _fail_start(f"could not join the local Ray head ({_one_line(exc)})", _temp_dir or "") from None
    try:
        return ray.init(address=address, log_to_driver=False, configure_logging=False)
    except (ConnectionError, TimeoutError, RuntimeError) as exc:
        raise MirtuneError(f"could not join the Ray cluster at {address}: {_one_line(exc)}") from None


def _one_line(exc: BaseException) -> str:
    """The first line of an exception's message, with its type."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def shutdown_ray() -> None:
    """Disconnect, and stop the private head if this process started one."""
    import ray

    if _head is not None:
        _stop_head()
    elif ray.is_initialized():
        ray.shutdown()


@contextlib.contextmanager
def ray_session(address: str | None = None, enabled: bool = True) -> Iterator[bool]:
    """Ray for the duration of a command: join `address` (or $RAY_ADDRESS) or start a private cluster, and on exit
    disconnect from (or stop) what this call started; a no-op when Ray is already up or `enabled` is False.
    Yields whether Ray is in use."""
    if not enabled:
        yield False
        return
    import ray

    started = not ray.is_initialized()
    init_ray(address)
    try:
        yield True
    finally:
        if started:
            shutdown_ray()


def ensure_ray(address: str | None = None) -> bool:
    """Initialise Ray if needed (join `address`/$RAY_ADDRESS or start a private head); True if this call did."""
    import ray

    if ray.is_initialized():
        return False
    init_ray(address)
    return True


def timed_capacity() -> int:
    """Units of the timed-run resource in the cluster; MirtuneError when there are none."""
    import ray

    units = int(ray.cluster_resources().get(TIMED_RUN_RESOURCE, 0))
    if units < 1:
        raise MirtuneError(f"the Ray cluster offers no {TIMED_RUN_RESOURCE!r} resource: declare "
                           f"resources: {{{TIMED_RUN_RESOURCE}: 1}} on every node that may time runs "
                           "(see cluster.yaml)")
    return units
