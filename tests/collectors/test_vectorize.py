"""The loop-kernel generator and the VF/IF sweep: kernels, plan, checksums under forced factors, a real sweep."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from collectors import loopgen
from collectors.openmp import Program
from collectors.summarize import summary_dict
from collectors.vectorize import MARKER, collect_vectorize, find_kernels, kernel_meta, plan_vectorize
from mirtune.errors import UsageError
from mirtune.measure.build import BuildSpec, build
from mirtune.measure.records import compact, read_rows
from mirtune.measure.sandbox import run_once
from mirtune.measure.space import parse_space
from mirtune.measure.vectorize import DIMENSIONS, pragma

REPO = Path(__file__).resolve().parents[2]
KERNELS = REPO / "collectors" / "programs" / "vectorize" / "kernels"


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("vectorize-build-cache")


def test_generator_reproduces_the_shipped_kernels_and_varies_them():
    kernels = loopgen.generate()
    assert len(kernels) >= 300
    assert loopgen.check(KERNELS) == []  # the files on disk are exactly what the generator writes
    assert len({k.name for k in kernels}) == len(kernels)
    types = Counter(k.type for k in kernels)
    assert set(types) == {"char", "short", "int", "float", "double"} and min(types.values()) >= 40
    assert len({k.template for k in kernels}) >= 30
    assert len({k.variant.n for k in kernels}) >= 8
    assert {k.variant.restrict for k in kernels} == {True, False}
    assert {k.variant.known for k in kernels} == {True, False}
    assert {k.variant.stride for k in kernels} >= {1, 2, 3, 4}
    assert len({k.variant.dist for k in kernels if k.template == "shift_dep"}) >= 3
    assert any(k.variant.m > 1 for k in kernels)  # 2-level nests
    for k in kernels:
        assert [ln.strip() for ln in k.source.splitlines()].count(MARKER) == 1  # one marked loop
        assert 'printf("checksum: 0x%016llx' in k.source
        assert kernel_meta(k.source)["template"] == k.template


def test_plan_is_the_baseline_plus_every_factor():
    progs = [Program(n, str(KERNELS / f"{n}.c"), (KERNELS / f"{n}.c").read_text(), f"sha-{n}")
             for n in ("dot_float_0", "gather_int_0")]
    plan = plan_vectorize(progs)
    assert len(plan.points) == 2 * (1 + 7 * 5) and len(plan.builds) == 2 * 36
    first = plan.points[0]
    assert first.is_default and first.params == {"vf": None, "if": None} and first.columns["pragma"] is None
    assert plan.builds[first.build_key].spec.defines == {}
    forced = plan.points[1]
    assert forced.params == {"vf": 1, "if": 1}
    assert plan.builds[forced.build_key].spec.defines == {MARKER: pragma(1, 1)}
    assert plan.builds[forced.build_key].columns["template"] == "dot" and first.input_size > 0
    small = plan_vectorize(progs, restrict=parse_space(["vf=1,4", "if=2"], DIMENSIONS))
    assert [p.params for p in small.points[:3]] == [{"vf": None, "if": None}, {"vf": 1, "if": 2}, {"vf": 4, "if": 2}]
    for bad, msg in [("vf=3", "is not a vf"), ("if=32", "is not a if"), ("width=4", "unknown key")]:
        with pytest.raises(UsageError, match=msg):
            parse_space([bad], DIMENSIONS)


def test_unmarked_kernel_is_refused(tmp_path):
    (tmp_path / "plain.c").write_text("int main(void) { return 0; }\n")
    with pytest.raises(UsageError, match=MARKER):
        find_kernels([tmp_path])


@pytest.mark.parametrize("name", ["dot_float_0", "condsum_double_0", "gather_short_1"])
def test_forced_factors_keep_the_checksum(name, cache):
    """Float reductions are reordered by a forced vectorize_width, and still print the baseline's checksum."""
    src = (KERNELS / f"{name}.c").read_text()
    sums = set()
    for define in ({}, {MARKER: pragma(1, 1)}, {MARKER: pragma(16, 4)}):
        res = build(BuildSpec(name=name, source=src, defines=define), cache)
        assert res.status == "ok", res.reason
        run = run_once([res.exe])
        assert run.exit_code == 0
        sums.add(run.stdout.strip())
    assert len(sums) == 1 and next(iter(sums)).startswith("checksum: 0x")


def test_sweep_measures_and_catches_wrong_code(ray_cluster, tmp_path, cache):
    """clang 14 miscompiles a forced VF x IF larger than a loop-carried dependence distance: wrong_output."""
    progs = [KERNELS / "dot_float_0.c", KERNELS / "shift_dep_int_0.c"]
    assert "distance: 16" in progs[1].read_text()
    out = tmp_path / "vec"
    s = collect_vectorize(progs, out, space=["vf=16", "if=1,4"], repeats=1, warmup=0, cache_dir=cache,
                          progress=False)
    assert s.measured == 6 and not s.errors
    df = read_rows(out)
    assert len(df) == 6 and df["point_id"].is_unique
    bad = df[df["status"] == "wrong_output"]
    assert set(zip(bad["program"], bad["vf"], bad["if"])) == {("shift_dep_int_0", 16, 4)}
    assert "differs from the default configuration" in bad["reason"].iloc[0]
    ok = df[df["status"] == "ok"]
    assert len(ok) == 5 and ok["median_s"].gt(0).all()
    assert set(df["template"]) == {"dot", "shift_dep"} and set(df["elem_type"]) == {"float", "int"}
    base = df[df["is_default"]]
    assert base["vf"].isna().all() and base["pragma"].isna().all()
    again = collect_vectorize(progs, out, space=["vf=16", "if=1,4"], repeats=1, warmup=0, cache_dir=cache,
                              progress=False)
    assert again.measured == 0 and again.already_done == 6
    summ = summary_dict(out)
    assert summ["by_status"] == {"ok": 5, "wrong_output": 1}
    assert summ["vectorize"]["wrong_output_templates"] == ["shift_dep"]
    # a time window: everything was measured before now and nothing after
    now = pd.Timestamp.now(tz="UTC").isoformat()
    assert summary_dict(out, until=now)["points"] == 6 and summary_dict(out, since=now)["points"] == 0
    # compacting: a duplicated part file collapses into one file holding each point once
    part = next(out.glob("part-*.parquet"))
    shutil.copy(part, out / "part-zz-copy.parquet")
    assert compact(out) == (2, 6)
    assert len(list(out.glob("part-*.parquet"))) == 1
    again = read_rows(out)
    assert len(again) == 6 and set(again["point_id"]) == set(df["point_id"])


def test_build_only_fills_the_cache_and_times_nothing(ray_cluster, tmp_path):
    """--build-only: every binary built into the cache, no row written; the timed run after it builds nothing."""
    progs = [KERNELS / "dot_float_0.c"]
    out, cache = tmp_path / "vec", tmp_path / "builds"
    s = collect_vectorize(progs, out, space=["vf=2,4", "if=1"], repeats=1, warmup=0, cache_dir=cache,
                          progress=False, build_only=True)
    assert s.builds == 3 and s.not_timed == 3 and s.measured == 0 and not s.errors
    assert len(read_rows(out)) == 0 and any(cache.rglob("*"))
    timed = collect_vectorize(progs, out, space=["vf=2,4", "if=1"], repeats=1, warmup=0, cache_dir=cache,
                              progress=False)
    assert timed.measured == 3 and timed.builds == 3
    assert set(read_rows(out)["build_cached"]) == {True}


def test_cli_rejects_a_bad_space_in_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "mirtune.cli", "collect", "vectorize", "--programs",
                           str(KERNELS / "dot_float_0.c"), "--out", str(tmp_path / "o"), "--space", "vf=3"],
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "is not a vf" in lines[0] and "Traceback" not in proc.stderr
    job = subprocess.run([sys.executable, str(REPO / "jobs" / "collect_vectorize.py"), "--help"],
                         capture_output=True, text=True, timeout=120)
    assert job.returncode == 0 and "--space" in job.stdout

