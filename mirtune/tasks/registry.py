"""Every task mirtune knows, one line each: its name, its kind and the module whose `TASK` says the rest
(mirtune.tasks.base.Task). Adding a task is one module and one line here.

    from mirtune.tasks import registry
    task = registry.get("...")          # the Task; UsageError "unknown task ...; choose from ..." otherwise
    registry.names(kind=PUBLISHED)      # names, in the order below, of the tasks that match

Modules load on first use: the published tasks load pandas, which a recommendation for a measured task does not
need, and `mirtune --help` reads the names and kinds alone.
"""

from __future__ import annotations

import importlib
from typing import Any

from mirtune.errors import UsageError
from mirtune.tasks.base import MEASURED, PUBLISHED, Task

TASKS: dict[str, tuple[str, str]] = {  # name -> (kind, module defining TASK); the order `--help` lists them in
    "openmp": (MEASURED, "mirtune.tasks.openmp"),
    "vectorize": (MEASURED, "mirtune.tasks.vectorize"),
    "devmap": (PUBLISHED, "mirtune.tasks.devmap"),
    "coarsening": (PUBLISHED, "mirtune.tasks.coarsening"),
    "cuda_blocks": (MEASURED, "mirtune.tasks.cuda_blocks"),
}

DEFAULT = next(iter(TASKS))  # the task `mirtune.recommend` and `mirtune apply` answer for when none is named


def get(name: str, **wanted: Any) -> Task:
    """The task called `name`; the one "unknown task" UsageError for any other name, or (with `wanted`, Task
    attributes such as kind=PUBLISHED or replays_tuning=True) for a task that does not match them."""
    choices = names(**wanted)
    if name not in choices:
        raise UsageError(f"unknown task {name!r}; choose from {', '.join(choices)}")
    task = importlib.import_module(TASKS[name][1]).TASK
    assert task.name == name and task.kind == TASKS[name][0], f"{TASKS[name][1]}.TASK is {task!r}"
    return task


def names(**wanted: Any) -> list[str]:
    """The names of the tasks whose attributes equal `wanted`, or satisfy it where it is a function (kind alone reads
    no task module)."""
    out = []
    for name, (kind, module) in TASKS.items():
        if "kind" in wanted and kind != wanted["kind"]:
            continue
        rest = {k: v for k, v in wanted.items() if k != "kind"}
        if rest:
            task = importlib.import_module(module).TASK
            if any(not v(getattr(task, k)) if callable(v) else getattr(task, k) != v for k, v in rest.items()):
                continue
        out.append(name)
    return out


class Listing(str):
    """Help text naming the tasks that match, worked out when argparse formats it (`mirtune --help` builds every
    parser but formats none, and naming the tasks by capability reads their modules)."""

    def __new__(cls, template: str, each: str = "", **wanted: Any) -> "Listing":
        self = super().__new__(cls, template)
        self.template, self.each, self.wanted = template, each, wanted
        return self

    def __str__(self) -> str:
        found = names(**self.wanted)
        each = "; ".join(self.each.format(task=get(n), platforms="|".join(get(n).platforms)) for n in found
                         ) if self.each else ""
        return self.template.format(tasks=" | ".join(found), tasks_or=" or ".join(found), each=each)

    def __mod__(self, params: Any) -> str:  # argparse's help expansion
        return str(self).replace("%", "%%") % params


def listing(template: str = "{tasks}", each: str = "", **wanted: Any) -> str:
    """Help text: `template` with {tasks} ("a | b") or {tasks_or} ("a or b"), the names of the matching tasks, and
    {each}, `each` formatted with every matching task (`{task.name}`, `{task.apply_help}`..., `{platforms}`) joined
    by "; "."""
    return Listing(template, each, **wanted)


def all_tasks() -> list[Task]:
    """Every registered task (imports every task module)."""
    return [get(n) for n in TASKS]


__all__ = ["DEFAULT", "MEASURED", "PUBLISHED", "TASKS", "Task", "all_tasks", "get", "listing", "names"]
