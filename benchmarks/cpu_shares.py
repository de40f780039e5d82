"""Where this machine's CPU goes over a window: each process's share of one core, and the machine's idle share.

Run it beside a long job (say the second half of a two-worker `mirtune pretrain`) to see how much the job's own
processes get and how much goes to everything else (Ray's helper processes, the kernel) or waits idle:

    .venv/bin/python benchmarks/cpu_shares.py [--seconds 40] [--top 14] [--json OUT]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")

from mirtune.paths import write_result  # noqa: E402


def processes() -> dict[str, tuple[str, int, int]]:
    """pid -> (name, user ticks, system ticks) of every process now."""
    out = {}
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            cmd = Path(f"/proc/{pid}/cmdline").read_text().replace("\0", " ").strip()
        except OSError:
            continue
        rest = stat[stat.rfind(")") + 2:].split()
        comm = stat[stat.find("(") + 1:stat.rfind(")")]
        name = cmd[:70] if cmd.startswith("ray::") else f"{comm}: {cmd[:60]}" if cmd else f"[{comm}]"
        out[pid] = (name, int(rest[11]), int(rest[12]))
    return out


def machine() -> list[int]:
    """The machine's CPU ticks by kind (/proc/stat)."""
    return [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:len(FIELDS) + 1]]


def shares(seconds: float) -> dict:
    """Per-process and machine CPU shares over the next `seconds`."""
    hz = os.sysconf("SC_CLK_TCK")
    a, ma = processes(), machine()
    time.sleep(seconds)
    b, mb = processes(), machine()
    rows = []
    for pid, (name, user, system) in b.items():
        if pid in a:
            rows.append({"pid": int(pid), "name": name, "user_pct": 100 * (user - a[pid][1]) / hz / seconds,
                         "system_pct": 100 * (system - a[pid][2]) / hz / seconds})
    rows.sort(key=lambda r: -(r["user_pct"] + r["system_pct"]))
    total = sum(y - x for x, y in zip(ma, mb))
    return {"seconds": seconds, "cores": os.cpu_count(), "processes": rows,
            "machine_pct": {k: 100 * (y - x) / total for k, x, y in zip(FIELDS, ma, mb)}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=40.0)
    ap.add_argument("--top", type=int, default=14, help="processes listed one by one (the rest summed)")
    ap.add_argument("--json", default=None, help="write the figures here")
    args = ap.parse_args()
    got = shares(args.seconds)
    rows = got["processes"]
    for r in rows[:args.top]:
        print(f"{r['user_pct']:5.1f}% user {r['system_pct']:5.1f}% system  {r['name']}")
    print(f"the other {len(rows[args.top:])} processes: {sum(r['user_pct'] + r['system_pct'] for r in rows[args.top:]):.1f}%")
    print("machine (share of all cores): " + ", ".join(f"{k} {v:.1f}%" for k, v in got["machine_pct"].items()))
    if args.json:
        write_result(args.json, got)
    return 0


if __name__ == "__main__":
    sys.exit(main())
