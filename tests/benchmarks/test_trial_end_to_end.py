"""benchmarks/trial_end_to_end.py's options: bad input is one line and exit 2, before any model is trained."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from trial_end_to_end import main, parse_epochs  # noqa: E402

from mirtune.errors import UsageError  # noqa: E402


def test_epochs_are_whole_numbers_of_1_or_more_sorted_once():
    assert parse_epochs("6,3,6") == [3, 6]
    for bad in ("0", "3,x", ""):
        with pytest.raises(UsageError, match="--epochs wants whole numbers"):
            parse_epochs(bad)


def test_an_unknown_task_or_missing_encoder_is_one_line(tmp_path, capsys):
    assert main(["--encoder", str(tmp_path), "--task", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown task 'nosuch'" in err
    assert main(["--encoder", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--encoder wants a model folder" in err
