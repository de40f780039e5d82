"""collectors.runner: builds are cached, and every way a run can end gets its status, with real processes."""

from __future__ import annotations

import os
import statistics
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from collectors.host import NvmlStatus, load_nvml
from collectors.runner import (BuildSpec, RunLimits, build, checksums_match, measure, parse_checksum, run_once,
                               spread)


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("build-cache")


def _exe(cache: Path, name: str, code: str, **kw) -> str:
    res = build(BuildSpec(name=name, source=textwrap.dedent(code), **kw), cache)
    assert res.status == "ok", res.reason
    return res.exe


GOOD = """
    #include <stdio.h>
    int main(void) {
        double s = 0;
        for (int i = 0; i < 100000; i++) s += i % 7;
        printf("checksum: %.3f\\n", s);
        return 0;
    }
"""


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_ok_keeps_every_time_median_and_spread(cache):
    exe = _exe(cache, "good", GOOD)
    m = measure([exe], repeats=4, warmup=2)
    assert m.status == "ok" and m.reason == ""
    assert len(m.runtimes_s) == 4 and len(m.warmup_s) == 2
    assert m.median_s == statistics.median(m.runtimes_s)
    assert m.cv == pytest.approx(statistics.stdev(m.runtimes_s) / statistics.fmean(m.runtimes_s))
    assert m.checksum == "299995.000"  # sum of i % 7 for i < 100000
    assert m.peak_rss_kib is not None and 0 < m.peak_rss_kib < 50_000  # the program's own, not the parent's
    assert m.telemetry.loadavg_1m is not None
    assert m.telemetry.gpu_telemetry == "ok" or m.telemetry.gpu_telemetry.startswith("unavailable: ")
    assert spread([1.0]) is None


def test_build_is_cached_and_keyed_by_source_and_flags(cache):
    spec = BuildSpec(name="good", source=textwrap.dedent(GOOD), defines={"MIRTUNE_SIZE": "1"})
    first, again = build(spec, cache), build(spec, cache)
    assert first.status == again.status == "ok" and again.cached and again.exe == first.exe
    other = BuildSpec(name="good", source=textwrap.dedent(GOOD), defines={"MIRTUNE_SIZE": "2"})
    assert other.key() != spec.key()


def test_build_failed_carries_the_compiler_message(cache):
    spec = BuildSpec(name="broken", source="int main(void) { return undeclared_thing; }\n")
    res = build(spec, cache)
    assert res.status == "build_failed" and res.exe is None
    assert "undeclared_thing" in res.reason and str(cache) not in res.reason
    assert build(spec, cache).cached  # a compile error is deterministic: not retried


def test_environment_is_minimal_and_directory_private(cache, monkeypatch):
    exe = _exe(cache, "env", """
        #include <stdio.h>
        #include <stdlib.h>
        #include <unistd.h>
        int main(void) {
            char cwd[4096];
            getcwd(cwd, sizeof cwd);
            const char *leak = getenv("MIRTUNE_TEST_LEAK"), *bind = getenv("OMP_PROC_BIND");
            const char *n = getenv("OMP_NUM_THREADS");
            FILE *f = fopen("scratch.txt", "w"); fputs("x", f); fclose(f);
            printf("cwd=%s\\nleak=%s\\nbind=%s\\nthreads=%s\\n", cwd, leak ? leak : "-",
                   bind ? bind : "-", n ? n : "-");
            return 0;
        }
    """)
    monkeypatch.setenv("MIRTUNE_TEST_LEAK", "1")
    monkeypatch.setenv("OMP_NUM_THREADS", "7")
    run = run_once([exe], {"OMP_NUM_THREADS": 3})
    lines = dict(line.split("=", 1) for line in run.stdout.splitlines())
    assert lines["leak"] == "-" and lines["bind"] == "false" and lines["threads"] == "3"
    assert lines["cwd"] != os.getcwd() and not Path(lines["cwd"]).exists()  # private, and cleaned up


def test_timeout_kills_the_whole_process_group(cache, tmp_path):
    pidfile = tmp_path / "grandchild.pid"
    exe = _exe(cache, "hang", f"""
        #include <stdio.h>
        #include <unistd.h>
        int main(void) {{
            pid_t child = fork();
            if (child == 0) {{ for (;;) pause(); }}
            FILE *f = fopen("{pidfile}", "w"); fprintf(f, "%d\\n", (int)child); fclose(f);
            for (;;) pause();
        }}
    """)
    t0 = time.monotonic()
    m = measure([exe], repeats=3, warmup=1, limits=RunLimits(timeout_s=1.0))
    assert time.monotonic() - t0 < 10
    assert m.status == "timeout" and "1s" in m.reason and m.runtimes_s == []
    grandchild = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while not _gone(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(grandchild), "the forked grandchild survived the timeout"


def test_a_grandchild_left_behind_after_a_normal_exit_is_killed(cache, tmp_path):
    pidfile = tmp_path / "stray.pid"
    exe = _exe(cache, "stray", f"""
        #include <stdio.h>
        #include <unistd.h>
        int main(void) {{
            pid_t child = fork();
            if (child == 0) {{ for (;;) pause(); }}
            FILE *f = fopen("{pidfile}", "w"); fprintf(f, "%d\\n", (int)child); fclose(f);
            printf("checksum: 1\\n");
            return 0;
        }}
    """)
    m = measure([exe], repeats=1, warmup=0, limits=RunLimits(timeout_s=20))
    assert m.status == "ok"
    stray = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while not _gone(stray) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(stray)


@pytest.mark.parametrize("body, reason", [
    ("abort();", "killed by SIGABRT"),
    ("volatile int *p = 0; *p = 1;", "killed by SIGSEGV"),
    ('fprintf(stderr, "bad input\\n"); return 3;', "exit status 3: bad input"),
])
def test_crash_records_signal_or_exit_status(cache, body, reason):
    exe = _exe(cache, "crash", f"""
        #include <stdio.h>
        #include <stdlib.h>
        int main(void) {{ {body} }}
    """)
    m = measure([exe], repeats=2, warmup=1)
    assert m.status == "crash" and m.reason == reason
    assert m.runtimes_s == []


def test_wrong_output(cache):
    exe = _exe(cache, "good", GOOD)
    m = measure([exe], repeats=2, warmup=0, reference="299996.000")
    assert m.status == "wrong_output" and "differs from the default" in m.reason and m.checksum == "299995.000"
    assert measure([exe], repeats=1, warmup=0, reference="299995.0000000001").status == "ok"  # within rtol

    silent = _exe(cache, "silent", "int main(void) { return 0; }\n")
    m = measure([silent], repeats=1, warmup=0)
    assert m.status == "wrong_output" and "no 'checksum:' line" in m.reason

    drift = _exe(cache, "drift", """
        #include <stdio.h>
        #include <unistd.h>
        int main(void) { printf("checksum: %d\\n", (int)getpid()); return 0; }
    """)
    m = measure([drift], repeats=3, warmup=0)
    assert m.status == "wrong_output" and "changed between runs" in m.reason


def test_resource_limits_apply(cache):
    exe = _exe(cache, "limits", """
        #include <stdio.h>
        #include <stdlib.h>
        #include <sys/resource.h>
        int main(int argc, char **argv) {
            struct rlimit as, core, cpu;
            getrlimit(RLIMIT_AS, &as); getrlimit(RLIMIT_CORE, &core); getrlimit(RLIMIT_CPU, &cpu);
            printf("as=%llu core=%llu cpu=%llu\\n", (unsigned long long)as.rlim_cur,
                   (unsigned long long)core.rlim_cur, (unsigned long long)cpu.rlim_cur);
            char *volatile p = malloc((size_t)256 << 20);  /* more than the limit allows */
            if (!p) { fprintf(stderr, "out of memory\\n"); return 4; }
            printf("checksum: %d\\n", (int)(p != 0));
            return 0;
        }
    """)
    limits = RunLimits(timeout_s=30, memory_bytes=128 << 20, cpu_s=77)
    run = run_once([exe], limits=limits)
    assert f"as={128 << 20} core=0 cpu=77" in run.stdout
    m = measure([exe], repeats=1, warmup=0, limits=limits)
    assert m.status == "crash" and m.reason == "exit status 4: out of memory"


def test_checksum_parsing_and_comparison():
    assert parse_checksum("noise\nchecksum: 1.5e+03\nchecksum: 2\n") == "2"
    assert parse_checksum("checksum:\n") is None
    assert checksums_match("1.000000000000e+00", "1.000000000001e+00")
    assert not checksums_match("1.0", "1.1")
    assert checksums_match("nan", "nan") and not checksums_match("nan", "1")
    assert not checksums_match("abc", "abd") and checksums_match("abc", "abc")


class FakeNvml:
    """A stand-in for pynvml: one GPU drawing 250 W whose energy counter advances 1 J per read."""

    NVML_CLOCK_SM, NVML_CLOCK_MEM, NVML_TEMPERATURE_GPU = 1, 2, 0

    def __init__(self) -> None:
        self.energy_mj = 0

    def nvmlInit(self) -> None:
        pass

    def nvmlDeviceGetHandleByIndex(self, i):
        return ("gpu", i)

    def nvmlDeviceGetPowerUsage(self, h):
        return 250_000

    def nvmlDeviceGetClockInfo(self, h, kind):
        return 1410 if kind == self.NVML_CLOCK_SM else 1215

    def nvmlDeviceGetTemperature(self, h, kind):
        return 61

    def nvmlDeviceGetTotalEnergyConsumption(self, h):
        self.energy_mj += 1000
        return self.energy_mj


class BrokenNvml:
    def nvmlInit(self):
        raise RuntimeError("NVML Shared Library Not Found")


def test_gpu_telemetry_through_a_stand_in_nvml(cache):
    exe = _exe(cache, "good", GOOD)
    m = measure([exe], repeats=2, warmup=0, nvml=load_nvml(FakeNvml()))
    t = m.telemetry
    assert t.gpu_telemetry == "ok"
    assert t.gpu_power_w_mean == 250.0 and t.gpu_power_w_max == 250.0
    assert t.gpu_sm_clock_mhz == 1410 and t.gpu_mem_clock_mhz == 1215 and t.gpu_temp_c_max == 61
    assert t.gpu_energy_j is not None and t.gpu_energy_j > 0

    status = load_nvml(BrokenNvml())
    assert status == NvmlStatus(None, "NVML unavailable: RuntimeError: NVML Shared Library Not Found")
    m = measure([exe], repeats=1, warmup=0, nvml=status)
    assert m.telemetry.gpu_telemetry.startswith("unavailable: NVML unavailable")
    assert m.telemetry.gpu_power_w_mean is None and m.telemetry.gpu_energy_j is None
