"""The profile columns a predictor reads (mirtune.profile.features)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from mirtune.errors import MirtuneError
from mirtune.profile.features import PROFILE_COLUMNS, group_profiles, profile_matrix, profile_vector

SHORT_REGIONS = {"region_entries_per_s": 169200.0, "time_per_region_s": 5.4e-6, "parallel_share": 0.95,
                 "work_share": 0.74, "imbalance": 1.03, "iterations_per_loop": 89.0, "loop_imbalance": 1.02,
                 "run_s": 0.4, "threads": 2.0}


def test_counts_and_times_on_a_log_scale_fractions_as_they_are():
    v = profile_vector(SHORT_REGIONS)
    assert v.shape == (len(PROFILE_COLUMNS),)
    assert math.isclose(v[0], math.log10(169200.0)) and math.isclose(v[1], math.log10(5.4e-6))
    assert list(v[2:5]) == [0.95, 0.74, 1.03] and math.isclose(v[5], math.log10(89.0)) and v[6] == 1.02


def test_what_a_run_cannot_say_is_zero_and_floors_keep_logs_finite():
    # no worksharing loop (None from a profile, NaN from a Parquet row), a region-free run
    v = profile_vector(dict(SHORT_REGIONS, iterations_per_loop=None, loop_imbalance=float("nan"),
                            region_entries_per_s=0.0, time_per_region_s=None))
    assert v[5] == 0.0 and v[6] == 0.0 and v[1] == 0.0 and v[0] == -3.0
    assert np.isfinite(v).all()


def test_matrix_marks_the_rows_without_a_profile():
    X, have = profile_matrix([SHORT_REGIONS, None])
    assert X.shape == (2, len(PROFILE_COLUMNS)) and have.tolist() == [True, False]
    assert np.array_equal(X[0], profile_vector(SHORT_REGIONS)) and not X[1].any()
    assert profile_matrix([])[0].shape == (0, len(PROFILE_COLUMNS))


def _row(program, size, variant="", status="ok", entries=100.0):
    return {"program": program, "input_size": size, "variant": variant, "status": status,
            "region_entries_per_s": entries, "time_per_region_s": 1e-3, "parallel_share": 0.5, "work_share": 0.4,
            "imbalance": 1.1, "iterations_per_loop": 1000.0, "loop_imbalance": 1.2}


def test_profiles_join_groups_by_program_size_and_variant():
    import pandas as pd

    from mirtune.tasks.measured import size_key

    variant = '{"args": ["80"], "check": null, "inputs": {}}'
    profiles = pd.DataFrame([_row("a", 1), _row("b", 0, variant, entries=1e4), _row("c", 1, status="failed")])
    keyed = size_key({"input_size": 0, "variant": variant})
    X, have = profile_matrix(group_profiles(profiles, ["a", "b", "c", "d"], ["1", keyed, "1", "1"]))
    assert have.tolist() == [True, True, False, False]
    assert X[0, 0] == 2.0 and X[1, 0] == 4.0  # log10 of the entries per second
    assert X.shape == (4, 7) and not X[2:].any()


def test_a_predictor_row_is_built_by_the_names_it_recorded(tmp_path):
    from mirtune.ir.frontend import compile_to_ir
    from mirtune.profile.features import FITTED_COLUMNS, IR_COLUMNS, profile_row

    src = tmp_path / "hist.c"
    src.write_text("int h[8];\nvoid f(int n, const int *v) {\n#pragma omp parallel for\n"
                   "  for (int i = 0; i < n; i++) {\n#pragma omp atomic\n    h[v[i] & 7]++;\n  }\n}\n")
    ir = compile_to_ir(src, opt=2, openmp=True)
    row = profile_row(FITTED_COLUMNS, dict(SHORT_REGIONS, one_thread_speedup=0.5, guided_speedup=2.0), ir)
    assert np.array_equal(row[:len(PROFILE_COLUMNS)], profile_vector(SHORT_REGIONS))
    assert row[len(PROFILE_COLUMNS)] >= math.log1p(1)  # one atomic increment per iteration, at least
    assert row[-2:].tolist() == [-1.0, 1.0]  # the probes: one thread half as fast, guided twice as fast
    # a predictor fitted before the IR columns existed reads the profile columns alone, in its recorded order
    assert np.array_equal(profile_row(PROFILE_COLUMNS[::-1], SHORT_REGIONS, ir), profile_vector(SHORT_REGIONS)[::-1])
    assert IR_COLUMNS[0] in FITTED_COLUMNS
    with pytest.raises(MirtuneError, match="no_such_column"):  # one line from the command, not a traceback
        profile_row(("no_such_column",), SHORT_REGIONS, ir)


def test_the_thread_probe_is_log2_of_all_cores_over_one_thread_and_zero_without_one():
    from mirtune.profile.features import FITTED_COLUMNS, PROBE_COLUMNS, probe_value

    assert probe_value(2.0) == 1.0 and probe_value(0.5) == -1.0  # one thread twice as fast / half as fast
    assert probe_value(None) == 0.0 and probe_value(float("nan")) == 0.0 and probe_value(0.0) == 0.0
    assert set(PROBE_COLUMNS) <= set(FITTED_COLUMNS)
    from mirtune.profile.features import SCHEDULE_PROBE, THREAD_PROBE, probe_positions

    assert probe_positions(FITTED_COLUMNS, 6 + len(FITTED_COLUMNS)) == {
        p: 6 + FITTED_COLUMNS.index(p.column) for p in (THREAD_PROBE, SCHEDULE_PROBE)}
    assert probe_positions(PROFILE_COLUMNS, 13) == {}  # a predictor fitted before the probes
    # a predictor fitted with the thread probe alone (December 2026) reads it, and not the schedule probe
    assert probe_positions([*PROFILE_COLUMNS, THREAD_PROBE.column], 14) == {THREAD_PROBE: 13}


def test_each_probe_starts_the_gains_of_its_own_configurations():
    from mirtune.profile.features import SCHEDULE_PROBE, THREAD_PROBE, probe_offsets

    configs = [{}, {"threads": 1, "schedule": "static", "chunk": 8}, {"threads": 1, "schedule": "guided", "chunk": 1},
               {"threads": 2, "schedule": "guided", "chunk": 1}, {"threads": 2, "schedule": "guided", "chunk": 8}]
    X = np.array([[0.0, 1.0, -1.0], [0.0, 0.0, 2.0]])  # a context column, then the thread and schedule probes
    off = probe_offsets(configs, X, {THREAD_PROBE: 1, SCHEDULE_PROBE: 2}) / math.log(2.0)
    # every one-thread configuration from the thread probe; guided,1 on the most threads (all cores) from the other
    assert np.allclose(off, [[0, 1, 1, -1, 0], [0, 0, 0, 2, 0]])
    assert np.allclose(probe_offsets(configs, X, {THREAD_PROBE: 1}) / math.log(2.0), [[0, 1, 1, 0, 0], [0] * 5])
    assert THREAD_PROBE.env(16) == {"OMP_NUM_THREADS": "1"}
    assert SCHEDULE_PROBE.env(16) == {"OMP_NUM_THREADS": "16", "OMP_SCHEDULE": "guided,1"}


def test_the_datasets_probes_come_from_the_untimed_runs_of_the_default_and_of_their_configurations():
    from mirtune.profile.features import SCHEDULE_PROBE, THREAD_PROBE, probe_column, probe_config
    from mirtune.tasks import openmp
    from mirtune.tasks.measured import GainTable

    configs = [{}, {"threads": 1, "schedule": "dynamic", "chunk": 512}, {"threads": 1, "schedule": "static", "chunk": 8},
               {"threads": 1, "schedule": "static", "chunk": 512}, {"threads": 2, "schedule": "guided", "chunk": 1}]
    assert probe_config(THREAD_PROBE, configs) == 3 and probe_config(THREAD_PROBE, configs[:2]) is None
    assert probe_config(SCHEDULE_PROBE, configs) == 4 and probe_config(SCHEDULE_PROBE, configs[:4]) is None
    times = np.ones((3, 5))
    # the medians say nothing here: the probe reads the warm-up runs, one each, never a label's runs
    warm = np.array([[1.0, 9, 9, 0.25, 0.5], [1.0, 9, 9, 4.0, 1.0], [np.nan, 9, 9, 1.0, 9]])
    table = GainTable(spec=openmp.SPEC, configs=configs, labels=[f"c{i}" for i in range(5)], programs=["a", "b", "c"],
                      sizes=["0"] * 3, apps=["a", "b", "c"], sources=["a.c", "b.c", "c.c"], times=times, statuses=[["ok"] * 5] * 3,
                      cv=np.zeros((3, 5)), warmups=warm)
    assert probe_column(table)[:, 0].tolist() == [2.0, -2.0, 0.0]  # one thread 4x faster, 4x slower, no run
    assert probe_column(table)[:, 1].tolist() == [1.0, 0.0, 0.0]  # guided,1 twice as fast, as fast, no run
    assert probe_column(table.subset([1]))[:, 0].tolist() == [-2.0]
    assert not probe_column(GainTable(**{**table.__dict__, "warmups": None})).any()


def test_a_row_with_the_probe_needs_a_profile_that_ran_it(tmp_path):
    from mirtune.profile.features import PROBE_COLUMNS, profile_row

    assert profile_row(PROBE_COLUMNS, dict(SHORT_REGIONS, one_thread_speedup=4.0, guided_speedup=0.5),
                       "").tolist() == [2.0, -1.0]
    with pytest.raises(MirtuneError, match="log2_one_thread_speedup"):
        profile_row(PROBE_COLUMNS, SHORT_REGIONS, "")
    with pytest.raises(MirtuneError, match="log2_guided_speedup"):  # a profile of before the schedule probe
        profile_row(PROBE_COLUMNS, dict(SHORT_REGIONS, one_thread_speedup=4.0), "")


def test_the_probes_own_pick_is_the_fastest_of_what_they_ran():
    """`probes_choice`: of the default, one thread (static, the largest chunk: what one thread runs as the plain
    loop) and guided,1 on the most threads, the fastest by the probes' own speedups; the default when neither beats
    it or a probe is missing."""
    import json

    from mirtune.paths import REPO_DIR
    from mirtune.profile.features import probes_choice

    configs = json.loads((REPO_DIR / "mirtune" / "assets" / "heads" / "openmp-profile" / "predictor.json")
                         .read_text())["configs"]  # the shipped predictor's 25, the default first
    where = [(c.get("threads"), c.get("schedule"), c.get("chunk")) for c in configs]
    one, guided = where.index((1, "static", 512)), where.index((2, "guided", 1))
    assert probes_choice({"one_thread_speedup": 1.6, "guided_speedup": 1.1}, configs) == one
    assert probes_choice({"one_thread_speedup": 0.5, "guided_speedup": 1.1}, configs) == guided
    assert probes_choice({"one_thread_speedup": 0.5, "guided_speedup": 0.97}, configs) == 0
    assert probes_choice({"one_thread_speedup": None, "guided_speedup": float("nan")}, configs) == 0
