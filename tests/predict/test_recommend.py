"""mirtune.predict.recommend's notes on a predictor: how this host differs from its training hosts, and whether it
beat the baselines on its held-out applications (the command's tests run it end to end:
tests/commands/test_cmd_recommend.py)."""

from __future__ import annotations

import os

from mirtune.predict.recommend import _host_notes
from mirtune.tasks import registry


def _held_out(predictor: float) -> dict:
    return {"applications": 32, "predictor": {"share_of_oracle": predictor},
            "default": {"share_of_oracle": 0.70}, "best fixed": {"share_of_oracle": 0.88}}


def test_a_predictor_from_another_cpu_names_the_task_and_both_cpus():
    trained_on = {"hosts": [{"cpu_model": "Some Other CPU"}], "held_out": _held_out(0.90), "best_fixed": "vf=32,if=1"}
    notes, _, _ = _host_notes(registry.get("vectorize"), trained_on)
    assert len(notes) == 1
    assert notes[0].startswith("the vectorize predictor describes measurements on: Some Other CPU; this host is: ")


def test_a_predictor_of_other_core_counts_says_how_all_cores_is_read():
    here = os.cpu_count()
    trained_on = {"hosts": [{"cpu_model": "Big CPU"}], "logical_cores": here + 62}
    notes, trained, now = _host_notes(registry.get("openmp"), trained_on)
    assert (trained, now) == (here + 62, here)
    assert notes[0].startswith(f"the openmp predictor was trained on measurements of {here + 62}-core hosts (Big CPU)")


def test_a_predictor_below_the_best_fixed_configuration_on_held_out_applications_says_so():
    trained_on = {"held_out": _held_out(0.87), "best_fixed": "vf=32,if=1"}
    notes, _, _ = _host_notes(registry.get("vectorize"), trained_on)
    assert any("on 32 held-out applications this predictor's choices reached 0.870" in n
               and "(vf=32,if=1) 0.880: it does not beat them" in n for n in notes)
    trained_on["held_out"] = _held_out(0.90)
    assert not any("does not beat them" in n for n in _host_notes(registry.get("vectorize"), trained_on)[0])
