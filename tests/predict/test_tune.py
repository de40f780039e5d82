"""mirtune tune on real programs: real clang, real runs, a real Ray cluster (the session's), real Ray Tune."""

from __future__ import annotations

import textwrap
import time
from pathlib import Path

import pytest

from mirtune.errors import MirtuneError, UsageError
from mirtune.measure.check import OutputCheck
from mirtune.measure.records import read_parts, read_rows
from mirtune.measure.program import Program
from mirtune.predict.search import all_configs
from mirtune.predict.tune import tune_program
from mirtune.tasks import registry

# Each configuration's fault is chosen by the program itself from OMP_SCHEDULE: dynamic crashes, guided hangs,
# static,8 answers wrongly; static,1 (and the default, which sets no OMP_SCHEDULE) are right.
FAULTY = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000;
    const char *s = getenv("OMP_SCHEDULE");
    double sum = 0;
    #pragma omp parallel for reduction(+:sum)
    for (long i = 0; i < n; i++) sum += 0.5 * (double)i;
    if (s && strstr(s, "dynamic")) abort();
    if (s && strstr(s, "guided")) sleep(100);
    if (s && strcmp(s, "static,8") == 0) sum *= 1.01;
    printf("n = %ld\nsum = %.6e\n", n, sum);
    return 0;
}
"""

READS_INPUT = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: %s FILE REPEAT\n", argv[0]); return 2; }
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 1; }
    long m; if (fscanf(f, "%ld", &m) != 1) return 1;
    fclose(f);
    int rep = atoi(argv[2]);
    double *a = malloc(sizeof(double) * m), total = 0;
    struct timespec t0, t1; clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int r = 0; r < rep; r++) {
        #pragma omp parallel for
        for (long i = 0; i < m; i++) a[i] = (double)(i % 7) * (r + 1);
        double s = 0;
        #pragma omp parallel for reduction(+:s)
        for (long i = 0; i < m; i++) s += a[i];
        total += s;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    printf("total %.8e\n", total);
    /* nanoseconds: two runs printing the same time (as microseconds did once on CI) would not be volatile */
    printf("took %.9f s\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
    free(a);
    return 0;
}
"""


def _write(folder: Path, name: str, text: str) -> Path:
    p = folder / name
    p.write_text(textwrap.dedent(text))
    return p


def test_faults_score_zero_and_never_win(ray_cluster, tmp_path):
    src = _write(tmp_path, "faulty.c", FAULTY)
    out = tmp_path / "out"
    space = ["chunk=1,8", "threads=2"]
    n = len(all_configs(registry.get("openmp").tune_space(2, space)))
    res = tune_program(Program(src, args=("20000",), timeout_s=1.0), "openmp", budget=n + 1, out_dir=out,
                       top_k=0, space=space, repeats=1, warmup=0, confirm=0,
                         log=lambda s: None)
    assert res.runs_now == n + 1 and not res.interrupted
    by = {(m["schedule"], m["chunk"], m["threads"]): m for m in res.measured}
    assert len(by) == n
    for (sched, chunk, _), m in by.items():
        expected = {"dynamic": "crash", "guided": "timeout"}.get(sched, "wrong_output" if chunk == 8 else "ok")
        assert m["status"] == expected, m
        if expected != "ok":
            assert m["speedup"] == 0.0
    assert res.best is None or (res.best["schedule"], res.best["chunk"]) == ("static", 1)
    rows = read_rows(out)
    assert len(rows) == n + 1 and rows["is_default"].sum() == 1
    assert set(rows["status"]) == {"ok", "crash", "timeout", "wrong_output"}


def test_the_live_measurer_drives_tunes_search_in_this_process(tmp_path):
    """`search` over the `LiveMeasurer` (what every trial of `mirtune tune` measures with), no Ray: the default is
    timed alone and becomes the reference; the faults score 0 with their status, the right configuration its
    speedup; each record's row is the point's dataset row, as `mirtune tune` writes it."""
    from mirtune.measure.sandbox import RunLimits
    from mirtune.measure.program import prepare_program
    from mirtune.predict.search import search
    from mirtune.predict.tune import LiveMeasurer, columns, make_plan

    program, files, _ = prepare_program(Program(_write(tmp_path, "faulty.c", FAULTY), args=("20000",), timeout_s=1.0))
    plan = make_plan("openmp", program, files, 2, ["chunk=1,8", "threads=2"])
    live = LiveMeasurer(plan, {"repeats": 1, "warmup": 0, "limits": RunLimits(timeout_s=1.0),
                               "cache_dir": str(tmp_path / "builds")})
    runs = search(live, plan.space, budget=len(plan.ids) + 1)
    assert runs[0][0] is None and runs[0][1].score == 1.0 and live.reference == runs[0][1].row["checksum"]
    got = {(c["schedule"], c["chunk"]): (r.status, r.score) for c, r in runs[1:]}
    assert len(got) == len(plan.ids) and got[("dynamic", 1)] == ("crash", 0.0)
    assert got[("guided", 8)] == ("timeout", 0.0) and got[("static", 8)] == ("wrong_output", 0.0)
    assert got[("static", 1)][0] == "ok" and got[("static", 1)][1] > 0
    for cfg, rec in runs:
        assert rec.row["point_id"] == plan.point(cfg).point_id and set(columns("openmp")) <= set(rec.row)


def test_inputs_volatile_lines_resume_and_seeds(ray_cluster, tmp_path):
    src = _write(tmp_path, "sums.c", READS_INPUT)
    data = tmp_path / "data" / "size.txt"
    data.parent.mkdir()
    data.write_text("20000\n")
    out = tmp_path / "out"
    prog = Program(src, args=(str(data), "3"), timeout_s=20.0)
    first = tune_program(prog, "openmp", budget=2, out_dir=out, top_k=3, repeats=1, warmup=0, confirm=0,
                         log=lambda s: None)
    assert first.runs_now == 2 and first.runs_before == 0
    assert any("copied into each run's private folder" in n for n in first.notes)
    assert any("room for 1 of the predictor's" in n for n in first.notes)       # budget smaller than the seeds
    assert first.volatile_lines == [2]                                           # "took ... s" changes
    assert first.measured[0]["status"] == "ok"
    seeded = {k: first.measured[0][k] for k in ("threads", "schedule", "chunk")}
    assert seeded == first.seeds[0]                                              # the predictor's first choice ran
    stamps = set(read_rows(out)["timestamp"])

    again = tune_program(prog, "openmp", budget=4, out_dir=out, top_k=3, repeats=1, warmup=0, confirm=0,
                         log=lambda s: None)
    assert again.runs_before == 2 and again.runs_now == 2
    rows = read_rows(out)
    raw = sum(t.num_rows for t in read_parts(out))
    assert len(rows) == 4 and raw == 4                                           # nothing measured twice
    assert stamps <= set(rows["timestamp"])
    done = tune_program(prog, "openmp", budget=4, out_dir=out, top_k=3, repeats=1, warmup=0, confirm=2,
                        log=lambda s: None)
    assert done.runs_now == 0 and len(done.measured) == 3
    searched_best = max(m["speedup"] for m in done.measured)
    assert done.confirm_rounds == (2 if searched_best > 1.0 else 0)    # the best found is measured again
    assert sum(t.num_rows for t in read_parts(out)) == 4                 # confirmation adds no dataset row
    if done.best is None:
        assert done.speedup == 1.0
    else:
        assert done.speedup > 1.0


def test_default_failure_stops_with_one_line_and_keeps_the_row(ray_cluster, tmp_path):
    src = _write(tmp_path, "nodefault.c", FAULTY.replace('const char *s = getenv("OMP_SCHEDULE");',
                                                         'const char *s = getenv("OMP_SCHEDULE");\n'
                                                         '    if (!s) { fprintf(stderr, "no schedule\\n"); '
                                                         'return 4; }'))
    out = tmp_path / "out"
    with pytest.raises(MirtuneError) as err:
        tune_program(Program(src), "openmp", budget=3, out_dir=out, top_k=0, repeats=1, warmup=0, confirm=0,
                         log=lambda s: None)
    line = err.value.line()
    assert "default configuration ended as crash" in line and "nothing to compare against" in line
    assert "\n" not in line
    rows = read_rows(out)
    assert len(rows) == 1 and rows["status"].iloc[0] == "crash"


def test_bad_requests_fail_before_any_run(tmp_path):
    src = _write(tmp_path, "faulty.c", FAULTY)
    with pytest.raises(UsageError, match="unknown"):
        tune_program(Program(src), "openmp", space=["power=75"], confirm=0, log=lambda s: None)
    with pytest.raises(UsageError, match="unknown"):
        tune_program(Program(src), "openmp", space=["bogus=1"], confirm=0, log=lambda s: None)
    with pytest.raises(UsageError, match="unknown task"):
        tune_program(Program(src), "devmap", confirm=0, log=lambda s: None)
    with pytest.raises(UsageError, match="input file not found"):
        tune_program(Program(src, inputs=(str(tmp_path / "none.txt"),)), "openmp", confirm=0, log=lambda s: None)
    binary = tmp_path / "x.c"
    binary.write_bytes(b"\x7fELF\x00\x00\x01")
    with pytest.raises(UsageError, match="binary"):
        tune_program(Program(binary), "openmp", confirm=0, log=lambda s: None)
    with pytest.raises(UsageError, match="budget"):
        tune_program(Program(src), "openmp", budget=0, confirm=0, log=lambda s: None)


def test_nothing_to_tune(ray_cluster, tmp_path):
    src = _write(tmp_path, "serial.c", "#include <stdio.h>\nint main(void) { printf(\"1\\n\"); return 0; }\n")
    with pytest.raises(MirtuneError, match="nothing for the openmp task to tune"):
        tune_program(Program(src), "openmp", budget=3, out_dir=tmp_path / "o", top_k=0, confirm=0, log=lambda s: None)


KERNEL = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    float *a = malloc(sizeof(float) * n), s = 0;
    for (int i = 0; i < n; i++) a[i] = (float)(i % 13);
    for (int r = 0; r < 200; r++)
        for (int i = 0; i < n; i++)
            a[i] = a[i] * 0.5f + 1.0f;
    for (int i = 0; i < n; i++) s += a[i];
    printf("%.3f\n", s);
    return 0;
}
"""


def test_vectorize_builds_each_configuration(ray_cluster, tmp_path):
    src = _write(tmp_path, "kern.c", KERNEL)
    line = next(i + 1 for i, ln in enumerate(src.read_text().splitlines()) if "a[i] = a[i] * 0.5f" in ln) - 1
    res = tune_program(Program(src, args=("4096",), line=line, check=OutputCheck("stdout", rtol=1e-5)), "vectorize",
                       budget=3, out_dir=tmp_path / "o", top_k=0, space=["vf=1,4", "if=1"], repeats=1, warmup=0,
                       confirm=0, log=lambda s: None)
    assert res.runs_now == 3
    assert {m["vf"] for m in res.measured} == {1, 4} and all(m["status"] == "ok" for m in res.measured)
    rows = read_rows(tmp_path / "o")
    assert rows["build_key"].nunique() == 3                                      # default + two pragmas


def test_each_compile_happens_once_per_tuning_and_a_rerun_compiles_nothing(ray_cluster, tmp_path, monkeypatch):
    """Counted in the caches of a real tuning: the predictor's IR once; the default's binary once, in the driver,
    which the node installs (its row says cached); each pragma's binary once, by its trial. A rerun reads both
    caches and compiles nothing."""
    monkeypatch.setenv("MIRTUNE_IR_CACHE", str(tmp_path / "ir"))
    src = _write(tmp_path, "kern.c", KERNEL)
    line = next(i + 1 for i, ln in enumerate(src.read_text().splitlines()) if "a[i] = a[i] * 0.5f" in ln) - 1
    builds = tmp_path / "builds"

    def run():
        return tune_program(Program(src, args=("4096",), line=line, check=OutputCheck("stdout", rtol=1e-5)),
                            "vectorize", budget=3, out_dir=tmp_path / "o", top_k=2, space=["vf=1,4", "if=1"],
                            repeats=1, warmup=0, confirm=0, cache_dir=str(builds), log=lambda s: None)

    def compiled() -> dict[str, int]:  # build() writes the source beside the binary it compiles; install() does not
        files = [*builds.glob("*/kern.c"), *(tmp_path / "ir").glob("*.ll")]
        return {str(f.relative_to(tmp_path)): f.stat().st_mtime_ns for f in files}

    assert run().runs_now == 3
    rows = read_rows(tmp_path / "o")
    assert len(compiled()) == 1 + rows["build_key"].nunique() == 4               # the IR, the default, two pragmas
    default = rows["is_default"].astype(bool)
    assert rows.loc[default, "build_cached"].tolist() == [True] and not rows.loc[~default, "build_cached"].any()
    before = compiled()
    assert run().runs_now == 0 and compiled() == before


SUMS = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    double s = 0;
    #pragma omp parallel for reduction(+:s)
    for (long i = 0; i < n; i++) s += (double)(i % 11) * 0.25;
    printf("s = %.6e\n", s);
    return 0;
}
"""


def test_clang_front_end_runs_once_per_text_in_a_tuning_and_never_in_a_trial_or_a_rerun(ray_cluster, tmp_path,
                                                                                          monkeypatch):
    """clang's front end counted by a wrapper (MIRTUNE_CLANG) in a real openmp tuning: the user's text once, to IR
    for the predictor's seeds (as `mirtune recommend` compiles it); its schedule(runtime) rewrite once, to the
    binary every configuration runs (the node installs it: every row says cached); a rerun compiles nothing. The
    two are not one compile: they are two texts (the rewrite turns the loop's static-schedule calls into dispatch
    calls), and only the binary is built for this CPU, with --cflags."""
    from mirtune.ir.frontend import find_clang

    log = tmp_path / "clang.log"
    wrapper = tmp_path / "clang"
    wrapper.write_text(f'#!/bin/sh\nprintf \'%s\\n\' "$*" >> "{log}"\nexec "{find_clang().path}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("MIRTUNE_CLANG", str(wrapper))
    monkeypatch.setenv("MIRTUNE_IR_CACHE", str(tmp_path / "ir"))
    src = _write(tmp_path, "sums.c", SUMS)
    builds = tmp_path / "builds"

    def run():
        return tune_program(Program(src, args=("20000",)), "openmp", budget=3, out_dir=tmp_path / "o", top_k=2,
                            space=["threads=2", "chunk=1,8"], repeats=1, warmup=0, confirm=0, cache_dir=str(builds),
                            log=lambda s: None)

    def front_end() -> list[str]:
        return [ln for ln in log.read_text().splitlines() if ln != "--version"] if log.exists() else []

    find_clang.cache_clear()
    try:
        assert run().runs_now == 3
        calls = front_end()
        assert len(calls) == 2
        ir, binary = sorted(calls, key=lambda c: "-emit-llvm" not in c)
        assert "-emit-llvm" in ir and ir.split()[-3] == str(src)                   # the user's text, for the seeds
        built = Path(binary.split(" -o ")[0].split()[-1])
        assert "-march=native" in binary and built.parent.parent == builds           # the rewrite, for the binary
        assert "schedule(runtime)" in built.read_text() and "schedule(runtime)" not in src.read_text()
        assert read_rows(tmp_path / "o")["build_cached"].astype(bool).all()          # no trial compiled
        assert run().runs_now == 0 and front_end() == calls                        # a rerun compiles nothing
    finally:
        find_clang.cache_clear()


def test_a_trial_whose_worker_dies_is_run_again(ray_cluster, tmp_path):
    import threading

    import psutil

    src = _write(tmp_path, "sleepy.c", r"""
        #include <stdio.h>
        #include <stdlib.h>
        #include <unistd.h>
        int main(int argc, char **argv) {
            long n = atol(argv[1]);
            double s = 0;
            #pragma omp parallel for reduction(+:s)
            for (long i = 0; i < n; i++) s += (double)(i % 5);
            usleep(400000);
            printf("%.1f\n", s);
            return 0;
        }
    """)
    killed: list[str] = []
    stop = threading.Event()

    def kill_one_trial_worker() -> None:
        while not stop.is_set() and not killed:
            for proc in psutil.process_iter(["cmdline"]):
                if "7771777" not in (proc.info["cmdline"] or []):
                    continue
                try:
                    for parent in proc.parents():
                        title = " ".join(parent.cmdline())
                        if "ImplicitFunc" in title:  # a Ray Tune trial's worker, mid-measurement
                            parent.kill()
                            killed.append(title)
                            return
                except psutil.Error:
                    pass
            time.sleep(0.05)

    watcher = threading.Thread(target=kill_one_trial_worker, daemon=True)
    watcher.start()
    try:
        res = tune_program(Program(src, args=("7771777",)), "openmp", budget=4, out_dir=tmp_path / "o", top_k=0,
                           space=["chunk=1,8"], repeats=1, warmup=0, confirm=0,
                         log=lambda s: None)
    finally:
        stop.set()
        watcher.join(timeout=5)
    assert killed, "no trial worker was found to kill"
    assert res.runs_now == 4 and len(res.measured) == 3 and all(m["status"] == "ok" for m in res.measured)
    rows = read_rows(tmp_path / "o")
    assert len(rows) == 4 and sum(t.num_rows for t in read_parts(tmp_path / "o")) == 4


def test_first_runs_span_every_thread_count(tmp_path):
    """The predictor's best configuration at each thread count comes first, so fewer threads are always tried; a
    count the predictor never ranks takes its best schedule and chunk (issue: know when fewer threads win)."""
    from mirtune.predict.tune import _seeds

    src = _write(tmp_path, "sums.c", READS_INPUT)
    space = registry.get("openmp").tune_space(4, ["threads=1,2,4"])
    notes: list[str] = []
    seeds = _seeds("openmp", Program(src), space, 2, None, notes)
    assert sorted(s["threads"] for s in seeds[:3]) == [1, 2, 4]
    assert len(seeds) == len({tuple(sorted(s.items())) for s in seeds}) and len(seeds) <= 3 + 2
    assert all(s["schedule"] in space["schedule"] and s["chunk"] in space["chunk"] for s in seeds)
    assert _seeds("openmp", Program(src), space, 0, None, notes) == []          # --top-k 0: plain Optuna


# --------------------------------------------------------------------------------------------- several files


def _three(files: dict[str, Path], **kw) -> Program:
    return Program(files["main.c"], args=("20000",), extra_sources=(files["solver.c"], files["util.c"]),
                   include_dirs=(files["include"],), timeout_s=30.0, **kw)


def test_a_program_of_three_files(ray_cluster, three_files, tmp_path):
    """Issue 34: main.c, solver.c (the worksharing loop) and util.c (its header in include/) are built, linked and
    tuned as one program. Every configuration is ok, which solver.c's own check allows only when OMP_SCHEDULE
    reached its loop: the rewrite went into solver.c's build copy (the user's file untouched), and the same
    files built as written abort under the same configuration."""
    from mirtune.measure.build import BuildSpec, build
    from mirtune.measure.measurement import measure
    from mirtune.measure.sandbox import RunLimits

    builds = tmp_path / "builds"
    res = tune_program(_three(three_files), "openmp", budget=3, out_dir=tmp_path / "out", top_k=2,
                       space=["threads=2", "schedule=static", "chunk=1,64"], repeats=1, warmup=0, confirm=0,
                       cache_dir=str(builds), log=lambda s: None)
    names = [str(three_files[n]) for n in ("main.c", "solver.c", "util.c")]
    assert res.input == " + ".join(names) and res.runs_now == 3
    assert sorted(m["chunk"] for m in res.measured) == [1, 64]
    assert all(m["status"] == "ok" for m in res.measured), res.measured
    rows = read_rows(tmp_path / "out")
    assert len(rows) == 3 and set(rows["status"]) == {"ok"} and set(rows["tunable_loops"]) == {1}
    assert set(rows["omp_schedule"].dropna()) == {"static,1", "static,64"}
    assert all(n in rows["variant"].iloc[0] for n in names)                # the rows say which files made it
    copies = list(builds.glob("*/solver.c"))
    assert copies and all("parallel for schedule(runtime) reduction(+:s)" in c.read_text() for c in copies)
    assert "schedule(runtime)" not in three_files["solver.c"].read_text()

    as_written = BuildSpec(name="main", source=three_files["main.c"].read_text(), openmp=True,
                           include_dirs=(str(three_files["main.c"].parent), str(three_files["include"])),
                           units=tuple((n, three_files[n].read_text(), str(three_files[n])) for n in ("solver.c", "util.c")))
    exe = build(as_written, builds).exe
    m = measure([exe, "20000"], {"OMP_NUM_THREADS": 2, "OMP_SCHEDULE": "static,1"}, repeats=1, warmup=0,
                limits=RunLimits(timeout_s=30), check=OutputCheck("none"))
    assert m.status == "crash" and "SIGABRT" in m.reason


def test_the_build_key_changes_when_only_the_second_file_changes(three_files):
    """Editing solver.c alone, or the header in include/, changes the build's key (so the program is rebuilt);
    the program's identity in the rows follows every file too."""
    from mirtune.measure.program import prepare_program
    from mirtune.predict.tune import make_plan

    def plan():
        prog, files, _ = prepare_program(_three(three_files))
        return make_plan("openmp", prog, files, 2, ["threads=2"])

    first = plan()
    key = first.build_spec(None).key()
    assert plan().build_spec(None).key() == key                               # the same files: the same key
    solver = three_files["solver.c"]
    solver.write_text(solver.read_text().replace("s += weight(a[i]);", "s += weight(a[i]) * 1.0;"))
    second = plan()
    assert second.text == first.text and second.build_spec(None).key() != key
    assert second.sha256 != first.sha256 and second.point(None).point_id != first.point(None).point_id
    header = three_files["include"] / "util.h"
    header.write_text(header.read_text().replace("#endif", "#define UTIL_VERSION 2\n#endif"))
    assert plan().build_spec(None).key() != second.build_spec(None).key()


def test_bad_programs_of_several_files_are_one_line(ray_cluster, three_files, tmp_path):
    """A missing file (before anything runs), one given twice, a file that does not compile, two files that
    define main: each one MirtuneError line naming the file or the symbol."""
    missing = Program(three_files["main.c"], extra_sources=(three_files["solver.c"], tmp_path / "gone.c"),
                      include_dirs=(three_files["include"],))
    with pytest.raises(UsageError) as err:
        tune_program(missing, "openmp", confirm=0, log=lambda s: None)
    assert err.value.line() == f"{tmp_path / 'gone.c'}: no such file"
    twice = Program(three_files["main.c"], extra_sources=(three_files["solver.c"], three_files["solver.c"]))
    with pytest.raises(UsageError) as err:
        tune_program(twice, "openmp", confirm=0, log=lambda s: None)
    assert err.value.line() == f"{three_files['solver.c']}: given twice"
    with pytest.raises(UsageError) as err:
        tune_program(Program(three_files["main.c"], include_dirs=(tmp_path / "x",)), "openmp", confirm=0,
                     log=lambda s: None)
    assert err.value.line() == f"{tmp_path / 'x'}: --include: no such folder"
    broken = _write(tmp_path, "broken.c", "double helper(double x) { return x +; }\n")
    mains = _write(tmp_path, "other_main.c", "int main(void) { return 0; }\n")
    for extra, expected in ((broken, "broken.c does not compile: broken.c:1:"),
                            (mains, "main is defined in main.c and other_main.c")):
        prog = _three(three_files)
        prog = Program(prog.source, prog.args, extra_sources=(*prog.extra_sources, extra),
                       include_dirs=prog.include_dirs)
        with pytest.raises(MirtuneError) as err:
            tune_program(prog, "openmp", budget=2, out_dir=tmp_path / "o", top_k=0, repeats=1, warmup=0, confirm=0,
                         log=lambda s: None)
        line = err.value.line()
        assert "the program does not build" in line and expected in line and "\n" not in line
