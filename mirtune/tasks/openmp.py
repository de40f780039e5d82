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
from typing import Any

import numpy as np

from mirtune.tasks.measured import TaskSpec

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


def context_features(module: Any) -> np.ndarray:
    """The CONTEXT features of a module: how many worksharing loops, the share of them OMP_SCHEDULE reaches, and
    how many parallel regions, worksharing loops and barriers there are, and how many of them sit inside a
    sequential loop (paying a fork/join or a barrier per iteration), as log1p counts."""
    from mirtune.ir.openmp import call_sites, openmp_schedule_calls, parallel_structure

    sites = call_sites(module)  # one walk over the instructions for both readings
    loops = [c for c in openmp_schedule_calls(module, sites) if c.construct == "loop"]
    reach = sum(1 for c in loops if c.runtime_reachable) / len(loops) if loops else 0.0
    par = parallel_structure(module, sites)
    return np.array([np.log1p(len(loops)), reach, np.log1p(par["forks"]), np.log1p(par["forks_in_loops"]),
                     np.log1p(par["loop_starts_in_loops"]), np.log1p(par["barriers_in_loops"])], dtype=np.float64)


def has_worksharing(context: np.ndarray) -> bool:
    """Whether a program's context features say it has any worksharing loop to tune."""
    return bool(context[0] > 0)


def parameters(cfg: dict[str, Any], trained_cores: int | None, host_cores: int | None) -> dict[str, Any]:
    """A configuration as named parameters for this host: `threads` equal to the training host's core count
    meant "all cores" there and becomes this host's core count (the default configuration is all cores too)."""
    threads = cfg.get("threads")
    if threads is None:
        threads = host_cores
    elif trained_cores and host_cores and threads == trained_cores:
        threads = host_cores
    return {"threads": threads, "schedule": cfg.get("schedule"), "chunk": cfg.get("chunk"),
            "power_limit_w": cfg.get("power_w")}


def how_to_apply(params: dict[str, Any], is_default: bool, runtime_reachable: bool, source: str | None) -> list[str]:
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
