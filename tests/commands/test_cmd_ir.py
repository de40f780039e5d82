"""The IR commands end to end: compile, graph (many inputs, bad inputs), tokenizer, demo."""

from __future__ import annotations

import json
import subprocess
import sys

from mirtune.cli import main


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "mirtune.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_compile_writes_ir(tmp_path):
    src = tmp_path / "a.c"
    src.write_text("int sq(int x) { return x * x; }\n")
    assert main(["compile", str(src), "-o", str(tmp_path / "a.ll"), "-O", "1"]) == 0
    assert "define" in (tmp_path / "a.ll").read_text()


def test_graph_batch_keeps_going_past_bad_inputs(tmp_path):
    good = tmp_path / "good.c"
    good.write_text("int sq(int x) { return x * x; }\n")
    (tmp_path / "empty.ll").write_text("")
    (tmp_path / "junk.ll").write_bytes(b"\x00\x01\x02binary")
    (tmp_path / "trunc.ll").write_text("define i32 @f() {\n  %1 = add i32 1,")
    (tmp_path / "broken.c").write_text("int main( {\n")
    empty_dir = tmp_path / "nothing"
    empty_dir.mkdir()
    out = tmp_path / "graphs"
    inputs = [good, tmp_path / "empty.ll", tmp_path / "junk.ll", tmp_path / "trunc.ll",
              tmp_path / "broken.c", tmp_path / "missing.ll", empty_dir]
    proc = _cli("graph", *map(str, inputs), "-o", str(out))
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    errors = [ln for ln in proc.stderr.splitlines() if ln.startswith("mirtune graph:")]
    for name in ("empty.ll", "junk.ll", "trunc.ll", "broken.c", "missing.ll", "nothing"):
        assert sum(name in ln for ln in errors) == 1, (name, errors)
    assert sorted(p.name for p in out.iterdir()) == ["good.json"]
    data = json.loads((out / "good.json").read_text())
    assert data["nodes"][0]["text"] == "[external]"


def test_graph_single_input_to_a_json_file(tmp_path):
    src = tmp_path / "a.c"
    src.write_text("int sq(int x) { return x * x; }\n")
    assert main(["graph", str(src), "-o", str(tmp_path / "a.json")]) == 0
    assert json.loads((tmp_path / "a.json").read_text())["multigraph"] is True


def test_compile_failure_is_one_line_exit_2(tmp_path):
    src = tmp_path / "bad.c"
    src.write_text("int main( {\n")
    proc = _cli("compile", str(src))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "error:" in proc.stderr


def test_tokenizer_train_and_encode(tmp_path, devmap_ir_dir):
    out = tmp_path / "tok.json"
    files = sorted(devmap_ir_dir.glob("amd-app-sdk-3.0-*.ll"))
    assert main(["tokenizer", "train", *map(str, files), "-o", str(out), "--vocab-size", "500"]) == 0
    assert out.exists()
    proc = _cli("tokenizer", "encode", str(files[0]), "--tokenizer", str(out), "--limit", "3")
    assert proc.returncode == 0 and len(proc.stdout.splitlines()) == 6


def test_demo_runs_on_the_shipped_example(tmp_path):
    proc = _cli("demo", "-o", str(tmp_path / "demo"), "--tune-budget", "3")
    assert proc.returncode == 0, proc.stderr
    assert "program graph:" in proc.stdout and "worksharing loops" in proc.stdout
    assert (tmp_path / "demo" / "mandel.json").exists()
    assert "$ mirtune tune" in proc.stdout and "measured" in proc.stdout  # it ends with real runs
    assert list((tmp_path / "demo" / "tune").glob("part-*.parquet"))


def test_graph_inputs_with_the_same_name_get_distinct_files_and_say_so(tmp_path, capsys):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "good.c").write_text("int sq(int x) { return x * x; }\n")
    (tmp_path / "a" / "good.c").write_text("float half(float x) { return x / 2.0f; }\n")
    assert main(["compile", str(tmp_path / "a" / "good.c"), "-o", str(tmp_path / "a" / "good.ll")]) == 0
    (tmp_path / "a" / "good.c").unlink()
    out = tmp_path / "graphs"
    # the same file named twice is one graph; two different files named good are two graphs
    assert main(["graph", str(tmp_path / "a" / "good.ll"), str(tmp_path / "b" / "good.c"),
                 str(tmp_path / "a" / "good.ll"), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == ["a__good.ll.json", "b__good.c.json"]
    assert "2 inputs are named good" in err and "a__good.ll.json" in err and "wrote 2 graph(s)" in err
    texts = {p.name: {n["features"]["full_text"][0] for n in json.loads(p.read_text())["nodes"] if "features" in n}
             for p in out.iterdir()}
    assert any("fdiv" in t or "fmul" in t for t in texts["a__good.ll.json"])
    assert any(" mul " in t for t in texts["b__good.c.json"])


def test_output_names_are_unique_across_folders_and_extensions(tmp_path):
    from pathlib import Path

    from mirtune.commands.graph import output_names

    files = [Path("k/x.ll"), Path("k/sub/x.ll"), Path("k/x.c"), Path("y.ll")]
    names = output_names(files)
    assert names[Path("y.ll")] == "y.json"
    assert len(set(names.values())) == len(files)
    assert names[Path("k/sub/x.ll")] == "sub__x.ll.json" and names[Path("k/x.c")] == "x.c.json"


OMP_SOURCE = """#include <omp.h>
void scale(double *x, int n) {
#pragma omp parallel for schedule(static)
  for (int i = 0; i < n; i++) x[i] *= 2.0;
}
"""


def test_compile_and_graph_switch_openmp_on_for_an_openmp_source_and_say_so(tmp_path, capsys):
    src = tmp_path / "omp.c"
    src.write_text(OMP_SOURCE)
    assert main(["compile", str(src), "-o", str(tmp_path / "auto.ll")]) == 0
    err = capsys.readouterr().err
    assert f"{src} uses OpenMP" in err and "-fopenmp" in err
    assert "__kmpc_fork_call" in (tmp_path / "auto.ll").read_text()
    # --no-openmp is the serial version, and nothing is said
    assert main(["compile", str(src), "--no-openmp", "-o", str(tmp_path / "serial.ll")]) == 0
    assert "uses OpenMP" not in capsys.readouterr().err
    assert "__kmpc" not in (tmp_path / "serial.ll").read_text()
    # graph: the OpenMP runtime calls are in the graph
    assert main(["graph", str(src), "-o", str(tmp_path / "omp.json")]) == 0
    assert f"{src} uses OpenMP" in capsys.readouterr().err
    graph = json.loads((tmp_path / "omp.json").read_text())
    assert any("__kmpc_fork_call" in n["features"]["full_text"][0] for n in graph["nodes"] if "features" in n)
    # a serial source: no -fopenmp, no message
    plain = tmp_path / "plain.c"
    plain.write_text("int sq(int x) { return x * x; }\n")
    assert main(["compile", str(plain), "-o", str(tmp_path / "plain.ll")]) == 0
    assert "OpenMP" not in capsys.readouterr().err
