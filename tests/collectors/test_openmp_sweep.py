"""The OpenMP sweep: its space, its plan, its command line, and programs that misbehave becoming rows."""

from __future__ import annotations

import json

import subprocess
import sys
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from collectors.openmp import Program, collect_openmp, find_programs, parse_sizes, plan_openmp
from collectors.summarize import summarize
from mirtune.errors import UsageError
from mirtune.measure.openmp import DIMENSIONS, thread_counts
from mirtune.measure.records import read_rows
from mirtune.measure.space import parse_space

REPO = Path(__file__).resolve().parents[2]
OPENMP_PROGRAMS = REPO / "collectors" / "programs" / "openmp"
NO_RAPL = "/nonexistent/powercap"  # never touch a real power limit from a test

LOOP = """
#include <stdio.h>
int main(void) {
    double s = 0;
#pragma omp parallel for reduction(+:s)
    for (int i = 0; i < 1000; i++) s += i;
#pragma omp parallel for schedule(static, 4)
    for (int i = 0; i < 10; i++) ;
    printf("checksum: %.1f\\n", s);
    return 0;
}
"""


def _prog(name: str, text: str | None = None) -> Program:
    return Program(name, f"/src/{name}.c", text or f"/* {name} */{LOOP}", f"sha-{name}")


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("openmp-build-cache")


def test_space_restrictions_parse():
    assert parse_space(["threads=1,2", "schedule=static", "chunk=1,64"], DIMENSIONS) == {
        "threads": (1, 2), "schedule": ("static",), "chunk": (1, 64)}
    assert parse_space("threads=1,2 schedule=Dynamic,guided power=75", DIMENSIONS) == {
        "threads": (1, 2), "schedule": ("dynamic", "guided"), "power": (75.0,)}
    assert parse_space(None, DIMENSIONS) == {}
    for bad, message in [("thread=1", "unknown key 'thread'"), ("threads=two", "'two' is not an integer"),
                         ("schedule=auto", "is not a schedule"), ("chunk=0", "must be positive"),
                         ("chunk=", "no values"), ("threads", "expected key=value"),
                         ("power=x", "not a number"),
                         # issue 33 item 7: the limits `apply` enforces, for every command
                         ("threads=99999999999999999999", "threads must be at most 65536"),
                         ("chunk=4294967296", "chunk must be at most 2147483647"),
                         ("power=inf", "not a finite number"), ("power=nan", "not a finite number")]:
        with pytest.raises(UsageError, match=message):
            parse_space([bad], DIMENSIONS)
    with pytest.raises(UsageError, match="given twice"):
        parse_space(["threads=1", "threads=2"], DIMENSIONS)
    assert parse_sizes("1,2") == (1, 2) and parse_sizes("2") == (2,)
    for bad in ("0", "a", ","):
        with pytest.raises(UsageError):
            parse_sizes(bad)


def test_thread_counts_are_clipped_to_the_cores():
    assert thread_counts(2) == (1, 2)
    assert thread_counts(1) == (1,)
    assert thread_counts(12) == (1, 4, 8, 12)
    assert thread_counts(64) == (1, 4, 8, 16, 32, 64)
    assert thread_counts(96) == (1, 4, 8, 16, 32, 64, 96)


def test_plan_is_table_4_plus_the_default():
    pytest.importorskip("mirtune.source.openmp")
    plan = plan_openmp([_prog("a"), _prog("b")], cores=2, sizes=(1, 2), power_reason="no RAPL here")
    assert len(plan.points) == 2 * 2 * (1 + 2 * 3 * 7) and len(plan.builds) == 4
    assert plan.power_kind is None and plan.notes == ["power dimension dropped: no RAPL here"]
    first = plan.points[0]
    assert first.is_default and first.env == {"OMP_NUM_THREADS": 2} and first.power_w is None
    assert first.params == {"power_w": None, "threads": 2, "schedule": "static", "chunk": None}
    assert first.columns == {"omp_schedule": None, "power_reason": "no RAPL here", "variant": None}
    second = plan.points[1]
    assert second.env == {"OMP_NUM_THREADS": 1, "OMP_SCHEDULE": "static,1"} and not second.is_default
    ids = [p.point_id for p in plan.points]
    assert len(set(ids)) == len(ids)
    again = plan_openmp([_prog("a"), _prog("b")], cores=2, sizes=(1, 2), power_reason="no RAPL here")
    assert [p.point_id for p in again.points] == ids  # stable across runs

    job = plan.builds[first.build_key]
    assert "schedule(runtime)" in job.spec.source and job.spec.defines == {"MIRTUNE_SIZE": "1"} and job.spec.openmp
    assert job.columns["tunable_loops"] == 1 and job.columns["fixed_loops"] == 1

    powered = plan_openmp([_prog("a")], cores=8, sizes=(1,), restrict={"schedule": ("guided",), "chunk": (8,)})
    assert powered.power_kind == "cpu"
    non_default = [p for p in powered.points if not p.is_default]
    assert len(non_default) == 4 * 3  # power 75/100/120/150 x threads 1/4/8
    assert {p.power_w for p in non_default} == {75.0, 100.0, 120.0, 150.0}
    assert {p.params["threads"] for p in non_default} == {1, 4, 8}

    small = plan_openmp([_prog("a")], cores=2, sizes=(1,), restrict={"threads": (1,), "chunk": (64,)},
                        power_reason="x")
    assert [p.env.get("OMP_SCHEDULE") for p in small.points] == [None, "static,64", "dynamic,64", "guided,64"]


def test_find_programs(tmp_path):
    (tmp_path / "a.c").write_text(LOOP)
    (tmp_path / "notes.txt").write_text("not a program")
    (tmp_path / "empty").mkdir()
    found = find_programs([tmp_path])
    assert [p.name for p in found] == ["a"] and found[0].source == LOOP
    with pytest.raises(UsageError, match="no such file"):
        find_programs([tmp_path / "missing"])
    with pytest.raises(UsageError, match="no C/C.. programs found"):
        find_programs([tmp_path / "empty"])
    with pytest.raises(UsageError, match="not a C/C.. source"):
        find_programs([tmp_path / "notes.txt"])
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "a.c").write_text(LOOP)
    with pytest.raises(UsageError, match="two programs named 'a'"):
        find_programs([tmp_path, tmp_path / "other"])


def _cli(argv: list[str], monkeypatch) -> int:
    import mirtune.cli as cli

    if "collect" not in cli.COMMANDS:
        monkeypatch.setattr(cli, "COMMANDS", cli.COMMANDS + ("collect",))
    return cli.main(argv)


def test_cli_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys):
    (tmp_path / "a.c").write_text(LOOP)
    (tmp_path / "empty").mkdir()
    out = str(tmp_path / "out")
    cases = [
        (["--programs", str(tmp_path / "missing")], "no such file or directory"),
        (["--programs", str(tmp_path / "empty")], "no C/C++ programs found"),
        (["--programs", str(tmp_path), "--space", "threads=1", "color=red"], "unknown key 'color'"),
        (["--programs", str(tmp_path), "--space", "schedule=fastest"], "is not a schedule"),
        (["--programs", str(tmp_path), "--sizes", "0"], "--sizes"),
    ]
    for extra, message in cases:
        assert _cli(["collect", "openmp", "--out", out, *extra], monkeypatch) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err and err.startswith("mirtune collect: "), err
    assert not Path(out).exists()


def test_job_script_reports_bad_input_in_one_line(tmp_path):
    proc = subprocess.run([sys.executable, str(REPO / "jobs" / "collect_openmp.py"), "--programs",
                           str(tmp_path / "missing"), "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "no such file" in proc.stderr


MISBEHAVING = {
    "good": "",
    # hangs whenever the schedule is dynamic
    "hangs": 'const char *sched = getenv("OMP_SCHEDULE"); '
             'if (sched && strstr(sched, "dynamic")) for (;;) pause();',
    # aborts with one thread
    "crashes": "if (omp_get_max_threads() == 1) abort();",
    # prints a different checksum with one thread
    "misprints": "if (omp_get_max_threads() == 1) { printf(\"checksum: 42\\n\"); return 0; }",
    # never prints a checksum: not even the default configuration can be checked
    "silent": "return 0;",
    # does not compile
    "broken": "this is not C;",
}


def _misbehaving(folder: Path, name: str, prologue: str) -> None:
    (folder / f"{name}.c").write_text(textwrap.dedent(f"""\
        /* {name} */
        #include <omp.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <unistd.h>
        int main(void)
        {{
            {prologue}
            long s = 0;
        #pragma omp parallel for reduction(+:s)
            for (long i = 0; i < 1000 * MIRTUNE_SIZE; i++)
                s += i % 5;
            printf("checksum: %ld\\n", s);
            return 0;
        }}
    """))


def test_misbehaving_programs_become_rows_and_the_sweep_goes_on(ray_cluster, tmp_path, cache):
    progs = tmp_path / "progs"
    progs.mkdir()
    for name, prologue in MISBEHAVING.items():
        _misbehaving(progs, name, prologue)
    out = tmp_path / "out"
    s = collect_openmp([progs], out, space=["threads=1,2", "schedule=static,dynamic", "chunk=4"], sizes="1",
                       repeats=1, warmup=0, timeout=1.5, cache_dir=cache, rapl_root=NO_RAPL,
                       progress=False)
    assert not s.errors and s.measured == 6 * 5
    rows = read_rows(out)
    got = {name: Counter(g["status"]) for name, g in rows.groupby("program")}
    assert got == {
        "good": Counter(ok=5),
        "hangs": Counter(ok=3, timeout=2),
        "crashes": Counter(ok=3, crash=2),
        "misprints": Counter(ok=3, wrong_output=2),
        "silent": Counter(wrong_output=1, unsupported=4),
        "broken": Counter(build_failed=5),
    }

    def reasons(program: str, status: str) -> set[str]:
        sel = rows[(rows["program"] == program) & (rows["status"] == status)]
        return set(sel["reason"])

    assert reasons("hangs", "timeout") == {"exceeded 1.5s; process group killed"}
    assert set(rows[(rows["program"] == "hangs") & (rows["status"] == "timeout")]["omp_schedule"]) == {"dynamic,4"}
    assert reasons("crashes", "crash") == {"killed by SIGABRT"}
    assert set(rows[rows["status"] == "crash"]["threads"]) == {1}
    assert all("differs from the default configuration" in r for r in reasons("misprints", "wrong_output"))
    assert reasons("silent", "unsupported") == {"no reference checksum: the default configuration ended as "
                                                "wrong_output"}
    assert all("this is not C" in r or "error" in r for r in reasons("broken", "build_failed"))
    assert (progs / "good.c").read_text().count("schedule(runtime)") == 0  # the user's file is untouched


def test_a_real_benchmark_program_through_the_cli(ray_cluster, tmp_path, cache, monkeypatch, capsys):
    program = OPENMP_PROGRAMS / "mandelbrot.c"
    if not program.exists():
        pytest.skip("collectors/programs/openmp/mandelbrot.c is not there")
    out = tmp_path / "out"
    monkeypatch.setenv("MIRTUNE_POWERCAP_ROOT", NO_RAPL)
    rc = _cli(["collect", "openmp", "--programs", str(program), "--out", str(out), "--space", "threads=1",
               "schedule=dynamic", "chunk=64", "--sizes", "1", "--repeats", "1", "--warmup", "0",
               "--build-dir", str(cache), "--no-progress"], monkeypatch)
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert "2 point(s) written" in captured.out
    rows = read_rows(out)
    assert list(rows["status"]) == ["ok", "ok"], list(rows["reason"])
    assert rows["tunable_loops"].min() >= 1
    assert rows["checksum"].nunique() == 1
    assert (rows["power_reason"] == f"no RAPL powercap tree at {NO_RAPL}").all()


ORDINARY = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s FILE SCALE\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 1; }
    long n; if (fscanf(f, "%ld", &n) != 1) return 1;
    fclose(f);
    double scale = atof(argv[2]), s = 0;
    const char *sched = getenv("OMP_SCHEDULE");
    #pragma omp parallel for reduction(+:s)
    for (long i = 0; i < n; i++) s += scale * (double)(i % 9);
    if (sched && strstr(sched, "dynamic")) s += 1.0;  /* a wrong answer under one schedule */
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t);
    printf("result: %.4f\nran at %ld.%09ld\n", s, (long)t.tv_sec, (long)t.tv_nsec);
    return 0;
}
"""


def test_an_ordinary_program_with_arguments_and_an_input_file(ray_cluster, tmp_path, cache, monkeypatch, capsys):
    """No MIRTUNE_SIZE, no checksum line: the arguments after `--`, the input copied in, the whole stdout
    compared (the line with the time left out because it changes between the default's own runs)."""
    src = tmp_path / "plain.c"
    src.write_text(ORDINARY)
    data = tmp_path / "n.txt"
    data.write_text("50000\n")
    out = tmp_path / "out"
    monkeypatch.setenv("MIRTUNE_POWERCAP_ROOT", NO_RAPL)
    rc = _cli(["collect", "openmp", "--programs", str(src), "--out", str(out), "--space", "threads=2",
               "schedule=static,dynamic", "chunk=8", "--repeats", "2", "--warmup", "0", "--input", str(data),
               "--build-dir", str(cache), "--no-progress", "--", "n.txt", "0.5"], monkeypatch)
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    rows = read_rows(out).set_index("omp_schedule", drop=False)
    assert len(rows) == 3 and (rows["input_size"] == 0).all()
    assert rows.loc["static,8", "status"] == "ok"
    assert rows.loc["dynamic,8", "status"] == "wrong_output" and "line 1" in rows.loc["dynamic,8", "reason"]
    default = rows[rows["is_default"]].iloc[0]
    assert default["status"] == "ok" and json.loads(default["checksum"]) == ["result: 99995.0000", None]
    assert json.loads(default["variant"])["args"] == ["n.txt", "0.5"]  # how it was run is in every row


def test_a_manifest_sweeps_every_run_of_every_program(ray_cluster, tmp_path, cache, monkeypatch, capsys):
    """`--manifest`: each argument vector of a program is its own group (variant), with its inputs copied in;
    --input beside --manifest is refused in one line."""
    (tmp_path / "plain.c").write_text(ORDINARY.replace('strstr(sched, "dynamic")', 'strstr(sched, "never")'))
    (tmp_path / "n.txt").write_text("50000\n")
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps([{"source": "plain.c", "inputs": ["n.txt"],
                                     "runs": [["n.txt", "0.5"], ["n.txt", "2"]]}]))
    out = tmp_path / "out"
    monkeypatch.setenv("MIRTUNE_POWERCAP_ROOT", NO_RAPL)
    # two runs per point, so that the default's own runs show its clock line to be volatile (with one, whether
    # that line matches within rtol depended on how long the machine had been up)
    common = ["collect", "openmp", "--manifest", str(manifest), "--out", str(out), "--space", "threads=2",
              "schedule=dynamic", "chunk=8", "--repeats", "2", "--warmup", "0", "--build-dir", str(cache),
              "--no-progress"]
    assert _cli(common + ["--input", str(tmp_path / "n.txt")], monkeypatch) == 2
    assert "drop --input" in capsys.readouterr().err and not out.exists()
    rc = _cli(common, monkeypatch)
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert "4 point(s) written" in captured.out and "[run 2/2] plain n.txt 2" in captured.out
    rows = read_rows(out)
    assert list(rows["status"]) == ["ok"] * 4
    by_args = {tuple(json.loads(v)["args"]): n for v, n in rows["variant"].value_counts().items()}
    assert by_args == {("n.txt", "0.5"): 2, ("n.txt", "2"): 2}
    assert sorted(json.loads(c)[0] for c in rows[rows["is_default"]]["checksum"]) == [
        "result: 399980.0000", "result: 99995.0000"]
    assert json.loads(summarize(out, as_json=True)[0])["openmp"]["groups"] == 2  # one per argument vector

def test_power_dimension_on_a_fake_powercap_tree(ray_cluster, tmp_path, cache):
    root = tmp_path / "powercap"
    zone = root / "intel-rapl:0"
    zone.mkdir(parents=True)
    (zone / "name").write_text("package-0\n")
    (zone / "constraint_0_power_limit_uw").write_text("150000000\n")
    (zone / "constraint_0_max_power_uw").write_text("200000000\n")
    progs = tmp_path / "progs"
    progs.mkdir()
    _misbehaving(progs, "good", "")
    out = tmp_path / "out"
    s = collect_openmp([progs], out, space=["power=75,250", "threads=1", "schedule=static", "chunk=8"],
                       sizes="1", repeats=1, warmup=0, cache_dir=cache, rapl_root=str(root), progress=False)
    assert not s.errors and not s.notes
    rows = read_rows(out).sort_values("power_w", na_position="first")
    assert list(rows["status"]) == ["ok", "ok", "unsupported"]
    assert rows["power_w"].isna().iloc[0] and list(rows["power_w"].iloc[1:]) == [75.0, 250.0]
    assert "outside" in rows["reason"].iloc[2] and rows["power_reason"].isna().all()
    assert (zone / "constraint_0_power_limit_uw").read_text().strip() == "150000000"  # restored


def test_asking_for_power_where_it_cannot_be_set_is_a_usage_error(ray_cluster, tmp_path):
    (tmp_path / "a.c").write_text(LOOP)
    with pytest.raises(UsageError, match="power limits cannot be set here: no RAPL powercap tree"):
        collect_openmp([tmp_path], tmp_path / "out", space=["power=100"], rapl_root=NO_RAPL, progress=False)


def test_a_program_of_three_files(ray_cluster, three_files, tmp_path, cache, monkeypatch, capsys):
    """Issue 34: `--programs main.c solver.c util.c --together --include include/` sweeps ONE program, built from
    its three files linked; every point ok, which solver.c's own check allows only when OMP_SCHEDULE reached its
    loop (the rewrite went into the second file). A manifest says the same with "source" as a list."""
    files = [str(three_files[n]) for n in ("main.c", "solver.c", "util.c")]
    monkeypatch.setenv("MIRTUNE_POWERCAP_ROOT", NO_RAPL)
    space = ["--space", "threads=2", "schedule=static", "chunk=1,64", "--repeats", "1", "--warmup", "0",
             "--build-dir", str(cache), "--no-progress"]
    out = tmp_path / "out"
    rc = _cli(["collect", "openmp", "--programs", *files, "--together", "--include", str(three_files["include"]),
               "--out", str(out), *space, "--", "20000"], monkeypatch)
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    rows = read_rows(out)
    assert len(rows) == 3 and set(rows["status"]) == {"ok"} and set(rows["program"]) == {"main"}
    assert set(rows["tunable_loops"]) == {1} and set(rows["omp_schedule"].dropna()) == {"static,1", "static,64"}

    manifest = three_files["main.c"].parent / "manifest.json"
    manifest.write_text(json.dumps([{"source": ["main.c", "solver.c", "util.c"], "include": ["include"],
                                     "args": ["20000"]}]))
    by_manifest = tmp_path / "by-manifest"
    rc = _cli(["collect", "openmp", "--manifest", str(manifest), "--out", str(by_manifest), *space], monkeypatch)
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    again = read_rows(by_manifest)
    assert set(again["status"]) == {"ok"} and sorted(again["point_id"]) == sorted(rows["point_id"])


def test_bad_programs_of_several_files_are_one_line(three_files, tmp_path, monkeypatch, capsys):
    files = [str(three_files[n]) for n in ("main.c", "solver.c", "util.c")]
    common = ["collect", "openmp", "--out", str(tmp_path / "out"), "--no-progress"]
    for argv, expected in ((["--programs", files[0], str(tmp_path / "gone.c"), "--together"],
                            f"{tmp_path / 'gone.c'}: no such file"),
                           (["--programs", files[0], files[0], "--together"], f"{files[0]}: given twice"),
                           (["--programs", *files, "--together", "--include", str(tmp_path / "none")],
                            f"{tmp_path / 'none'}: --include: no such folder"),
                           (["--manifest", str(tmp_path / "m.json"), "--together"], "drop --together and --include")):
        assert _cli(common + argv, monkeypatch) == 2
        err = capsys.readouterr().err.strip()
        assert expected in err and len(err.splitlines()) == 1, err
