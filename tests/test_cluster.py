"""The private Ray head: reaped when its owner is killed, and a failed start named in one line with its log."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from mirtune import cluster
from mirtune.errors import MirtuneError

_DRIVER = """
import os, sys, time
import ray
from mirtune import cluster
cluster.init_ray(num_cpus=1)
assert ray.get(ray.remote(lambda: 42).remote()) == 42  # a worker process exists too
temp_dir = next(a for a in cluster._head.args if "mirtune-ray-" in a)
print(cluster._head.pid, temp_dir, flush=True)
time.sleep(600)
"""


def _cluster_processes(head_pid: int) -> list[psutil.Process]:
    """The head, its descendants and every other member of its process group."""
    head = psutil.Process(head_pid)
    procs = {p.pid: p for p in [head, *head.children(recursive=True)]}
    for p in psutil.process_iter():
        try:
            if os.getpgid(p.pid) == head_pid:
                procs.setdefault(p.pid, p)
        except (ProcessLookupError, psutil.Error):
            pass
    return list(procs.values())


def _alive(p: psutil.Process) -> bool:
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_private_head_is_reaped_when_its_driver_is_killed():
    driver = subprocess.Popen([sys.executable, "-c", _DRIVER], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                              text=True)
    try:
        line = driver.stdout.readline()
        assert line, "the driver did not start a head"
        head_pid, temp_dir = int(line.split()[0]), line.split()[1]
        procs = _cluster_processes(head_pid)
        assert len(procs) >= 5 and Path(temp_dir).is_dir()  # gcs_server, raylet, agents, the worker ...
        assert any("raylet" in p.name() for p in procs)
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        t0 = time.monotonic()
        while time.monotonic() < t0 + 30 and (any(_alive(p) for p in procs) or Path(temp_dir).exists()):
            time.sleep(0.5)
        print(f"reaped in {time.monotonic() - t0:.1f}s")
        left = [f"{p.pid} {p.name()}" for p in procs if _alive(p)]
        assert not left, f"still running after the driver was killed: {left}"
        assert not Path(temp_dir).exists()
    finally:
        if driver.poll() is None:
            driver.kill()


def test_a_head_that_fails_to_start_gives_one_line_naming_its_log():
    with pytest.raises(MirtuneError) as info:
        cluster.start_local_head(resources={"CPU": 1})  # Ray refuses CPU as a custom resource
    message = info.value.line()
    assert "\n" not in message and message.startswith("the local Ray head exited early")
    assert "CPU" in message
    log = Path(message.rsplit("; see ", 1)[1])
    assert log.is_file() and "num_cpus" in log.read_text()
    assert cluster._head is None
    shutil.rmtree(log.parent)


_ENV_DRIVER = """
import json, os
import ray
from mirtune import cluster
cluster.init_ray(num_cpus=1)
keys = sorted(cluster.PRIVATE_CLUSTER_ENV)
seen = ray.get(ray.remote(lambda: {k: os.environ.get(k) for k in keys}).remote())
print(json.dumps({"worker": seen, "driver": {k: os.environ.get(k) for k in keys}}), flush=True)
cluster.shutdown_ray()
"""


def test_a_private_cluster_runs_without_metrics_and_preemption_services_unless_the_user_says_otherwise():
    import json

    env = dict(os.environ, RAY_TRAIN_METRICS_ENABLED="1")  # the user's own setting
    env.pop("RAY_ADDRESS", None)
    proc = subprocess.run([sys.executable, "-c", _ENV_DRIVER], capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    for where in ("worker", "driver"):
        assert seen[where]["RAY_enable_metrics_collection"] == "0"
        assert seen[where]["RAY_TRAIN_ENABLE_PREEMPTION_WATCHER"] == "0"
        assert seen[where]["RAY_TRAIN_METRICS_ENABLED"] == "1"


_KEEPS_SIGTERM = """
import signal
from mirtune import cluster
def mine(signum, frame):
    raise KeyboardInterrupt
signal.signal(signal.SIGTERM, mine)
cluster.init_ray(num_cpus=1)
print(signal.getsignal(signal.SIGTERM) is mine, flush=True)
cluster.shutdown_ray()
"""


def test_joining_ray_keeps_the_process_s_sigterm_handler():
    """ray.init installs its own SIGTERM handler; init_ray puts the caller's back (a sweep's, the command line's),
    so that SIGTERM still stops work as Ctrl-C does and keeps what was measured."""
    proc = subprocess.run([sys.executable, "-c", _KEEPS_SIGTERM], capture_output=True, text=True, timeout=180,
                          env={**os.environ, "RAY_ADDRESS": ""})
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.strip() == "True"
