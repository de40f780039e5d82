"""Watchdog of a private Ray head: stops the head and removes its temp dir when the process that owns it is gone.

Run as a script (standard library and psutil only, so it starts fast and needs no Ray), in its own session:

    python mirtune/reaper.py FD HEAD_PID TEMP_DIR

FD is the read end of a pipe whose write end only the owner holds. A read returns end-of-file the moment the
owner exits, however it exits (SIGKILL included), or when it closes the pipe after stopping the head itself.
The reaper then terminates the head's process group and every descendant of the head (SIGTERM, then SIGKILL
after a grace period) and deletes TEMP_DIR.
"""

from __future__ import annotations

import os
import shutil
import signal
import sys
import time

GRACE_S = 10.0


def _descendants(pid: int) -> list:
    """The head and all its descendants, as psutil processes (empty when psutil or the head is missing)."""
    try:
        import psutil

        head = psutil.Process(pid)
        return [head, *head.children(recursive=True)]
    except Exception:
        return []


def _signal_group(pgid: int, sig: int) -> bool:
    """Send `sig` to a process group; whether any member was there."""
    try:
        os.killpg(pgid, sig)
        return True
    except (ProcessLookupError, PermissionError):
        return False


def reap(head_pid: int, temp_dir: str | None, grace_s: float = GRACE_S) -> None:
    """Terminate the head's process group and descendants, wait up to `grace_s`, kill what is left, delete temp_dir
    (None: keep it, e.g. for its logs)."""
    procs = _descendants(head_pid)
    _signal_group(head_pid, signal.SIGTERM)  # the head leads its own session: its group is the cluster
    for p in procs:
        try:
            p.terminate()
        except Exception:
            pass
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline:
        alive = [p for p in procs if _running(p)]
        try:
            os.killpg(head_pid, 0)
            group_alive = True
        except (ProcessLookupError, PermissionError):
            group_alive = False
        if not alive and not group_alive:
            break
        time.sleep(0.2)
    _signal_group(head_pid, signal.SIGKILL)
    for p in procs:
        try:
            p.kill()
        except Exception:
            pass
    if temp_dir is not None:
        shutil.rmtree(temp_dir, ignore_errors=True)


def _running(p) -> bool:
    try:
        return p.is_running() and p.status() != "zombie"
    except Exception:
        return False


def main(argv: list[str]) -> int:
    """Wait for the owner's end of the pipe to close, then reap the head."""
    fd, head_pid, temp_dir = int(argv[0]), int(argv[1]), argv[2]
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C meant for the owner is not for the reaper
    while True:
        try:
            if not os.read(fd, 1):
                break
        except InterruptedError:
            continue
        except OSError:
            break
    reap(head_pid, temp_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
