"""GCC's vectorizer tests as VF/IF programs: the families, the classification of real tests from the installed
gcc-12-source, the rewrite (builds, passes its own check with and without a loop pragma) and a tiny real sweep."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from collectors import gccsrc, gccvect, gccvect_build
from collectors.vectorize import MARKER, collect_vectorize, kernel_meta
from mirtune.commands.apply import apply_loop_pragma
from mirtune.errors import UsageError
from mirtune.measure.build import BuildSpec, build
from mirtune.measure.records import read_rows
from mirtune.measure.sandbox import run_once
from mirtune.measure.vectorize import pragma
from mirtune.tasks.vectorize import SPEC, application, source_family, origin_folder

REPO = Path(__file__).resolve().parents[2]
TESTS = ("no-scevccp-outer-10.c", "vect-tsvc-s000.c")  # two tests that become programs


def test_family_is_the_stem_before_the_first_number():
    cases = {"vect-reduc-2char.c": "vect-reduc", "pr45752.c": "pr", "slp-perm-3.c": "slp-perm",
             "vect-outer-1a.c": "vect-outer", "vect-35-big-array.c": "vect", "bb-slp-pr65935.c": "bb-slp-pr",
             "tsvc/vect-tsvc-s000.c": "vect-tsvc-s", "no-scevccp-outer-10b.c": "no-scevccp-outer",
             "vect_shift_1.c": "vect-shift", "O3-pr39675-2.c": "O",
             "gcc.c-torture/execute/pr23135.c": "torture-pr", "gcc.c-torture/execute/loop-2b.c": "torture-loop",
             "gcc-12.2.0/gcc/testsuite/gcc.dg/torture/pr1.c": "dg-torture-pr", "gcc.dg/tree-ssa/loop-1.c": "tree-ssa-loop",
             "gcc.dg/pr23135.c": "dg-pr", "gcc-12.2.0/gcc/testsuite/gcc.dg/vect/pr45752.c": "pr"}
    assert {name: source_family(name) for name in cases} == cases
    folders = {"gcc-12.2.0/gcc/testsuite/gcc.dg/vect/tsvc/vect-tsvc-s000.c": "gcc.dg/vect", "gcc.dg/pr1.c": "gcc.dg",
               "gcc.dg/torture/pr1.c": "gcc.dg/torture", "gcc.c-torture/execute/loop-2.c": "gcc.c-torture/execute",
               "vect-1.c": None}
    assert {path: origin_folder(path) for path in folders} == folders


def test_rows_of_gcc_programs_are_grouped_by_family():
    origin = "gcc-12-source 12.2.0-14+deb12u1 gcc-12.2.0/gcc/testsuite/gcc.dg/vect/vect-reduc-2char.c"
    assert application({"program": "vect-reduc-2char", "origin": origin, "template": None}) == "gcc:vect-reduc"
    assert SPEC.app_of({"program": "dot_float_0", "origin": float("nan"), "template": "dot"}) == "dot"
    assert application({"program": "mine", "origin": None, "template": None}) == "mine"


def test_mark_loop_splits_a_nested_loop_and_refuses_a_macro():
    text = "void f(int *a) {\n  for (int i = 0; i < 4; i++) for (int j = 0; j < 8; j++) a[j] += i;\n}\n"
    marked = gccvect.mark_loop(text, 2, 31)
    assert marked.splitlines()[2:4] == [f"    {MARKER}", "    for (int j = 0; j < 8; j++) a[j] += i;"]
    with pytest.raises(UsageError, match="no loop keyword"):
        gccvect.mark_loop("#define L for (;;) {}\nvoid g(void) { L; }\n", 2, 16)


@pytest.fixture(scope="module")
def suite() -> gccsrc.Testsuite:
    if gccsrc.package_version() is None:
        pytest.skip(f"{gccsrc.PACKAGE} is not installed (scripts/setup_system.sh installs it as root)")
    return gccsrc.extract()


def _lookup(suite: gccsrc.Testsuite):
    return lambda p: (suite.root / p).read_text(errors="replace") if (suite.root / p).is_file() else None


def test_the_installed_sources_are_the_recorded_ones(suite):
    gccsrc.check_sources(suite)
    recorded = gccsrc.read_sources()
    assert recorded["package"] == "gcc-12-source" and len(recorded["files"]) > 1600


@pytest.mark.parametrize("rel, category", [
    ("no-scevccp-outer-10.c", None),
    ("tsvc/vect-tsvc-s000.c", None),  # its abort() is in tsvc.h, inlined
    ("vect-1.c", "compile-only test"),
    ("bb-slp-30.c", "no abort() check"),
    ("costmodel/ppc/costmodel-vect-31a.c", "costmodel test of another target"),
    ("wrapv-vect-7.c", "option that changes the language's semantics"),
    ("vect-82_64.c", "runs only on another target"),
    ("vect-bic-bitmask-2.c", "includes a file outside gcc.dg/vect/"),
])
def test_classify_real_tests(suite, rel, category):
    rel = f"{gccsrc.VECT}/{rel}"
    skip = gccvect.classify(rel, (suite.root / rel).read_text(), _lookup(suite))
    assert (skip.category if skip else None) == category


def test_the_other_folders_hold_only_their_run_tests_and_skip_options_that_change_the_meaning(suite):
    """gcc.dg's drivers compile a test without dg-do, so only its run tests are extracted; an option that is not an
    optimisation's (-fwrapv, -std=gnu89...) skips a test of the other folders, a steering one or a C99 language
    level does not."""
    for folder in gccsrc.FOLDERS:
        assert any((suite.root / folder).glob("*.c")), folder
    dg = list((suite.root / "gcc.dg").glob("*.c"))
    assert len(dg) > 500 and all(gccsrc.RUN_TEST.search(f.read_text(errors="replace")) for f in dg)
    lookup = _lookup(suite)
    wrapv = "/* { dg-options \"-O2 -fwrapv\" } */\nint main (void) { if (0) abort (); return 0; }\n"
    steer = "/* { dg-options \"-O2 -fno-tree-vectorize --param max-unroll-times=2\" } */\n" + wrapv.split("\n", 1)[1]
    skip = gccvect.classify("gcc.c-torture/execute/mine.c", wrapv, lookup)
    assert skip.category == "option that is not an optimisation's" and skip.detail == "-fwrapv"
    assert gccvect.classify("gcc.c-torture/execute/mine.c", steer, lookup) is None
    assert gccvect.classify("gcc.dg/mine.c", steer, lookup).category == "compile-only test"  # no dg-do: compile
    assert gccvect.classify("gcc.dg/mine.c", "/* { dg-do run } */\n" + steer, lookup) is None
    c99 = "/* { dg-do run } */\n/* { dg-options \"-std=c99 -g -O2\" } */\n" + wrapv.split("\n", 1)[1]
    assert gccvect.classify("gcc.dg/mine.c", c99, lookup) is None  # clang's gnu17 keeps a C99 test's meaning
    gnu89 = gccvect.classify("gcc.dg/mine.c", c99.replace("-std=c99", "-std=gnu89"), lookup)
    assert (gnu89.category, gnu89.detail) == ("option that is not an optimisation's", "-std=gnu89")  # GNU89 inline
    expensive = c99.replace("-std=c99", "-DEXPENSIVE\" { target run_expensive_tests } } */\n/* { dg-foo \"")
    assert gccvect.classify("gcc.dg/mine.c", expensive, lookup) is None  # GCC's default run leaves it out
    assert gccvect.classify("gcc.dg/mine.c", expensive.replace("run_expensive_tests", "x86_64-*-*"), lookup).detail \
        == "-DEXPENSIVE"


def test_effective_targets_of_other_hardware_are_skipped(suite):
    reasons = {str(gccvect.classify(str(f.relative_to(suite.root)), f.read_text(errors="replace"), _lookup(suite)))
               for f in (suite.root / gccsrc.VECT).glob("*.c")}
    assert "effective target of another architecture: arm_v8_2a_i8mm_neon_hw" in reasons
    assert "CPU feature checked at run time: avx512f_runtime" in reasons


@pytest.fixture(scope="module")
def programs(suite, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("gccvect")
    outcomes = gccvect_build.build_all(out, jobs=2, only=list(TESTS), log=lambda line: None)
    assert [o.skip for o in outcomes] == [None, None]
    return out


def test_programs_build_and_pass_their_own_check_with_and_without_a_pragma(programs, tmp_path):
    manifest = json.loads((programs / "manifest.json").read_text())
    assert {m["name"] for m in manifest} == {"no-scevccp-outer-10", "vect-tsvc-s000"}
    for entry in manifest:
        text = (programs / entry["source"]).read_text()
        lines = text.splitlines()
        assert lines[entry["loop_line"] - 2].strip() == MARKER and entry["reps"] >= 1
        assert kernel_meta(text)["origin"].endswith("gcc/testsuite/" + entry["test"])
        assert 0 < entry["loop_share"] <= 1 and entry["llvm_decision"]
        tuned, loops = apply_loop_pragma(text, 8, 2, None)  # `mirtune apply` without --line: the marker
        assert loops == 1 and "#pragma clang loop vectorize_width(8) interleave_count(2)" in tuned
        for source, defines in ((text, {}), (text, {MARKER: pragma(2, 4)}), (tuned, {})):
            res = build(BuildSpec(name=entry["name"], source=source, defines=defines), cache_dir=tmp_path)
            assert res.status == "ok", res.reason
            run = run_once([res.exe, "2"])
            assert run.exit_code == 0 and run.stdout.strip() == gccvect.CHECKSUM


def test_a_tiny_sweep_measures_both_programs(programs, tmp_path):
    out = tmp_path / "sweep"
    summary = collect_vectorize([programs], out, space=["vf=4", "if=1,2"], repeats=1, warmup=0,
                                cache_dir=tmp_path / "cache", progress=False)
    assert summary.measured == 6 and not summary.errors
    df = read_rows(out)
    assert set(df["status"]) == {"ok"}, df[["program", "status", "reason"]]
    assert {application(r) for r in df.to_dict("records")} == {"gcc:no-scevccp-outer", "gcc:vect-tsvc-s"}


def test_a_torture_test_added_to_a_built_folder_runs_its_main_repeatedly_through_exit(programs, tmp_path):
    """loop-2.c ends main with exit (0): its program returns from it to the repeating main (every run checked by
    its abort()). Building it with --only adds it to the folder and keeps the programs already there."""
    out = tmp_path / "grown"
    shutil.copytree(programs, out)
    gccvect_build.build_all(out, only=["gcc.c-torture/execute/loop-2.c"], log=lambda line: None)
    manifest = {m["name"]: m for m in json.loads((out / "manifest.json").read_text())}
    assert set(manifest) == {"no-scevccp-outer-10", "vect-tsvc-s000", "torture-loop-2"}
    assert manifest["torture-loop-2"]["family"] == "torture-loop" and (out / "vect-tsvc-s000.c").is_file()
    text = (out / "torture-loop-2.c").read_text()
    res = build(BuildSpec(name="torture-loop-2", source=text, defines={MARKER: pragma(4, 1)}), cache_dir=tmp_path)
    assert res.status == "ok", res.reason
    run = run_once([res.exe, "3"])
    assert run.exit_code == 0 and run.stdout.strip() == gccvect.CHECKSUM


def test_a_record_rebuilds_the_measured_programs_byte_for_byte(programs, tmp_path):
    """The repeat counts are calibrated by timed runs, so they differ between machines: a record keeps them, and a
    program that comes out other than recorded is a skip with the reason, never a silently different program."""
    record = gccvect_build.read_record(_write(tmp_path / "programs.json.gz",
                                              gccvect_build.record_folder(programs, None)))
    assert set(record["tests"]) == {"gcc.dg/vect/no-scevccp-outer-10.c", "gcc.dg/vect/tsvc/vect-tsvc-s000.c"}
    again = tmp_path / "again"
    outcomes = gccvect_build.build_all(again, jobs=2, only=list(TESTS), recorded=record, log=lambda line: None)
    assert [o.skip for o in outcomes] == [None, None]
    for f in programs.glob("*.c"):
        assert (again / f.name).read_bytes() == f.read_bytes()
    entry = record["tests"]["gcc.dg/vect/no-scevccp-outer-10.c"]
    entry["reps"] += 1
    outcomes = gccvect_build.build_all(tmp_path / "other", jobs=2, only=list(TESTS), recorded=record,
                                       log=lambda line: None)
    assert [o.category for o in outcomes if o.skip] == ["differs from the recorded program"]


def test_a_record_keeps_the_decision_of_the_machine_that_built_it(programs, tmp_path):
    """A program's header names LLVM's own choice for its loop, which depends on the CPU (-march=native): the record
    keeps it, so that the programs measured on one machine are rebuilt byte for byte on another one."""
    record = gccvect_build.read_record(_write(tmp_path / "programs.json.gz",
                                              gccvect_build.record_folder(programs, None)))
    entry = record["tests"]["gcc.dg/vect/tsvc/vect-tsvc-s000.c"]
    here = entry["decisions"]["vect-tsvc-s000"]
    assert here.startswith("vectorized VF=")
    elsewhere = "vectorized VF=2 IF=16"  # what no x86-64 CPU picks for this loop: a machine unlike this one
    text = (programs / "vect-tsvc-s000.c").read_text().replace(f", {here};", f", {elsewhere};", 1)
    entry["decisions"]["vect-tsvc-s000"] = elsewhere
    entry["programs"]["vect-tsvc-s000"] = hashlib.sha256(text.encode()).hexdigest()
    again = tmp_path / "again"
    outcomes = gccvect_build.build_all(again, jobs=2, only=["vect-tsvc-s000.c"], recorded=record,
                                       log=lambda line: None)
    assert [o.skip for o in outcomes] == [None] and (again / "vect-tsvc-s000.c").read_text() == text
    assert json.loads((again / "manifest.json").read_text())[0]["llvm_decision"] == elsewhere


def test_a_preferred_vector_width_builds_as_another_cpu_would(tmp_path):
    """s000 adds to a float array: with 128-bit vectors preferred, LLVM's own choice is 4 lanes on any x86-64 CPU
    (the committed record was built where 512-bit vectors are preferred: 16 lanes)."""
    outcomes = gccvect_build.build_all(tmp_path / "o", jobs=1, only=["vect-tsvc-s000.c"], vector_width=128,
                                       log=lambda line: None)
    assert [o.skip for o in outcomes] == [None] and outcomes[0].llvm_decision.startswith("vectorized VF=4 ")


def test_further_loops_that_matter_get_programs_of_their_own(tmp_path):
    """vect-17.c runs three candidate loops about equally often: --min-share 0.2 makes three programs, each with
    one loop marked, in one family; the record keeps them all."""
    out = tmp_path / "o"
    outcomes = gccvect_build.build_all(out, jobs=1, only=["vect-17.c"], min_share=0.2, log=lambda line: None)
    made = sorted(o.name for o in outcomes if o.skip is None)
    assert len(made) == 3 and made[0] == "vect-17" and all(n.startswith("vect-17.L") for n in made[1:])
    assert {o.family for o in outcomes} == {"vect"} and len({o.loop_line for o in outcomes}) == 3
    for name in made:
        text = (out / f"{name}.c").read_text()
        assert sum(ln.strip() == MARKER for ln in text.splitlines()) == 1
        assert kernel_meta(text)["origin"].endswith("gcc.dg/vect/vect-17.c")
    record = gccvect_build.read_record(_write(tmp_path / "r.json.gz", gccvect_build.record_folder(out, 0.2)))
    assert record["min_share"] == 0.2 and sorted(record["tests"]["gcc.dg/vect/vect-17.c"]["programs"]) == made


def test_the_collection_order_goes_round_robin_over_families_and_keeps_an_earlier_order():
    """Any prefix spans the families; programs added later (further loops) follow what was already ordered, so
    the sittings already measured stay a prefix of the new order."""
    first = [("o/vect-2.c", "vect"), ("o/vect-1.c", "vect"), ("o/pr1.c", "pr"), ("o/slp-1.c", "slp")]
    order = gccvect_build.collection_order(first)
    assert order == ["o/pr1.c", "o/slp-1.c", "o/vect-1.c", "o/vect-2.c"]
    grown = first + [("o/vect-1.L9.c", "vect"), ("o/pr1.L4.c", "pr"), ("o/pr1.L7.c", "pr")]
    again = gccvect_build.collection_order(grown, order + ["o/gone.c"])
    assert again == order + ["o/pr1.L4.c", "o/vect-1.L9.c", "o/pr1.L7.c"]


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_bad_input_is_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "collectors.gccvect_build", "--out", str(tmp_path / "o"),
                           "--jobs", "0"], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 2 and proc.stderr.strip().count("\n") == 0 and "Traceback" not in proc.stderr
    for bad in (["--min-share", "0"], ["--recorded", str(tmp_path / "missing.json.gz")]):
        proc = subprocess.run([sys.executable, "-m", "collectors.gccvect_build", "--out", str(tmp_path / "o"), *bad],
                              capture_output=True, text=True, cwd=REPO, timeout=120)
        assert proc.returncode == 2 and proc.stderr.strip().count("\n") == 0, proc.stderr


def test_the_committed_rows_the_record_and_the_order_agree():
    # every measured program is in the committed record under its name with the same sha256 (so --recorded
    # rebuilds it byte for byte), and the collection order lists exactly the record's programs, once each
    record = gccvect_build.read_record(REPO / "datasets" / "gccvect" / "programs.json.gz")
    recorded = {name: digest for test in record["tests"].values() for name, digest in test["programs"].items()}
    order = (REPO / "datasets" / "vectorize-gcc" / "order.txt").read_text().split()
    assert sorted(Path(p).stem for p in order) == sorted(recorded)
    rows = read_rows(REPO / "datasets" / "vectorize-gcc")
    measured = dict(zip(rows["program"], rows["program_sha256"]))
    assert len(measured) >= 500 and {name: recorded.get(name) for name in measured} == measured
    assert all(set(test["decisions"]) == set(test["programs"]) for test in record["tests"].values())
