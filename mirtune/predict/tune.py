"""Predictor-seeded online tuning on Ray Tune, measuring real runs of a user's program: what `mirtune tune` runs.

    result = tune_program(Program(Path("app.c"), args=("input.txt", "100")), task="openmp", budget=12)

1. The program is an ordinary one: its arguments, its input files (written into each run's private working
   folder), its build flags, and an output check (`mirtune.measure.check`: by default the whole stdout, numbers
   within a tolerance, lines that change between the default's own runs left out).
2. The default configuration is measured first, on a node that may time runs: its answer is the reference every
   other configuration must reproduce, and a program that fails there stops the tuning with one line.
3. A Ray Tune `Tuner` then spends the rest of the budget on `mirtune.predict.search`: the predictor's top-K
   (`mirtune recommend`) are the first trials, then Optuna's TPE (through `OptunaSearch`) proposes the others. A
   configuration is measured against the default in interleaved rounds (default, candidate, candidate, default,
   ...), and its score is the median of the per-round ratios default time / its time, so that drift over minutes
   cancels. A configuration that crashes, hangs or answers wrongly scores 0 and can never win.
4. Every measurement becomes a row in the collectors' schema, written to the output folder as soon as it arrives
   (so Ctrl-C loses none, and `mirtune fit` can refit on them). Re-running the same command reads them back: a
   configuration already measured is never measured again, and counts against the budget.

Each trial asks Ray for one unit of the timed-run resource, so there is never more than one timed run per node;
`parallel` trials run at once across the nodes. The budget counts distinct configurations measured, the default
included.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import statistics
import sys
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Sequence

from mirtune.errors import MirtuneError, UsageError
from mirtune.measure.check import OutputCheck
from mirtune.measure.measurer import METRIC, Record, score_of
from mirtune.measure.program import (Program, build_include_dirs, headers_digest, prepare_program, program_sha256,
                                     program_spec, program_units, variant_of)
from mirtune.paths import json_default, private_temp_dir
from mirtune.predict.search import all_configs, config_key, make_searcher, seed_configs
from mirtune.tasks import registry
from mirtune.tasks.base import Task

# --------------------------------------------------------------------------------------------- the plan


@dataclass
class TunePlan:
    """How each configuration of one program is built, applied and stored (picklable: it travels to the nodes)."""

    task: str
    program: Program
    files: dict[str, bytes]
    space: dict[str, tuple[Any, ...]]
    cores: int
    name: str
    sha256: str
    text: str
    variant: str
    build_columns: dict[str, Any] = field(default_factory=dict)
    rewritten: bool = False  # the build text differs from the user's file (schedule(runtime) written in)
    units: tuple[tuple[str, str, str], ...] = ()  # the other files' build texts (mirtune.measure.build.BuildSpec.units)
    depends: str = ""  # digest of the headers the files include (programs of several files, or with --include)
    loops_in: str = ""  # the file whose worksharing loops the rewrite reached (`mirtune apply` for the answer)
    # resolved where the plan is made: a trial runs in a folder of its own, where a relative path means another file
    include_dirs: tuple[str, ...] = ()
    source_path: str = ""

    @property
    def definition(self) -> Task:
        """The Task being tuned (mirtune.tasks.registry)."""
        return registry.get(self.task)

    @cached_property
    def ids(self) -> dict[str, dict[str, Any]]:
        """point id -> configuration, for every configuration of the space (the default left out)."""
        return {self.point(c).point_id: c for c in all_configs(self.space)}

    def build_spec(self, params: dict[str, Any] | None):
        """The BuildSpec of a configuration (None: the default)."""
        task = self.definition
        return program_spec(self.program, self.name, task.build_text(self.text, params, self.program.line),
                            self.units, self.depends, task.builds_openmp, self.include_dirs)

    def env(self, params: dict[str, Any] | None) -> dict[str, Any]:
        """The environment that applies a configuration."""
        return self.definition.run_env(params, self.cores)

    def point(self, params: dict[str, Any] | None):
        """The dataset point of a configuration (None: the default)."""
        from mirtune.measure.records import Point

        row_params, cols = self.definition.tune_row(params, self.cores)
        cols.update({"variant": self.variant, "run_args": list(self.program.args), "check": self.program.check.kind,
                     "tool": "mirtune tune"})
        return Point(sweep=self.task, program=self.name, program_path=self.source_path,
                     program_sha256=self.sha256, input_size=0, params=row_params, is_default=params is None,
                     env=self.env(params), build_key=self.build_spec(params).key(), args=self.program.args,
                     columns=cols, variant=self.variant)


def make_plan(task: str, program: Program, files: dict[str, bytes], cores: int,
              space: Sequence[str] | str | None = None) -> TunePlan:
    """The plan of one tuning; UsageError for a task `mirtune tune` does not take or a bad space, MirtuneError or
    UsageError when nothing can be tuned (the task's `tune_sources` says what it builds of each file)."""
    definition = registry.get(task, tunes=True)
    values = definition.tune_space(cores, space)
    sources = program.sources
    originals = [s.read_text(errors="replace") for s in sources]
    texts, cols, loops_in = definition.tune_sources(sources, originals, program.line, program.label)
    units = program_units(program, texts)
    several = bool(program.extra_sources or program.include_dirs)
    return TunePlan(task=task, program=program, files=files, space=values, cores=cores, name=program.source.stem,
                    sha256=program_sha256(sources, originals), text=texts[0],
                    variant=variant_of(program, files), build_columns=cols,
                    rewritten=any(t != o for t, o in zip(texts, originals)), units=units,
                    depends=headers_digest(program) if several else "", loops_in=loops_in,
                    include_dirs=build_include_dirs(program), source_path=str(program.source.resolve()))


def columns(task: str) -> dict[str, Any]:
    """The Parquet columns of a tuning's rows: the sweep's own, and the tuning's."""
    import pyarrow as pa

    return {**registry.get(task, tunes=True).tune_columns(), "variant": pa.string(), "run_args": pa.list_(pa.string()), "check": pa.string(),
            "tool": pa.string(), "paired_default_s": pa.list_(pa.float64()), METRIC: pa.float64()}


# --------------------------------------------------------------------------------------------- measuring


def paired_measurement(default_cmd: Sequence[str], default_env: dict[str, Any], cmd: Sequence[str],
                       env: dict[str, Any], *, rounds: int, warmup: int, limits, check: OutputCheck,
                       reference: str, inputs: dict[str, bytes]):
    """Measure a configuration beside the default in interleaved rounds; (measurement, default times, speedup).

    Round r runs the default and the configuration once each (the order alternates); the speedup is the median
    of the rounds' default time / configuration time. The first failing run of the configuration ends it with
    its status; a failing default run (the default passed before) ends it as `crash` with that reason.
    """
    from mirtune.measure.measurement import Measurement, measure
    from mirtune.tasks.measured import spread

    cand: list[float] = []
    base: list[float] = []
    last = None
    user, system, rss = [], [], []
    for r in range(warmup + rounds):
        order = ("default", "candidate") if r % 2 == 0 else ("candidate", "default")
        for which in order:
            c, e = (default_cmd, default_env) if which == "default" else (cmd, env)
            m = measure(c, e, repeats=1, warmup=0, limits=limits, check=check, reference=reference, inputs=inputs)
            if m.status != "ok":
                if which == "default":
                    m.status, m.reason = "crash", f"the default configuration failed beside it: {m.reason}"
                return m, base, None
            if r >= warmup:
                (base if which == "default" else cand).append(m.runtimes_s[0])
            if which == "candidate":
                last = m
                user.append(m.user_s or 0.0)
                system.append(m.sys_s or 0.0)
                if m.peak_rss_kib is not None:
                    rss.append(m.peak_rss_kib)
    out = Measurement(status="ok", runtimes_s=cand, median_s=statistics.median(cand), cv=spread(cand),
                      checksum=last.checksum, reference_checksum=reference, exit_code=0,
                      peak_rss_kib=max(rss) if rss else None, user_s=statistics.fmean(user),
                      sys_s=statistics.fmean(system), telemetry=last.telemetry)
    return out, base, statistics.median(round_ratios(base, cand))


def round_ratios(default_times: Sequence[float], times: Sequence[float]) -> list[float]:
    """Per round: the default's time / the configuration's time."""
    return [float(b) / float(c) for b, c in zip(default_times, times) if c]


def _node_id() -> str | None:
    try:
        import ray

        return ray.get_runtime_context().get_node_id() if ray.is_initialized() else None
    except Exception:
        return None


class LiveMeasurer:
    """The live `mirtune.measure.measurer.Measurer` of a tuning, on this node: a configuration of `plan` is built
    (or the binary the driver shipped in `builds` installed) and timed against the default in interleaved rounds
    (`paired_measurement`), its record's score the median per-round speedup (0 when it failed) and its row the
    dataset row; the default (None) is timed alone, and its answer becomes the `reference` that every other
    configuration must reproduce when none was given. What each Ray Tune trial of `mirtune tune` measures with
    (it travels to the trial whole), and what `search` can drive in-process."""

    def __init__(self, plan: TunePlan, settings: dict[str, Any], builds: dict[str, dict[str, Any]] | None = None,
                 reference: str | None = None) -> None:
        self.plan = plan
        self.settings = settings
        self.builds = dict(builds or {})
        self.reference = reference

    def measure(self, params: dict[str, Any] | None) -> Record:
        """Measure one configuration (None: the default, alone); its record, with the dataset row."""
        from mirtune.measure.host import host_info
        from mirtune.measure.measurement import failed, measure
        from mirtune.measure.records import point_row

        plan, s = self.plan, self.settings
        res, binfo = self._installed(params)
        paired: list[float] = []
        speedup = None
        if res.status != "ok" or res.exe is None:
            m = failed("build_failed", res.reason)
        elif params is None:
            # at least two runs, so that output lines that change between runs are found (and left out of the check)
            m = measure([res.exe, *plan.program.args], plan.env(None), repeats=s["repeats"],
                        warmup=max(s["warmup"], 2 - s["repeats"]), limits=s["limits"], check=plan.program.check,
                        inputs=plan.files)
            speedup = 1.0 if m.status == "ok" else None
        else:
            m, paired, speedup = self._paired(params, s["repeats"], s["warmup"])
        row = point_row(plan.point(params), m, binfo, plan.build_columns, s, host_info().row(), _node_id())
        row["paired_default_s"] = paired
        row[METRIC] = speedup
        if params is None and self.reference is None and row["status"] == "ok":
            self.reference = row["checksum"]
        return Record(score_of(row), row["status"], row)

    def ratios(self, params: dict[str, Any], rounds: int) -> list[float] | str:
        """More interleaved rounds of one configuration against the default: the per-round ratios default time /
        its time, or why it failed (a string)."""
        m, base, _ = self._paired(params, rounds, 0)
        if m.status != "ok":
            return f"{m.status}: {m.reason}"
        return round_ratios(base, m.runtimes_s)

    def _paired(self, params: dict[str, Any], rounds: int, warmup: int):
        """`paired_measurement` of a configuration against the default, on this node: (measurement, default
        times, speedup); MirtuneError when the default's binary cannot be had here or no reference is known."""
        plan = self.plan
        if self.reference is None:
            raise MirtuneError("no reference answer: the default configuration is measured first", plan.program.label)
        dres, _ = self._installed(None)
        if dres.status != "ok" or dres.exe is None:
            raise MirtuneError(f"the default configuration's binary is missing on this node: {dres.reason}")
        res, _ = self._installed(params)
        if res.status != "ok" or res.exe is None:
            from mirtune.measure.measurement import failed

            return failed("build_failed", res.reason), [], None
        return paired_measurement([dres.exe, *plan.program.args], plan.env(None), [res.exe, *plan.program.args],
                                  plan.env(params), rounds=rounds, warmup=warmup, limits=self.settings["limits"],
                                  check=plan.program.check, reference=self.reference, inputs=plan.files)

    def _installed(self, params: dict[str, Any] | None):
        """Build (or find, or install as shipped) a configuration's binary on this node; (BuildResult, the build's
        row fields)."""
        from mirtune.measure.build import build, install

        spec = self.plan.build_spec(params)
        cache_dir = self.settings.get("cache_dir")
        shipped = self.builds.get(spec.key())
        if shipped is not None:
            res = install(spec, shipped.get("exe_bytes"), shipped.get("tag"), cache_dir)
        else:
            res = build(spec, cache_dir)
        return res, {"seconds": res.seconds, "cached": res.cached}


def _measure_remote(live: LiveMeasurer, params: dict[str, Any] | None) -> Record:
    """A Ray task's body: `live.measure(params)` on the node that runs it."""
    return live.measure(params)


def _ratios_remote(live: LiveMeasurer, params: dict[str, Any], rounds: int) -> list[float] | str:
    """A Ray task's body: `live.ratios(params, rounds)` on the node that runs it."""
    return live.ratios(params, rounds)


def _trainable(config: dict[str, Any], live: LiveMeasurer) -> None:
    """One Ray Tune trial: measure the configuration, report its score (the speedup, 0 when it failed) and its row."""
    from ray import tune

    rec = live.measure(dict(config))
    tune.report({METRIC: rec.score, "row_json": json.dumps(rec.row, default=json_default)})


def _row_sink(writer, on_row: Callable[[dict[str, Any]], None]):
    """A Tune callback (it runs in the driver) that writes every trial's row as it arrives."""
    from ray.tune import Callback

    class RowSink(Callback):
        def on_trial_result(self, iteration, trials, trial, result, **info) -> None:
            text = result.get("row_json")
            if not text:
                return
            row = json.loads(text)
            writer.add(row)
            writer.flush()
            on_row(row)

    return RowSink()


# --------------------------------------------------------------------------------------------- the driver


@dataclass
class TuneResult:
    """What a tuning found: the best configuration measured, its speedup, and every measurement."""

    input: str
    task: str
    best: dict[str, Any] | None
    label: str
    speedup: float
    apply: list[str]
    measured: list[dict[str, Any]]
    runs_now: int
    runs_before: int
    budget: int
    seeds: list[dict[str, Any]]
    out_dir: str
    notes: list[str] = field(default_factory=list)
    check: str = ""
    volatile_lines: list[int] = field(default_factory=list)
    interrupted: bool = False
    confirm_rounds: int = 0

    def to_dict(self) -> dict[str, Any]:
        from dataclasses import asdict

        return asdict(self)


def _seeds(task: str, program: Program, space: dict[str, tuple[Any, ...]], k: int,
           heads: str | None, notes: list[str]) -> list[dict[str, Any]]:
    """The configurations measured first, as points of `space` (the default left out): where the space has thread
    counts, the predictor's best configuration at each of them (in the predictor's order; a count the predictor
    never ranks takes its best schedule and chunk), so that fewer threads are always tried; then the predictor's
    top-k."""
    from mirtune.predict.recommend import recommend

    if k <= 0:
        return []
    several = program.extra_sources or program.include_dirs
    rec = recommend(program.sources if several else program.source, task, top=10_000, heads=heads,
                    include_dirs=program.include_dirs, cflags=program.cflags)
    notes.extend(n for n in rec.notes if "held-out" not in n)
    return seed_configs([e for e in rec.top if e["label"] != "default"], space, k)


def _known_results(plan: TunePlan, rows) -> dict[tuple, float]:
    """Configurations of `plan` already measured in `rows` (a DataFrame): key -> score (0 for a failure)."""
    return {config_key(plan.ids[r["point_id"]], plan.space): score_of(r)
            for r in (rows.to_dict("records") if len(rows) else []) if r["point_id"] in plan.ids}


def _probe_cores() -> int:
    """Logical cores of a node that may time runs (where the trials will run)."""
    import ray

    from mirtune.cluster import TIMED_RUN_RESOURCE
    from mirtune.measure.host import logical_cores

    return int(ray.get(ray.remote(logical_cores).options(num_cpus=0, resources={TIMED_RUN_RESOURCE: 1}).remote()))


def tune_program(program: Program, task: str, budget: int = 12, *, parallel: int = 1,
                 out_dir: str | os.PathLike | None = None, top_k: int = 3, seed: int = 0,
                 space: Sequence[str] | str | None = None, repeats: int = 3, warmup: int = 1,
                 heads: str | None = None, address: str | None = None, cache_dir: str | None = None,
                 confirm: int = 3,
                 log: Callable[[str], None] = lambda s: print(s, file=sys.stderr, flush=True)) -> TuneResult:
    """Tune one program (see the module doc); MirtuneError with one line when it cannot.

    `confirm` more interleaved rounds re-measure the best configuration found against the default before it is
    recommended (the best of many noisy measurements is flattered by its noise); its speedup is the median of
    all its rounds' ratios, and a configuration that no longer beats the default is not recommended."""
    import ray

    from mirtune.cluster import TIMED_RUN_RESOURCE, ensure_ray, shutdown_ray, timed_capacity
    from mirtune.measure.records import PartWriter, dir_lock, read_rows, schema_for
    from mirtune.measure.sandbox import RunLimits

    definition = registry.get(task, tunes=True)
    if budget < 1:
        raise UsageError("--budget must be at least 1 (the default configuration is the first run)")
    if parallel < 1 or top_k < 0 or repeats < 1 or warmup < 0 or confirm < 0:
        raise UsageError("--parallel and --repeats must be at least 1, --top-k, --warmup and --confirm at least 0")
    program, files, notes = prepare_program(program)
    definition.tune_space(1, space)  # an unknown parameter or value fails here, before Ray starts
    from mirtune.paths import check_output

    out = check_output(Path(out_dir) if out_dir else Path("tune-out") / program.source.stem, "dir", "--out")
    started = ensure_ray(address)
    try:
        capacity = timed_capacity()
        if parallel > capacity:
            notes.append(f"--parallel {parallel}: the cluster can time {capacity} run(s) at once; using {capacity}")
            parallel = capacity
        cores = _probe_cores()
        plan = make_plan(task, program, files, cores, space)
        n_space = len(all_configs(plan.space))
        seeds = _seeds(task, program, plan.space, top_k, heads, notes)
        out.mkdir(parents=True, exist_ok=True)
        with dir_lock(out):
            rows = read_rows(out)
            writer = PartWriter(out, schema_for(columns(task)), 1, 0.0)
            settings = {"repeats": repeats, "warmup": warmup, "limits": RunLimits(timeout_s=program.timeout_s),
                        "cache_dir": cache_dir}
            default_id = plan.point(None).point_id
            old_default = [r for r in rows.to_dict("records") if r["point_id"] == default_id] if len(rows) else []
            builds = default_build(plan, cache_dir)
            runs_now = 0
            live = LiveMeasurer(plan, settings, builds)
            if old_default and old_default[-1]["status"] == "ok":
                default_row = old_default[-1]
                log(f"default configuration: measured before ({default_row['median_s']:.3f}s), read from {out}")
            else:
                log(f"measuring the default configuration ({settings['warmup']} warm-up + {repeats} runs; "
                    f"checking {program.check.describe()})")
                remote = ray.remote(_measure_remote).options(num_cpus=1, resources={TIMED_RUN_RESOURCE: 1},
                                                             max_retries=2)
                default_row = ray.get(remote.remote(live, None)).row
                writer.add(default_row)
                writer.flush()
                runs_now += 1
            if default_row["status"] != "ok":
                raise MirtuneError(f"the default configuration ended as {default_row['status']} "
                                   f"({default_row['reason']}): nothing to compare against (its row is in {out})",
                                   program.label)
            live.reference = default_row["checksum"]
            volatile = program.check.volatile_lines(live.reference)
            if volatile:
                notes.append(f"output line(s) {', '.join(map(str, volatile[:8]))} change between runs of the default "
                             "configuration: left out of the check")
            known = _known_results(plan, rows)
            runs_before = len(known) + (0 if runs_now else 1)
            remaining = min(budget - 1 - len(known), n_space - len(known))
            seeds_left = [s for s in seeds if config_key(s, plan.space) not in known]
            if 0 < remaining < len(seeds_left):
                notes.append(f"the budget leaves room for {remaining} of the predictor's {len(seeds_left)} "
                             "suggestions; the best-ranked are run")
                seeds_left = seeds_left[:remaining]
            interrupted = False
            if remaining > 0:
                new_rows, interrupted = _run_tuner(live, known, seeds_left, remaining, parallel, seed,
                                                   writer, log, len(known) + 1, budget)
                runs_now += len(new_rows)
            else:
                log(f"nothing left to measure: {len(known) + 1} configuration(s) measured before "
                    f"(budget {budget}, space {n_space + 1})")
        rows = read_rows(out)
        confirmed = {}
        if confirm and not interrupted:
            confirmed = _confirm_best(live, rows, confirm, log)
        return _result(plan, rows, seeds, runs_now, runs_before, budget, out, notes, volatile, interrupted,
                       confirmed, confirm if confirmed else 0)
    finally:
        if started:
            shutdown_ray()


def default_build(plan: TunePlan, cache_dir: str | None = None) -> dict[str, dict[str, Any]]:
    """Build the default configuration's binary once per tuning, here, and ship it to every node (a node of
    another CPU or clang builds its own); {build key: binary and tag}. Where one binary serves every configuration
    (they differ in their environment), one that does not build stops the tuning; else a default that does not
    build is shipped as nothing, and the node's cached failure becomes its row.

    The source is compiled once more, for the predictor's seeds (`program_ir`, cached by content): IR for no
    particular CPU, at -O2, from the user's text with only those --cflags that decide what it means (-D, -I,
    -std=: `mirtune.ir.frontend.source_flags`), as the predictor's training programs were compiled. The binary is
    built with -march=native, the --cflags and the source's folder on the include path (and from the task's
    rewrite, `Task.tune_sources`, where it has one), so neither compile can stand for the other without
    changing the seeds or the binary that is timed. Both are cached: a rerun of the tuning compiles neither.
    A program of several files: every file is compiled to an object and all are linked (one line naming the file
    that does not compile, or saying that they do not link); its IR is every file's, linked (`program_ir_linked`)."""
    from mirtune.measure.build import build

    res = build(plan.build_spec(None), cache_dir)
    if res.status != "ok":
        if all(plan.build_spec(c).key() == res.key for c in plan.ids.values()):  # one binary serves them all
            raise MirtuneError(f"the program does not build: {res.reason}", plan.program.label)
        return {}
    return {res.key: {"exe_bytes": Path(res.exe).read_bytes(), "tag": res.tag}}


def _run_tuner(live: LiveMeasurer, known: dict[tuple, float], seeds: list[dict[str, Any]], remaining: int,
               parallel: int, seed: int, writer, log: Callable[[str], None], done_before: int,
               budget: int) -> tuple[list[dict[str, Any]], bool]:
    """Run the Ray Tune experiment for `remaining` new configurations, each trial measuring with `live`; (rows it
    measured, interrupted)."""
    os.environ.setdefault("RAY_AIR_NEW_OUTPUT", "0")  # verbose=0 then means silent (no experiment box)
    from ray import tune
    from ray.tune.search import ConcurrencyLimiter

    from mirtune.cluster import TIMED_RUN_RESOURCE

    plan = live.plan
    searcher = ConcurrencyLimiter(make_searcher(plan.space, seeds, known, seed), max_concurrent=parallel)
    new_rows: list[dict[str, Any]] = []
    best = [max(known.values(), default=1.0)]

    def on_row(row: dict[str, Any]) -> None:
        new_rows.append(row)
        params = {k: row.get(k) for k in plan.space}
        s = row.get(METRIC)
        ok = row["status"] == "ok" and s is not None
        best[0] = max(best[0], s if ok else 0.0)
        what = f"{s:.3f}x over the default" if ok else f"{row['status']}: {row['reason']}"
        seeded = " (predictor)" if params in seeds else ""
        log(f"[{done_before + len(new_rows)}/{budget}] {plan.definition.label(params)}{seeded}: {what}; "
            f"best so far {best[0]:.3f}x")

    trainable = tune.with_resources(tune.with_parameters(_trainable, live=live), {"cpu": 1, TIMED_RUN_RESOURCE: 1})
    storage = private_temp_dir("mirtune-tune-")  # one a killed run left behind goes at the next start
    ray_tune_log = logging.getLogger("ray.tune")
    level = ray_tune_log.level
    # Ray Tune's own lines on Ctrl-C ("Resume experiment with: Tuner.restore(path=...)", naming the folder removed
    # below) are not for mirtune's users: what was measured and how to resume is said by mirtune itself
    ray_tune_log.setLevel(logging.CRITICAL)
    try:
        tuner = tune.Tuner(
            trainable,
            tune_config=tune.TuneConfig(search_alg=searcher, num_samples=remaining, metric=METRIC, mode="max"),
            run_config=tune.RunConfig(name="mirtune-tune", storage_path=str(storage), verbose=0, log_to_file=False,
                                      callbacks=[_row_sink(writer, on_row)],
                                      failure_config=tune.FailureConfig(max_failures=2)))
        grid = tuner.fit()
        errors = [r.error for r in grid if r.error is not None]
        interrupted = len(new_rows) + len(errors) < remaining  # stopped (Ctrl-C) before the budget was spent
        if errors:
            log(f"{len(errors)} trial(s) failed after retries (not the program's answer; rerun to retry): "
                f"{type(errors[0]).__name__}: {str(errors[0]).strip().splitlines()[-1][:200]}")
    finally:
        ray_tune_log.setLevel(level)
        shutil.rmtree(storage, ignore_errors=True)
    return new_rows, interrupted


def _confirm_best(live: LiveMeasurer, rows, rounds: int, log: Callable[[str], None]) -> dict[tuple, float]:
    """Re-measure the best configuration found (when it beats the default) for `rounds` more interleaved rounds on
    a timed-run node; {its key: the median ratio over all its rounds} (0 when it failed now)."""
    import ray

    from mirtune.cluster import TIMED_RUN_RESOURCE

    plan = live.plan
    ok = [r for r in (rows.to_dict("records") if len(rows) else []) if r["point_id"] in plan.ids and score_of(r) > 1.0]
    if not ok:
        return {}
    row = max(ok, key=score_of)
    cfg = plan.ids[row["point_id"]]
    log(f"confirming {plan.definition.label(cfg)} ({row[METRIC]:.3f}x in the search) over {rounds} more interleaved rounds")
    remote = ray.remote(_ratios_remote).options(num_cpus=1, resources={TIMED_RUN_RESOURCE: 1}, max_retries=2)
    more = ray.get(remote.remote(live, cfg, rounds))
    if isinstance(more, str):
        log(f"  it failed when measured again ({more}): not recommended")
        return {config_key(cfg, plan.space): 0.0}
    base, cand = row.get("paired_default_s"), row.get("runtimes_s")  # numpy arrays when read back from Parquet
    ratios = (round_ratios(base, cand) if base is not None and cand is not None else []) + more
    value = statistics.median(ratios) if ratios else 0.0
    log(f"  {value:.3f}x over the default (median of {len(ratios)} rounds)")
    return {config_key(cfg, plan.space): value}


def _result(plan: TunePlan, rows, seeds: list[dict[str, Any]], runs_now: int, runs_before: int, budget: int,
            out: Path, notes: list[str], volatile: list[int], interrupted: bool,
            confirmed: dict[tuple, float] | None = None, confirm_rounds: int = 0) -> TuneResult:
    """The answer, from every row of this program variant in the output folder (and the confirmation of the
    best, whose speedup replaces the search's; a configuration that no longer beats the default is dropped)."""
    task = plan.definition
    measured = [{**plan.ids[r["point_id"]], "label": task.label(plan.ids[r["point_id"]]),
                 METRIC: round(score_of(r), 4), "median_s": r.get("median_s"), "status": r["status"],
                 "reason": r["reason"]}
                for r in (rows.to_dict("records") if len(rows) else []) if r["point_id"] in plan.ids]
    measured.sort(key=lambda m: -m[METRIC])
    winner = measured[0] if measured and measured[0][METRIC] > 1.0 else None
    for key, value in (confirmed or {}).items():
        if winner is not None and config_key(winner, plan.space) == key:
            winner = dict(winner, speedup=round(value, 4))
            if value <= 1.0:
                notes.append(f"{winner['label']} measured {measured[0][METRIC]:.3f}x in the search but "
                             f"{value:.3f}x over all its rounds: the default is kept")
                winner = None
    if winner is None:
        best, label, speedup = None, "default", 1.0
        apply = task.tuned_apply({}, True, str(plan.program.source), plan.rewritten)
    else:
        best = {k: winner[k] for k in plan.space}
        label, speedup = winner["label"], winner[METRIC]
        apply = task.tuned_apply(task.parameters(best, None, plan.cores), False,
                                 plan.loops_in or str(plan.program.source), plan.rewritten)
    return TuneResult(input=plan.program.label, task=plan.task, best=best, label=label,
                      speedup=round(float(speedup), 4), apply=apply, measured=measured, runs_now=runs_now,
                      runs_before=runs_before, budget=budget, seeds=seeds, out_dir=str(out), notes=notes,
                      check=plan.program.check.describe(), volatile_lines=volatile, interrupted=interrupted,
                      confirm_rounds=confirm_rounds)

