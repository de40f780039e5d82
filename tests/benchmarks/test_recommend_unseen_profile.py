"""benchmarks/recommend_unseen.py with --profile: the profile predictor's pick is scored beside the others, and the
programs where one thread wins are counted with the methods that end below 0.8 of the oracle there (issue 34)."""

from __future__ import annotations

import math

import pytest


@pytest.fixture(scope="module")
def script(benchmark_module):
    return benchmark_module("recommend_unseen")


def entry(script, name: str, times: dict[str, float], picks: dict[str, str]) -> dict:
    labels = list(times)
    med = [times[k] for k in labels]
    import numpy as np

    return script.score({"name": name, "times_s": times}, np.array(med), labels,
                        {m: labels.index(lab) for m, lab in picks.items()})


def test_one_thread_wins_and_what_each_method_does_there(script):
    fast_alone = {"default": 1.0, "threads=1,schedule=static,chunk=1": 0.5, "threads=2,schedule=guided,chunk=8": 0.9}
    threads_pay = {"default": 1.0, "threads=1,schedule=static,chunk=1": 1.9, "threads=2,schedule=guided,chunk=8": 0.95}
    picks = {"default": "default", "best_fixed": "threads=2,schedule=guided,chunk=8",
             "recommended": "threads=2,schedule=guided,chunk=8"}
    programs = [entry(script, "short_regions", fast_alone, dict(picks, recommended_profile=next(iter(
                    k for k in fast_alone if k.startswith("threads=1"))))),
                entry(script, "compute", threads_pay, dict(picks, recommended_profile="default"))]
    assert [script.one_thread_wins(p) for p in programs] == [True, False]
    s = script.summarise(programs)
    assert list(s) == ["default", "best_fixed", "recommended", "recommended_profile", "oracle"]
    assert s["recommended"]["one_thread_wins"] == 1
    assert s["recommended"]["below_0.8_where_one_thread_wins"] == 1  # 0.5 / 0.9 of the oracle
    assert s["recommended_profile"]["below_0.8_where_one_thread_wins"] == 0
    assert math.isclose(s["recommended_profile"]["share_of_oracle"], math.sqrt(1.0 * 0.95))


def test_the_profile_method_is_left_out_unless_every_program_has_it(script):
    times = {"default": 1.0, "threads=1,schedule=static,chunk=1": 2.0}
    programs = [entry(script, "a", times, {"default": "default", "best_fixed": "default", "recommended": "default"})]
    assert "recommended_profile" not in script.summarise(programs)
    assert not script.one_thread_wins(programs[0])


def test_the_probes_own_pick_is_scored_where_every_program_has_it(script):
    """`probes` (`probes_choice`, tested in tests/profile) is a method of the summary only where every program has
    it, between the IR-only and the profile predictor."""
    times = {"default": 1.0, "threads=1,schedule=static,chunk=1": 2.0, "threads=2,schedule=guided,chunk=1": 0.8}
    picks = {"default": "default", "best_fixed": "default", "recommended": "default",
             "recommended_profile": "default"}
    both = [entry(script, "a", times, dict(picks, probes="threads=2,schedule=guided,chunk=1"))]
    assert list(script.summarise(both)) == ["default", "best_fixed", "recommended", "probes", "recommended_profile",
                                            "oracle"]
    assert script.summarise(both)["probes"]["share_of_oracle"] == 1.0
    assert "probes" not in script.summarise(both + [entry(script, "b", times, picks)])
