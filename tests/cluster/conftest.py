"""A Ray cluster of three nodes on this one machine: a head started by `mirtune cluster start` and two worker nodes
started by `ray start --address`, each its own raylet on its own loopback address, each with 1 CPU and one unit of
`mirtune_timed_run`, with Ray's token authentication on (the token in a private temp folder, never ~/.ray).

    head     127.0.0.2  (`mirtune cluster start --node-ip-address 127.0.0.2`; dashboard and job API on 127.0.0.1)
    worker1  127.0.0.3
    worker2  127.0.0.4

The head is not on 127.0.0.1: a worker node given `--address 127.0.0.1:PORT` resolves it to the machine's outward
address (Ray's `resolve_ip_for_localhost`), where a loopback-only head does not listen. Every node leads its own
session (process group), so a node is killed as a machine would die: SIGKILL to its group. The fixture stops every
process it started (each node's group, then anything left whose command line names the cluster's temp folders) even
when a test fails, and waits at most `_START_S` for a node to come up.

`cluster_figures` collects what the tests measured; with $MIRTUNE_CLUSTER_FIGURES set it is written there as JSON
(benchmarks/cluster_faults.py runs the tests that way).
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

import psutil
import pytest

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
MIRTUNE, RAY = str(BIN / "mirtune"), str(BIN / "ray")
HEAD_IP = "127.0.0.2"
WORKER_IPS = {"worker1": "127.0.0.3", "worker2": "127.0.0.4"}
_START_S = 120.0
_READY = "Ray runtime started."


def _free_port(ip: str) -> int:
    """A port free now on `ip`, between Ray's worker ports (10002-19999) and the kernel's ephemeral range: a
    restarted head binds the same port again, and an ephemeral port can meanwhile be any outgoing connection's."""
    try:
        first_ephemeral = int(Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        first_ephemeral = 32768
    for port in random.sample(range(20000, max(first_ephemeral, 20200)), 200):
        with socket.socket() as s:
            try:
                s.bind((ip, port))
            except OSError:
                continue
            return port
    raise AssertionError(f"no free port on {ip} between 20000 and {first_ephemeral}")


def _alive(pid: int) -> bool:
    try:
        p = psutil.Process(pid)
        return p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def kill_group(pgid: int, grace_s: float = 0.0) -> None:
    """SIGTERM (when grace_s > 0, waiting up to grace_s) then SIGKILL to a process group."""
    if grace_s > 0:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(pgid, signal.SIGTERM)
        deadline = time.monotonic() + grace_s
        while time.monotonic() < deadline and _group_alive(pgid):
            time.sleep(0.2)
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def descendants(pid: int) -> list[psutil.Process]:
    """Every process below `pid` (Ray's workers lead their own process groups: a node's group does not hold them)."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def kill_tree(pid: int, grace_s: float = 0.0, wait_s: float = 0.0) -> None:
    """Kill a node: its process group (raylet, GCS, agents) and every process below it (workers, their programs);
    with `wait_s`, wait until every one of them is gone (a dying GCS still holds the node's port for a moment)."""
    procs = descendants(pid)
    kill_group(pid, grace_s)
    for p in procs:
        with contextlib.suppress(psutil.Error):
            p.kill()
    left = [pid, *(p.pid for p in procs)]
    deadline = time.monotonic() + wait_s
    while wait_s and (left := [q for q in left if _alive(q)]):
        assert time.monotonic() < deadline, f"processes {left} outlived SIGKILL by {wait_s:.0f} s"
        time.sleep(0.1)


class LoopbackCluster:
    """Start, kill and restart the nodes of a three-node cluster on loopback addresses."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.token = root / "ray-token"
        self.state_dir = root / "state"
        self.port = _free_port(HEAD_IP)
        self.dashboard_port = _free_port("127.0.0.1")
        self.address = f"{HEAD_IP}:{self.port}"
        self.dashboard = f"http://127.0.0.1:{self.dashboard_port}"
        self.head_pid: int | None = None
        self.workers: dict[str, subprocess.Popen] = {}
        self.temp_dirs: list[str] = []  # every node's temp folder (its session folders are inside)
        self.groups: set[int] = set()   # every process group this fixture started
        path = os.pathsep.join([str(BIN), os.environ.get("PATH", "")])
        self.env = {k: v for k, v in os.environ.items()
                    if k not in ("RAY_ADDRESS", "RAY_AUTH_TOKEN", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER")}
        self.env.update(PATH=path, MIRTUNE_STATE_DIR=str(self.state_dir), RAY_AUTH_TOKEN_PATH=str(self.token),
                        RAY_AUTH_MODE="token", MIRTUNE_BUILD_CACHE=str(root / "builds"),
                        RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S="0",
                        # a killed node is declared dead in ~3 s instead of ~15-30 s
                        RAY_health_check_period_ms="1000", RAY_health_check_timeout_ms="1000",
                        RAY_health_check_failure_threshold="3",
                        # a worker node whose head is gone gives up in 10 s instead of 60 s
                        RAY_gcs_rpc_server_reconnect_timeout_s="10")

    # ------------------------------------------------------------------ nodes

    def start_head(self) -> float:
        """`mirtune cluster start` on 127.0.0.2 (token auth, 1 CPU); seconds it took."""
        t0 = time.monotonic()
        out = subprocess.run([MIRTUNE, "cluster", "start", "--node-ip-address", HEAD_IP, "--port", str(self.port),
                              "--dashboard-port", str(self.dashboard_port), "--num-cpus", "1",
                              "--timeout", str(int(_START_S))],
                             capture_output=True, text=True, env=self.env, timeout=_START_S + 30)
        state = self._state()
        if state is not None:
            self.head_pid = int(state["pid"])
            self.groups.add(self.head_pid)
            self.temp_dirs.append(state["temp_dir"])
        assert out.returncode == 0, f"mirtune cluster start failed: {out.stdout[-2000:]} {out.stderr[-2000:]}"
        self.start_output = out.stdout
        return time.monotonic() - t0

    def _state(self) -> dict[str, Any] | None:
        try:
            return json.loads((self.state_dir / "cluster.json").read_text())
        except (OSError, ValueError):
            return None

    def start_worker(self, name: str) -> float:
        """`ray start --address HEAD --node-ip-address IP --num-cpus 1 --resources {mirtune_timed_run: 1}`."""
        t0 = time.monotonic()
        log = self.root / f"{name}.log"
        temp_dir = str(self.root / f"{name[0]}{name[-1]}")  # short: Ray's socket paths live under it
        cmd = [RAY, "start", "--block", "--address", self.address, "--node-ip-address", WORKER_IPS[name],
               "--num-cpus", "1", "--resources", json.dumps({"mirtune_timed_run": 1}), "--disable-usage-stats",
               # a folder of its own, as on a machine of its own: nodes sharing the head's session folder share
               # its runtime_resources, where one node cleaning up a job's working_dir can pull it from under
               # another node's workers ("cannot import name '__version__' from 'mirtune' (unknown location)")
               "--temp-dir", temp_dir]
        with open(log, "w") as f:
            proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                    start_new_session=True, env=self.env, cwd=str(self.root))
        self.workers[name] = proc
        self.groups.add(proc.pid)
        if temp_dir not in self.temp_dirs:
            self.temp_dirs.append(temp_dir)
        deadline = time.monotonic() + _START_S
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise AssertionError(f"{name} exited ({proc.returncode}): {log.read_text()[-2000:]}")
            if _READY in log.read_text(errors="replace"):
                break
            time.sleep(0.3)
        else:
            raise AssertionError(f"{name} did not start in {_START_S:.0f}s: {log.read_text()[-2000:]}")
        self.wait_nodes()
        return time.monotonic() - t0

    def kill_worker(self, name: str) -> None:
        """SIGKILL the node's whole process group (its raylet, agents and workers), as if the machine died."""
        proc = self.workers.pop(name)
        kill_tree(proc.pid)
        proc.wait(timeout=30)

    def kill_head(self) -> None:
        """SIGKILL the head's process group (GCS, raylet, dashboard, job drivers) and wait until all of it is gone:
        for a moment the head outlives the signal (`mirtune cluster start` would take it for a head still running)
        and its GCS holds the port a restart binds again."""
        assert self.head_pid is not None
        kill_tree(self.head_pid, wait_s=30)
        self.head_pid = None

    def node_of(self, pid: int) -> str | None:
        """Which node ('head', 'worker1', 'worker2') a process runs under (by its ancestors)."""
        roots = {self.head_pid: "head", **{p.pid: n for n, p in self.workers.items()}}
        try:
            chain = [psutil.Process(pid), *psutil.Process(pid).parents()]
        except psutil.Error:
            return None
        return next((roots[p.pid] for p in chain if p.pid in roots), None)

    def state(self, kind: str, filters: tuple[tuple[str, str, str], ...] = (), limit: int = 10_000) -> list[dict]:
        """Ray's state API (`/api/v0/<kind>`: nodes, tasks, actors) over HTTP with the cluster's token. Not through
        ray.util.state: that would load token authentication into this process for good, and a later test's
        private cluster (no authentication) would then refuse it."""
        import urllib.parse
        import urllib.request

        params = {"limit": limit, "detail": "true", "timeout": 20,
                  "filter_keys": [f[0] for f in filters], "filter_predicates": [f[1] for f in filters],
                  "filter_values": [f[2] for f in filters]}
        url = f"{self.dashboard}/api/v0/{kind}?{urllib.parse.urlencode(params, doseq=True)}"
        req = urllib.request.Request(url, headers={"Authorization": f"Bearer {self.token.read_text().strip()}"})
        with urllib.request.urlopen(req, timeout=30) as r:
            body = json.loads(r.read())
        return body["data"]["result"]["result"]

    def alive_nodes(self) -> list[dict[str, Any]]:
        """The nodes the GCS knows alive: [{'node_id', 'node_ip', 'is_head'}]."""
        return [{"node_id": n["node_id"], "node_ip": n["node_ip"], "is_head": n["is_head_node"]}
                for n in self.state("nodes", (("state", "=", "ALIVE"),))]

    def wait_nodes(self, timeout: float = 60.0) -> dict[str, str]:
        """Until every started node is alive in the GCS; node IP -> node id."""
        want = {HEAD_IP} | {WORKER_IPS[n] for n in self.workers}
        deadline = time.monotonic() + timeout
        seen: dict[str, str] = {}
        while time.monotonic() < deadline:
            try:
                seen = {n["node_ip"]: n["node_id"] for n in self.alive_nodes()}
            except Exception:  # the dashboard is still starting
                seen = {}
            if set(seen) == want:
                return seen
            time.sleep(0.5)
        raise AssertionError(f"alive nodes {sorted(seen)}, expected {sorted(want)}")

    def ensure_up(self) -> dict[str, str]:
        """Every node running (restart what a test killed); node IP -> node id."""
        if self.head_pid is None or not _alive(self.head_pid):
            self.restart_all()
        for name in WORKER_IPS:
            if name not in self.workers or self.workers[name].poll() is not None:
                self.workers.pop(name, None)
                self.start_worker(name)
        return self.wait_nodes()

    def restart_all(self) -> float:
        """Kill every node, start the head again (same addresses and ports) and both workers; seconds it took."""
        t0 = time.monotonic()
        for name in list(self.workers):
            self.kill_worker(name)
        if self.head_pid is not None:
            self.kill_head()
        self.start_head()
        for name in WORKER_IPS:
            self.start_worker(name)
        return time.monotonic() - t0

    def node_names(self) -> dict[str, str]:
        """node id -> 'head' | 'worker1' | 'worker2', for the nodes alive now."""
        by_ip = {HEAD_IP: "head", **{ip: n for n, ip in WORKER_IPS.items()}}
        return {n["node_id"]: by_ip.get(n["node_ip"], n["node_ip"]) for n in self.alive_nodes()}

    # ------------------------------------------------------------------ stop

    def stop(self) -> list[str]:
        """Stop every process this fixture started; what had to be killed by the final sweep (should be [])."""
        below = [p for pgid in self.groups for p in descendants(pgid)]
        for name in list(self.workers):
            kill_tree(self.workers.pop(name).pid, grace_s=3)
        subprocess.run([MIRTUNE, "cluster", "stop"], capture_output=True, env=self.env, timeout=90)
        for pgid in self.groups:
            kill_group(pgid)
        for p in below:  # Ray's workers, in process groups of their own
            with contextlib.suppress(psutil.Error):
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                    p.kill()
        # anything left that names one of the cluster's folders (a worker re-parented out of its group)
        left = []
        marks = [str(self.root), *self.temp_dirs]
        for p in psutil.process_iter(["pid", "cmdline"]):
            try:
                cmd = " ".join(p.info["cmdline"] or [])
                if p.pid != os.getpid() and any(m in cmd for m in marks):
                    left.append(f"{p.pid} {cmd[:120]}")
                    p.kill()
            except psutil.Error:
                pass
        for d in self.temp_dirs:
            shutil.rmtree(d, ignore_errors=True)
        return left


@pytest.fixture(scope="module")
def loopback_cluster() -> Iterator[LoopbackCluster]:
    """Three nodes (head + 2 workers), each 1 CPU and one timed-run slot, token auth; stopped however tests end."""
    root = Path(tempfile.mkdtemp(prefix="mirtune-3node-"))
    cluster = LoopbackCluster(root)
    try:
        t0 = time.monotonic()
        cluster.start_head()
        for name in WORKER_IPS:
            cluster.start_worker(name)
        cluster.startup_s = time.monotonic() - t0
        yield cluster
    finally:
        left = cluster.stop()
        shutil.rmtree(root, ignore_errors=True)
        assert not left, f"processes left after the cluster's groups were killed: {left}"


@pytest.fixture(scope="module")
def cluster_figures(loopback_cluster) -> Iterator[dict[str, Any]]:
    """Figures the tests record; written as JSON to $MIRTUNE_CLUSTER_FIGURES when it is set."""
    figures: dict[str, Any] = {"startup_s": round(loopback_cluster.startup_s, 1)}
    yield figures
    path = os.environ.get("MIRTUNE_CLUSTER_FIGURES")
    if path:
        Path(path).write_text(json.dumps(figures, indent=2, sort_keys=True, default=str) + "\n")
