"""The OpenMP program generator: deterministic, --check guards the shipped files, programs compile and agree."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from collectors import ompgen
from mirtune.source.openmp import make_schedule_runtime

SHIPPED = Path(__file__).resolve().parents[2] / "collectors" / "programs" / "openmp_gen"
CHECKSUM_RE = re.compile(r"^checksum: (-?\d+(\.\d+)?([eE][-+]?\d+)?|[-+]?(nan|inf))$")
RUN_TIMEOUT_S = 60
COMPILE_TIMEOUT_S = 120
RUN_PROGRAMS = ("omp_mathmap_0", "omp_triangular_0", "omp_escape_0")  # imbalanced: dynamic,1 reorders them most


@pytest.fixture(scope="module")
def programs() -> list[ompgen.Program]:
    return ompgen.generate()


def _clang() -> str | None:
    try:
        from mirtune.ir.frontend import find_clang

        return str(find_clang().path)
    except Exception:  # mirtune's clang lookup failed: any clang will do for these checks
        return shutil.which("clang-14") or shutil.which("clang")


def test_generator_is_deterministic_and_varied(programs):
    again = ompgen.generate()
    assert [(p.name, p.source) for p in programs] == [(p.name, p.source) for p in again]
    other = ompgen.generate(count=12, seed=1)
    assert [p.source for p in other] != [p.source for p in programs[:12]]
    assert len(programs) == ompgen.DEFAULT_COUNT
    assert len({p.name for p in programs}) == len(programs)
    kinds = Counter(p.kind for p in programs)
    assert set(kinds) == set(ompgen.KINDS) and min(kinds.values()) >= 3
    for p in programs:
        assert re.fullmatch(rf"omp_{p.kind}_\d+", p.name)
        assert 0.05 <= p.est_s[0] <= 0.3 and p.est_s[1] <= 1.0 and p.est_s[1] >= 2.5 * p.est_s[0]
    # what matters for the schedule varies across the set
    assert {p.params["profile"] for p in programs if p.kind == "mathmap"} >= {"uniform", "heavy", "spikes"}
    assert {p.params["type"] for p in programs} >= {"float", "double", "int", "unsigned"}
    assert len({p.params["nesting"] for p in programs}) >= 3
    assert any(p.params.get("style") == "region" for p in programs)
    trips = [m["N"] for p in programs for m in p.sizes[:1] if "N" in m]
    assert min(trips) <= 500 and max(trips) >= 100_000


def test_programs_follow_the_conventions(programs):
    for p in programs:
        lines = p.source.splitlines()
        assert lines[0].startswith(f"/* {p.name}: ") and lines[1].startswith(" * Category: ")
        assert lines[2].startswith(" * Sizes: MIRTUNE_SIZE=1 -> ") and lines[2].endswith(" */")
        assert ompgen.GENERATED in lines[3]
        assert "#ifndef MIRTUNE_SIZE" in p.source and "#if MIRTUNE_SIZE >= 2" in p.source
        assert p.source.count('printf("checksum: ') == 1 and p.source.count("printf(") == 1
        pragmas = [ln for ln in lines if ln.lstrip().startswith("#pragma omp")]
        assert pragmas and not any("schedule" in ln for ln in pragmas)
        rewritten = make_schedule_runtime(p.source)
        assert rewritten.tunable >= 1 and rewritten.fixed == 0 and rewritten.unparsed == 0 and not rewritten.problems
        for ln in pragmas:  # only integer reductions
            for var in re.findall(r"reduction\(\+:([^)]*)\)", ln):
                for name in var.split(","):
                    assert re.search(rf"unsigned (int|long long) [^;]*\b{name.strip()}\b", p.source), (p.name, ln)


def test_check_passes_on_the_shipped_files_and_fails_after_an_edit(tmp_path, capsys):
    assert ompgen.check(SHIPPED) == []
    assert ompgen.main(["--check", "--out", str(SHIPPED)]) == 0
    copy = tmp_path / "openmp_gen"
    shutil.copytree(SHIPPED, copy)
    victim = copy / "omp_stream_0.c"
    victim.write_text(victim.read_text().replace("checksum", "checksum ", 1))
    assert ompgen.check(copy) == ["differs omp_stream_0.c"]
    assert ompgen.main(["--check", "--out", str(copy)]) == 1
    victim.unlink()
    (copy / "stray.c").write_text("int main(void) { return 0; }\n")
    assert ompgen.check(copy) == ["missing omp_stream_0.c", "extra stray.c"]
    capsys.readouterr()


def test_write_regenerates_and_removes_only_stale_generated_programs(tmp_path):
    out = tmp_path / "gen"
    out.mkdir()
    stale = out / "omp_old_9.c"
    stale.write_text(f"/* old */\n/* {ompgen.GENERATED} (seed 0, program 9) */\nint main(void) {{ return 0; }}\n")
    mine = out / "handwritten.c"
    mine.write_text("int main(void) { return 0; }\n")
    assert ompgen.main(["--out", str(out), "--count", "3", "--seed", "7"]) == 0
    assert not stale.exists() and mine.exists()
    names = sorted(p.name for p in out.glob("*.c"))
    assert names == sorted([f"{p.name}.c" for p in ompgen.generate(3, 7)] + ["handwritten.c"])
    assert (out / "README.md").exists()
    assert ompgen.check(out, count=3, seed=7) == ["extra handwritten.c"]


@pytest.fixture(scope="module")
def built(tmp_path_factory, programs) -> dict[str, tuple[Path | None, str]]:
    """Every program compiled once at size 1 (the ones run below from their schedule(runtime) copy)."""
    clang = _clang()
    if clang is None:
        pytest.skip("no clang")
    outdir = tmp_path_factory.mktemp("ompgen")

    def build(p: ompgen.Program) -> tuple[str, tuple[Path | None, str]]:
        src = outdir / f"{p.name}.c"
        text = make_schedule_runtime(p.source).source if p.name in RUN_PROGRAMS else p.source
        src.write_text(text)
        exe = outdir / p.name
        cmd = [clang, "-O2", "-fopenmp", "-DMIRTUNE_SIZE=1", str(src), "-o", str(exe), "-lm"]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=COMPILE_TIMEOUT_S)
        except (OSError, subprocess.TimeoutExpired) as exc:
            return p.name, (None, f"{cmd}: {exc}")
        return p.name, (exe if proc.returncode == 0 and exe.exists() else None, proc.stdout + proc.stderr)

    with ThreadPoolExecutor(max_workers=max(1, min(4, os.cpu_count() or 1))) as pool:
        return dict(pool.map(build, programs))


def test_every_program_compiles_with_openmp(built):
    failed = {name: log[-2000:] for name, (exe, log) in built.items() if exe is None}
    assert not failed, failed


def _run(exe: Path, threads: int, schedule: str | None) -> str:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    env.pop("OMP_SCHEDULE", None)
    if schedule:
        env["OMP_SCHEDULE"] = schedule
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=RUN_TIMEOUT_S)
    assert proc.returncode == 0, f"{exe.name} exited {proc.returncode}: {proc.stderr}"
    lines = proc.stdout.splitlines()
    assert len(lines) == 1 and CHECKSUM_RE.match(lines[0]), f"{exe.name}: {proc.stdout!r}"
    return lines[0]


@pytest.mark.parametrize("name", RUN_PROGRAMS)
def test_checksum_is_the_same_for_one_thread_and_two_dynamic(built, name):
    exe, log = built[name]
    assert exe is not None, log
    assert _run(exe, 1, None) == _run(exe, 2, "dynamic,1")
