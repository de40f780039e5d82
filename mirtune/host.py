"""What this machine is, as far as a recommendation cares: its CPU model."""

from __future__ import annotations

import platform


def cpu_model() -> str | None:
    """The CPU's model name from /proc/cpuinfo (else the platform's processor string, else None)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None
