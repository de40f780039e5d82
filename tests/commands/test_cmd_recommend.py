"""`mirtune recommend` and `mirtune.recommend`: the shipped openmp and vectorize predictors answer from the source
alone, say how to apply the answer, and every bad input is one line with exit 2 while the others are answered."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import mirtune
from mirtune.cli import main
from mirtune.errors import MirtuneError, UsageError
from mirtune.paths import ASSETS_DIR, REPO_DIR
from mirtune.predict.recommend import HEADS_DIR, load_task_predictor

HEAT2D = ASSETS_DIR / "examples" / "heat2d.c"
KERNEL = REPO_DIR / "collectors" / "programs" / "vectorize" / "kernels" / "saxpy_float_0.c"
SERIAL = "int f(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }\n"


def test_shipped_predictors_exist():
    for task in ("openmp", "vectorize"):
        meta = json.loads((HEADS_DIR / task / "predictor.json").read_text())
        assert meta["task"] == task and meta["trained_on"]["applications"] >= 30


def test_openmp_recommendation_from_a_source(capsys):
    rec = mirtune.recommend(HEAT2D, task="openmp", top=3)
    assert rec.task == "openmp" and len(rec.top) == 3 and rec.top[0]["label"] == rec.label
    assert set(rec.best) == {"threads", "schedule", "chunk", "power_limit_w"}
    assert rec.best["threads"] >= 1 and rec.predicted_speedup > 0
    # ranked by predicted speedup, except that the head's anchor (the configuration best on average over its
    # training data) keeps its place unless beaten by the head's margin
    predictor = load_task_predictor("openmp", None)[0]
    anchor = predictor.labels[predictor.head.anchor_index()]
    assert predictor.head_config["anchor"] == "best" and anchor == predictor.trained_on["best_fixed"]
    others = [r["predicted_speedup"] for r in rec.top if r["label"] != anchor]
    assert others == sorted(others, reverse=True)
    if not rec.is_default:
        assert rec.apply[0].startswith(f"run with: OMP_NUM_THREADS={rec.best['threads']}")
        if rec.best["schedule"]:
            # heat2d's loops carry no schedule clause: OMP_SCHEDULE needs `mirtune apply` to reach them
            assert any(line.startswith("its loops carry no schedule(runtime)") and "mirtune apply" in line
                       for line in rec.apply)
    assert main(["recommend", str(HEAT2D), "--task", "openmp", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["label"] == rec.label and out["best"] == rec.best


def test_vectorize_recommendation_names_the_pragma(capsys):
    assert main(["recommend", str(KERNEL), "--task", "vectorize", "--top", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{KERNEL}: vectorize: ") and "predicted speedup" in out
    assert "#pragma clang loop vectorize_width(" in out or "keep LLVM's own choice" in out
    assert len([ln for ln in out.splitlines() if ln.strip()[:1].isdigit()]) == 4


def test_bad_inputs_are_one_line_each_and_the_rest_is_answered(tmp_path, capsys):
    (tmp_path / "serial.c").write_text(SERIAL)
    (tmp_path / "broken.c").write_text("int main( {\n")
    (tmp_path / "empty.ll").write_text("")
    shutil.copy(HEAT2D, tmp_path / "heat2d.c")
    assert main(["recommend", str(tmp_path), str(tmp_path / "missing.c"), "--task", "openmp"]) == 2
    captured = capsys.readouterr()
    errors = captured.err.strip().splitlines()
    assert len(errors) == 4 and all(e.startswith("mirtune recommend: ") for e in errors)
    assert any("serial.c" in e and "no OpenMP worksharing loop" in e for e in errors)
    assert any("missing.c" in e and "no such file" in e for e in errors)
    assert captured.out.startswith(f"{tmp_path / 'heat2d.c'}: openmp: ")
    (tmp_path / "none").mkdir()
    assert main(["recommend", str(tmp_path / "none"), "--task", "openmp"]) == 2
    assert "holds no IR or source files" in capsys.readouterr().err


def test_unknown_task_missing_heads_and_cuda_blocks():
    with pytest.raises(UsageError, match="unknown task 'nope'"):
        mirtune.recommend(HEAT2D, task="nope")
    with pytest.raises(MirtuneError, match="no cuda_blocks predictor ships"):
        mirtune.recommend(HEAT2D, task="cuda_blocks")
    with pytest.raises(UsageError, match="heads folder not found"):
        mirtune.recommend(HEAT2D, task="openmp", heads="/nonexistent/heads")


def test_what_was_measured_on_programs_never_seen_is_said_when_it_does_not_beat_the_baselines(tmp_path):
    """benchmarks/recommend_unseen.py --record writes its shares into predictor.json; recommend then says so when
    the predictor's choices did not beat the default or the best fixed configuration there, or beat them by less than
    the timing noise, and not otherwise."""
    from mirtune.predict.predictor import record_never_seen

    heads = tmp_path / "heads"
    shutil.copytree(HEADS_DIR / "openmp", heads / "openmp")
    lost = {"programs": 8, "measured": "2026-11-24 10:45:38 UTC", "rounds": 3, "result": "x.json",
            "recommended": 0.85, "default": 0.86, "best_fixed": 0.90}
    record_never_seen(heads / "openmp", lost)
    notes = mirtune.recommend(HEAT2D, task="openmp", heads=heads).notes
    assert any(n.startswith("on 8 programs never seen in its training") and "0.850" in n and "does not beat them"
               in n for n in notes), notes
    record_never_seen(heads / "openmp", dict(lost, recommended=0.905))  # ahead by less than the timing noise
    notes = mirtune.recommend(HEAT2D, task="openmp", heads=heads).notes
    assert any("0.905" in n and "level with them within the timing noise" in n for n in notes), notes
    record_never_seen(heads / "openmp", dict(lost, recommended=0.95))  # a later, better result replaces it
    assert not any("never seen" in n for n in mirtune.recommend(HEAT2D, task="openmp", heads=heads).notes)
    with pytest.raises(MirtuneError, match="cannot record"):
        record_never_seen(tmp_path, lost)


def test_corrupt_or_foreign_heads_are_refused(tmp_path):
    heads = tmp_path / "heads"
    shutil.copytree(HEADS_DIR / "openmp", heads / "openmp")
    weights = heads / "openmp" / "head.safetensors"
    weights.write_bytes(weights.read_bytes()[:-16] + b"\xff" * 16)
    with pytest.raises(MirtuneError, match="do not match the digest"):
        mirtune.recommend(HEAT2D, task="openmp", heads=heads)
    # the vectorize predictor reads the embedding (the openmp one reads the context features alone)
    shutil.copytree(HEADS_DIR / "vectorize", heads / "vectorize")
    meta = json.loads((heads / "vectorize" / "predictor.json").read_text())
    meta["features"]["fingerprint"] = "0" * 16
    (heads / "vectorize" / "predictor.json").write_text(json.dumps(meta))
    with pytest.raises(MirtuneError, match="fitted on encoder 0000000000000000"):
        mirtune.recommend(HEAT2D, task="vectorize", heads=heads)


def test_console_script_one_line_and_exit_2(tmp_path):
    script = Path(sys.executable).with_name("mirtune")
    cmd = [str(script)] if script.exists() else [sys.executable, "-m", "mirtune.cli"]
    env = dict(os.environ, PYTHONPATH=str(REPO_DIR))
    bin_file = tmp_path / "blob.ll"
    bin_file.write_bytes(bytes(range(256)) * 4)
    for args in (["recommend", str(bin_file), "--task", "openmp"],
                 ["recommend", str(HEAT2D), "--task", "numa"],
                 ["recommend", str(HEAT2D), "--task", "openmp", "--top", "0"]):
        proc = subprocess.run(cmd + args, capture_output=True, text=True, timeout=120, env=env, cwd=REPO_DIR)
        assert proc.returncode == 2, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr, proc.stderr


def test_devmap_and_coarsening_need_their_platform_and_launch(shared_data, capsys):
    kernel = sorted((shared_data / "devmap" / "kernels_ir").glob("*.ll"))[0]
    rec = mirtune.recommend(kernel, task="devmap", platform="nvidia",
                            context={"transfer_bytes": 1 << 20, "wgsize": 256}) \
        if (HEADS_DIR / "devmap" / "nvidia" / "predictor.json").is_file() else None
    if rec is not None:
        assert rec.best["device"] in ("CPU", "GPU") and rec.apply[0].startswith("run the kernel on")
    with pytest.raises(UsageError, match="needs --platform"):
        mirtune.recommend(kernel, task="devmap")
    with pytest.raises(UsageError, match="--transfer-bytes N --wgsize N"):
        mirtune.recommend(kernel, task="devmap", platform="amd")
    with pytest.raises(UsageError, match="--platform applies to devmap and coarsening"):
        mirtune.recommend(HEAT2D, task="openmp", platform="amd")
    tc = shared_data / "thread-coarsening" / "kernels_ir" / "nbody.ll"
    assert main(["recommend", str(tc), "--task", "coarsening", "--platform", "Kepler", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["best"]["factor"] in (1, 2, 4, 8, 16, 32) and out["predictor"]["platform"] == "Kepler"


def test_vectorize_on_a_program_without_a_loop_says_it_cannot_apply(tmp_path, capsys):
    # issue 33 item 10: like openmp without a worksharing loop, one line, exit 2
    src = tmp_path / "noloop.c"
    src.write_text("int sq(int x) { return x * x; }\nint cube(int x) { return sq(x) * x; }\n")
    assert main(["recommend", str(src), "--task", "vectorize"]) == 2
    captured = capsys.readouterr()
    err = [ln for ln in captured.err.splitlines() if ln.strip()]
    assert captured.out == "" and len(err) == 1 and "no loop" in err[0] and "noloop.c" in err[0], err
    assert "nothing for the vectorize task to tune" in err[0]


def test_has_loop_reads_the_control_flow():
    from mirtune.ir.module import IRModule
    from mirtune.tasks.vectorize import has_loop

    loop = IRModule.from_text("define void @f(i32 %n) {\nentry:\n  br label %l\nl:\n  %i = phi i32 [0, %entry], "
                              "[%j, %l]\n  %j = add i32 %i, 1\n  %c = icmp slt i32 %j, %n\n  br i1 %c, label %l, "
                              "label %e\ne:\n  ret void\n}\n")
    straight = IRModule.from_text("define i32 @g(i1 %c) {\nentry:\n  br i1 %c, label %a, label %b\na:\n  br label "
                                  "%b\nb:\n  ret i32 0\n}\n")
    assert has_loop(loop) and not has_loop(straight)


# --------------------------------------------------------------------------------------------- one program, several files


def _files(three_files: dict[str, Path]) -> list[str]:
    return [str(three_files[n]) for n in ("main.c", "solver.c", "util.c")]


def test_the_files_of_one_program_together(three_files, capsys):
    """Issue 34: --together answers once for main.c + solver.c + util.c (headers in include/), read from their IR
    linked into one module; how to apply it names the file that holds the worksharing loop."""
    from mirtune.predict.predictor import program_ir_linked

    files = _files(three_files)
    linked = program_ir_linked(files, [three_files["include"]]).read_text()
    defined = [ln for ln in linked.splitlines() if ln.startswith("define")]
    for function in ("@main(", "@solve(", "@weight(", "@make_data("):            # one from each file
        assert any(function in ln for ln in defined), function
    assert main(["recommend", *files, "--together", "--include", str(three_files["include"]), "--task", "openmp",
                 "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert isinstance(out, dict) and out["input"] == " + ".join(files) and out["task"] == "openmp"
    if not out["is_default"] and out["best"]["schedule"]:
        assert any(f"mirtune apply {three_files['solver.c']} --config" in line for line in out["apply"])
    assert main(["recommend", *files, "--together", "--include", str(three_files["include"]), "--task",
                 "vectorize", "--top", "2"]) == 0
    assert capsys.readouterr().out.startswith(f"{' + '.join(files)}: vectorize: ")


def test_several_inputs_without_together_are_still_several_programs(three_files, capsys):
    files = _files(three_files)
    assert main(["recommend", *files, "--include", str(three_files["include"]), "--task", "openmp"]) == 2
    captured = capsys.readouterr()
    errors = captured.err.strip().splitlines()
    assert len(errors) == 2 and all("no OpenMP worksharing loop" in e for e in errors)
    assert {e.split(": ")[1] for e in errors} == {files[0], files[2]}
    assert captured.out.startswith(f"{files[1]}: openmp: ")


def test_bad_files_of_one_program_are_one_line(three_files, tmp_path, capsys):
    """A missing file, one that does not compile, two files that define main, a missing --include folder, or
    --together with a task for kernels: one line each, exit 2."""
    files = _files(three_files)
    inc = ["--include", str(three_files["include"])]
    broken = tmp_path / "broken.c"
    broken.write_text("double helper(double x) { return x +; }\n")
    other_main = tmp_path / "other_main.c"
    other_main.write_text("int main(void) { return 0; }\n")
    cases = [([*files[:2], str(tmp_path / "gone.c"), *inc], f"{tmp_path / 'gone.c'}: no such file"),
             ([*files, str(broken), *inc], f"{broken}: {broken}:1:"),
             ([*files, str(other_main), *inc], "the files do not link into one program: main is defined in "
                                                f"{files[0]} and {other_main}"),
             ([*files, "--include", str(tmp_path / "nowhere")], f"{tmp_path / 'nowhere'}: --include: no such folder"),
             (files[:1], f"{files[0]}: {files[0]}:3:10: fatal error: 'util.h' file not found")]
    for argv, expected in cases:
        assert main(["recommend", *argv, "--together", "--task", "openmp"]) == 2
        captured = capsys.readouterr()
        err = captured.err.strip().splitlines()
        assert captured.out == "" and len(err) == 1 and expected in err[0], (expected, err)
    assert main(["recommend", *files, "--together", "--task", "devmap", "--platform", "amd"]) == 2
    assert "--together (the files of one program) applies to --task openmp or vectorize" in capsys.readouterr().err


NEEDS_MACROS = """#include <stdio.h>
static double a[N];
int main(void) {
    double s = 0;
#pragma omp parallel for reduction(+:s)
    for (int i = 0; i < N; i++) { a[i] = i * SCALE; s += a[i]; }
    printf("%g\\n", s);
    return 0;
}
"""


def test_cflags_that_define_the_source_reach_its_ir(tmp_path, capsys):
    """A program whose build defines its macros (as velvet's Makefile does) is read with them: without --cflags its
    IR does not compile (one line, clang's reason); with them it is answered, with or without --together, and the
    flags that only say how to optimise or link change nothing."""
    src = tmp_path / "app.c"
    src.write_text(NEEDS_MACROS)
    assert main(["recommend", str(src), "--task", "openmp"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "use of undeclared identifier 'N'" in err[0]
    answers = []
    for flags in ("-DN=100000 -DSCALE=2", "-DN=100000 -DSCALE=2 -O3 -march=native -lm"):
        assert main(["recommend", str(src), "--task", "openmp", "--cflags", flags, "--json"]) == 0
        answers.append(json.loads(capsys.readouterr().out))
    assert answers[0]["input"] == str(src) and answers[0]["top"] == answers[1]["top"]
    assert main(["recommend", str(src), "--together", "--task", "openmp", "--cflags", "-DN=100000 -DSCALE=2"]) == 0
    assert capsys.readouterr().out.startswith(f"{src}: openmp: ")
    assert main(["recommend", str(src), "--task", "devmap", "--platform", "amd", "--transfer-bytes", "1024",
                 "--wgsize", "64", "--cflags", "-DN=1"]) == 2
    assert "--cflags with -D/-I) are for --task openmp or vectorize" in capsys.readouterr().err
