"""Dependencies point one way (README, Layout): the IR layer knows nothing of models or tasks, tasks say what a task
is and know no heads (no import of mirtune.predict), and within mirtune only the tuner, the profiler and the commands
that run sweeps use the collectors (which in turn use mirtune)."""

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


def test_only_the_tuner_and_the_sweep_commands_use_the_collectors():
    allowed = {"mirtune/predict/tune.py", "mirtune/commands/collect.py", "mirtune/commands/tune.py",
               "mirtune/commands/cluster.py", "mirtune/profile/ompt.py"}
    found = {f: ms for f, ms in imports("").items() if f not in allowed}
    assert offenders(found, ("collectors",)) == []
