"""The OpenMP benchmark programs (the PolyBench-like set and the application set) build, run, print one checksum
line, and agree across thread counts."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

PROGRAMS_ROOT = Path(__file__).resolve().parents[2] / "collectors" / "programs"
MIN_PROGRAMS = {"openmp": 24, "openmp_apps": 16}  # folder -> how many programs it must hold
PROGRAMS = sorted(p for folder in MIN_PROGRAMS for p in (PROGRAMS_ROOT / folder).glob("*.c"))
CHECKSUM_RE = re.compile(r"^checksum: (-?\d+(\.\d+)?([eE][-+]?\d+)?|[-+]?(nan|inf))$")
RUN_TIMEOUT_S = 60
COMPILE_TIMEOUT_S = 120


def _clang() -> str:
    try:
        from mirtune.ir.frontend import find_clang

        return str(find_clang().path)
    except Exception:  # mirtune not importable, or no clang it accepts
        return shutil.which("clang-14") or shutil.which("clang") or "clang"


def _pragmas(text: str) -> list[str]:
    """Every `#pragma omp` directive of a C file, continuation lines joined."""
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("#pragma omp"):
            parts = [line.rstrip()]
            while parts[-1].endswith("\\") and i + 1 < len(lines):
                parts[-1] = parts[-1][:-1]
                i += 1
                parts.append(lines[i].rstrip())
            out.append(" ".join(p.strip() for p in parts))
        i += 1
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, tuple[Path | None, str]]:
    """Compile every program once (size 1); source path -> (executable or None, compiler output)."""
    clang = _clang()
    outdir = tmp_path_factory.mktemp("openmp_programs")

    def build(src: Path) -> tuple[str, tuple[Path | None, str]]:
        exe = outdir / f"{src.parent.name}-{src.stem}"
        cmd = [clang, "-O2", "-fopenmp", "-DMIRTUNE_SIZE=1", str(src), "-o", str(exe), "-lm"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return str(src), (None, f"{cmd}: {exc}")
        ok = proc.returncode == 0 and exe.exists()
        return str(src), (exe if ok else None, proc.stdout + proc.stderr)

    with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
        return dict(pool.map(build, PROGRAMS))


def _run(exe: Path, threads: int) -> str:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    env.pop("OMP_SCHEDULE", None)
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=RUN_TIMEOUT_S)
    assert proc.returncode == 0, f"{exe.name} exited {proc.returncode} with {threads} thread(s): {proc.stderr}"
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, f"{exe.name} printed {len(lines)} lines: {proc.stdout!r}"
    assert CHECKSUM_RE.match(lines[0]), f"{exe.name}: not a checksum line: {lines[0]!r}"
    return lines[0]


@pytest.mark.parametrize("folder", sorted(MIN_PROGRAMS))
def test_program_set(folder: str):
    programs = [p for p in PROGRAMS if p.parent.name == folder]
    assert len(programs) >= MIN_PROGRAMS[folder], f"only {len(programs)} programs in {PROGRAMS_ROOT / folder}"
    fixed = [p.name for p in programs if any("schedule(" in d for d in _pragmas(p.read_text()))]
    assert len(fixed) <= 3, f"too many programs with an explicit schedule clause: {fixed}"
    for p in programs:
        text = p.read_text()
        assert text.startswith("/*"), f"{p.name} lacks its header comment"
        assert "MIRTUNE_SIZE" in text, f"{p.name} ignores MIRTUNE_SIZE"
        assert _pragmas(text), f"{p.name} has no OpenMP directive"


@pytest.mark.parametrize("src", PROGRAMS, ids=[f"{p.parent.name}/{p.stem}" for p in PROGRAMS])
def test_program_checksum_independent_of_threads(src: Path, built):
    exe, log = built[str(src)]
    assert exe is not None, f"{src.name} failed to compile:\n{log}"
    one = _run(exe, 1)
    two = _run(exe, 2)
    assert one == two, f"{src.name}: checksum differs between 1 and 2 threads: {one!r} vs {two!r}"
