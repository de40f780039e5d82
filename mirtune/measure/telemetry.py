"""What the machine was doing around a measurement: CPU frequency and load average from psutil/os, and on GPU
nodes NVML samples (power, clocks, temperature, energy) taken while the timed runs execute; without NVML the GPU
fields are None and `gpu_telemetry` says why.
"""

from __future__ import annotations

import os
import statistics
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from mirtune.measure.host import NvmlStatus, load_nvml


@dataclass
class Telemetry:
    """What the machine was doing around a measurement. None means "could not be read", never a guess."""

    cpu_freq_mhz: float | None = None
    loadavg_1m: float | None = None
    loadavg_1m_after: float | None = None
    gpu_telemetry: str = "not sampled"
    gpu_power_w_mean: float | None = None
    gpu_power_w_max: float | None = None
    gpu_sm_clock_mhz: float | None = None
    gpu_mem_clock_mhz: float | None = None
    gpu_temp_c_max: float | None = None
    gpu_energy_j: float | None = None


def cpu_freq() -> float | None:
    try:
        import psutil

        f = psutil.cpu_freq()
        return float(f.current) if f and f.current else None
    except Exception:
        return None


def loadavg() -> float | None:
    try:
        return float(os.getloadavg()[0])
    except OSError:
        return None


@lru_cache(maxsize=1)
def default_nvml() -> NvmlStatus:
    return load_nvml()


class GpuSampler:
    """Samples NVML power, clocks and temperature on a thread while timed runs execute, and the energy counter
    before and after. Construct with a module-like NVML object; `status` explains when it cannot sample."""

    def __init__(self, nvml: NvmlStatus, index: int = 0, interval_s: float = 0.1) -> None:
        self.reason = nvml.reason
        self.nvml = nvml.nvml
        self.interval_s = interval_s
        self.handle = None
        self.samples: list[tuple[float | None, float | None, float | None, float | None]] = []
        self.energy0: float | None = None
        self.energy_j: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if self.nvml is not None:
            try:
                self.handle = self.nvml.nvmlDeviceGetHandleByIndex(index)
            except Exception as exc:
                self.reason = f"NVML device {index}: {type(exc).__name__}: {exc}"
                self.nvml = None

    def _call(self, name: str, *args: Any) -> float | None:
        try:
            return float(getattr(self.nvml, name)(self.handle, *args))
        except Exception:
            return None

    def _sample(self) -> None:
        n = self.nvml
        power = self._call("nvmlDeviceGetPowerUsage")  # milliwatts
        sm = self._call("nvmlDeviceGetClockInfo", getattr(n, "NVML_CLOCK_SM", 1))
        mem = self._call("nvmlDeviceGetClockInfo", getattr(n, "NVML_CLOCK_MEM", 2))
        temp = self._call("nvmlDeviceGetTemperature", getattr(n, "NVML_TEMPERATURE_GPU", 0))
        self.samples.append((power / 1000.0 if power is not None else None, sm, mem, temp))

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            self._sample()

    def start(self) -> None:
        """Begin sampling (a no-op without NVML)."""
        if self.nvml is None:
            return
        self.energy0 = self._call("nvmlDeviceGetTotalEnergyConsumption")  # millijoules
        self._sample()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop sampling and read the energy counter again."""
        if self.nvml is None or self._thread is None:
            return
        self._stop.set()
        self._thread.join()
        self._sample()
        end = self._call("nvmlDeviceGetTotalEnergyConsumption")
        if end is not None and self.energy0 is not None:
            self.energy_j = (end - self.energy0) / 1000.0

    def fill(self, t: Telemetry) -> None:
        """Write the GPU fields of `t`."""
        if self.nvml is None:
            t.gpu_telemetry = f"unavailable: {self.reason}"
            return

        def col(i: int) -> list[float]:
            return [s[i] for s in self.samples if s[i] is not None]

        power, sm, mem, temp = col(0), col(1), col(2), col(3)
        t.gpu_telemetry = "ok" if self.samples else "no samples"
        t.gpu_power_w_mean = statistics.fmean(power) if power else None
        t.gpu_power_w_max = max(power) if power else None
        t.gpu_sm_clock_mhz = statistics.fmean(sm) if sm else None
        t.gpu_mem_clock_mhz = statistics.fmean(mem) if mem else None
        t.gpu_temp_c_max = max(temp) if temp else None
        t.gpu_energy_j = self.energy_j
