"""benchmarks/openmp_profile_eval.py: the evaluation runs on the committed data with every method on the same groups
(how profiles meet groups: tests/profile/test_features.py)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "benchmarks"))

from openmp_profile_eval import main  # noqa: E402


def test_the_evaluation_runs_on_the_committed_data(tmp_path):
    out = tmp_path / "ope.json"
    assert main(["--configs", "1", "--inner", "3", "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    shares = res["share_of_oracle"]
    assert set(shares) == {"default", "best fixed", "context", "context + profile", "profile",
                           "context + profile + shared updates", "context + profile + shared updates + thread probe",
                           "context + profile + shared updates + both probes", "oracle"}
    assert shares["oracle"] == 1.0 and all(0 < v <= 1 for v in shares.values())
    assert res["groups"] + res["groups_without_profile"] == 249
    for parts in res["loss_by_threads"].values():  # every group in one cell; the cells' losses add up to the whole
        assert sum(v["groups"] for v in parts.values()) == res["groups"]
        assert sum(v["share_of_loss"] for v in parts.values()) == pytest.approx(1.0, abs=0.01)
    wins = res["one_thread_wins"]
    assert len(wins["groups"]) == len(wins["best_one_thread_speedup"])
    assert all(s >= 1.25 for s in wins["best_one_thread_speedup"])
    assert np.all(np.array(wins["share"]["oracle"]) == 1.0)


def test_a_missing_profile_table_is_one_line(tmp_path, capsys):
    assert main(["--profiles", str(tmp_path / "none.parquet"), "--json", str(tmp_path / "x.json")]) == 2
    assert "no profile table" in capsys.readouterr().err


def test_the_shipped_profile_head_refitted_per_fold_picks_one_thread_where_it_wins(tmp_path):
    """--head-config: the shipped profile predictor's head, refitted leaving each application out, on the data it
    was fitted on (openmp-fewer-epyc and openmp-atomic-xeon included) and with its columns (the IR's shared
    updates and both probes too): most groups where one thread wins get one thread, and each probe helps."""
    out = tmp_path / "fixed.json"
    shipped = REPO / "mirtune" / "assets" / "heads" / "openmp-profile" / "predictor.json"
    assert main(["--extra", "openmp-fewer-epyc", "--extra", "openmp-atomic-xeon", "--head-config", str(shipped),
                 "--json", str(out)]) == 0
    res = json.loads(out.read_text())
    assert res["head_config"] == json.loads(shipped.read_text())["head"]
    wins = res["one_thread_wins"]
    fitted = "context + profile + shared updates + both probes"
    one = [c.startswith("threads=1,") for c in wins["chosen"][fitted]]
    assert len(one) >= 10 and sum(one) >= 3 * len(one) // 4
    shares = res["share_of_oracle"]
    assert shares[fitted] > shares["context + profile + shared updates + thread probe"] > \
        shares["context + profile + shared updates"] > shares["context"]
