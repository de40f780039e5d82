"""Measure one configuration of a program properly, and parse what it printed.

`measure()` holds this machine's timed-run lock (`timed_run_lock`: measurements of two processes, two
commands each with a Ray cluster of its own, take turns instead of corrupting each other's times), does W warm-up
runs and R timed runs, keeps every time, the median and the coefficient
of variation, and checks every run's `checksum:` line against the default configuration's (`reference`).
The first failing run ends the measurement with its status: `timeout`, `crash` (exit status or signal name),
`wrong_output` (no checksum, a different checksum, or one that changes between runs). Telemetry: CPU
frequency and load average from psutil/os, peak RSS and CPU times of the child from wait4, and on GPU nodes
NVML samples (power, clocks, temperature, energy) taken while the timed runs execute; without NVML the GPU
fields are None and `gpu_telemetry` says why.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import statistics
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator, Mapping, Sequence

from mirtune.measure.check import CheckTimeout, OutputCheck, checksums_match
from mirtune.measure.host import NvmlStatus
from mirtune.measure.sandbox import ProcessRun, RunLimits, launcher_folder, run_once
from mirtune.measure.telemetry import GpuSampler, Telemetry, cpu_freq, default_nvml, loadavg
from mirtune.tasks.measured import spread

STATUSES = ("ok", "timeout", "crash", "wrong_output", "build_failed", "unsupported")


def parse_checksum(stdout: str) -> str | None:
    """The value of the last `checksum: <value>` line, or None."""
    return OutputCheck("checksum").answer(stdout)


def parse_reported(stdout: str, key: str) -> float | None:
    """The number on the last `<key>: <number>` line (a figure the program measured itself), or None."""
    found = re.findall(rf"^\s*{re.escape(key)}:\s*(\S+)\s*$", stdout, re.MULTILINE)
    if not found:
        return None
    try:
        value = float(found[-1])
    except ValueError:
        return None
    return value if math.isfinite(value) else None



@dataclass
class Measurement:
    """One configuration measured: status and reason, every time, the median and the spread, the checksum."""

    status: str
    reason: str = ""
    runtimes_s: list[float] = field(default_factory=list)
    warmup_s: list[float] = field(default_factory=list)
    median_s: float | None = None
    cv: float | None = None
    checksum: str | None = None
    reference_checksum: str | None = None
    exit_code: int | None = None
    signal: str | None = None
    peak_rss_kib: int | None = None
    user_s: float | None = None
    sys_s: float | None = None
    reported: list[float] = field(default_factory=list)
    reported_median: float | None = None
    telemetry: Telemetry = field(default_factory=Telemetry)

    def row(self) -> dict[str, Any]:
        """Flat columns for a dataset row (telemetry fields inlined)."""
        d = asdict(self)
        d.update(d.pop("telemetry"))
        return d


def failed(status: str, reason: str) -> Measurement:
    """A measurement that never ran (`build_failed`, `unsupported`)."""
    assert status in STATUSES, status
    return Measurement(status=status, reason=reason)


def _process_failure(run: ProcessRun, limits: RunLimits) -> tuple[str, str] | None:
    """(status, reason) when the run itself failed (timeout, signal, non-zero exit), else None."""
    if run.timed_out:
        return "timeout", f"exceeded {limits.timeout_s:g}s; process group killed"
    if run.signal is not None:
        return "crash", f"killed by {run.signal}"
    if run.exit_code:
        last = run.stderr.strip().splitlines()[-1:] or [""]
        return "crash", f"exit status {run.exit_code}" + (f": {last[0][:200]}" if last[0] else "")
    return None


def _answer_problem(check: OutputCheck, answer: str | None, answers: list[str], reference: str | None) -> str | None:
    """Why this run's answer is wrong, or None. `answers` are this measurement's earlier answers: without a
    reference (the default configuration) they must agree with each other (`OutputCheck.stable_problem`)."""
    if answer is None:
        return check.mismatch(None, "")
    if check.kind == "checksum" and answers and not checksums_match(answer, answers[-1], check.rtol):
        return f"checksum changed between runs: {answers[-1]} then {answer}"
    if reference is not None:
        return check.mismatch(answer, reference)
    return check.stable_problem([*answers, answer])


_LOCK_WAIT_SAID: list[bool] = [False]  # whether this process has said that it waits for the lock


@contextlib.contextmanager
def timed_run_lock() -> Iterator[None]:
    """Hold this machine's timed-run lock (an flock on /tmp/mirtune-<uid>/timed-run.lock, fixed whatever $TMPDIR
    says), so that measurements of two processes (two `mirtune tune` or `collect`, each with its own Ray cluster)
    never overlap; the first time a process waits for it, one line on stderr says so."""
    import fcntl
    import sys

    from mirtune.private import UnsafePath, private_dir

    try:
        folder = private_dir(Path("/tmp") / f"mirtune-{os.getuid()}")
    except UnsafePath:
        folder = launcher_folder()  # a folder of this process (the launcher's warning said why): no exclusion
    path = folder / "timed-run.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not _LOCK_WAIT_SAID[0]:
                _LOCK_WAIT_SAID[0] = True
                print(f"mirtune: waiting for another timed run on this machine to finish (runs take turns; lock "
                      f"{path})", file=sys.stderr, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def measure(cmd: Sequence[str], env: Mapping[str, Any] | None = None, *, repeats: int = 3, warmup: int = 1,
            limits: RunLimits = RunLimits(), reference: str | None = None, rtol: float = 1e-9,
            nvml: NvmlStatus | None = None, gpu_index: int = 0, report: str | None = None,
            check: OutputCheck | None = None, inputs: Mapping[str, bytes] | None = None) -> Measurement:
    """Warm up `warmup` times, then time `repeats` runs of `cmd` with `env` (see `minimal_env`).

    `reference` is the default configuration's checksum (None when this IS the default configuration).
    `nvml` injects an NVML status (tests); by default NVML is loaded once per process.
    `check` says what answer to compare (default: the `checksum:` line with `rtol`; see mirtune.measure.check); the
    default configuration's answer (its runs must agree) is the reference the others are checked against, and
    ends in `checksum`. `inputs` are files written into each run's working folder (see `run_once`).
    `report` names a figure the program prints itself (`<report>: <number>`, e.g. a CUDA kernel's time
    measured with events, which the process wall time would bury under the context creation): every timed
    run's value goes into `reported` and their median into `reported_median`; a run without it is
    `wrong_output`.
    """
    if repeats < 1 or warmup < 0:
        raise ValueError("repeats must be >= 1 and warmup >= 0")
    m = Measurement(status="ok", reference_checksum=reference)
    m.telemetry.loadavg_1m = loadavg()
    sampler = GpuSampler(nvml if nvml is not None else default_nvml(), gpu_index)
    freqs: list[float] = []
    rss: list[int] = []
    user: list[float] = []
    system: list[float] = []
    check = check or OutputCheck("checksum", rtol=rtol)
    answers: list[str] = []
    with timed_run_lock():  # one measurement at a time on this machine, whichever process makes it
        try:
            for i in range(warmup + repeats):
                timed = i >= warmup
                if timed and i == warmup:
                    sampler.start()
                f = cpu_freq()
                if f is not None:
                    freqs.append(f)
                run = run_once(cmd, env, limits, inputs=inputs, capture=check.output_file)
                if run.maxrss_kib is not None:
                    rss.append(run.maxrss_kib)
                failure = _process_failure(run, limits)
                try:  # the answer check runs under the run's time limit too (a regex that backtracks)
                    answer = check.answer(run.stdout, run.output_file, timeout_s=limits.timeout_s)
                except CheckTimeout as exc:
                    answer, failure = None, failure or ("timeout", exc.line())
                if failure is None:
                    problem = _answer_problem(check, answer, answers, reference)
                    failure = ("wrong_output", problem) if problem else None
                value = parse_reported(run.stdout, report) if report else None
                if failure is None and report and value is None:
                    failure = ("wrong_output", f"no '{report}: <number>' line in the output")
                if failure is not None:
                    m.status, m.reason = failure
                    m.exit_code, m.signal = run.exit_code, run.signal
                    m.checksum = answer
                    break
                answers.append(answer)
                m.exit_code = run.exit_code
                if timed:
                    m.runtimes_s.append(run.seconds)
                    if value is not None:
                        m.reported.append(value)
                    user.append(run.user_s)
                    system.append(run.sys_s)
                else:
                    m.warmup_s.append(run.seconds)
        finally:
            sampler.stop()
    if m.status == "ok":
        m.checksum = check.reference(answers) if reference is None else answers[-1]
        m.median_s = statistics.median(m.runtimes_s)
        m.cv = spread(m.runtimes_s)
        m.reported_median = statistics.median(m.reported) if m.reported else None
    m.peak_rss_kib = max(rss) if rss else None
    m.user_s = statistics.fmean(user) if user else None
    m.sys_s = statistics.fmean(system) if system else None
    m.telemetry.cpu_freq_mhz = statistics.fmean(freqs) if freqs else None
    m.telemetry.loadavg_1m_after = loadavg()
    sampler.fill(m.telemetry)
    return m
