"""mirtune.measure (build, sandbox, measurement): builds are cached, and every way a run can end gets its status, with real processes."""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import psutil
import pytest

from mirtune.measure.host import NvmlStatus, load_nvml
from mirtune.measure.build import BuildSpec, build
from mirtune.measure.check import checksums_match
from mirtune.measure.measurement import measure, parse_checksum
from mirtune.measure.sandbox import RunLimits, run_once, run_tool
from mirtune.tasks.measured import spread


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


def _units(files: dict[str, Path], **texts: str) -> tuple[tuple[str, str, str], ...]:
    """solver.c and util.c of the three-file program as BuildSpec units (a text in `texts` replaces a file's)."""
    return tuple((name, texts.get(name.replace(".c", ""), files[name].read_text()), str(files[name]))
                 for name in ("solver.c", "util.c"))


def _three_file_spec(files: dict[str, Path], **texts: str) -> BuildSpec:
    return BuildSpec(name="main", source=texts.get("main", files["main.c"].read_text()), openmp=True,
                     include_dirs=(str(files["main.c"].parent), str(files["include"])), units=_units(files, **texts))


def test_a_program_of_several_files_is_compiled_file_by_file_and_linked(three_files, tmp_path):
    """Issue 34: every unit compiled with its folder and the include folders, linked into one binary that runs;
    cached like any build; a unit that does not compile is named, and so is a symbol defined twice."""
    cache = tmp_path / "builds"
    spec = _three_file_spec(three_files)
    first, again = build(spec, cache), build(spec, cache)
    assert first.status == "ok", first.reason
    assert again.cached and again.exe == first.exe
    run = run_once([first.exe, "1000"], {"OMP_NUM_THREADS": 2}, RunLimits(timeout_s=30))
    assert run.exit_code == 0 and "sum = 2.498500e+03" in run.stdout
    assert sorted(p.name for p in Path(first.exe).parent.glob("*.c")) == ["main.c", "solver.c", "util.c"]

    broken = build(_three_file_spec(three_files, util="double weight(double x) { return x +; }\n"), cache)
    assert broken.status == "build_failed" and broken.reason.startswith("util.c does not compile: util.c:1:")
    assert str(cache) not in broken.reason and "\n" not in broken.reason

    two_mains = build(_three_file_spec(three_files, util=three_files["util.c"].read_text()
                                       + "int main(void) { return 0; }\n"), cache)
    assert two_mains.status == "build_failed"
    assert two_mains.reason == "the files do not link into one program: main is defined in main.c and util.c"


def test_the_key_of_a_program_of_several_files_follows_each_file(three_files):
    """Any file's text, its place, the include folders and the headers' digest are in the key; the key of a
    one-file build is what it was before programs of several files (no new field in its hash)."""
    import hashlib
    import json

    spec = _three_file_spec(three_files)
    solver = three_files["solver.c"].read_text().replace("s += weight(a[i]);", "s += 2 * weight(a[i]);")
    assert _three_file_spec(three_files, solver=solver).key() != spec.key()
    assert _three_file_spec(three_files, solver=solver).source == spec.source   # the first file did not change
    moved = BuildSpec(**{**spec.__dict__, "units": tuple((n, t, "/elsewhere/" + n) for n, t, _ in spec.units)})
    assert moved.key() != spec.key()
    assert BuildSpec(**{**spec.__dict__, "depends": "abc"}).key() != spec.key()
    assert BuildSpec(**{**spec.__dict__, "include_dirs": spec.include_dirs[:1]}).key() != spec.key()
    one = BuildSpec(name="good", source="int main(void) { return 0; }\n", include_dirs=("/src",), openmp=True)
    before = {"source": one.source, "suffix": ".c", "defines": [], "openmp": True, "opt": 2, "extra": [],
              "include_dirs": ["/src"]}
    assert one.key() == hashlib.sha256(json.dumps(before, sort_keys=True).encode()).hexdigest()[:24]


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


# --------------------------------------------------------------------------------------------- escapes (issue 18)


def _setsid_program(cache: Path, name: str, pidfile: Path, parent_body: str) -> str:
    """A program whose child calls setsid() (a new session and process group: out of reach of killpg), writes
    "<pid> <sid>" to `pidfile` and sleeps; the parent then runs `parent_body`."""
    return _exe(cache, name, f"""
        #include <stdio.h>
        #include <unistd.h>
        int main(void) {{
            int gate[2];
            if (pipe(gate) != 0) return 2;
            pid_t child = fork();
            if (child == 0) {{
                close(gate[0]);
                setsid();
                FILE *f = fopen("{pidfile}.tmp", "w");
                fprintf(f, "%d %d\\n", (int)getpid(), (int)getsid(0)); fclose(f);
                rename("{pidfile}.tmp", "{pidfile}");
                close(gate[1]);              /* tells the parent the pid is written */
                for (;;) sleep(1000);
            }}
            close(gate[1]);
            char c;
            while (read(gate[0], &c, 1) > 0) ;
            {parent_body}
        }}
    """)


def _escaped(pidfile: Path) -> int:
    pid, sid = map(int, pidfile.read_text().split())
    assert sid == pid, "the test program's child did not get a session of its own"
    return pid


@pytest.mark.parametrize("case, body, timeout", [
    ("exit", 'printf("checksum: 1\\n"); return 0;', 20.0),
    ("timeout", "for (;;) pause();", 1.0),
])
def test_a_child_in_its_own_session_is_killed(cache, tmp_path, case, body, timeout):
    pidfile = tmp_path / f"setsid-{case}.pid"
    exe = _setsid_program(cache, f"setsid_{case}", pidfile, body)
    run = run_once([exe], limits=RunLimits(timeout_s=timeout))
    pid = _escaped(pidfile)
    try:
        assert _gone(pid), f"the setsid() child {pid} outlived run_once ({case})"
        assert run.timed_out == (case == "timeout")
        if case == "exit":
            assert run.exit_code == 0 and "checksum: 1" in run.stdout
    finally:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass


def test_a_double_fork_in_a_new_session_is_killed_on_timeout(cache, tmp_path):
    # the setsid() child forks again and exits: the grandchild is an orphan in another session
    pidfile = tmp_path / "daemon.pid"
    exe = _exe(cache, "daemonize", f"""
        #include <stdio.h>
        #include <unistd.h>
        #include <sys/wait.h>
        int main(void) {{
            pid_t child = fork();
            if (child == 0) {{
                setsid();
                if (fork() == 0) {{
                    FILE *f = fopen("{pidfile}.tmp", "w");
                    fprintf(f, "%d %d\\n", (int)getpid(), (int)getsid(0)); fclose(f);
                    rename("{pidfile}.tmp", "{pidfile}");
                    for (;;) sleep(1000);
                }}
                _exit(0);
            }}
            waitpid(child, 0, 0);
            for (;;) pause();
        }}
    """)
    run = run_once([exe], limits=RunLimits(timeout_s=1.5))
    assert run.timed_out
    pid, sid = map(int, pidfile.read_text().split())
    try:
        assert sid != os.getsid(0) and _gone(pid), f"the daemonized grandchild {pid} outlived run_once"
    finally:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass


# --------------------------------------------------------------------------------------------- the launcher's folder (issue 18)

REPO = Path(__file__).resolve().parents[2]


def _launcher_names() -> list[str]:
    """The launcher's file names in its folder, as earlier versions and this one spell them."""
    import hashlib

    from mirtune.measure.host import node_tag
    from mirtune.measure.sandbox import _LAUNCHER_C

    return [f"launch-{hashlib.sha256(f'{_LAUNCHER_C}|{node_tag()}'.encode()).hexdigest()[:12]}"]


def _plant(folder: Path, marker: Path) -> None:
    """Executables at every name the launcher could be looked up by, each recording that it ran."""
    import hashlib

    script = f'#!/bin/sh\necho planted >> "{marker}"\nshift\nexec "$@"\n'.encode()
    digest = hashlib.sha256(script).hexdigest()
    for base in _launcher_names():
        for name in (base, f"{base}-{digest}"):  # the second one even carries its own, correct, digest
            (folder / name).write_bytes(script)
            (folder / name).chmod(0o755)


def _run_in_fresh_process(tmpdir: Path, exe: str) -> subprocess.CompletedProcess:
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(REPO)!r})
        from mirtune.measure.sandbox import launcher, run_once
        run = run_once([{exe!r}])
        print(launcher())
        print(run.stdout.strip(), run.maxrss_kib is not None)
    """)
    env = dict(os.environ, TMPDIR=str(tmpdir))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize("setup", ["others_can_write", "symlink", "another_owner"])
def test_a_planted_launcher_is_never_run(cache, tmp_path, setup):
    exe = _exe(cache, "good", GOOD)
    tmpdir, marker = tmp_path / "tmp", tmp_path / "planted-ran"
    tmpdir.mkdir()
    folder = tmpdir / f"mirtune-{os.getuid()}"
    if setup == "symlink":  # the predictable name points at the attacker's folder
        elsewhere = tmp_path / "attacker"
        elsewhere.mkdir()
        folder.symlink_to(elsewhere)
        _plant(elsewhere, marker)
    else:
        folder.mkdir()
        _plant(folder, marker)
        folder.chmod(0o777)
        if setup == "another_owner":
            if os.getuid() != 0:
                pytest.skip("needs root to give the folder to another user")
            os.chown(folder, 65534, 65534)
            folder.chmod(0o755)
            for f in folder.iterdir():
                os.chown(f, 65534, 65534)
    proc = _run_in_fresh_process(tmpdir, exe)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), "a planted launcher was executed"
    used, result = proc.stdout.splitlines()[-2:]
    assert result == "checksum: 299995.000 True"  # the program ran under a launcher of our own
    assert Path(used).parent.parent == tmpdir and Path(used).parent.name.startswith("mirtune-launch-")
    assert not Path(used).parent.exists()  # a fresh private folder of that process, removed at its exit
    warning = [ln for ln in proc.stderr.splitlines() if str(folder) in ln]
    assert len(warning) == 1 and "refusing" in warning[0], proc.stderr


def test_the_launcher_folder_is_private_and_the_binary_checked(cache, tmp_path):
    exe = _exe(cache, "good", GOOD)
    tmpdir, marker = tmp_path / "tmp", tmp_path / "planted-ran"
    tmpdir.mkdir()
    proc = _run_in_fresh_process(tmpdir, exe)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    folder = tmpdir / f"mirtune-{os.getuid()}"
    used = Path(proc.stdout.splitlines()[-2])
    assert used.parent == folder and (folder.stat().st_mode & 0o777) == 0o700
    # a binary of our own folder that no longer matches its digest (changed, truncated) is rebuilt, not run
    used.write_bytes(f'#!/bin/sh\necho changed >> "{marker}"\nshift\nexec "$@"\n'.encode())
    proc = _run_in_fresh_process(tmpdir, exe)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), "a launcher that does not match its digest was executed"
    assert proc.stdout.splitlines()[-1] == "checksum: 299995.000 True"


def test_a_launcher_planted_by_this_user_with_its_own_digest_is_never_run(cache, tmp_path):
    # issue 33 item 1: a file of ours, in our private folder, named launch-<tag>-<sha256 of its own bytes>, passes
    # owner, mode and name checks; only the launcher this process built itself may run
    exe = _exe(cache, "good", GOOD)
    tmpdir, marker = tmp_path / "tmp", tmp_path / "planted-ran"
    tmpdir.mkdir()
    folder = tmpdir / f"mirtune-{os.getuid()}"
    folder.mkdir(mode=0o700)
    _plant(folder, marker)
    proc = _run_in_fresh_process(tmpdir, exe)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists(), "a planted launcher was executed"
    used, result = proc.stdout.splitlines()[-2:]
    assert result == "checksum: 299995.000 True"
    assert Path(used).parent == folder and Path(used).read_bytes()[:4] == b"\x7fELF"


# --------------------------------------------------------------------------------------------- the build cache (issue 33)


def _planted_prog(marker: Path) -> bytes:
    return f'#!/bin/sh\necho planted >> "{marker}"\necho "checksum: 299995.000"\n'.encode()


@pytest.mark.parametrize("attack", ["swapped_bytes", "open_to_others", "another_owner", "open_folder",
                                    "folder_of_another_owner"])
def test_a_binary_planted_in_the_build_cache_is_rebuilt_not_run(tmp_path, attack, capfd):
    # issue 33 item 2: a cache at a folder every user can write to; what is found there must be this user's,
    # writable by no one else, and have the digest recorded when it was built
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    marker = tmp_path / "planted-ran"
    spec = BuildSpec(name="good", source=textwrap.dedent(GOOD))
    first = build(spec, shared)
    assert first.status == "ok" and not first.cached
    exe, folder = Path(first.exe), Path(first.exe).parent
    if attack in ("another_owner", "folder_of_another_owner") and os.getuid() != 0:
        pytest.skip("needs root to give a file to another user")
    if attack == "swapped_bytes":
        exe.write_bytes(_planted_prog(marker))
    elif attack == "open_to_others":
        exe.write_bytes(_planted_prog(marker))  # as another user could, once the file is open to them
        exe.chmod(0o777)
    elif attack == "another_owner":
        planted = folder / ".planted"
        planted.write_bytes(_planted_prog(marker))
        planted.chmod(0o755)
        os.chown(planted, 65534, 65534)
        os.replace(planted, exe)
    elif attack == "open_folder":
        folder.chmod(0o777)
        exe.write_bytes(_planted_prog(marker))
    else:
        os.chown(folder, 65534, 65534)
        exe.write_bytes(_planted_prog(marker))
    again = build(spec, shared)
    assert again.status == "ok" and not again.cached, "the planted binary was taken from the cache"
    run = run_once([again.exe])
    assert not marker.exists(), "a planted binary was run"
    assert run.stdout.strip() == "checksum: 299995.000" and run.maxrss_kib is not None
    assert build(spec, shared).cached  # the rebuilt binary is trusted again
    err = [ln for ln in capfd.readouterr().err.splitlines() if str(shared) in ln]
    assert len(err) == 1 and "writable by every user" in err[0], err


# --------------------------------------------------------------------------------------------- one timed run per machine (issue 33)


def test_timed_runs_of_two_processes_never_overlap(cache, tmp_path):
    # issue 33 item 5: two commands measuring at once on one machine take turns, and say when they wait
    from mirtune.measure.measurement import timed_run_lock

    exe = _exe(cache, "stamps", r"""
        #include <stdio.h>
        #include <time.h>
        #include <unistd.h>
        static double now(void) { struct timespec t; clock_gettime(CLOCK_REALTIME, &t); return t.tv_sec + t.tv_nsec / 1e9; }
        int main(int argc, char **argv) {
            double a = now();
            usleep(150000);
            double b = now();
            FILE *f = fopen(argv[1], "a"); fprintf(f, "%.6f %.6f\n", a, b); fclose(f);
            printf("checksum: 1\n");
            return 0;
        }
    """)
    log = tmp_path / "stamps.txt"
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(REPO)!r})
        from mirtune.measure.measurement import measure
        m = measure([{exe!r}, {str(log)!r}], repeats=3, warmup=1)
        print(m.status)
    """)
    with timed_run_lock():  # held here first, so that both processes find it taken
        procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for _ in range(2)]
        time.sleep(1.5)
        assert not log.exists(), "a run started while another process held the lock"
    outs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 and out.strip() == "ok" for p, (out, _) in zip(procs, outs)), outs
    spans = sorted(tuple(map(float, ln.split())) for ln in log.read_text().splitlines())
    assert len(spans) == 8
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), f"timed runs overlapped: {spans}"
    waits = [ln for _, err in outs for ln in err.splitlines() if "waiting for another timed run" in ln]
    assert len(waits) == 2, outs


# --------------------------------------------------------------------------------------------- the driver killed (issue 33)


@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM"])
def test_a_setsid_grandchild_dies_with_a_killed_driver(cache, tmp_path, how):
    # issue 33 item 3: the process that runs the benchmark is killed (SIGKILL, or the reaper's SIGTERM) while the
    # program runs; the program's child in a session of its own must not outlive it
    import signal

    pidfile = tmp_path / f"driver-{how}.pid"
    exe = _setsid_program(cache, f"setsid_driver_{how.lower()}", pidfile, "for (;;) pause();")
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(REPO)!r})
        from mirtune.measure.sandbox import RunLimits, run_once
        run_once([{exe!r}], limits=RunLimits(timeout_s=120))
    """)
    driver = subprocess.Popen([sys.executable, "-c", code], start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while not pidfile.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        pid = _escaped(pidfile)
        os.kill(driver.pid, getattr(signal, how))
        driver.wait(timeout=30)
        deadline = time.monotonic() + 5
        while not _gone(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _gone(pid), f"the setsid() grandchild {pid} outlived the driver killed by {how}"
    finally:
        driver.kill()
        if pidfile.exists():
            try:
                os.kill(int(pidfile.read_text().split()[0]), 9)
            except ProcessLookupError:
                pass


def test_run_tool_kills_the_whole_group_on_timeout(tmp_path):
    """A build tool that outlives its timeout goes with every process it started (clang's driver and its cc1)."""
    pid_file = tmp_path / "child.pid"
    script = (f"import subprocess, time; p = subprocess.Popen(['sleep', '60']); "
              f"open({str(pid_file)!r}, 'w').write(str(p.pid)); time.sleep(60)")
    with pytest.raises(subprocess.TimeoutExpired):
        run_tool([sys.executable, "-c", script], 2.0)
    child = int(pid_file.read_text())
    time.sleep(0.2)
    status = Path(f"/proc/{child}/status")
    assert not status.exists() or "State:\tZ" in status.read_text()
    done = run_tool([sys.executable, "-c", "print('ok')"], 30.0)
    assert done.returncode == 0 and done.stdout == "ok\n"
