"""mirtune.cli: argparse's own errors are one line and exit 2, and a compiler flag can follow --cflags bare
(issue 33 item 11)."""

from __future__ import annotations

import pytest

from mirtune.cli import main, split_dash_values


@pytest.mark.parametrize("argv, words", [
    (["recommend"], "the following arguments are required"),
    (["tune", "a.c", "--budget", "many", "--task", "openmp"], "invalid int value"),
    (["tune", "a.c", "--task", "openmp", "--bogus"], "unrecognized arguments: --bogus"),
    (["no-such-command"], "invalid choice"),
])
def test_argparse_errors_are_one_line(argv, words, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words in err[0] and err[0].startswith("mirtune"), err
    assert "usage:" not in err[0]


def test_cflags_takes_a_value_that_starts_with_a_dash():
    assert split_dash_values(["tune", "a.c", "--cflags", "-O3", "--task", "openmp"]) == \
        ["tune", "a.c", "--cflags=-O3", "--task", "openmp"]
    assert split_dash_values(["tune", "a.c", "--cflags", "-O3 -lm"]) == ["tune", "a.c", "--cflags=-O3 -lm"]
    assert split_dash_values(["tune", "a.c", "--cflags=-O1"]) == ["tune", "a.c", "--cflags=-O1"]
    assert split_dash_values(["tune", "a.c", "--cflags"]) == ["tune", "a.c", "--cflags"]  # argparse says it


def test_tune_cflags_bare_reaches_the_command(tmp_path, capsys):
    # the flag is parsed as --cflags' value, not as an option: the run then stops at the bad --budget
    (tmp_path / "a.c").write_text("int main(void) { return 0; }\n")
    code = main(["tune", str(tmp_path / "a.c"), "--cflags", "-O3", "--task", "openmp", "--budget", "0"])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert "--budget" in err and len(err.splitlines()) == 1, err


SIGTERM_PROBE = """
import signal, sys, time
from mirtune import cli
if sys.argv[1] == "ignored":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as in a shell's background job
cli._sigterm_as_interrupt()
try:
    print("ready", flush=True)  # inside the try: the signal may come before the sleep starts
    time.sleep(60)
except KeyboardInterrupt as exc:
    print(type(exc).__name__, flush=True)
"""


@pytest.mark.parametrize("sigint, raised", [("handled", "KeyboardInterrupt"), ("ignored", "Terminated")])
def test_sigterm_stops_a_command_as_ctrl_c_does(sigint, raised):
    """SIGTERM is passed on as SIGINT (so Ray Tune's graceful stop hears it too), or raises Terminated, a
    KeyboardInterrupt, where SIGINT is ignored."""
    import signal
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", SIGTERM_PROBE, sigint], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=30)
    assert out.strip() == raised and proc.returncode == 0


def test_a_command_run_imports_no_other_command_module():
    """`mirtune CMD ...` builds its parser from CMD's module alone (each other module costs import time);
    `mirtune --help` and an unknown command still see them all."""
    import subprocess
    import sys

    code = ("import sys, mirtune.cli as c; p = c.build_parser(sys.argv[1] or None); "
            "print(sorted(m for m in sys.modules if m.startswith('mirtune.commands.'))); "
            "print(sorted(p._subparsers._group_actions[0].choices))")
    one = subprocess.run([sys.executable, "-c", code, "model"], capture_output=True, text=True, check=True)
    assert one.stdout.splitlines() == ["['mirtune.commands.model']", "['model']"]
    every = subprocess.run([sys.executable, "-c", code, ""], capture_output=True, text=True, check=True)
    assert "'embed'" in every.stdout.splitlines()[1] and "'tune'" in every.stdout.splitlines()[1]


def test_an_unknown_command_is_one_line_naming_the_commands(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["embedd", "x.ll"])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "invalid choice: 'embedd'" in err[0] and "'embed'" in err[0]
