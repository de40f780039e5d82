"""The OpenMP task: threads, schedule and chunk (and a power limit where one was swept) of a program's loops.

Data: the `openmp` collector's rows (by default datasets/openmp-epyc, openmp-gen, openmp-apps-epyc,
openmp-ordinary-epyc and openmp-retired-epyc: the 32 PolyBench-like programs, 40 generated ones, 20
application-style ones, 21 ordinary ones run with arguments and input files, and the 24 ordinary programs of the
three held-out sets retired after their blind use, all measured on one host), one group per (program, input size
or argument vector), the default configuration (all cores, the runtime's static schedule, full power) as the
reference. Protocol: leave-one-application-out (both input sizes of an application are held out together; the
generated programs of one template form one application). Context features besides the embedding: how many
worksharing loops the IR holds, how many of them a runtime schedule (OMP_SCHEDULE) reaches, and how many parallel
regions the program forks (`context_features`). The input sizes the collector used (1, 2, or two argument
vectors) are scales of each program, not quantities a user's program has, so they are not a feature.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    import numpy as np

from mirtune.errors import MirtuneError, UsageError
from mirtune.tasks.base import MEASURED, Task, TaskSpec

NAME = "openmp"
# the default data: one host's, the AMD EPYC VM (datasets/README.md)
DATASETS = ("openmp-epyc", "openmp-gen", "openmp-apps-epyc", "openmp-ordinary-epyc", "openmp-retired-epyc")
PARAMETERS = ("threads", "schedule", "chunk", "power_limit_w")  # names in recommendations and --json
CONTEXT = ("log1p_worksharing_loops", "runtime_reachable_share", "log1p_parallel_regions",
           "log1p_parallel_regions_in_loops", "log1p_worksharing_loops_in_loops", "log1p_barriers_in_loops")


def _label(cfg: dict[str, Any]) -> str:
    return ",".join(f"{k}={cfg[k]}" for k in ("power_w", "threads", "schedule", "chunk") if cfg.get(k) is not None)


def application(row: dict[str, Any]) -> str:
    """The application a row belongs to: its program, except that programs generated from one template
    (collectors/programs/openmp_gen/omp_<kind>_<k>.c) are one application, held out together, so that a predictor
    is never scored on a sibling of what it trained on."""
    name = str(row["program"])
    if "openmp_gen" in Path(str(row.get("program_path", ""))).parts:
        return re.sub(r"_\d+$", "", name)
    return name


SPEC = TaskSpec(name=NAME, sweep="openmp", config_columns=("power_w", "threads", "schedule", "chunk"),
                app_of=application, label=_label)


def context_features(module: Any) -> "np.ndarray":
    """The CONTEXT features of a module: how many worksharing loops, the share of them OMP_SCHEDULE reaches, and
    how many parallel regions, worksharing loops and barriers there are, and how many of them sit inside a
    sequential loop (paying a fork/join or a barrier per iteration), as log1p counts."""
    import numpy as np

    from mirtune.ir.openmp import call_sites, openmp_schedule_calls, parallel_structure

    sites = call_sites(module)  # one walk over the instructions for both readings
    loops = [c for c in openmp_schedule_calls(module, sites) if c.construct == "loop"]
    reach = sum(1 for c in loops if c.runtime_reachable) / len(loops) if loops else 0.0
    par = parallel_structure(module, sites)
    return np.array([np.log1p(len(loops)), reach, np.log1p(par["forks"]), np.log1p(par["forks_in_loops"]),
                     np.log1p(par["loop_starts_in_loops"]), np.log1p(par["barriers_in_loops"])], dtype=np.float64)


def has_worksharing(context: "np.ndarray") -> bool:
    """Whether a program's context features say it has any worksharing loop to tune."""
    return bool(context[0] > 0)


class OpenMPTask(Task):
    name, kind, spec, datasets = NAME, MEASURED, SPEC, DATASETS
    parameter_names, context_names = PARAMETERS, CONTEXT
    scales_with_cores = links_programs = profiles = applies = replays_tuning = data_efficiency = True
    tunes = builds_openmp = True
    default_embedding = "none"  # the embedding added nothing held out (docs/recommend.md)
    evaluate_embeddings = ("mirencoder", "ir2vec", "none")
    apply_help = ("threads=N, schedule=static|dynamic|guided|auto|runtime, chunk=N (static, dynamic and guided "
                  "only)")

    def parameters(self, config, trained_cores=None, host_cores=None):
        """`threads` equal to the training host's core count meant "all cores" there and becomes this host's core
        count (the default configuration is all cores too)."""
        threads = config.get("threads")
        if threads is None:
            threads = host_cores
        elif trained_cores and host_cores and threads == trained_cores:
            threads = host_cores
        return {"threads": threads, "schedule": config.get("schedule"), "chunk": config.get("chunk"),
                "power_limit_w": config.get("power_w")}

    def context_features(self, module, launch=None):
        return context_features(module)

    def nothing_to_tune(self, module, context, is_ir):
        if has_worksharing(context):
            return None
        return ("no OpenMP worksharing loop (omp for / parallel for) in this program: nothing for the openmp task "
                "to tune" + ("" if is_ir else " (compiled with -fopenmp when the source mentions OpenMP)"))

    def how_to_apply(self, params, is_default, source=None, context=None):
        # CONTEXT[1]: the share of the worksharing loops a runtime schedule (OMP_SCHEDULE) reaches
        return self._advice(params, is_default, context is not None and bool(context[1] >= 1.0), source)

    def tuned_apply(self, params, is_default, source, rewritten):
        # rewritten: the loops needed the schedule(runtime) rewrite, so OMP_SCHEDULE alone does not reach them
        return self._advice(params, is_default, not rewritten, source)

    @staticmethod
    def _advice(params: Mapping[str, Any], is_default: bool, runtime_reachable: bool, source: str | None) -> list[str]:
        """Lines telling a user how to run the program under `params`."""
        if is_default:
            return ["keep the default: OMP_NUM_THREADS and OMP_SCHEDULE unset (all cores, static schedule)"]
        env = f"OMP_NUM_THREADS={params['threads']}"
        if params.get("schedule"):
            env += f" OMP_SCHEDULE={params['schedule']}" + (f",{params['chunk']}" if params.get("chunk") else "")
        lines = [f"run with: {env} ./program ..."]
        if params.get("schedule") and not runtime_reachable:
            config = ",".join(f"{k}={params[k]}" for k in ("threads", "schedule", "chunk") if params.get(k) is not None)
            lines.append("its loops carry no schedule(runtime), so OMP_SCHEDULE does not reach them: "
                         f"mirtune apply {source or 'app.c'} --config {config}")
        if params.get("power_limit_w"):
            lines.append(f"with a package power limit of {params['power_limit_w']:g} W")
        return lines

    def tune_dimensions(self):
        from mirtune.measure.openmp import DIMENSIONS

        return {k: v for k, v in DIMENSIONS.items() if k != "power"}  # the power limit is not tuned

    def cores_values(self, cores):
        from mirtune.measure.openmp import thread_counts

        return {"threads": thread_counts(cores)}

    def tune_sources(self, sources, texts, line, label):
        """Every file rewritten (schedule(runtime) on its worksharing loops without a schedule clause); MirtuneError
        unless some file has such a loop."""
        from mirtune.measure.openmp import merged_rewrite_columns, rewrite_for_runtime_schedule

        out, parts, loops_in = [], [], ""
        for src, text in zip(sources, texts):
            new, part, failure = rewrite_for_runtime_schedule(text)
            if failure:
                raise MirtuneError(failure, str(src))
            out.append(new)
            parts.append(part)
            if not loops_in and (part.get("tunable_loops") or 0) > 0:
                loops_in = str(src)
        cols = merged_rewrite_columns(parts, [s.name for s in sources])
        if cols.get("tunable_loops") == 0:
            raise MirtuneError("no worksharing loop that OMP_SCHEDULE can reach: only the thread count would "
                               f"change; nothing for the {self.name} task to tune", label)
        return out, cols, loops_in

    def run_env(self, config, cores):
        if config is None:
            return {"OMP_NUM_THREADS": cores}
        return {"OMP_NUM_THREADS": config["threads"], "OMP_SCHEDULE": f"{config['schedule']},{config['chunk']}"}

    def tune_columns(self):
        from mirtune.measure.openmp import COLUMNS

        return dict(COLUMNS)

    def tune_row(self, config, cores):
        params = {"power_w": None, "threads": cores, "schedule": "static", "chunk": None} if config is None \
            else {"power_w": None, **config}
        return params, {"omp_schedule": self.run_env(config, cores).get("OMP_SCHEDULE"),
                        "power_reason": "not tuned by mirtune tune"}

    def parse_config(self, text):
        return parse_config(text)

    def source_file(self, files):
        """The first C/C++ source among `files` that holds an OpenMP worksharing loop (where `mirtune apply` goes)."""
        from mirtune.source.openmp import find_loops

        for p in files:
            if p.suffix not in (".ll", ".bc") and find_loops(p.read_text(errors="replace")):
                return str(p)
        return None

    def apply(self, text, config, line):
        from mirtune.source.loops import NothingToTune
        from mirtune.source.openmp import apply_config, make_schedule_runtime

        schedule = config.get("schedule")
        if schedule is None or schedule == "runtime":
            result = make_schedule_runtime(text)
            spec = "schedule(runtime)"
        else:
            result = apply_config(text, str(schedule), config.get("chunk"))  # type: ignore[arg-type]
            spec = f"schedule({schedule}{',' + str(config['chunk']) if 'chunk' in config else ''})"

        if not result.loops:
            raise NothingToTune("nothing to tune: no OpenMP worksharing loop (omp for / parallel for) in the program")
        if result.tunable == 0:
            parts = [f"{result.fixed} fixed"] + ([f"{result.unparsed} unparsed"] if result.unparsed else [])
            raise NothingToTune(f"nothing to tune: none of the {len(result.loops)} worksharing loops can take a "
                                f"schedule ({', '.join(parts)}; lines "
                                f"{', '.join(str(lp.line) for lp in result.loops)})")
        extra = [f"{result.fixed} fixed"] + ([f"{result.unparsed} unparsed"] if result.unparsed else [])
        details = [f"  line {lp.line}: {lp.construct}: {lp.status}: {lp.reason}" for lp in result.loops
                   if lp.status != "tunable"]
        if "threads" in config:
            details.append(f"OMP_NUM_THREADS={config['threads']}")
        return (result.source, f"{spec} in {result.tunable} of {len(result.loops)} worksharing loops "
                f"({', '.join(extra)})", details, list(result.problems))


CONFIG_KEYS = ("threads", "schedule", "chunk")


def parse_config(text: str) -> dict[str, object]:
    """`threads=2,schedule=dynamic,chunk=8` (also `schedule=dynamic,8`) -> {"threads": 2, ...}."""
    from mirtune.source.openmp import LIMITS as OPENMP_LIMITS
    from mirtune.source.openmp import SCHEDULE_KINDS

    items = [item.strip() for item in text.split(",")]
    raw: dict[str, str] = {}
    last = None
    for item in items:
        if not item:
            raise UsageError(f"bad --config {text!r}: empty item")
        if "=" not in item:
            if last == "schedule" and "chunk" not in raw:  # the OMP_SCHEDULE spelling: schedule=dynamic,8
                raw["chunk"] = item
                last = "chunk"
                continue
            raise UsageError(f"bad --config item {item!r}: expected KEY=VALUE")
        key, value = (part.strip() for part in item.split("=", 1))
        key = key.lower()
        if key not in CONFIG_KEYS:
            raise UsageError(f"unknown config key {key!r} for --task openmp; use {', '.join(CONFIG_KEYS)}")
        if key in raw:
            raise UsageError(f"config key {key!r} given twice")
        if not value:
            raise UsageError(f"config key {key!r} has no value")
        raw[key] = value
        last = key
    config: dict[str, object] = {}
    for key in ("threads", "chunk"):
        if key in raw:
            try:
                n = int(raw[key])
            except ValueError:
                raise UsageError(f"{key} must be a positive integer, got {raw[key]!r}") from None
            if n < 1:
                raise UsageError(f"{key} must be a positive integer, got {raw[key]!r}")
            if n > OPENMP_LIMITS[key]:
                raise UsageError(f"{key} must be at most {OPENMP_LIMITS[key]}, got {raw[key]}")
            config[key] = n
    if "schedule" in raw:
        kind = raw["schedule"].lower()
        if kind not in SCHEDULE_KINDS:
            raise UsageError(f"unknown schedule {raw['schedule']!r}; choose one of {', '.join(SCHEDULE_KINDS)}")
        config["schedule"] = kind
    if "chunk" in config:
        if "schedule" not in config:
            raise UsageError("chunk needs a schedule (schedule=static|dynamic|guided)")
        if config["schedule"] in ("auto", "runtime"):
            raise UsageError(f"schedule {config['schedule']} takes no chunk")
    if not config:
        raise UsageError("empty --config")
    return config


TASK = OpenMPTask()
