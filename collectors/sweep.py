"""Run a sweep across a Ray cluster: points -> builds -> timed runs -> Parquet rows, resumable.

A sweep module (collectors/openmp.py, ...) turns programs and a search space into a `SweepPlan`: the builds
(`BuildJob`, one per program and build configuration) and the points (`Point`, one per program, input size
and configuration, with a stable id hashing all three). `run_sweep(plan, out_dir)` measures them:

1. Skip: every `part-*.parquet` already in `out_dir` is read and the points whose ids are there are skipped,
   so a rerun measures only what is missing. Reads deduplicate on the point id too (`read_rows`).
2. Build stage, Ray Data: the builds the remaining points need and the driver's node has not cached go
   through `ray.data.from_items(...).map(...)`, one CPU each, in parallel across the cluster. Each build
   returns its status and the binary's bytes, which travel with the timed runs, so a node that did not
   build a program can still run it (if its CPU tag matches; otherwise it builds its own copy).
3. Timed stage, Ray tasks + `ray.wait`: each point is one task asking for `{TIMED_RUN_RESOURCE: 1}` (one unit
   per node: one timed run per node at a time) and `max_retries`, so a task whose worker dies is rerun by
   Ray. A group's default configuration runs first; its checksum is the reference the group's other points
   are checked against (read back from the output on a rerun). A default starts only when no released point
   is waiting, so each group's points follow their own default within a group or so: a disturbance (another
   job, a slow minute) then spoils a reference together with the points timed against it, never every
   group's reference at once, as it did when all the defaults ran first. Builds and timed runs do not overlap: all
   builds finish before the first timed run, so compiles never disturb a measurement on the same node.
4. Rows are buffered in the driver and written as a new Parquet part file (atomically: a hidden temporary
   name, then rename) every `flush_every` rows or `flush_seconds` seconds and at the end, also on
   KeyboardInterrupt. A sweep killed at any moment loses at most the unflushed rows, which a rerun measures
   again; a row is never written twice by one sweep, and the output directory is locked against a second
   concurrent sweep.

Why not Ray Data for the timed stage too: the rows must reach the disk as they complete, a group's points
must wait for its reference checksum, and a dead worker must cost only its own point. A driver-side
`ray.wait` loop over plain tasks gives all three directly (Ray's task retries cover dying workers), while
Ray Data would hold results inside its streaming executor and retries whole blocks.

A point that fails (timeout, crash, wrong output, build failure, unsupported power limit, no reference
because the default configuration failed) is a row with that status and a reason. A task that raises
(a bug in the collector) or whose worker died more than `max_retries` times is not written; it is counted
as an error in the summary so that a rerun tries it again.
"""

from __future__ import annotations

import os
import sys
import time
from collections import Counter, defaultdict, deque
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import pyarrow as pa

from mirtune.cluster import TIMED_RUN_RESOURCE, ensure_ray, timed_capacity
from mirtune.errors import UsageError
from mirtune.measure.build import BuildResult, BuildSpec
from mirtune.measure.measurement import Measurement, failed
from mirtune.measure.records import PartWriter, Point, dir_lock, point_row, read_rows, schema_for
from mirtune.measure.sandbox import RunLimits

# --------------------------------------------------------------------------------------------- the plan


@dataclass
class BuildJob:
    """One build of one program: the spec, and the columns every row built from it carries.

    `failure` is set when the build cannot even start (e.g. the source rewrite failed): its points become
    `build_failed` rows with that reason.
    """

    spec: BuildSpec
    columns: dict[str, Any] = field(default_factory=dict)
    failure: str | None = None

    @property
    def key(self) -> str:
        return self.spec.key()


@dataclass
class SweepPlan:
    """Everything one sweep measures. `columns` types the sweep's own columns (params and extras);
    `power_kind` is 'cpu' or 'gpu' when points carry power limits; `num_gpus` is what each timed run asks
    Ray for besides the timed-run resource (1 for CUDA programs); `report` names a figure the programs print
    themselves (see `mirtune.measure.measurement.measure`)."""

    sweep: str
    builds: dict[str, BuildJob]
    points: list[Point]
    columns: dict[str, pa.DataType]
    power_kind: str | None = None
    notes: list[str] = field(default_factory=list)
    num_gpus: float = 0.0
    report: str | None = None


# --------------------------------------------------------------------------------------------- stages


def build_item(item: dict[str, Any]) -> dict[str, Any]:
    """Ray Data map function: build one spec on this node and return its status and binary."""
    from mirtune.measure.build import build

    cache = item.get("cache_dir") or None
    res = build(BuildSpec.from_json(item["spec_json"]), cache)
    data = Path(res.exe).read_bytes() if res.exe else None
    return {"key": res.key, "status": res.status, "reason": res.reason, "seconds": res.seconds,
            "cached": res.cached, "tag": res.tag, "exe_bytes": data, "transient": res.transient}


def timed_point(point: Point, spec_json: str, build: dict[str, Any], reference: str | None,
                settings: dict[str, Any]) -> dict[str, Any]:
    """The body of a timed-run task: install the binary here, hold the power limit, measure, return a row."""
    from collectors import power as pw
    from mirtune.measure.build import install
    from mirtune.measure.host import host_info
    from mirtune.measure.measurement import measure

    node_id = None
    try:
        import ray

        if ray.is_initialized():
            node_id = ray.get_runtime_context().get_node_id()
    except Exception:
        pass
    spec = BuildSpec.from_json(spec_json)
    res: BuildResult = install(spec, build.get("exe_bytes"), build.get("tag"), settings.get("cache_dir"))
    env = dict(point.env)
    gpu_index = 0
    if settings.get("num_gpus"):
        # the runner's environment is minimal: hand on the GPU Ray gave this task, and sample that one
        visible = os.environ.get("CUDA_VISIBLE_DEVICES")
        if visible is not None:
            env.setdefault("CUDA_VISIBLE_DEVICES", visible)
        try:
            import ray

            ids = ray.get_gpu_ids() if ray.is_initialized() else []
            gpu_index = int(ids[0]) if ids else 0
        except Exception:
            gpu_index = 0
    run_start = time.time()  # the timed run's span (Unix seconds) on this node: runs on one node never overlap
    if res.status != "ok" or res.exe is None:
        m = failed("build_failed", res.reason)
    else:
        cmd = [res.exe, *point.args]
        kwargs = dict(repeats=settings["repeats"], warmup=settings["warmup"], limits=settings["limits"],
                      reference=reference, rtol=settings["rtol"], report=settings.get("report"),
                      gpu_index=gpu_index, check=point.check, inputs=settings.get("inputs"))
        if point.power_w is None:
            m = measure(cmd, env, **kwargs)
        else:
            try:
                ctl = pw.controller_for(settings.get("power_kind") or "cpu",
                                        rapl_root=settings.get("rapl_root") or pw.DEFAULT_POWERCAP_ROOT)
                with pw.power_limit(point.power_w, ctl):
                    m = measure(cmd, env, **kwargs)
            except pw.PowerError as exc:
                m = failed("unsupported", f"power limit {point.power_w:g} W: {exc}")
    row = point_row(point, m, build, settings["columns"].get(point.build_key, {}), settings, host_info().row(), node_id)
    row["run_start"], row["run_end"] = run_start, time.time()
    return row


# --------------------------------------------------------------------------------------------- progress


@dataclass
class Summary:
    """What one `run_sweep` call did."""

    out_dir: str
    total: int = 0
    already_done: int = 0
    measured: int = 0
    by_status: Counter = field(default_factory=Counter)
    errors: list[tuple[str, str]] = field(default_factory=list)
    builds: int = 0
    build_s: float = 0.0
    run_s: float = 0.0
    wall_s: float = 0.0
    files: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    build_failures: int = 0
    not_timed: int = 0

    def lines(self) -> list[str]:
        """A human-readable summary."""
        status = ", ".join(f"{k} {v}" for k, v in sorted(self.by_status.items())) or "none"
        out = [f"{self.measured} point(s) written to {self.out_dir} ({status}); "
               f"{self.already_done} of {self.total} were already there",
               f"time: {self.wall_s:.1f}s in all, {self.build_s:.1f}s building {self.builds} program(s), "
               f"{self.run_s:.1f}s measuring"]
        out += [f"note: {n}" for n in self.notes]
        if self.not_timed:
            out.append(f"{self.not_timed} point(s) built but not timed (rerun where they can be timed)")
        if self.errors:
            out.append(f"{len(self.errors)} point(s) not measured because of errors (rerun to retry); first: "
                       f"{self.errors[0][1]}")
        return out

    def add(self, other: "Summary") -> None:
        """Fold another sweep's summary into this one (several sweeps into one folder, e.g. a manifest's runs)."""
        for name in ("total", "already_done", "measured", "builds", "build_s", "run_s", "wall_s", "build_failures",
                     "not_timed"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.by_status.update(other.by_status)
        self.errors += other.errors
        self.files += other.files
        self.notes += [n for n in other.notes if n not in self.notes]


class _Progress:
    """Progress of the timed stage on stderr: a tqdm bar on a terminal, else a line every 5% of the points (or 30 s)."""

    def __init__(self, total: int, enabled: bool, log: Callable[[str], None]) -> None:
        self.total, self.done, self.log = total, 0, log
        self.bar = None
        self.every = max(1, total // 20)
        self.last = time.monotonic()
        self.counts: Counter = Counter()
        if enabled and total and sys.stderr.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=total, unit="point", file=sys.stderr, dynamic_ncols=True)
        self.enabled = enabled

    def update(self, status: str) -> None:
        self.done += 1
        self.counts[status] += 1
        if self.bar is not None:
            self.bar.update(1)
            self.bar.set_postfix({k: v for k, v in sorted(self.counts.items())}, refresh=False)
        elif self.enabled and (self.done % self.every == 0 or self.done == self.total
                               or time.monotonic() - self.last > 30):
            self.last = time.monotonic()
            counts = ", ".join(f"{k} {v}" for k, v in sorted(self.counts.items()))
            self.log(f"[{self.done}/{self.total}] {counts}")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def stderr_line(line: str) -> None:
    """Print one progress line on stderr (a sweep's default log)."""
    print(line, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------- the sweep


def _interrupt_on_signals() -> None:
    """Make SIGTERM (and SIGINT, which a shell's background job ignores) raise KeyboardInterrupt in the main
    thread, so that a stopped sweep writes the rows it measured and stops a private Ray cluster."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return

    def interrupt(signum, frame):  # noqa: ARG001
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, interrupt)
    signal.signal(signal.SIGINT, interrupt)


class signals_interrupt:
    """Context: `_interrupt_on_signals()` inside, the previous SIGTERM/SIGINT handlers restored on exit."""

    def __enter__(self) -> None:
        import signal
        import threading

        self.saved = None
        if threading.current_thread() is threading.main_thread():
            self.saved = (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT))
            _interrupt_on_signals()

    def __exit__(self, *exc) -> None:
        import signal

        if self.saved is not None:
            for sig, handler in zip((signal.SIGTERM, signal.SIGINT), self.saved):
                try:
                    signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
                except (TypeError, ValueError):
                    pass


def cancel_all(refs: Sequence[Any]) -> None:
    """Cancel (force) every Ray task still in flight, ignoring those already gone: on an interrupt or an error."""
    import ray

    for ref in refs:
        try:
            ray.cancel(ref, force=True)
        except Exception:
            pass


def run_builds(plan: SweepPlan, keys: list[str], cache_dir: str | None) -> dict[str, dict[str, Any]]:
    """Build the plan's `keys` (those not cached on this node through Ray Data, one CPU each); key -> its build
    (status, reason, seconds, cached, tag, the binary's bytes), a build that cannot start failed with its reason."""
    import ray.data

    from mirtune.measure.build import cached

    out: dict[str, dict[str, Any]] = {}
    items = []
    for k in keys:
        job = plan.builds[k]
        hit = None if job.failure is not None else cached(job.spec, cache_dir)
        if job.failure is not None:
            out[k] = {"key": k, "status": "build_failed", "reason": job.failure, "seconds": 0.0,
                      "cached": False, "tag": None, "exe_bytes": None}
        elif hit is not None:  # built before on this node: no need to start a Ray Data job
            out[k] = {"key": k, "status": hit.status, "reason": hit.reason, "seconds": 0.0, "cached": True,
                      "tag": hit.tag, "exe_bytes": Path(hit.exe).read_bytes() if hit.exe else None}
        else:
            items.append({"spec_json": job.spec.to_json(), "cache_dir": cache_dir or ""})
    if items:
        import logging

        ctx = ray.data.DataContext.get_current()
        ctx.print_on_execution_start = False
        data_logger = logging.getLogger("ray.data")
        level = data_logger.level
        data_logger.setLevel(logging.ERROR)  # the sweep reports its own progress
        try:
            ctx.enable_progress_bars = False
            ds = ray.data.from_items(items, override_num_blocks=len(items)).map(build_item, num_cpus=1)
            for row in ds.iter_rows():
                out[row["key"]] = dict(row)
        finally:
            data_logger.setLevel(level)
    return out


def default_references(existing: Any, points: Sequence[Point]) -> dict[str, tuple[str, str | None]]:
    """Group -> (status, checksum) of its default configuration, for the groups of `points` whose default is among
    the rows already written (`read_rows`): the reference the group's other configurations are checked against."""
    references: dict[str, tuple[str, str | None]] = {}
    if not len(existing):
        return references
    by_id = {p.point_id: p for p in points}
    for rec in existing[existing["is_default"]].itertuples():
        p = by_id.get(rec.point_id)
        if p is not None:
            references[p.group] = (rec.status, rec.checksum if isinstance(rec.checksum, str) else None)
    return references


def _output_dir(out_dir: str | os.PathLike, repeats: int, warmup: int) -> Path:
    """Refuse bad counts and an output that is not a directory before anything runs; the directory, created."""
    if repeats < 1 or warmup < 0:
        raise UsageError("--repeats must be at least 1 and --warmup at least 0")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise UsageError("the output must be a directory (Parquet part files are written into it)", str(out))
    out.mkdir(parents=True, exist_ok=True)
    return out


def _points_to_measure(plan: SweepPlan, out: Path, max_points: int | None,
                       summary: Summary) -> tuple[list[Point], dict[str, tuple[str, str | None]]]:
    """Resume: the points not in `out` yet (at most `max_points`) and the references of the defaults already there."""
    existing = read_rows(out)
    done_ids = set(existing["point_id"]) if len(existing) else set()
    references = default_references(existing, plan.points)
    todo = [p for p in plan.points if p.point_id not in done_ids]
    summary.already_done = len(plan.points) - len(todo)
    if max_points is not None:
        todo = todo[:max(0, max_points)]
    return todo, references


def _start_ray(address: str | None, time_points: bool) -> int:
    """Join or start Ray (which keeps our interrupt handlers: mirtune.cluster.init_ray); how many timed runs the
    cluster takes at once."""
    ensure_ray(address)
    return timed_capacity() if time_points else 1


def _build_stage(plan: SweepPlan, todo: Sequence[Point], cache_dir: str | None,
                 summary: Summary) -> tuple[list[str], dict[str, dict[str, Any]]]:
    """Build every program `todo` needs before any timed run, so no compile disturbs a measurement; keys, builds."""
    keys = sorted({p.build_key for p in todo})
    tb = time.monotonic()
    builds = run_builds(plan, keys, cache_dir)
    summary.builds = len(keys)
    summary.build_s = time.monotonic() - tb
    summary.build_failures = sum(1 for b in builds.values() if b["status"] != "ok")
    return keys, builds


class _RayTasks:
    """The timed runs on Ray: one task a point, one timed-run slot each, rerun by Ray when its worker dies."""

    def __init__(self, plan: SweepPlan, keys: Sequence[str], builds: Mapping[str, dict[str, Any]],
                 settings: dict[str, Any], max_retries: int) -> None:
        import ray

        self.settings_ref = ray.put(settings)
        self.build_refs = {k: ray.put(b) for k, b in builds.items()}
        self.spec_json = {k: plan.builds[k].spec.to_json() for k in keys}
        self.remote = ray.remote(timed_point).options(
            num_cpus=1, num_gpus=plan.num_gpus, resources={TIMED_RUN_RESOURCE: 1}, max_retries=max_retries,
            retry_exceptions=False, name="mirtune_timed_point")

    def submit(self, p: Point, reference: str | None) -> Any:
        """Start p's timed run, checked against `reference`; the task's ObjectRef."""
        return self.remote.remote(p, self.spec_json[p.build_key], self.build_refs[p.build_key], reference,
                                  self.settings_ref)

    @staticmethod
    def wait(refs: Sequence[Any], timeout: float) -> list[Any]:
        """The tasks among `refs` that finished: at least one, or none after `timeout` seconds (time to flush)."""
        import ray

        done, _ = ray.wait(list(refs), num_returns=1, timeout=timeout)
        return done

    @staticmethod
    def result(ref: Any) -> dict[str, Any]:
        """A finished task's row; raises what the task raised, or why its worker died more often than retried."""
        import ray

        return ray.get(ref)


class _LocalRows:
    """Rows the driver writes for points that never run (no build, no reference); the host read once, when needed."""

    def __init__(self, plan: SweepPlan, builds: Mapping[str, dict[str, Any]], settings: dict[str, Any]) -> None:
        self.plan, self.builds, self.settings = plan, builds, settings
        self.host: dict[str, Any] | None = None

    def row(self, p: Point, m: Measurement) -> dict[str, Any]:
        """p's row for the outcome `m`."""
        if self.host is None:
            from mirtune.measure.host import host_info

            self.host = host_info().row()
        return point_row(p, m, self.builds.get(p.build_key, {}), self.plan.builds[p.build_key].columns,
                         self.settings, self.host, None)

    def build_failed(self, p: Point) -> dict[str, Any]:
        """p's `build_failed` row, with its build's reason."""
        return self.row(p, failed("build_failed", (self.builds.get(p.build_key) or {}).get("reason") or "not built"))


def _write_build_failures(todo: Sequence[Point], builds: Mapping[str, dict[str, Any]], rows: _LocalRows,
                          writer: PartWriter, summary: Summary) -> None:
    """Build-only: rows for what failed to build (a deterministic outcome); the built points are left for later."""
    for p in todo:
        b = builds.get(p.build_key)
        if b is not None and b["status"] == "ok":
            summary.not_timed += 1
            continue
        if b is not None and b.get("transient"):
            summary.errors.append((p.point_id, f"{p.program}: not built: {b.get('reason')}"))
            continue
        writer.add(rows.build_failed(p))
        summary.by_status["build_failed"] += 1


class _Queues:
    """The timed order: points whose reference is known first, then the next default; the rest wait for theirs."""

    def __init__(self, todo: Sequence[Point], references: dict[str, tuple[str, str | None]],
                 summary: Summary) -> None:
        self.references = references
        self.ready: deque[Point] = deque()     # points whose reference is known: these go first
        self.defaults: deque[Point] = deque()  # a default starts a group; it waits until the released points ran
        self.waiting: dict[str, list[Point]] = defaultdict(list)
        for p in todo:
            if p.is_default:
                self.defaults.append(p)
            elif p.group in references:
                self.ready.append(p)
            else:
                self.waiting[p.group].append(p)
        # a group whose default is neither done nor among this call's points cannot be checked yet
        defaults_here = {p.group for p in todo if p.is_default}
        for group in list(self.waiting):
            if group not in defaults_here and group not in references:
                for p in self.waiting.pop(group):
                    summary.errors.append((p.point_id, f"{p.program} size {p.input_size}: the default "
                                           "configuration has not been measured yet"))

    def pending(self) -> bool:
        """Whether a point can start now."""
        return bool(self.ready or self.defaults)

    def next(self) -> Point:
        """The point to start next: a released one, else the next group's default."""
        return self.ready.popleft() if self.ready else self.defaults.popleft()

    def reference(self, group: str) -> tuple[str, str | None]:
        """How `group`'s default ended and its checksum (('ok', None) while unknown)."""
        return self.references.get(group, ("ok", None))

    def release(self, group: str, status: str, checksum: str | None) -> None:
        """Record how `group`'s default ended, and let the group's other points start."""
        self.references[group] = (status, checksum)
        self.ready.extend(self.waiting.pop(group, []))

    def drop(self, group: str) -> list[Point]:
        """Take out the points waiting for `group`'s default, which will give them no reference."""
        return self.waiting.pop(group, [])


class _TimedRuns:
    """The timed stage: points started in `_Queues` order, each row written as its task finishes."""

    def __init__(self, queues: _Queues, builds: Mapping[str, dict[str, Any]], rows: _LocalRows, tasks: _RayTasks,
                 writer: PartWriter, bar: _Progress, summary: Summary) -> None:
        self.queues, self.builds, self.rows, self.tasks = queues, builds, rows, tasks
        self.writer, self.bar, self.summary = writer, bar, summary
        self.inflight: dict[Any, Point] = {}

    def run(self, capacity: int, flush_seconds: float) -> None:
        """Keep two tasks per timed-run slot in flight until every point ended; cancel them all on any exception."""
        try:
            while self.queues.pending() or self.inflight:
                while self.queues.pending() and len(self.inflight) < max(2, 2 * capacity):
                    self.start(self.queues.next())
                if not self.inflight:
                    continue
                for ref in self.tasks.wait(self.inflight, max(1.0, flush_seconds)):
                    self.collect(ref)
                self.writer.maybe_flush()
        except BaseException:
            cancel_all(self.inflight)
            raise

    def start(self, p: Point) -> None:
        """Submit p's timed run, or settle p here when it cannot run (not built, no reference checksum)."""
        b = self.builds.get(p.build_key)
        if b is not None and b.get("transient"):  # not the program's fault: a rerun retries it
            self.error(p, f"{p.program}: not built: {b.get('reason')}",
                       lambda q: f"{q.program}: its default configuration was not built")
            return
        if b is None or b["status"] != "ok":
            row = self.rows.build_failed(p)
            self.emit(row)
            if p.is_default:
                self.queues.release(p.group, row["status"], None)
            return
        ref_status, ref_sum = self.queues.reference(p.group)
        if not p.is_default and (ref_status != "ok" or ref_sum is None):
            self.emit(self.rows.row(p, failed("unsupported", "no reference checksum: the default "
                                              f"configuration ended as {ref_status}")))
            return
        self.inflight[self.tasks.submit(p, None if p.is_default else ref_sum)] = p

    def collect(self, ref: Any) -> None:
        """Write a finished task's row (a default's releases its group), or count the task's error."""
        p = self.inflight.pop(ref)
        try:
            row = self.tasks.result(ref)
        except Exception as exc:  # RayTaskError, WorkerCrashedError after retries, ...
            msg = f"{p.program} size {p.input_size} {p.params}: {type(exc).__name__}: " + \
                  (str(exc).strip().splitlines() or [""])[-1][:300]
            self.error(p, msg, lambda q: f"{q.program} size {q.input_size}: its default configuration failed to run")
            return
        self.emit(row)
        if p.is_default:
            self.queues.release(p.group, row["status"], row.get("checksum"))

    def emit(self, row: dict[str, Any]) -> None:
        """Write one row and count it in the summary and the progress."""
        self.writer.add(row)
        self.summary.by_status[row["status"]] += 1
        self.bar.update(row["status"])

    def error(self, p: Point, message: str, waiting_message: Callable[[Point], str]) -> None:
        """Count p as not measured (no row: a rerun retries it), and with it the points waiting for p as default."""
        self.summary.errors.append((p.point_id, message))
        if p.is_default:
            for q in self.queues.drop(p.group):
                self.summary.errors.append((q.point_id, waiting_message(q)))
        self.bar.update("error")


def _record_output(summary: Summary, writer: PartWriter, t0: float) -> None:
    """Record in `summary` the rows and files `writer` wrote, and the wall time since `t0`."""
    summary.measured = writer.written
    summary.files = [str(f) for f in writer.files]
    summary.wall_s = time.monotonic() - t0


def run_sweep(plan: SweepPlan, out_dir: str | os.PathLike, *, repeats: int = 3, warmup: int = 1,
              limits: RunLimits = RunLimits(), rtol: float = 1e-9, address: str | None = None,
              cache_dir: str | os.PathLike | None = None, max_points: int | None = None,
              flush_every: int = 16, flush_seconds: float = 30.0, max_retries: int = 3,
              progress: bool = True, log: Callable[[str], None] = stderr_line,
              rapl_root: str | None = None, time_points: bool = True,
              inputs: Mapping[str, bytes] | None = None) -> Summary:
    """Measure the points of `plan` not yet in `out_dir`; write rows as they complete; return a summary.

    `max_points` caps how many new points this call measures (a smoke run, or a sweep done in slices).
    `inputs` are files written into every run's working folder (see `mirtune.measure.sandbox.run_once`).
    `time_points=False` only builds (a cluster that cannot time these programs, e.g. CUDA without a GPU):
    the points of programs that failed to build are written as `build_failed` rows, the others are left
    for a later run and counted in `summary.not_timed`.
    """
    t0 = time.monotonic()
    out = _output_dir(out_dir, repeats, warmup)
    summary = Summary(out_dir=str(out), total=len(plan.points), notes=list(plan.notes))
    with dir_lock(out), signals_interrupt():
        todo, references = _points_to_measure(plan, out, max_points, summary)
        if not todo:
            summary.wall_s = time.monotonic() - t0
            return summary
        capacity = _start_ray(address, time_points)
        cache = str(cache_dir) if cache_dir else None
        keys, builds = _build_stage(plan, todo, cache, summary)
        settings = {"repeats": repeats, "warmup": warmup, "limits": limits, "rtol": rtol, "cache_dir": cache,
                    "power_kind": plan.power_kind, "rapl_root": rapl_root, "report": plan.report,
                    "num_gpus": plan.num_gpus, "inputs": inputs,
                    "columns": {k: job.columns for k, job in plan.builds.items() if k in builds}}
        tasks = _RayTasks(plan, keys, builds, settings, max_retries)
        rows = _LocalRows(plan, builds, settings)
        writer = PartWriter(out, schema_for(plan.columns), flush_every, flush_seconds)
        if not time_points:
            try:
                _write_build_failures(todo, builds, rows, writer, summary)
            finally:
                writer.flush()
                _record_output(summary, writer, t0)
            return summary
        bar = _Progress(len(todo), progress, log)
        runs = _TimedRuns(_Queues(todo, references, summary), builds, rows, tasks, writer, bar, summary)
        tr = time.monotonic()
        try:
            runs.run(capacity, flush_seconds)
        finally:
            writer.flush()
            bar.close()
            summary.run_s = time.monotonic() - tr
            _record_output(summary, writer, t0)
    return summary
