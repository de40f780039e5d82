"""`mirtune cluster start|stop|status`: a Ray head for `ray job submit`, started from mirtune's own environment.

    mirtune cluster start [--port 6379] [--dashboard-port 8265] [--num-cpus N] [--num-gpus N]
    mirtune cluster status
    mirtune cluster stop

`start` runs this environment's own `ray` (so the head, its workers and every job's `python` are the Python that
has mirtune, pyarrow and torch installed), with this environment's bin/ first on the head's PATH, one unit of the
`mirtune_timed_run` resource (the collectors' one-timed-run-per-node rule), every service on 127.0.0.1 unless
--node-ip-address says otherwise, the dashboard (Ray's job API) on 127.0.0.1 only, and Ray's token
authentication on. It prints the address and the exact `ray job submit` command to use, then returns; the head
keeps running until `mirtune cluster stop`. The head's state (its pid, temp dir, addresses) is kept in
$MIRTUNE_STATE_DIR, else $XDG_STATE_HOME/mirtune, else ~/.local/state/mirtune.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from mirtune.errors import MirtuneError, ToolMissing, UsageError
from mirtune.paths import write_atomic
from mirtune.reaper import reap

_READY = "Ray runtime started."
_REPO = Path(__file__).resolve().parents[2]
EXAMPLE_JOB = "python jobs/collect_openmp.py --programs collectors/programs/openmp --out /ABSOLUTE/PATH/openmp"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("cluster", help="start, stop or show a Ray head for `ray job submit`",
                              description=__doc__.strip().splitlines()[0])
    sub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    start = sub.add_parser("start", help="start a Ray head from this environment (loopback, token auth)")
    start.add_argument("--port", type=int, default=6379, help="the head's GCS port (default 6379)")
    start.add_argument("--dashboard-port", type=int, default=8265,
                       help="the dashboard and job API port, on 127.0.0.1 (default 8265)")
    start.add_argument("--node-ip-address", default="127.0.0.1", metavar="IP",
                       help="the address the head's services bind to (default 127.0.0.1: this machine only; give the "
                            "head's private address for worker nodes to join)")
    start.add_argument("--num-cpus", type=int, default=None, metavar="N", help="CPUs to offer (default: all)")
    start.add_argument("--num-gpus", type=int, default=None, metavar="N", help="GPUs to offer (default: detected)")
    start.add_argument("--no-auth", action="store_true",
                       help="start without Ray's token authentication (anyone who reaches the ports can run code)")
    start.add_argument("--timeout", type=float, default=120.0, metavar="S",
                       help="seconds to wait for the head to come up (default 120)")
    start.set_defaults(func=run_start)
    stop = sub.add_parser("stop", help="stop the head that `mirtune cluster start` started")
    stop.set_defaults(func=run_stop)
    status = sub.add_parser("status", help="whether a head started by `mirtune cluster start` runs, and its address")
    status.add_argument("--json", action="store_true", help="print one JSON object")
    status.set_defaults(func=run_status)


# ------------------------------------------------------------------------------------------------ state


def state_dir() -> Path:
    """The private folder that holds cluster.json (created 0700; refused when others may write to it)."""
    base = os.environ.get("MIRTUNE_STATE_DIR") or \
        str(Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "mirtune")
    from mirtune.private import private_dir

    return private_dir(base, hint="or set MIRTUNE_STATE_DIR to a folder of your own")


def _state_file() -> Path:
    return state_dir() / "cluster.json"


def read_state() -> dict[str, Any] | None:
    """The recorded head, or None when there is none or it is no longer running (a stale record is removed)."""
    path = _state_file()
    try:
        state = json.loads(path.read_text())
        pid, created = int(state["pid"]), float(state["create_time"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError):
        path.unlink(missing_ok=True)
        return None
    if not _is_our_head(pid, created):
        path.unlink(missing_ok=True)
        return None
    return state


def _is_our_head(pid: int, create_time: float) -> bool:
    """Whether `pid` is still the process that was recorded (not a new process that reuses the number)."""
    import psutil

    try:
        p = psutil.Process(pid)
        return abs(p.create_time() - create_time) < 1.0 and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


# ------------------------------------------------------------------------------------------------ start


def _venv_ray() -> Path:
    """This environment's `ray` executable; ToolMissing when Ray's CLI or its job API is not installed here."""
    ray = Path(sys.executable).with_name("ray")
    if not ray.exists():
        raise ToolMissing(f"no `ray` command beside {sys.executable}: pip install 'ray[default]' in this environment")
    import importlib.util

    if importlib.util.find_spec("aiohttp") is None:
        raise ToolMissing("Ray's job API needs ray[default]: pip install 'ray[default]' in this environment")
    return ray


def _check_port_free(ip: str, port: int, option: str) -> None:
    if not 0 < port < 65536:
        raise UsageError(f"{option} {port}: not a port number")
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((ip, port))
        except OSError as exc:
            raise UsageError(f"cannot use {ip}:{port} ({exc.strerror or exc}; another Ray head?): choose another "
                             f"with {option}") from None


def token_path() -> Path:
    """Where Ray reads its authentication token: $RAY_AUTH_TOKEN_PATH, else ~/.ray/auth_token."""
    return Path(os.environ.get("RAY_AUTH_TOKEN_PATH") or Path.home() / ".ray" / "auth_token")


def _ensure_token() -> str | None:
    """Create Ray's token file (0600) when there is none; its path when this call created it."""
    if os.environ.get("RAY_AUTH_TOKEN"):
        return None
    path = token_path()
    if path.exists():
        if not path.read_text().strip():
            raise UsageError("Ray's authentication token file is empty", str(path))
        return None
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(secrets.token_hex(32))
    return str(path)


def _client_env(dashboard: str, auth: bool) -> str:
    """The `export ...` line a shell needs before `ray job submit`."""
    parts = [f"RAY_ADDRESS={dashboard}", f"RAY_AUTH_MODE={'token' if auth else 'disabled'}"]
    if auth and os.environ.get("RAY_AUTH_TOKEN_PATH"):
        parts.append(f"RAY_AUTH_TOKEN_PATH={token_path()}")
    return "export " + " ".join(parts)


def _wait_ready(head: subprocess.Popen, log: Path, dashboard: str, timeout: float) -> None:
    """Until `ray start` reports the runtime up and the dashboard answers HTTP; MirtuneError naming the log."""
    deadline = time.monotonic() + timeout
    started = False
    while time.monotonic() < deadline:
        if head.poll() is not None:
            lines = [ln.strip() for ln in log.read_text(errors="replace").splitlines() if ln.strip()]
            cause = f": {lines[-1][:200]}" if lines else ""
            raise MirtuneError(f"the Ray head exited early (status {head.returncode}){cause}; see {log}")
        if not started:
            started = _READY in log.read_text(errors="replace")
        if started:
            try:
                urllib.request.urlopen(f"{dashboard}/api/version", timeout=5).close()
                return
            except urllib.error.HTTPError:
                return  # it answers (an auth refusal is an answer)
            except (urllib.error.URLError, OSError):
                pass
        time.sleep(0.3)
    reap(head.pid, None, grace_s=10)  # the temp dir stays: it holds the log named below
    raise MirtuneError(f"the Ray head did not come up in {timeout:.0f}s; see {log}")


def run_start(args: argparse.Namespace) -> int:
    """Start the head, wait until it takes jobs, record it, print how to submit."""
    existing = read_state()
    if existing:
        raise UsageError(f"a Ray head started by `mirtune cluster start` is already running ({existing['address']}, "
                         f"dashboard {existing['dashboard']}); stop it first with `mirtune cluster stop`")
    ray = _venv_ray()
    ip = args.node_ip_address
    for n, option in ((args.num_cpus, "--num-cpus"), (args.num_gpus, "--num-gpus")):
        if n is not None and n < 0:
            raise UsageError(f"{option} {n}: must be 0 or more")
    _check_port_free(ip, args.port, "--port")
    _check_port_free("127.0.0.1", args.dashboard_port, "--dashboard-port")
    auth = not args.no_auth
    created_token = _ensure_token() if auth else None
    from mirtune.cluster import TIMED_RUN_RESOURCE

    temp_dir = Path(tempfile.mkdtemp(prefix="mirtune-cluster-"))
    log = temp_dir / "head.log"
    cmd = [str(ray), "start", "--head", "--block", "--node-ip-address", ip, "--port", str(args.port),
           "--include-dashboard", "true", "--dashboard-host", "127.0.0.1", "--dashboard-port", str(args.dashboard_port),
           "--temp-dir", str(temp_dir / "ray"), "--disable-usage-stats",
           "--resources", json.dumps({TIMED_RUN_RESOURCE: 1})]
    if args.num_cpus is not None:
        cmd += ["--num-cpus", str(args.num_cpus)]
    if args.num_gpus is not None:
        cmd += ["--num-gpus", str(args.num_gpus)]
    env = dict(os.environ, PATH=os.pathsep.join([str(ray.parent), os.environ.get("PATH", "")]),
               RAY_AUTH_MODE="token" if auth else "disabled")
    if ip == "127.0.0.1":
        env["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"  # workers keep 127.0.0.1 instead of the machine's address
    with open(log, "w") as out:
        head = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True, env=env, cwd=str(temp_dir))
    dashboard = f"http://127.0.0.1:{args.dashboard_port}"
    _wait_ready(head, log, dashboard, args.timeout)
    import psutil

    state = {"pid": head.pid, "create_time": psutil.Process(head.pid).create_time(), "address": f"{ip}:{args.port}",
             "dashboard": dashboard, "temp_dir": str(temp_dir), "log": str(log), "python": sys.executable,
             "auth": "token" if auth else "disabled", "resources": {TIMED_RUN_RESOURCE: 1},
             "started": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
    write_atomic(_state_file(), json.dumps(state, indent=2) + "\n")
    if created_token:
        print(f"generated Ray's authentication token in {created_token} (mode 0600)")
    print(f"Ray head running: address {state['address']}, dashboard {dashboard} (127.0.0.1 only), "
          f"{TIMED_RUN_RESOURCE}: 1, jobs run with {sys.executable}")
    print(f"Submit a job from the repository ({_REPO}):")
    print(f"  {_client_env(dashboard, auth)}")
    print(f"  {ray} job submit --working-dir . -- {EXAMPLE_JOB}")
    print("Stop it with: mirtune cluster stop")
    return 0


# ------------------------------------------------------------------------------------------------ stop, status


def run_stop(args: argparse.Namespace) -> int:
    """Stop the recorded head (its whole process group) and remove its temp dir."""
    state = read_state()
    if state is None:
        print("no Ray head started by `mirtune cluster start` is running")
        return 0
    reap(int(state["pid"]), state["temp_dir"], grace_s=30)
    _state_file().unlink(missing_ok=True)
    print(f"stopped the Ray head at {state['address']}")
    return 0


def run_status(args: argparse.Namespace) -> int:
    """Print the recorded head; exit 0 when it runs, 1 when none does."""
    state = read_state()
    if args.json:
        print(json.dumps({"running": state is not None, **(state or {})}))
        return 0 if state else 1
    if state is None:
        print("no Ray head started by `mirtune cluster start` is running")
        return 1
    print(f"Ray head running since {state['started']}: address {state['address']}, dashboard {state['dashboard']}, "
          f"pid {state['pid']}, python {state['python']}, log {state['log']}")
    print(f"  {_client_env(state['dashboard'], state['auth'] == 'token')}")
    return 0
