"""Every registered task through the one Task interface (mirtune.tasks.base, mirtune.tasks.registry), and no task
name anywhere in mirtune/ outside mirtune/tasks/ (issue #32 item 1)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import numpy as np
import pytest

from mirtune.errors import UsageError
from mirtune.ir.module import IRModule
from mirtune.tasks import registry
from mirtune.tasks.base import KINDS, MEASURED, PUBLISHED, Task

ROOT = Path(__file__).resolve().parents[2]
LOOP_C = """#include <omp.h>
void f(int n, float *a, float *b) {
  #pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] = 2 * b[i];
}
"""
LAUNCH = {"transfer_bytes": 4096.0, "wgsize": 64.0, "matrix": 240.0}


@pytest.fixture(scope="module")
def module(tmp_path_factory):
    from mirtune.predict.predictor import program_ir

    src = tmp_path_factory.mktemp("registry") / "loop.c"
    src.write_text(LOOP_C)
    return IRModule.from_file(program_ir(src))


@pytest.mark.parametrize("name", list(registry.TASKS))
def test_every_task_answers_the_interface(name, module):
    task = registry.get(name)
    assert isinstance(task, Task) and task.name == name and task.kind in KINDS
    assert task.parameter_names and task.label({})  # a space to name, a default to name
    if task.kind == MEASURED:
        assert task.spec is not None and task.datasets and not task.platforms
        assert all((ROOT / "datasets" / d).is_dir() for d in task.datasets)
    else:
        assert task.platforms and task.data_folder
    from mirtune.commands.recommend import LAUNCH_OPTIONS

    assert set(task.launch_options) <= set(LAUNCH_OPTIONS)  # each launch fact is an option of `recommend`
    context = task.context_features(module, LAUNCH)
    assert context.shape == (len(task.context_names),) and np.isfinite(context).all()
    params = task.parameters({}, None, 2)
    assert set(params) == set(task.parameter_names)
    lines = task.how_to_apply(params, True, "loop.c", context)
    assert lines and all(isinstance(ln, str) and ln for ln in lines)
    assert task.nothing_to_tune(module, context, False) is None  # the loop is a parallel loop
    assert name in task.no_predictor(Path("nowhere"))


@pytest.mark.parametrize("name", registry.names(applies=True))
def test_apply_then_phrase_a_configuration(name):
    task = registry.get(name)
    config = task.parse_config(_example(task))
    text, what, details, warnings = task.apply(LOOP_C, config, 4 if task.takes_line else None)
    assert text != LOOP_C and what and warnings == []
    assert task.how_to_apply(task.parameters(config, None, 2), False, "loop.c", None)


@pytest.mark.parametrize("name", registry.names(tunes=True))
def test_tune_reads_a_task_through_the_interface(name):
    task = registry.get(name)
    space = task.tune_space(2)
    assert list(space) == list(task.tune_dimensions()) and all(space.values())
    assert task.tune_space(2, [f"{k}={v[0]}" for k, v in space.items()]) == {k: v[:1] for k, v in space.items()}
    config = {k: v[0] for k, v in space.items()}
    columns = task.tune_columns()
    for cfg in (None, config):
        params, cols = task.tune_row(cfg, 2)
        assert set(params) | set(cols) <= set(columns) and isinstance(task.run_env(cfg, 2), dict)
    texts, _, _ = task.tune_sources([Path("loop.c")], [LOOP_C], 4 if task.takes_line else None, "loop.c")
    assert task.build_text(texts[0], None, 4) == texts[0]
    assert task.tuned_apply({}, True, "loop.c", False) == task.how_to_apply({}, True, "loop.c", None)
    assert task.tuned_apply(task.parameters(config, None, 2), False, "loop.c", True)


def _example(task: Task) -> str:
    """A configuration of the task in `mirtune apply --config` form: every key at 2 (chunk needs a schedule)."""
    keys = [part.split("=")[0].strip() for part in task.apply_help.split(",") if "=" in part]
    return ",".join("schedule=dynamic" if k == "schedule" else f"{k}=2" for k in keys)


@pytest.mark.parametrize("name", registry.names(kind=MEASURED))
def test_measured_folds_are_disjoint_and_cover_every_group(name):
    from mirtune.tasks.measured import leave_one_app_out

    task = registry.get(name)
    table = task.gain_table([str(ROOT / "datasets" / task.datasets[0])])
    folds = leave_one_app_out(table.apps)
    assert sorted(np.concatenate([te for _, te, _ in folds]).tolist()) == list(range(len(table)))
    for tr, te, _ in folds:
        assert not set(tr) & set(te)
    assert table.labels[0] == task.label({})


def test_one_unknown_task_error_and_filters():
    with pytest.raises(UsageError, match="unknown task 'numa'; choose from openmp"):
        registry.get("numa")
    with pytest.raises(UsageError, match="unknown task 'openmp'; choose from devmap, coarsening"):
        registry.get("openmp", kind=PUBLISHED)
    assert registry.names() == list(registry.TASKS)
    assert set(registry.names(kind=MEASURED)) | set(registry.names(kind=PUBLISHED)) == set(registry.TASKS)
    assert "{tasks}" not in str(registry.listing(applies=True))


# ------------------------------------------------------------------------------------ no task name elsewhere

NAMES = tuple(registry.TASKS)
PATTERN = re.compile(r"(?<![\w./-])(" + "|".join(NAMES) + r")(?![\w-])")
# where a task's name is still written outside mirtune/tasks/, and why it is no reference to a registered task (the
# test reads string constants, so it cannot tell a task from a word, a key or a folder of the same spelling)
REMAINDER = {
    "mirtune/commands/collect.py": "the collectors' sweep sub-commands, named as the sweeps the rows record",
    "mirtune/commands/evaluate.py": "the published experiments in English (device mapping, thread coarsening) in "
                                    "help built before any task module loads",
    "mirtune/experiments/published_report.py": "the published experiments' tables' and charts' titles, in English",
    "mirtune/commands/inspect.py": "its --openmp compile flag and the JSON key saying whether -fopenmp was used",
    "mirtune/measure/build.py": "the build key's JSON field for -fopenmp",
    "mirtune/paths.py": "the published data's folder layout (devmap/ under the data directory)",
    "mirtune/pretrain/corpus.py": "an LLVM pass pipeline called vectorize and the -fopenmp field of a program spec",
    "mirtune/source/loops.py": "the verb in a message (\"the loop to vectorize\"), not the task",
}


def literal_offenders() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for f in sorted((ROOT / "mirtune").rglob("*.py")):
        rel = str(f.relative_to(ROOT))
        if rel.startswith("mirtune/tasks/"):
            continue
        tree = ast.parse(f.read_text())
        docs = {id(n.body[0].value) for n in ast.walk(tree)
                if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.body
                and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
        hits = [f"{node.lineno}: {node.value[:60]!r}" for node in ast.walk(tree)
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
                and PATTERN.search(node.value)]
        if hits:
            found[rel] = hits
    return found


def test_no_task_name_outside_the_tasks_but_the_known_remainder():
    found = literal_offenders()
    assert set(found) <= set(REMAINDER), {f: h for f, h in found.items() if f not in REMAINDER}
    # and the product's commands that read tasks hold none
    for rel in ("mirtune/commands/recommend.py", "mirtune/commands/fit.py", "mirtune/commands/apply.py",
                "mirtune/commands/tune.py", "mirtune/predict/recommend.py", "mirtune/predict/predictor.py",
                "mirtune/predict/tune.py", "mirtune/predict/held_out.py"):
        assert rel not in found
