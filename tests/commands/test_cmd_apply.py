"""`mirtune apply`: writes the tuned copy, prints OMP_NUM_THREADS, and fails with one clear line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from mirtune.cli import main

REPO = Path(__file__).resolve().parents[2]
APP = """#include <stdio.h>
int main(void) {
  double a[100], s = 0;
#pragma omp parallel for
  for (int i = 0; i < 100; i++) a[i] = i;
#pragma omp parallel for reduction(+:s) \\
    schedule(static)
  for (int i = 0; i < 100; i++) s += a[i];
  printf("checksum: %g\\n", s);
  return 0;
}
"""


@pytest.fixture
def app(tmp_path) -> Path:
    path = tmp_path / "app.c"
    path.write_text(APP)
    return path


def test_apply_writes_the_tuned_copy(app, capsys):
    out = app.with_name("app.tuned.c")
    rc = main(["apply", str(app), "--task", "openmp", "--config", "threads=2,schedule=dynamic,chunk=8",
               "-o", str(out)])
    printed = capsys.readouterr()
    assert rc == 0, printed.err
    assert app.read_text() == APP
    tuned = out.read_text()
    assert tuned == APP.replace("#pragma omp parallel for\n", "#pragma omp parallel for schedule(dynamic,8)\n")
    lines = printed.out.splitlines()
    assert lines[-1] == "OMP_NUM_THREADS=2"
    assert "schedule(dynamic,8) in 1 of 2 worksharing loops (1 fixed)" in lines[0]
    assert "line 6" in printed.out  # the fixed loop is named


def test_apply_default_output_and_runtime_without_schedule(app, capsys):
    assert main(["apply", str(app), "--config", "threads=4"]) == 0
    out = app.with_name("app.tuned.c")
    assert "parallel for schedule(runtime)\n" in out.read_text()
    assert capsys.readouterr().out.splitlines()[-1] == "OMP_NUM_THREADS=4"


def test_apply_omp_schedule_spelling_and_stdout(app, capsys):
    assert main(["apply", str(app), "--config", "schedule=guided,4", "-o", "-"]) == 0
    printed = capsys.readouterr()
    assert "#pragma omp parallel for schedule(guided,4)\n" in printed.out
    assert "OMP_NUM_THREADS" not in printed.out + printed.err
    assert "1 of 2 worksharing loops" in printed.err


@pytest.mark.parametrize("argv_tail, message", [
    (["--task", "numa", "--config", "threads=2"], "unknown task 'numa'"),
    (["--task", "vectorize", "--config", "threads=2"], "unknown config key 'threads' for --task vectorize"),
    (["--task", "vectorize", "--config", "vf=3,if=1"], "vf must be a power of two from 1 to 64"),
    (["--task", "vectorize", "--config", "vf=8"], "needs both vf=N and if=N"),
    (["--task", "vectorize", "--config", "vf=8,if=2"], "no loop named: pass --line N"),
    (["--task", "vectorize", "--config", "vf=8,if=2", "--line", "999"], "outside the file"),
    (["--config", "threads=2", "--line", "3"], "--line applies to --task vectorize"),
    (["--config", "threads=99999999999999999999"], "threads must be at most 65536"),
    (["--config", "schedule=dynamic,chunk=4294967296"], "chunk must be at most"),
    (["--config", "threads=two"], "threads must be a positive integer"),
    (["--config", "threads=0"], "threads must be a positive integer"),
    (["--config", "schedule=sometimes"], "unknown schedule 'sometimes'"),
    (["--config", "schedule=dynamic,chunk=-1"], "chunk must be a positive integer"),
    (["--config", "chunk=4"], "chunk needs a schedule"),
    (["--config", "schedule=auto,chunk=4"], "takes no chunk"),
    (["--config", "power=100"], "unknown config key 'power'"),
    (["--config", "threads=2,threads=3"], "given twice"),
    (["--config", "threads"], "expected KEY=VALUE"),
])
def test_bad_config(app, capsys, argv_tail, message):
    """Every bad configuration is one line naming the problem, and nothing is written."""
    assert main(["apply", str(app)] + argv_tail) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err
    assert not app.with_name("app.tuned.c").exists()


def test_refuses_to_overwrite_the_input(app, capsys, tmp_path):
    assert main(["apply", str(app), "--config", "threads=2", "-o", str(app)]) == 2
    assert "refusing to overwrite the input" in capsys.readouterr().err
    link = tmp_path / "link.c"
    link.symlink_to(app)
    assert main(["apply", str(app), "--config", "threads=2", "-o", str(link)]) == 2
    assert app.read_text() == APP


def test_missing_file_and_not_source(tmp_path, capsys):
    assert main(["apply", str(tmp_path / "nope.c"), "--config", "threads=2"]) == 2
    assert "no such file" in capsys.readouterr().err
    ll = tmp_path / "app.ll"
    ll.write_text("; ModuleID = 'x'\n")
    assert main(["apply", str(ll), "--config", "threads=2"]) == 2
    assert "C/C++ source" in capsys.readouterr().err


def test_nothing_to_tune(tmp_path, capsys):
    plain = tmp_path / "plain.c"
    plain.write_text("// #pragma omp parallel for\nint main(void) { return 0; }\n")
    assert main(["apply", str(plain), "--config", "threads=2"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "nothing to tune" in err
    fixed = tmp_path / "fixed.c"
    fixed.write_text("int main(void) {\n#pragma omp parallel for schedule(static)\nfor (int i = 0; i < 4; i++);\n}\n")
    assert main(["apply", str(fixed), "--config", "threads=2"]) == 2
    assert "nothing to tune" in capsys.readouterr().err


def test_unparsable_pragma_is_a_warning_with_its_line(tmp_path, capsys):
    src = tmp_path / "bad.c"
    src.write_text("int main(void) {\n#pragma omp parallel for private(\nfor(;;);\n"
                   "#pragma omp parallel for\nfor(;;);\n}\n")
    assert main(["apply", str(src), "--config", "schedule=static", "-o", str(tmp_path / "out.c")]) == 0
    err = capsys.readouterr().err
    assert "line 2: cannot parse" in err
    assert (tmp_path / "out.c").read_text().split("\n")[1] == "#pragma omp parallel for private("


def _mirtune_cmd() -> list[str]:
    script = Path(sys.executable).with_name("mirtune")
    return [str(script)] if script.exists() else [sys.executable, "-m", "mirtune.cli"]


def test_console_script_exit_code_and_one_stderr_line(tmp_path, app):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    plain = tmp_path / "plain.c"
    plain.write_text("int main(void) { return 0; }\n")
    for args in ([str(plain), "--config", "threads=2"],
                 [str(app), "--task", "nope", "--config", "threads=2"],
                 [str(tmp_path / "missing.c"), "--config", "threads=2"]):
        proc = subprocess.run(_mirtune_cmd() + ["apply"] + args, capture_output=True, text=True, timeout=60,
                              env=env, cwd=REPO, stdin=subprocess.DEVNULL)
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert proc.stderr.startswith("mirtune apply: ") and "Traceback" not in proc.stderr
    proc = subprocess.run(_mirtune_cmd() + ["apply", str(app), "--config", "threads=3,schedule=dynamic"],
                          capture_output=True, text=True, timeout=60, env=env, cwd=REPO)
    assert proc.returncode == 0 and proc.stdout.splitlines()[-1] == "OMP_NUM_THREADS=3"


def test_vectorize_pragma_goes_before_the_named_loop(tmp_path, capsys):
    src = tmp_path / "k.c"
    src.write_text("void f(float *a, int n) {\n  for (int i = 0; i < n; i++)\n    a[i] *= 2.0f;\n}\n")
    assert main(["apply", str(src), "--task", "vectorize", "--config", "vf=8,if=2", "--line", "2"]) == 0
    lines = (tmp_path / "k.tuned.c").read_text().splitlines()
    assert lines[1] == "  #pragma clang loop vectorize_width(8) interleave_count(2)" and lines[2].lstrip().startswith("for")
    assert main(["apply", str(src), "--task", "vectorize", "--config", "vf=8,if=2", "--line", "1"]) == 2
    assert "does not start a loop" in capsys.readouterr().err
    from mirtune.ir.frontend import compile_to_ir

    ir = compile_to_ir(tmp_path / "k.tuned.c", opt=0)  # the pragma as loop metadata, before any pass uses it
    assert '"llvm.loop.vectorize.width", i32 8' in ir and '"llvm.loop.interleave.count", i32 2' in ir
