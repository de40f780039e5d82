"""Describe the machine a measurement ran on, and load NVML when (and only when) it works.

Every row a collector writes carries this description, so that a dataset gathered on a cluster of mixed
nodes can be split by host later. Nothing here is faked: a field that cannot be read is None, and the GPU
fields say why NVML is unavailable.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import platform
import re
import socket
import subprocess
import sys
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

from mirtune.host import cpu_model


@dataclass(frozen=True)
class NvmlStatus:
    """The NVML module when `nvmlInit()` succeeded, else None with the reason."""

    nvml: Any | None
    reason: str | None


def load_nvml(nvml: Any | None = None) -> NvmlStatus:
    """Initialise NVML: the given module-like object (a stand-in in tests), else the real `pynvml`.

    Never raises: a missing package, a missing driver library (NVMLError_LibraryNotFound on machines
    without a GPU) or any other NVML failure becomes `NvmlStatus(None, reason)`.
    """
    if nvml is None:
        try:
            import pynvml as nvml  # nvidia-ml-py
        except Exception as exc:  # ImportError, or a broken installation
            return NvmlStatus(None, f"pynvml not importable: {type(exc).__name__}: {exc}")
    try:
        nvml.nvmlInit()
    except Exception as exc:
        return NvmlStatus(None, f"NVML unavailable: {type(exc).__name__}: {exc}".strip())
    return NvmlStatus(nvml, None)


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


@lru_cache(maxsize=None)
def cpu_tag() -> str:
    """A short tag for this CPU's model and instruction-set flags.

    Binaries are built with -march=native, so a binary may only run on a node with the same tag.
    """
    import hashlib

    model, flags = cpu_model() or platform.machine(), ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return hashlib.sha256(f"{model}|{flags}".encode()).hexdigest()[:12]


@lru_cache(maxsize=None)
def clang_version() -> str | None:
    """The first line of `clang --version` for the clang the front end uses, or None."""
    try:
        from mirtune.ir.frontend import find_clang

        out = subprocess.run([find_clang().path, "--version"], capture_output=True, text=True,
                             timeout=30, stdin=subprocess.DEVNULL).stdout
    except Exception:
        return None
    first = out.strip().splitlines()[0] if out.strip() else ""
    m = re.search(r"clang version \S+", first)
    return m.group(0) if m else (first or None)


@dataclass(frozen=True)
class HostInfo:
    """The machine and the tools a measurement ran with (column prefix `host_` in rows)."""

    hostname: str
    cpu_model: str | None
    cpu_tag: str
    logical_cores: int | None
    physical_cores: int | None
    memory_bytes: int | None
    gpu_model: str | None
    gpu_driver: str | None
    gpu_count: int
    gpu_reason: str | None
    clang_version: str | None
    mirtune_version: str
    python_version: str
    ray_version: str | None
    os: str

    def row(self) -> dict[str, Any]:
        """The description as `host_*` columns."""
        return {f"host_{k}": v for k, v in asdict(self).items()}


def _gpu(nvml: Any | None) -> tuple[str | None, str | None, int, str | None]:
    status = load_nvml(nvml)
    if status.nvml is None:
        return None, None, 0, status.reason
    lib = status.nvml
    try:
        count = int(lib.nvmlDeviceGetCount())
        driver = _text(lib.nvmlSystemGetDriverVersion())
        names = sorted({_text(lib.nvmlDeviceGetName(lib.nvmlDeviceGetHandleByIndex(i))) for i in range(count)})
        return (", ".join(names) or None), driver, count, None
    except Exception as exc:
        return None, None, 0, f"NVML query failed: {type(exc).__name__}: {exc}"


def describe_host(nvml: Any | None = None) -> HostInfo:
    """Describe this machine; `nvml` injects a stand-in NVML module (tests)."""
    import psutil

    from mirtune import __version__

    try:
        import ray

        ray_version = ray.__version__
    except Exception:
        ray_version = None
    gpu_model, gpu_driver, gpu_count, gpu_reason = _gpu(nvml)
    return HostInfo(
        hostname=socket.gethostname(),
        cpu_model=cpu_model(),
        cpu_tag=cpu_tag(),
        logical_cores=psutil.cpu_count(logical=True),
        physical_cores=psutil.cpu_count(logical=False),
        memory_bytes=int(psutil.virtual_memory().total),
        gpu_model=gpu_model,
        gpu_driver=gpu_driver,
        gpu_count=gpu_count,
        gpu_reason=gpu_reason,
        clang_version=clang_version(),
        mirtune_version=__version__,
        python_version=platform.python_version(),
        ray_version=ray_version,
        os=f"{platform.system()} {platform.release()}",
    )


@lru_cache(maxsize=1)
def host_info() -> HostInfo:
    """`describe_host()` computed once per process (a Ray worker runs many points)."""
    return describe_host()


def timestamp() -> str:
    """Now, in UTC, ISO 8601 with seconds."""
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def logical_cores() -> int:
    """Logical cores this process may run on (its CPU affinity), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


@lru_cache(maxsize=None)
def node_tag() -> str:
    """This node's binary compatibility tag: CPU model and flags, and the clang version."""
    return hashlib.sha256(f"{cpu_tag()}|{clang_version()}".encode()).hexdigest()[:12]


if __name__ == "__main__":  # a quick look: python -m mirtune.measure.host
    print(describe_host(), file=sys.stdout)

