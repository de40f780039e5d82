"""The profile columns a predictor reads (mirtune.profile.features)."""

from __future__ import annotations

import math

import numpy as np

from mirtune.profile.features import PROFILE_COLUMNS, profile_matrix, profile_vector

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
