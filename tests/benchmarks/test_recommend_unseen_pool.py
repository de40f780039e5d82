"""benchmarks/recommend_unseen.py --pool: the held-out sets scored for one predictor pool into one set
whose figures are the geometric means over all their programs; a result that scored another predictor, or was
measured on another host, is refused with one line."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from types import SimpleNamespace

import pytest

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"
SETS = ["recommend_unseen_rescored_85apps.json", "recommend_unseen2_rescored_85apps.json", "recommend_unseen3.json"]


@pytest.fixture(scope="module")
def script(benchmark_module):
    return benchmark_module("recommend_unseen")


@pytest.fixture(scope="module")
def predictor():
    """The predictor these committed results scored, as `pool` sees one: what it was trained on (it was refitted
    since, with the sets retired into its training data; `pool` reads nothing else of a predictor)."""
    trained_on = json.loads((RESULTS / "recommend_unseen_pooled.json").read_text())["predictor_trained_on"]
    return SimpleNamespace(trained_on=trained_on)


def _here_copy(tmp_path: Path, name: str, **changes) -> Path:
    """A committed result, its host set to this one (the pooling is under test, not where it was measured)."""
    from mirtune.host import cpu_model

    result = json.loads((RESULTS / name).read_text())
    result["host"] = {"cpu_model": cpu_model(), "logical_cores": os.cpu_count() or 1}
    result.update(changes)
    path = tmp_path / name
    path.write_text(json.dumps(result))
    return path


def test_one_predictors_sets_pool_into_one(script, predictor, tmp_path):
    paths = [_here_copy(tmp_path, name) for name in SETS]
    programs, extra = script.pool(paths, predictor)
    sizes = [len(json.loads(p.read_text())["programs"]) for p in paths]
    assert len(programs) == sum(sizes) and {p["set"] for p in programs} == {p.stem for p in paths}
    assert extra["pooled"] == SETS and extra["measured"].count(";") == len(SETS) - 1
    summary = script.summarise(programs)
    shares = [p["share_recommended"] for p in programs]
    assert math.isclose(summary["recommended"]["share_of_oracle"],
                        math.exp(sum(math.log(s) for s in shares) / len(shares)))
    committed = json.loads((RESULTS / "recommend_unseen_pooled.json").read_text())["summary"]
    for method in ("default", "best_fixed", "recommended"):
        assert math.isclose(summary[method]["share_of_oracle"], committed[method]["share_of_oracle"])


def test_a_result_of_another_predictor_or_host_is_refused(script, predictor, tmp_path):
    other = _here_copy(tmp_path, "recommend_unseen2.json")  # scored the predictor fitted at 17:29
    with pytest.raises(SystemExit, match="rescore it first"):
        script.pool([_here_copy(tmp_path, SETS[0]), other], predictor)
    elsewhere = _here_copy(tmp_path, SETS[2])
    moved = json.loads(elsewhere.read_text())
    moved["host"] = {"cpu_model": "another CPU", "logical_cores": 64}
    elsewhere.write_text(json.dumps(moved))
    with pytest.raises(SystemExit, match="was measured on"):
        script.pool([elsewhere], predictor)
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(SystemExit, match="cannot read"):
        script.pool([broken], predictor)


def test_rescore_asks_the_profile_predictor_again_from_the_recorded_profiles(script, tmp_path):
    """--rescore with a result that recorded each program's profile, both probes and its rounds (the thirteenth
    blind set): the profile predictor answers again from that very profile, its pick is scored on the recorded
    times, as the static one's is, and the timing's own noise (the split-round oracle) is carried over, so a pool of
    rescored sets counts every program in its noise line."""
    from mirtune.predict.recommend import load_task_predictor, recommend

    path = _here_copy(tmp_path, "recommend_unseen13.json")
    folder = ROOT / "benchmarks" / "programs" / "openmp_unseen13"
    sources = {p["name"]: folder / f"{p['name']}.c" for p in json.loads(path.read_text())["programs"]}
    predictor, _ = load_task_predictor("openmp", None)
    programs, extra = script.rescore(path, sources, None, predictor, list(predictor.labels))
    assert extra["rescored_from"] == str(path) and len(programs) == len(sources)
    for p in programs:
        again = recommend(sources[p["name"]], "openmp", profile=p["profile"])
        assert p["recommended_profile"] == again.label
        times = p["times_s"]
        assert math.isclose(p["share_recommended_profile"],
                            min(t for t in times.values() if t) / times[again.label], rel_tol=1e-3)
    assert "recommended_profile" in script.summarise(programs)
    measured = {p["name"]: p for p in json.loads(path.read_text())["programs"]}
    assert all(p["split_round_oracle"] == measured[p["name"]]["split_round_oracle"] for p in programs)
    assert sum(p["split_round_oracle"] is not None for p in programs) == 9  # one program had a failing configuration


def test_rescoring_profiles_recorded_before_the_schedule_probe_is_one_line(script, tmp_path):
    """The ninth blind set recorded the thread probe alone: the shipped predictor, which reads both probes, cannot
    answer from those profiles, and says so in one line instead of a traceback."""
    from mirtune.predict.recommend import load_task_predictor

    path = _here_copy(tmp_path, "recommend_unseen9.json")
    folder = ROOT / "benchmarks" / "programs" / "openmp_unseen9"
    sources = {p["name"]: folder / f"{p['name']}.c" for p in json.loads(path.read_text())["programs"]}
    predictor, _ = load_task_predictor("openmp", None)
    with pytest.raises(SystemExit, match="--rescore: .*log2_guided_speedup.*this profile has none") as err:
        script.rescore(path, sources, None, predictor, list(predictor.labels))
    assert "\n" not in str(err.value)


def test_the_split_round_oracle_is_what_survives_choosing_on_the_other_rounds(script):
    """Three configurations, three rounds: the default (first) at 1.0 s; one truly 2x faster; one as fast as the
    default but lucky once. Choosing on two rounds and timing on the third keeps the true 2x every time, so the
    split share is 1; where the lucky one would have been chosen it is below 1; a failed run or one round: None."""
    steady = [[1.0, 1.0, 1.0], [0.5, 0.5, 0.5], [1.0, 1.0, 0.1]]
    assert script.split_round_share(steady) == pytest.approx(1.0)
    lucky = [[1.0, 1.0, 1.0], [0.8, 0.8, 0.8], [0.7, 1.0, 0.7]]  # oracle by medians: the lucky one (0.7)
    share = script.split_round_share(lucky)
    assert share is not None and share < 1.0
    assert script.split_round_share([[1.0, 1.0], [float("inf"), 0.5]]) is None
    assert script.split_round_share([[1.0], [0.5]]) is None
