"""benchmarks/trial_end_to_end.py's options: bad input is one line and exit 2, before any model is trained."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from trial_end_to_end import main, parse_epochs, parse_fraction, recipe  # noqa: E402

from mirtune.errors import UsageError  # noqa: E402


def test_epochs_are_whole_numbers_of_1_or_more_sorted_once():
    assert parse_epochs("6,3,6") == [3, 6]
    for bad in ("0", "3,x", ""):
        with pytest.raises(UsageError, match="--epochs wants whole numbers"):
            parse_epochs(bad)


def test_encoder_lr_sets_the_rate_of_the_chosen_start_only():
    assert recipe("finetune", None) == recipe("scratch", None)  # E2EConfig's own rates
    ft = recipe("finetune", 5e-4)
    assert ft.finetune_lr == 5e-4 and ft.scratch_lr == recipe("scratch", None).scratch_lr
    assert recipe("scratch", 1e-3).scratch_lr == 1e-3
    for bad in (0.0, -1e-4, float("nan")):
        with pytest.raises(UsageError, match="--encoder-lr wants a positive learning rate"):
            recipe("finetune", bad)


def test_fraction_is_a_share_of_the_training_programs_in_0_1():
    assert parse_fraction("0.1") == 0.1 and parse_fraction("1") == 1.0
    for bad in ("0", "1.5", "-0.2", "x", "nan"):
        with pytest.raises(UsageError, match=r"--fraction wants a share of the training programs in \(0, 1\]"):
            parse_fraction(bad)


def test_an_unknown_task_or_missing_encoder_is_one_line(tmp_path, capsys):
    assert main(["--encoder", str(tmp_path), "--task", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown task 'nosuch'" in err
    assert main(["--encoder", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--encoder wants a model folder" in err
    assert main(["--encoder", str(tmp_path), "--init", "finetune", "--encoder-lr", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--encoder-lr wants a positive learning rate, got 0" in err
    assert main(["--encoder", str(tmp_path), "--fraction", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--fraction wants a share" in err


def _fit_done(n: int) -> int:
    return n


def _fit_interrupted() -> int:
    raise KeyboardInterrupt


def _fit_failed() -> int:
    raise RuntimeError("the worker died\nmore detail")


def test_an_interrupted_or_failed_fit_is_one_line_naming_the_fits_kept(tmp_path, capsys):
    from trial_end_to_end import run_fits

    for fn, status, said in ((_fit_interrupted, 130, "interrupted after 1 of 2 fits"),
                             (_fit_failed, 1, "an end-to-end fit failed (RuntimeError: the worker died)")):
        fits: list = []
        jobs = [(("a",), _fit_done, (1,)), (("b",), fn, ())]
        assert run_fits(jobs, lambda key, res: fits.append(res), fits, tmp_path / "r.json", use_ray=False) == status
        err = capsys.readouterr().err.strip().splitlines()
        assert fits == [1] and len(err) == 1 and said in err[0] and f"the 1 fits done are in {tmp_path}" in err[0]
    assert run_fits([(("a",), _fit_done, (1,))], lambda key, res: None, [], None, use_ray=False) == 0


def test_resume_takes_the_fits_a_stopped_run_kept_and_refuses_another_runs(tmp_path, capsys):
    import json

    import numpy as np
    from trial_end_to_end import kept_fits

    header = {"task": "cuda_blocks", "encoder": "enc", "init": "scratch", "seed": 0, "folds": 2}
    outer = [(np.arange(3), np.arange(3, 5)), (np.arange(2), np.arange(2, 5))]
    path = tmp_path / "r.json"
    fit = {"epochs": 3, "fold": 0, "steps": 10, "pred": [1, 2]}
    path.write_text(json.dumps({**header, "status": "partial: 1/2 fits", "fits": [fit]}))
    assert kept_fits(path, header, outer) == {(3, 0): fit}
    with pytest.raises(UsageError, match=r"written by another run: seed 0 \(this run 1\)"):
        kept_fits(path, {**header, "seed": 1}, outer)
    for option in ({"fraction": 0.1}, {"encoder_lr": 5e-4}):  # refused whichever side has the option set
        with pytest.raises(UsageError, match=f"written by another run: {next(iter(option))} .*None"):
            kept_fits(path, {**header, **option}, outer)
        path.write_text(json.dumps({**header, **option, "fits": [fit]}))
        with pytest.raises(UsageError, match=f"written by another run: {next(iter(option))} "):
            kept_fits(path, header, outer)
        path.write_text(json.dumps({**header, "status": "partial: 1/2 fits", "fits": [fit]}))
    with pytest.raises(UsageError, match=r"without predictions for this run's folds \(epochs 3, fold 0\)"):
        kept_fits(path, header, [(np.arange(2), np.arange(2, 5))] * 2)  # fold 0 has 3 test rows here, not 2
    path.write_text(json.dumps({**header, "fits": [{**fit, "epochs": None}]}))
    with pytest.raises(UsageError, match=r"without predictions for this run's folds \(epochs None, fold 0\)"):
        kept_fits(path, header, outer)
    path.write_text("{not json")
    with pytest.raises(UsageError, match="--resume cannot read"):
        kept_fits(path, header, outer)
    assert main(["--encoder", str(tmp_path), "--task", "cuda_blocks", "--resume"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--resume wants --json naming the file" in err
