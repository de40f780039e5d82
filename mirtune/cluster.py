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
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

from mirtune.errors import MirtuneError

# One timed measurement per node at a time: every node offers one unit of this custom resource.
TIMED_RUN_RESOURCE = "mirtune_timed_run"
_START_TIMEOUT_S = 60.0
_head: subprocess.Popen | None = None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ray_executable() -> str:
    exe = Path(sys.executable).with_name("ray")
    return str(exe) if exe.exists() else "ray"


def _stop_head() -> None:
    global _head
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


def start_local_head(num_cpus: int | None = None, resources: dict[str, float] | None = None) -> str:
    """Start a Ray head bound to 127.0.0.1 in a fresh temp dir; return its address."""
    global _head
    port = _free_port()
    temp_dir = tempfile.mkdtemp(prefix="mirtune-ray-")
    res = {TIMED_RUN_RESOURCE: 1.0, **(resources or {})}
    cmd = [_ray_executable(), "start", "--head", "--block", "--node-ip-address", "127.0.0.1",
           "--port", str(port), "--include-dashboard", "false", "--dashboard-agent-listen-port", "0",
           "--temp-dir", temp_dir, "--disable-usage-stats", "--resources", json.dumps(res)]
    if num_cpus is not None:
        cmd += ["--num-cpus", str(num_cpus)]
    log = open(Path(temp_dir) / "mirtune-head.log", "w")
    env = dict(os.environ, RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S="0")  # a private head has nothing to drain
    _head = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                             start_new_session=True, env=env)
    atexit.register(_stop_head)
    address = f"127.0.0.1:{port}"
    deadline = time.monotonic() + _START_TIMEOUT_S
    while time.monotonic() < deadline:
        if _head.poll() is not None:
            raise MirtuneError(f"the local Ray head exited early; see {log.name}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return address
        time.sleep(0.2)
    _stop_head()
    raise MirtuneError(f"the local Ray head did not start in {_START_TIMEOUT_S:.0f}s; see {log.name}")


def init_ray(address: str | None = None, num_cpus: int | None = None,
             resources: dict[str, float] | None = None) -> Any:
    """Join the cluster at `address` (or $RAY_ADDRESS), else start a private loopback-only one.

    A no-op when Ray is already initialised. The private cluster offers the custom resource that
    serialises timed runs per node; a user's cluster declares it in cluster.yaml.
    """
    import ray

    if ray.is_initialized():
        return ray.get_runtime_context()
    address = address or os.environ.get("RAY_ADDRESS")
    if not address:
        # A private cluster on loopback: nobody else can reach it, so token auth adds nothing.
        # Ray reads RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER when it is imported; with it off, the driver keeps
        # 127.0.0.1 instead of re-resolving it to the machine's address. Ray may have been imported
        # before this call, so the constant it read is set too.
        os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
        os.environ.setdefault("RAY_AUTH_MODE", "disabled")
        from ray._private import ray_constants

        ray_constants.ENABLE_RAY_CLUSTER = False
        address = start_local_head(num_cpus, resources)
    return ray.init(address=address, log_to_driver=False, configure_logging=False)


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
