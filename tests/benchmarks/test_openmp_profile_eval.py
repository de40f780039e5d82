"""benchmarks/openmp_profile_eval.py: the profile features meet the right groups, and the evaluation runs on the
committed data with every method on the same groups."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from openmp_profile_eval import main, profile_matrix  # noqa: E402


def _row(program, size, variant="", status="ok", entries=100.0):
    return {"program": program, "input_size": size, "variant": variant, "status": status,
            "region_entries_per_s": entries, "time_per_region_s": 1e-3, "parallel_share": 0.5, "work_share": 0.4,
            "imbalance": 1.1, "iterations_per_loop": 1000.0, "loop_imbalance": 1.2}


def test_profiles_join_groups_by_program_size_and_variant():
    from mirtune.tasks.measured import size_key

    variant = '{"args": ["80"], "check": null, "inputs": {}}'
    profiles = pd.DataFrame([_row("a", 1), _row("b", 0, variant, entries=1e4), _row("c", 1, status="failed")])
    keyed = size_key({"input_size": 0, "variant": variant})
    X, have = profile_matrix(profiles, ["a", "b", "c", "d"], ["1", keyed, "1", "1"])
    assert have.tolist() == [True, True, False, False]
    assert X[0, 0] == 2.0 and X[1, 0] == 4.0  # log10 of the entries per second
    assert X.shape == (4, 7) and not X[2:].any()


def test_the_evaluation_runs_on_the_committed_data(tmp_path):
    out = tmp_path / "ope.json"
    assert main(["--configs", "1", "--inner", "3", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    shares = res["share_of_oracle"]
    assert set(shares) == {"default", "best fixed", "context", "context + profile", "profile", "oracle"}
    assert shares["oracle"] == 1.0 and all(0 < v <= 1 for v in shares.values())
    assert res["groups"] + res["groups_without_profile"] == 249
    wins = res["one_thread_wins"]
    assert len(wins["groups"]) == len(wins["best_one_thread_speedup"])
    assert all(s >= 1.25 for s in wins["best_one_thread_speedup"])
    assert np.all(np.array(wins["share"]["oracle"]) == 1.0)


def test_a_missing_profile_table_is_one_line(tmp_path, capsys):
    assert main(["--profiles", str(tmp_path / "none.parquet"), "--json", str(tmp_path / "x.json")]) == 2
    assert "no profile table" in capsys.readouterr().err
