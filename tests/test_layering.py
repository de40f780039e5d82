"""Dependencies point one way (README, Layout): the IR layer knows nothing of models or tasks, tasks say what a task
is and know no heads (no import of mirtune.predict), mirtune's library (everything but the command line) never
imports the collectors, which sit on it and below the command line (they import no command), and the experiments
(mirtune.experiments) sit above the product and below the command line: only `mirtune evaluate` imports them, and they import no command;
the measurement layer and the profiler know no predictor."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "mirtune"


def imports(folder: str) -> dict[str, set[str]]:
    """module file -> the modules it imports, anywhere in the file (lazy imports inside functions too)."""
    out: dict[str, set[str]] = {}
    for f in sorted((ROOT / folder).rglob("*.py")) if folder else sorted(ROOT.rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
                names.update(f"{node.module}.{a.name}" for a in node.names)  # `from mirtune import experiments`
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
        out[str(f.relative_to(ROOT.parent))] = names
    return out


def offenders(found: dict[str, set[str]], prefixes: tuple[str, ...]) -> list[str]:
    return [f"{f} imports {m}" for f, ms in found.items() for m in sorted(ms) if m.startswith(prefixes)]


def test_tasks_know_no_heads():
    assert offenders(imports("tasks"), ("mirtune.predict",)) == []


def test_ir_knows_nothing_of_models_tasks_or_predictors():
    assert offenders(imports("ir"), ("mirtune.model", "mirtune.tasks", "mirtune.predict", "mirtune.pretrain")) == []


COMMAND_LINE = ("mirtune/cli.py", "mirtune/commands/")  # the top layer: it may run sweeps (collect, cluster)


def collector_imports() -> dict[str, set[str]]:
    """collectors module file -> the modules it imports (as `imports`, for the collectors package)."""
    out: dict[str, set[str]] = {}
    for f in sorted((ROOT.parent / "collectors").glob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
                names.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
        out[str(f.relative_to(ROOT.parent))] = names
    return out


def test_the_library_never_imports_the_collectors():
    found = {f: ms for f, ms in imports("").items() if not f.startswith(COMMAND_LINE)}
    # what the check sees: the tuner, the profiler and the measurement layer, which once imported the collectors
    assert {"mirtune/predict/tune.py", "mirtune/profile/ompt.py", "mirtune/measure/sandbox.py",
            "mirtune/measure/records.py", "mirtune/experiments/tune_replay.py"} <= set(found)
    # and it finds what it looks for: the command that runs sweeps imports them
    assert offenders({"collect": imports("commands")["mirtune/commands/collect.py"]}, ("collectors",))
    assert offenders(found, ("collectors",)) == []


def test_the_collectors_sit_on_the_library_and_below_the_command_line():
    found = collector_imports()
    assert {"collectors/sweep.py", "collectors/openmp.py", "collectors/gccvect.py"} <= set(found)
    # they measure with mirtune's measurement layer (so the check below reads their imports of mirtune)
    assert offenders(found, ("mirtune.measure",))
    assert offenders(found, ("mirtune.commands", "mirtune.cli")) == []


EXPERIMENTS_COMMAND = "mirtune/commands/evaluate.py"  # the experiments' entry point, not the product


def product() -> dict[str, set[str]]:
    """The product's modules: everything under mirtune/ but the experiments and the command that runs them."""
    return {f: ms for f, ms in imports("").items()
            if not f.startswith("mirtune/experiments/") and f != EXPERIMENTS_COMMAND}


def test_the_product_never_imports_the_experiments():
    found = product()
    # what the check sees: the product's modules, `mirtune fit` (which records the held-out figures) among them
    assert {"mirtune/commands/fit.py", "mirtune/predict/held_out.py", "mirtune/cli.py"} <= set(found)
    assert not any(f.startswith("mirtune/experiments/") for f in found)
    # and it finds what it looks for: the experiments' command imports them (lazily, inside its functions)
    assert offenders({EXPERIMENTS_COMMAND: imports("commands")[EXPERIMENTS_COMMAND]}, ("mirtune.experiments",))
    assert offenders(found, ("mirtune.experiments",)) == []


def test_the_experiments_import_no_command():
    found = imports("experiments")
    assert {f"mirtune/experiments/{m}.py" for m in ("published_eval", "measured_eval", "data_efficiency", "finetune",
                                                    "data_efficiency_devmap", "data_efficiency_measured",
                                                    "data_efficiency_report", "tune_replay")} <= set(found)
    assert offenders(found, ("mirtune.commands", "mirtune.cli")) == []


def test_measurement_and_profiling_know_no_predictor():
    """The user's program, its builds and runs (mirtune.measure) and the profiling run (mirtune.profile) sit below
    the predictors and the tuner that use them."""
    found = {**imports("measure"), **imports("profile")}
    assert {"mirtune/measure/program.py", "mirtune/profile/ompt.py"} <= set(found)
    # the check reads their imports of mirtune: the profiler builds with the measurement layer
    assert offenders({"ompt": found["mirtune/profile/ompt.py"]}, ("mirtune.measure",))
    assert offenders(found, ("mirtune.predict", "mirtune.model", "mirtune.pretrain", "mirtune.commands")) == []

