"""`mirtune.profile.ompt`: one run under the OMPT tool, with the real clang, libomp and programs, counts what
really happened (1000 short regions are 1000 entries, an uneven static loop is uneven), and every run that gives
no profile (a crash, a hang, a failing exit, a runtime that never starts the tool, one never shut down) is one
ProfileError line. And `mirtune recommend --profile [-- ARGS]`, which prints that profile under the
recommendation: a run that fails, and options that do not apply, are one line on stderr with exit 2; without
--profile nothing runs."""

from __future__ import annotations

import json
import os
import stat
import statistics
from pathlib import Path

import pytest

from mirtune.cli import main
from mirtune.measure.host import logical_cores
from mirtune.paths import REPO_DIR
from mirtune.measure.program import Program
from mirtune.profile.features import PROBE_ROUNDS
from mirtune.profile import ompt
from mirtune.profile.ompt import ProfileError, profile_program, tool_library

SHORT_REGIONS = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  FILE *f = fopen(argv[1], "r");
  int regions = 0;
  if (!f || fscanf(f, "%d", &regions) != 1) return 3;
  long s = 0;
  for (int r = 0; r < regions; r++) {
#pragma omp parallel for reduction(+ : s)
    for (int i = 0; i < 8; i++) s += i;
  }
  printf("%ld\n", s);
  return 0;
}
"""

# the second half of the iterations does 50 times the work of the first: with a static schedule on two threads,
# the second thread works about 50/25.5 = 1.96 times the mean; the balanced loop gives each thread the same work
UNEVEN = r"""
#include <stdio.h>
static double work(int n) { double s = 0; for (int k = 0; k < n; k++) s += k * 0.5; return s; }
int main(void) {
  double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (int i = 0; i < 2000; i++) s += work(i < 1000 ? 200 : 10000);
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (int i = 0; i < 2000; i++) s += work(5000);
  printf("%.1f\n", s);
  return 0;
}
"""

# (a parallel region with an empty body is optimised away: each of these really starts the OpenMP runtime)
REGION = "volatile int x;\nstatic void region(void) {\n#pragma omp parallel for\n  for (int i = 0; i < 4; i++) x = i;\n}\n"
CRASH = "#include <stdlib.h>\n" + REGION + "int main(void) { region(); abort(); }\n"
FAIL = "#include <stdio.h>\n" + REGION + "int main(void) { region(); fprintf(stderr, \"no input\\n\"); return 3; }\n"
HANG = "#include <unistd.h>\n" + REGION + "int main(void) { region(); for (;;) sleep(1); }\n"
NO_SHUTDOWN = "#include <unistd.h>\n" + REGION + "int main(void) { region(); _exit(0); }\n"
SERIAL = "#include <stdio.h>\nint main(void) { printf(\"serial\\n\"); return 0; }\n"
# answers with its team size: right on all cores, wrong on one thread
TEAM_SIZE = ("#include <stdio.h>\n#include <omp.h>\nint main(void) {\n  int n = 0;\n#pragma omp parallel\n"
             "#pragma omp single\n  n = omp_get_num_threads();\n  printf(\"%d\\n\", n);\n  return 0;\n}\n")


def own_lines(err: str) -> list[str]:
    """stderr's lines, less the one that says a run waits for another process's timed run (tests run side by side)."""
    return [ln for ln in err.splitlines() if not ln.startswith("mirtune: waiting for another timed run")]


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_thousand_short_regions_are_a_thousand_entries(tmp_path):
    src = write(tmp_path, "short.c", SHORT_REGIONS)
    count = write(tmp_path, "count.txt", "1000\n")
    prof = profile_program(Program(src, args=(str(count),), timeout_s=60))
    f = prof.features
    assert f.region_entries == 1000 and f.regions == 1 and f.loops == 1
    region = next(s for s in prof.sites if s.kind == "region")
    loop = next(s for s in prof.sites if s.kind == "loop")
    assert region.instances == 1000 and region.nested == 0 and region.where.startswith("prog+")
    assert region.function == "main" and loop.function.startswith(".omp_outlined.")  # from the symbol table
    assert loop.instances == 1000 and loop.iterations == 8000 and f.iterations_per_loop == 8
    assert prof.threads == logical_cores() and f.threads == pytest.approx(logical_cores())
    assert f.region_entries_per_s == pytest.approx(1000 / f.run_s)
    assert 0 < f.time_per_region_s < f.run_s / 1000 and 0 < f.parallel_share <= 1
    # the argument named a file: it was copied into the run's private folder, as `tune` does
    assert any("count.txt" in n for n in prof.notes)
    n = logical_cores()
    if n > 1:  # the probes, two rounds: a plain run on all cores, one on one thread, one on all cores with guided,1
        assert list(prof.probe_s) == [f"{n} threads", "1 thread", f"{n} threads, guided,1"]
        assert all(len(ts) == PROBE_ROUNDS and min(ts) > 0 for ts in prof.probe_s.values())
        gm = {what: statistics.geometric_mean(ts) for what, ts in prof.probe_s.items()}
        assert f.one_thread_speedup == pytest.approx(gm[f"{n} threads"] / gm["1 thread"])
        assert f.guided_speedup == pytest.approx(gm[f"{n} threads"] / gm[f"{n} threads, guided,1"])
    else:
        assert prof.probe_s == {} and f.one_thread_speedup is None and f.guided_speedup is None


@pytest.mark.skipif(logical_cores() < 2, reason="the probes compare one thread with several")
def test_a_probe_run_that_answers_otherwise_on_one_thread_is_one_line(tmp_path):
    with pytest.raises(ProfileError) as err:
        profile_program(Program(write(tmp_path, "team.c", TEAM_SIZE), timeout_s=60))
    line = err.value.line()
    assert "the probe's run on 1 thread ended as wrong_output" in line and "\n" not in line


# prints its own run time first, as Velvet's progress lines do, then a stable answer
CLOCK = ("#include <stdio.h>\n#include <omp.h>\nint main(void) {\n  double t0 = omp_get_wtime(), s = 0;\n"
         "#pragma omp parallel for reduction(+ : s)\n  for (int i = 0; i < 4000000; i++) s += i % 7;\n"
         "  printf(\"[%.9f] done\\n\", omp_get_wtime() - t0);\n  printf(\"%.0f\\n\", s);\n  return 0;\n}\n")


@pytest.mark.skipif(logical_cores() < 2, reason="the probes compare one thread with several")
def test_a_line_that_changes_between_default_runs_is_left_out_of_the_probes_check(tmp_path):
    """A program that prints its run time: the probes' answers are checked against the default configuration's
    runs as `tune` checks them, its clock line left out (before, the first probe failed as wrong_output)."""
    prof = profile_program(Program(write(tmp_path, "clock.c", CLOCK), timeout_s=60))
    assert list(prof.probe_s) == [f"{logical_cores()} threads", "1 thread", f"{logical_cores()} threads, guided,1"]
    assert all(len(ts) == PROBE_ROUNDS for ts in prof.probe_s.values())


@pytest.mark.skipif(logical_cores() < 2, reason="imbalance needs two threads")
def test_an_uneven_static_loop_shows_its_imbalance(tmp_path):
    prof = profile_program(Program(write(tmp_path, "uneven.c", UNEVEN), timeout_s=60))
    loops = sorted((s for s in prof.sites if s.kind == "loop"), key=lambda s: s.where)
    assert len(loops) == 2 and all(s.iterations == 2000 for s in loops)
    uneven, even = loops  # in source order
    assert uneven.imbalance > 1.6, uneven
    assert even.imbalance < 1.3 and even.imbalance < uneven.imbalance - 0.3, even
    regions = sorted((s for s in prof.sites if s.kind == "region"), key=lambda s: s.where)
    assert regions[0].imbalance > 1.6 and len(regions[0].work_s) == 2


def test_a_program_that_runs_no_openmp_construct_has_an_empty_profile(tmp_path):
    prof = profile_program(Program(write(tmp_path, "serial.c", SERIAL), timeout_s=60))
    assert prof.features.region_entries == 0 and prof.sites == [] and prof.features.parallel_share == 0
    assert any("ran no OpenMP construct" in n for n in prof.notes)


@pytest.mark.parametrize("name,text,timeout,expected", [
    ("crash.c", CRASH, 60, "ended as crash: killed by SIGABRT"),
    ("fail.c", FAIL, 60, "ended as crash: exit status 3: no input"),
    ("hang.c", HANG, 1, "ended as timeout: exceeded 1s"),
    ("noshutdown.c", NO_SHUTDOWN, 60, "without shutting the OpenMP runtime down"),
])
def test_a_run_without_a_profile_is_one_line(tmp_path, name, text, timeout, expected):
    with pytest.raises(ProfileError) as err:
        profile_program(Program(write(tmp_path, name, text), timeout_s=timeout))
    line = err.value.line()
    assert expected in line and "\n" not in line and line.startswith(str(tmp_path / name))


def test_a_runtime_that_never_starts_the_tool_is_named(tmp_path, monkeypatch):
    # OMP_TOOL=disabled makes libomp behave as one without OMPT: it never loads the tool, for the probe neither
    monkeypatch.setattr(ompt, "tool_env", lambda lib, out: {"OMP_TOOL": "disabled", "OMP_TOOL_LIBRARIES": str(lib),
                                                            ompt.OUT_VARIABLE: str(out)})
    ompt._runtime_starts_tools.cache_clear()
    try:
        with pytest.raises(ProfileError, match="this libomp has no OMPT support"):
            profile_program(Program(write(tmp_path, "short.c", SHORT_REGIONS),
                                    args=(str(write(tmp_path, "n.txt", "3")),), timeout_s=60))
    finally:
        ompt._runtime_starts_tools.cache_clear()


def test_the_tool_is_built_once_per_source_and_never_loaded_when_others_can_change_it(tmp_path):
    lib = tool_library(str(tmp_path))
    assert lib.parent == tmp_path / "ompt" and lib.name.startswith("libmirtune-ompt-")
    assert stat.S_IMODE(os.stat(lib.parent).st_mode) == 0o700
    built = lib.stat().st_mtime_ns
    tool_library.cache_clear()
    assert tool_library(str(tmp_path)) == lib and lib.stat().st_mtime_ns == built  # found, not rebuilt
    os.chmod(lib, 0o666)  # another user could have changed it: rebuilt before use
    tool_library.cache_clear()
    assert tool_library(str(tmp_path)) == lib and stat.S_IMODE(lib.stat().st_mode) & 0o022 == 0
    tool_library.cache_clear()


# --------------------------------------------------------------------------------------------- recommend --profile


@pytest.fixture()
def short(tmp_path: Path) -> tuple[Path, Path]:
    return write(tmp_path, "short.c", SHORT_REGIONS), write(tmp_path, "count.txt", "1000\n")


def test_profile_runs_the_program_once_with_its_arguments(short, capsys):
    src, count = short
    assert main(["recommend", str(src), "--task", "openmp", "--profile", "--", str(count)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"{src}: openmp: ") and own_lines(err) == []
    assert "profile: ran the program once under the OMPT tool" in out
    assert "1 site(s), 1000 entries" in out and "8.0 iterations per instance" in out
    assert "note: answered from the IR and the profiled run" in out  # the shipped profile predictor
    assert ("probes (2 interleaved rounds of plain runs): " in out) == (logical_cores() > 1)


def test_probe_rounds_sets_how_often_each_probe_runs(short, capsys):
    src, count = short
    assert main(["recommend", str(src), "--task", "openmp", "--profile", "--probe-rounds", "1", "--json", "--",
                 str(count)]) == 0
    probes = json.loads(capsys.readouterr().out)["profile"]["probe_s"]
    assert all(len(ts) == 1 for ts in probes.values()) and len(probes) == (3 if logical_cores() > 1 else 0)
    assert main(["recommend", str(src), "--task", "openmp", "--probe-rounds", "1"]) == 2  # without --profile
    assert "--probe-rounds: these say how --profile runs the program" in capsys.readouterr().err
    assert main(["recommend", str(src), "--task", "openmp", "--profile", "--probe-rounds", "-1", "--",
                 str(count)]) == 2
    assert "--probe-rounds must be >= 0" in capsys.readouterr().err


def test_a_predictor_that_reads_the_ir_alone_says_the_profile_does_not_change_its_answer(short, capsys):
    src, count = short
    static = REPO_DIR / "mirtune" / "assets" / "heads" / "openmp"
    assert main(["recommend", str(src), "--task", "openmp", "--heads", str(static), "--profile", "--",
                 str(count)]) == 0
    assert "the profile below does not change the answer" in capsys.readouterr().out


def test_profile_in_json(short, capsys):
    src, count = short
    assert main(["recommend", str(src), "--task", "openmp", "--profile", "--json", "--timeout", "60", "--",
                 str(count)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["profile"]["features"]["region_entries"] == 1000 and out["label"]


def test_without_profile_nothing_runs(short, capsys, monkeypatch):
    import mirtune.profile.ompt as ompt

    monkeypatch.setattr(ompt, "profile_program", lambda *a, **k: pytest.fail("ran the program"))
    src, _ = short
    assert main(["recommend", str(src), "--task", "openmp"]) == 0
    assert "profile:" not in capsys.readouterr().out


def test_a_crash_under_profile_is_one_line_and_recommend_still_answers_without_it(tmp_path, capsys):
    src = write(tmp_path, "crash.c", CRASH)
    assert main(["recommend", str(src), "--task", "openmp", "--profile"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(own_lines(err)) == 1
    assert own_lines(err)[0].startswith(f"mirtune recommend: {src}: --profile: the profiling run ended as crash: "
                                        "killed by SIGABRT")
    assert main(["recommend", str(src), "--task", "openmp"]) == 0
    assert capsys.readouterr().out.startswith(f"{src}: openmp: ")


@pytest.mark.parametrize("argv,expected", [
    (["--task", "vectorize", "--profile"], "--profile applies to --task openmp"),
    (["--task", "openmp", "--input", "x.txt"], "--input: these say how --profile runs the program; add --profile"),
    (["--task", "openmp", "--", "100"], "'-- ARGS': these say how --profile runs the program"),
    (["--task", "openmp", "--profile", "--check", "bogus"], "--check: unknown check 'bogus'"),
])
def test_options_that_do_not_apply_are_one_line(short, capsys, argv, expected):
    src, _ = short
    assert main(["recommend", str(src), *argv]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and expected in err, err


def test_profile_needs_one_source_it_can_run(short, tmp_path, capsys):
    src, _ = short
    ir = write(tmp_path, "k.ll", "define i32 @f() {\n  ret i32 0\n}\n")
    assert main(["recommend", str(ir), "--task", "openmp", "--profile"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "needs its C/C++ source" in err and str(ir) in err
    assert main(["recommend", str(src), str(src), "--task", "openmp", "--profile"]) == 2
    assert "--profile runs one program" in capsys.readouterr().err


def test_profile_of_the_files_of_one_program(three_files, capsys):
    """Issue 34: --together --profile builds main.c, solver.c and util.c into one binary and profiles its run."""
    files = [str(three_files[n]) for n in ("main.c", "solver.c", "util.c")]
    assert main(["recommend", *files, "--together", "--include", str(three_files["include"]), "--task", "openmp",
                 "--profile", "--timeout", "60", "--", "20000"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith(f"{' + '.join(files)}: openmp: ") and own_lines(err) == []
    assert "parallel regions: 1 site(s), 1 entries" in out and "worksharing loops: 1 site(s)" in out
