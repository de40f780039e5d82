"""collectors.sweep on a real (session) Ray cluster: rows are written as they complete, a rerun adds nothing,
a sweep killed half-way and rerun holds every point exactly once, and a killed Ray worker loses no point."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections import Counter
from pathlib import Path

import pandas as pd
import psutil
import pyarrow as pa
import pytest

from collectors.openmp import collect_openmp
from mirtune.measure.records import PART_GLOB, read_parts, read_rows

REPO = Path(__file__).resolve().parents[2]
SPACE = ["threads=1,2", "schedule=static,dynamic", "chunk=1,8"]  # 8 points + the default
NO_RAPL = "/nonexistent/powercap"  # never touch a real power limit from a test, even as root on bare metal


def _program(folder: Path, name: str = "tiny", sleep_us: int = 0, prologue: str = "") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.c"
    path.write_text(textwrap.dedent(f"""\
        /* {name}: a tiny OpenMP reduction for the sweep tests. */
        #include <fcntl.h>
        #include <stdio.h>
        #include <unistd.h>
        #ifndef MIRTUNE_SIZE
        #define MIRTUNE_SIZE 1
        #endif
        int main(void)
        {{
            {prologue}
            long n = 20000L * MIRTUNE_SIZE;
            double s = 0;
        #pragma omp parallel for reduction(+:s)
            for (long i = 0; i < n; i++)
                s += (double)(i % 7);
            if ({sleep_us}) usleep({sleep_us});
            printf("checksum: %.1f\\n", s);
            return 0;
        }}
    """))
    return path


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("sweep-build-cache")


def _ids(out: Path) -> Counter:
    tables = read_parts(out)
    if not tables:
        return Counter()
    return Counter(pa.concat_tables(tables, promote_options="permissive").column("point_id").to_pylist())


def test_rows_are_written_and_a_rerun_adds_nothing(ray_cluster, tmp_path, cache):
    progs = tmp_path / "progs"
    _program(progs)
    out = tmp_path / "out"
    s = collect_openmp([progs], out, space=SPACE, sizes="1", repeats=2, warmup=1, cache_dir=cache,
                       rapl_root=NO_RAPL, progress=False)
    assert s.measured == 9 and s.by_status == Counter(ok=9) and not s.errors and s.already_done == 0
    assert s.notes == [f"power dimension dropped: no RAPL powercap tree at {NO_RAPL}"]
    assert any(line.startswith("9 point(s) written") for line in s.lines())

    rows = read_rows(out)
    assert len(rows) == 9 and rows["point_id"].is_unique
    default = rows[rows["is_default"]].iloc[0]
    assert pd.isna(default["omp_schedule"]) and default["threads"] == default["host_logical_cores"]
    others = rows[~rows["is_default"]]
    assert set(others["omp_schedule"]) == {"static,1", "static,8", "dynamic,1", "dynamic,8"}
    assert set(others["threads"]) == {1, 2}
    assert (others["reference_checksum"] == default["checksum"]).all()
    for col in ("host_cpu_model", "host_clang_version", "host_mirtune_version", "host_ray_version",
                "timestamp", "node_id", "run_start", "run_end", "median_s", "cv"):
        assert rows[col].notna().all(), col
    assert (rows["run_start"] <= rows["run_end"]).all()
    assert all(len(r) == 2 for r in rows["runtimes_s"])
    assert (rows["median_s"] > 0).all() and (rows["status"] == "ok").all() and (rows["reason"] == "").all()
    assert (rows["tunable_loops"] == 1).all() and (rows["fixed_loops"] == 0).all()
    assert rows["power_w"].isna().all()
    assert (rows["power_reason"] == f"no RAPL powercap tree at {NO_RAPL}").all()

    parts = sorted(out.glob(PART_GLOB))
    again = collect_openmp([progs], out, space=SPACE, sizes="1", repeats=2, warmup=1, cache_dir=cache,
                           rapl_root=NO_RAPL, progress=False)
    assert again.measured == 0 and again.already_done == 9 and sorted(out.glob(PART_GLOB)) == parts

    # a duplicated part file (two writers, a copy by hand) still reads as one row per point
    shutil.copy(parts[0], out / "part-zzzz-copy.parquet")
    assert len(read_rows(out)) == 9
    third = collect_openmp([progs], out, space=SPACE, sizes="1", cache_dir=cache, rapl_root=NO_RAPL,
                           progress=False)
    assert third.measured == 0


def test_a_partial_sweep_is_completed_by_the_next_run(ray_cluster, tmp_path, cache):
    progs = tmp_path / "progs"
    _program(progs)
    out = tmp_path / "out"
    first = collect_openmp([progs], out, space=SPACE, sizes="1,2", repeats=1, warmup=0, cache_dir=cache,
                           rapl_root=NO_RAPL, max_points=5, flush_every=2, progress=False)
    assert first.measured == 5 and len(first.files) == 3  # flushed as they came: 2 + 2 + 1
    second = collect_openmp([progs], out, space=SPACE, sizes="1,2", repeats=1, warmup=0, cache_dir=cache,
                            rapl_root=NO_RAPL, progress=False)
    assert second.already_done == 5 and second.measured == 13
    ids = _ids(out)
    assert len(ids) == 18 and set(ids.values()) == {1}


def test_each_group_is_timed_right_after_its_own_default(ray_cluster, tmp_path, cache):
    """Defaults do not all run first (one slow minute at the start would spoil every group's reference): a
    default starts only when no released point is waiting, so at most one other group's default falls between
    a group's default and its last point."""
    progs = tmp_path / "progs"
    _program(progs)
    out = tmp_path / "out"
    s = collect_openmp([progs], out, space=SPACE, sizes="1,2,3", repeats=1, warmup=0, cache_dir=cache,
                       rapl_root=NO_RAPL, flush_every=1000, progress=False)
    assert s.measured == 27 and len(s.files) == 1  # one part file, rows in the order they completed
    rows = read_parts(out)[0].to_pandas()
    defaults = rows.index[rows["is_default"]].tolist()
    assert len(defaults) == 3
    for size, group in rows.groupby("input_size"):
        start = group.index[group["is_default"]][0]
        end = group.index.max()
        between = [i for i in defaults if start < i < end]
        assert len(between) <= 1, (size, rows[["input_size", "is_default"]].to_string())


def test_a_sweep_killed_half_way_and_rerun_holds_every_point_once(ray_cluster, tmp_path, cache):
    import ray

    progs = tmp_path / "progs"
    _program(progs, sleep_us=150_000)
    out = tmp_path / "out"
    space = ["threads=1,2", "schedule=static,dynamic,guided", "chunk=1,8"]  # 12 points + the default
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(REPO)!r})
        from mirtune.cluster import init_ray
        init_ray(address={ray.get_runtime_context().gcs_address!r})
        from collectors.openmp import collect_openmp
        collect_openmp([{str(progs)!r}], {str(out)!r}, space={space!r}, sizes="1", repeats=1, warmup=0,
                       cache_dir={str(cache)!r}, rapl_root={NO_RAPL!r}, flush_every=1, progress=False)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], start_new_session=True, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 90
        while len(list(out.glob(PART_GLOB))) < 3:
            assert proc.poll() is None, proc.stderr.read().decode()[-2000:]
            assert time.monotonic() < deadline, "the sweep wrote no rows in time"
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    written = _ids(out)
    assert 3 <= sum(written.values()) < 13 and set(written.values()) == {1}

    rest = collect_openmp([progs], out, space=space, sizes="1", repeats=1, warmup=0, cache_dir=cache,
                          rapl_root=NO_RAPL, progress=False)
    assert rest.already_done == sum(written.values()) and not rest.errors
    ids = _ids(out)
    assert len(ids) == 13 and set(ids.values()) == {1}
    assert (read_rows(out)["status"] == "ok").all()


def test_a_killed_ray_worker_loses_no_point(ray_cluster, tmp_path, cache):
    marker = tmp_path / "first-run.pids"
    # The first run of the program (whichever point it is) records its pids and sleeps; the test then kills
    # the Ray worker running that timed task. Ray retries the task; the next run finds the marker and goes on.
    prologue = (f'int fd = open("{marker}", O_CREAT | O_EXCL | O_WRONLY, 0644); '
                'if (fd >= 0) { dprintf(fd, "%d %d\\n", (int)getppid(), (int)getpid()); close(fd); sleep(30); }')
    progs = tmp_path / "progs"
    _program(progs, name="victim", prologue=prologue)
    out = tmp_path / "out"
    killed: dict[str, int] = {}

    def killer() -> None:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            text = marker.read_text() if marker.exists() else ""
            if text.endswith("\n"):
                launcher, program = map(int, text.split())
                worker = psutil.Process(launcher).ppid()  # program <- launcher <- Ray worker
                killed.update(worker=worker, program=program,
                              worker_is_ray=int("ray" in " ".join(psutil.Process(worker).cmdline()).lower()))
                os.kill(worker, signal.SIGKILL)
                return
            time.sleep(0.05)

    t = threading.Thread(target=killer, daemon=True)
    t.start()
    s = collect_openmp([progs], out, space=["threads=1,2", "schedule=static", "chunk=1"], sizes="1", repeats=1,
                       warmup=0, timeout=60, cache_dir=cache, rapl_root=NO_RAPL, progress=False)
    t.join(5)
    assert killed.get("worker_is_ray") == 1, killed
    assert not s.errors, s.errors
    rows = read_rows(out)
    assert len(rows) == 3 and (rows["status"] == "ok").all()
    assert set(_ids(out).values()) == {1}
    assert s.wall_s < 30  # the retry did not wait for the orphaned sleeper...
    deadline = time.monotonic() + 5
    while not _gone(killed["program"]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(killed["program"]), "the program of the killed worker is still running"  # ...which died with it


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True
