"""`mirtune cluster start|stop|status`: a head from this environment that takes a real `ray job submit`, as the
README says, and one line for bad input."""

from __future__ import annotations

import json
import os
import re
import shlex
import socket
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from mirtune.cli import main

REPO = Path(__file__).resolve().parents[2]
MIRTUNE = str(Path(sys.executable).with_name("mirtune"))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def private_env(tmp_path, monkeypatch) -> dict[str, str]:
    """State and Ray token in tmp_path (never the user's ~/.ray), no inherited Ray address."""
    monkeypatch.setenv("MIRTUNE_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(tmp_path / "ray-token"))
    for name in ("RAY_ADDRESS", "RAY_AUTH_MODE", "RAY_AUTH_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return dict(os.environ)


def test_start_submit_a_real_job_as_the_readme_says_status_stop(private_env, tmp_path):
    port, dash = _free_port(), _free_port()
    start = subprocess.run([MIRTUNE, "cluster", "start", "--port", str(port), "--dashboard-port", str(dash)],
                           capture_output=True, text=True, env=private_env, timeout=300)
    state_file = tmp_path / "state" / "cluster.json"
    try:
        assert start.returncode == 0, start.stderr
        assert f"address 127.0.0.1:{port}" in start.stdout and "mirtune_timed_run: 1" in start.stdout
        assert (tmp_path / "ray-token").stat().st_mode & 0o777 == 0o600
        export = next(ln.strip() for ln in start.stdout.splitlines() if ln.strip().startswith("export "))
        submit = next(ln.strip() for ln in start.stdout.splitlines() if " job submit " in ln)
        assert export == (f"export RAY_ADDRESS=http://127.0.0.1:{dash} RAY_AUTH_MODE=token "
                          f"RAY_AUTH_TOKEN_PATH={tmp_path / 'ray-token'}")
        assert submit.split(" -- ")[0] == f"{Path(sys.executable).with_name('ray')} job submit --working-dir ."
        readme = (REPO / "README.md").read_text()
        assert "mirtune cluster start" in readme and "ray job submit --working-dir . -- python jobs/" in readme
        env = dict(private_env, **dict(kv.split("=", 1) for kv in shlex.split(export)[1:]))
        env["PATH"] = "/usr/bin:/bin"  # the user's shell need not have the environment activated
        # A real OpenMP sweep job, one program and two points: it needs pyarrow, clang and the timed-run resource.
        out = tmp_path / "omp"
        job = shlex.split(submit.split(" -- ")[0]) + [
            "--submission-id", "mirtune-test-job", "--", "python", "jobs/collect_openmp.py",
            "--programs", "collectors/programs/openmp/trisolv.c", "--out", str(out), "--space", "threads=1",
            "schedule=static", "chunk=1", "--sizes", "1", "--repeats", "1", "--warmup", "0", "--no-progress",
            "--build-dir", str(tmp_path / "build")]
        run = subprocess.run(job, cwd=REPO, env=env, capture_output=True, text=True, timeout=400)
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
        status = subprocess.run([str(Path(sys.executable).with_name("ray")), "job", "status", "mirtune-test-job"],
                                cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
        assert re.search(r"Job 'mirtune-test-job' succeeded", status.stdout + status.stderr), status.stdout
        import pyarrow.parquet as pq

        rows = pq.read_table(out).to_pylist()
        assert len(rows) == 2 and {r["status"] for r in rows} == {"ok"}

        st = subprocess.run([MIRTUNE, "cluster", "status", "--json"], capture_output=True, text=True,
                            env=private_env, timeout=60)
        info = json.loads(st.stdout)
        assert st.returncode == 0 and info["running"] and info["address"] == f"127.0.0.1:{port}"
        head_pid, temp_dir = info["pid"], info["temp_dir"]
        procs = [psutil.Process(head_pid), *psutil.Process(head_pid).children(recursive=True)]
    finally:
        stop = subprocess.run([MIRTUNE, "cluster", "stop"], capture_output=True, text=True, env=private_env,
                              timeout=120)
    assert stop.returncode == 0 and "stopped the Ray head" in stop.stdout
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in procs):
        time.sleep(0.5)
    assert not [p.pid for p in procs if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    assert not Path(temp_dir).exists() and not state_file.exists()
    assert main(["cluster", "status"]) == 1


def test_bad_input_gives_one_line(private_env, capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["cluster", "start", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and re.search(rf"127\.0\.0\.1:{port} .*--port", err), err
    assert main(["cluster", "start", "--num-cpus", "-1"]) == 2
    assert "--num-cpus -1" in capsys.readouterr().err
    assert main(["cluster", "stop"]) == 0
    assert "no Ray head" in capsys.readouterr().out
