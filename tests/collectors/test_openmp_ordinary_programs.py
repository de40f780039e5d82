"""The ordinary OpenMP training programs (collectors/programs/openmp_ordinary, openmp_fewer: programs where
fewer threads may win, and openmp_atomic: programs whose atomics or critical sections decide whether a second
thread pays), run through their manifests: each builds as the collector builds it (schedule(runtime)
written in), refuses missing arguments with a usage line and exit 2, and prints the same answer with 1 thread and
with 2 threads under another schedule."""

from __future__ import annotations

import os
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from collectors.manifest import ProgramRun, read_manifest
from mirtune.measure.check import lines_match
from mirtune.source.openmp import make_schedule_runtime

PROGRAMS = Path(__file__).resolve().parents[2] / "collectors" / "programs"
# folder -> (at least this many programs, at least this many lines of output)
FOLDERS = {"openmp_ordinary": (10, 2), "openmp_fewer": (5, 1), "openmp_atomic": (6, 2)}
RUNS = {f: read_manifest(PROGRAMS / f / "manifest.json") for f in FOLDERS}
# each program's first (small) run, with its folder
FIRST_RUNS = [(f, r) for f, runs in RUNS.items() for r in list({r.name: r for r in reversed(runs)}.values())[::-1]]


def _clang() -> str:
    from mirtune.ir.frontend import find_clang

    return str(find_clang().path)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, tuple[Path | None, str]]:
    """Every program rewritten to schedule(runtime) and compiled once: name -> (executable or None, log)."""
    clang, outdir = _clang(), tmp_path_factory.mktemp("ordinary")

    def build(run: ProgramRun) -> tuple[str, tuple[Path | None, str]]:
        src = outdir / run.source.name
        src.write_text(make_schedule_runtime(run.source.read_text()).source)
        exe = outdir / run.name
        proc = subprocess.run([clang, "-O2", "-fopenmp", "-Wall", str(src), "-o", str(exe), "-lm"],
                              capture_output=True, text=True, timeout=120)
        return run.name, (exe if proc.returncode == 0 else None, proc.stdout + proc.stderr)

    with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
        return dict(pool.map(build, [r for _, r in FIRST_RUNS]))


def _run(exe: Path, run: ProgramRun, env: dict[str, str], args: tuple[str, ...] | None = None):
    with tempfile.TemporaryDirectory() as work:
        for f in run.inputs:
            os.symlink(f.resolve(), Path(work) / f.name)
        full = {k: v for k, v in os.environ.items() if k not in ("OMP_SCHEDULE", "OMP_NUM_THREADS")}
        return subprocess.run([str(exe), *(run.args if args is None else args)], capture_output=True, text=True,
                              env={**full, **env}, timeout=120, cwd=work)


@pytest.mark.parametrize("folder", list(FOLDERS))
def test_the_set(folder: str):
    firsts = [r for f, r in FIRST_RUNS if f == folder]
    assert len(firsts) >= FOLDERS[folder][0], f"only {len(firsts)} programs in {PROGRAMS / folder / 'manifest.json'}"
    for run in firsts:
        text = run.source.read_text()
        assert "MIRTUNE_SIZE" not in text and "checksum:" not in text, f"{run.name} follows the collector's conventions"
        assert make_schedule_runtime(text).tunable >= 1, f"{run.name}: no loop OMP_SCHEDULE can reach"
    assert all(sum(r.name == n.name for r in RUNS[folder]) == 2 for n in firsts), \
        "each program has a small and a large run"


@pytest.mark.parametrize("folder,run", FIRST_RUNS, ids=[r.name for _, r in FIRST_RUNS])
def test_same_answer_for_every_thread_count_and_schedule(folder: str, run: ProgramRun, built):
    exe, log = built[run.name]
    assert exe is not None, f"{run.name} failed to compile:\n{log}"
    assert "warning" not in log, log
    usage = _run(exe, run, {"OMP_NUM_THREADS": "1"}, args=())
    assert usage.returncode == 2 and usage.stderr.strip() and not usage.stdout, "no arguments: usage and exit 2"
    one = _run(exe, run, {"OMP_NUM_THREADS": "1"})
    assert one.returncode == 0 and len(one.stdout.splitlines()) >= FOLDERS[folder][1], one.stderr
    two = _run(exe, run, {"OMP_NUM_THREADS": "2", "OMP_SCHEDULE": "guided,8"})
    assert two.returncode == 0 and lines_match(two.stdout, one.stdout, 1e-6), \
        f"{run.name}: 1 thread vs 2 threads guided,8 differ (as the collector compares them)"
