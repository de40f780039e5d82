"""`mirtune inspect`: functions, statements, graph counts and OpenMP loops of a .ll or a source file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mirtune.cli import main
from mirtune.ir.frontend import compile_to_ir

APP = """#include <stdio.h>
static double a[1000];
void fill(int n) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] = i;
}
double total(int n) {
  double s = 0;
#pragma omp parallel for reduction(+:s) schedule(runtime)
  for (int i = 0; i < n; i++) s += a[i];
  return s;
}
int main(void) {
  fill(1000);
  printf("checksum: %g\\n", total(1000));
  return 0;
}
"""


@pytest.fixture(scope="module")
def app(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("inspect") / "app.c"
    path.write_text(APP)
    return path


@pytest.fixture(scope="module")
def app_ll(app) -> Path:
    ll = app.with_suffix(".ll")
    compile_to_ir(app, ll, opt=2, openmp=True)
    return ll


def _json(capsys, argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_inspect_ll_json(app_ll, capsys):
    info = _json(capsys, ["inspect", str(app_ll), "--json"])
    assert {"fill", "total", "main"} <= set(info["functions"])
    assert info["statements"] > 20
    nodes, edges = info["nodes"], info["edges"]
    assert nodes["total"] == nodes["instruction"] + nodes["variable"] + nodes["constant"] > 0
    assert edges["total"] == edges["control"] + edges["data"] + edges["call"] > 0
    loops = info["worksharing_loops"]
    assert [(lp["host_function"], lp["schedule_name"], lp["runtime_reachable"]) for lp in loops] == [
        ("fill", "kmp_sch_static", False), ("total", "kmp_sch_runtime", True)]
    assert info["runtime_reachable"] == 1
    assert "source_loops" not in info


def test_inspect_ll_text(app_ll, capsys):
    assert main(["inspect", str(app_ll)]) == 0
    out = capsys.readouterr().out
    assert "functions: " in out and "statements: " in out
    assert "graph: " in out and " nodes (instruction " in out and " edges (control " in out
    assert "worksharing loops: 2, 1 reachable by a runtime schedule" in out
    assert "runtime schedule: yes" in out and "runtime schedule: no" in out


def test_inspect_source_compiles_with_openmp_and_lists_source_loops(app, app_ll, capsys):
    from_source = _json(capsys, ["inspect", str(app), "--json"])
    from_ll = _json(capsys, ["inspect", str(app_ll), "--json"])
    assert from_source["compiled"] == {"opt": 2, "openmp": True}
    assert from_source["statements"] == from_ll["statements"]
    assert len(from_source["worksharing_loops"]) == 2
    assert [(lp["line"], lp["status"]) for lp in from_source["source_loops"]] == [(4, "tunable"), (9, "tunable")]
    no_omp = _json(capsys, ["inspect", str(app), "--json", "--no-openmp"])
    assert no_omp["worksharing_loops"] == []


def test_inspect_bad_input_is_one_line(tmp_path, capsys):
    assert main(["inspect", str(tmp_path / "missing.ll")]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "missing.ll" in err
    bad = tmp_path / "bad.ll"
    bad.write_text("this is not IR\n")
    assert main(["inspect", str(bad)]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
