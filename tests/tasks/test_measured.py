"""Gain tables from collector Parquet: the committed datasets, and rows that must be dropped or refused."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mirtune.errors import UsageError
from mirtune.paths import REPO_DIR
from mirtune.tasks import openmp, vectorize
from mirtune.tasks.measured import (best_fixed, chosen_speedups, geomean, group_kfold, leave_one_app_out,
                                    load_gain_table, share_of_oracle)

OPENMP_DATA = REPO_DIR / "datasets" / "openmp"
VECTORIZE_DATA = REPO_DIR / "datasets" / "vectorize"


@pytest.fixture(scope="module")
def omp_table():
    return load_gain_table([OPENMP_DATA], openmp.SPEC)


def test_openmp_table_from_the_committed_dataset(omp_table):
    t = omp_table
    assert len(t) == 64 and len(set(t.apps)) == 32 and len(t.labels) == 25
    assert t.labels[0] == "default" and t.configs[0] == {}
    assert "threads=2,schedule=guided,chunk=1" in t.labels
    assert np.allclose(t.speedups[:, 0], 1.0)
    assert all(src.is_file() and src.suffix == ".c" for src in t.sources)
    # the figures the collected data is known for (datasets/README.md, the recommend issue)
    assert geomean(share_of_oracle(t.speedups, np.zeros(len(t), int))) == pytest.approx(0.771, abs=0.002)
    assert geomean(np.nanmax(t.speedups, axis=1)) == pytest.approx(1.30, abs=0.01)
    gains = t.train_gains()
    assert np.isfinite(gains).all() and gains.shape == (64, 25)


def test_vectorize_table_groups_kernels_by_template():
    t = load_gain_table([VECTORIZE_DATA], vectorize.SPEC)
    assert len(t) == 48 and len(set(t.apps)) == 32 and len(t.labels) == 36
    assert t.labels[1] == "vf=1,if=1" and t.configs[1] == {"vf": 1, "if": 1}
    # the miscompiled shift_dep_float_0 configurations are failures (NaN), never fast
    row = t.programs.index("shift_dep_float_0")
    assert np.isnan(t.speedups[row]).sum() == 27
    assert chosen_speedups(t.speedups, [int(np.flatnonzero(np.isnan(t.speedups[row]))[0])], [row])[0] == 0.0


def test_folds_keep_applications_together(omp_table):
    apps = np.asarray(omp_table.apps)
    folds = leave_one_app_out(apps)
    assert len(folds) == 32
    for tr, te, app in folds:
        assert set(apps[te]) == {app} and app not in set(apps[tr]) and len(te) == 2
    rows = folds[0][0]
    splits = group_kfold(rows, apps, 5, seed=0)
    assert len(splits) == 5
    for tr, va in splits:
        assert not set(apps[tr]) & set(apps[va]) and set(tr) | set(va) == set(rows)


def test_best_fixed_is_chosen_on_the_rows_given(omp_table):
    s = omp_table.speedups
    c = best_fixed(s, np.arange(len(omp_table)))
    assert omp_table.labels[c] == "threads=2,schedule=guided,chunk=1"
    shares = [geomean(share_of_oracle(s, np.full(len(s), k))) for k in range(s.shape[1])]
    assert shares[c] == max(shares)


def _rows(tmp_path, df, name="rows"):
    folder = tmp_path / name
    folder.mkdir()
    df.to_parquet(folder / "part-0.parquet")
    return folder


def test_a_group_whose_default_failed_is_dropped_and_missing_sources_are_one_line(tmp_path):
    df = pd.read_parquet(next(OPENMP_DATA.glob("*.parquet")))
    df = df[df.program.isin(["gemm", "mvt", "atax"])].copy()
    bad = (df.program == "gemm") & (df.input_size.astype(str) == "1") & df.is_default
    df.loc[bad, "status"] = "crash"
    t = load_gain_table([_rows(tmp_path, df)], openmp.SPEC)
    assert len(t) == 5 and any(d.startswith("gemm size 1: the default configuration crash") for d in t.dropped)
    df["program_sha256"] = "0" * 64  # no source on disk has this content
    with pytest.raises(UsageError, match="cannot find the source of"):
        load_gain_table([_rows(tmp_path, df, "unknown")], openmp.SPEC)


def test_wrong_sweep_missing_and_empty_folders(tmp_path):
    with pytest.raises(UsageError, match="no openmp measurements"):
        load_gain_table([VECTORIZE_DATA], openmp.SPEC)
    with pytest.raises(UsageError, match="no such file"):
        load_gain_table([tmp_path / "nope"], openmp.SPEC)
    (tmp_path / "empty").mkdir()
    with pytest.raises(UsageError, match="no Parquet files"):
        load_gain_table([tmp_path / "empty"], openmp.SPEC)
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "part.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(UsageError, match="not a readable Parquet file"):
        load_gain_table([tmp_path / "junk"], openmp.SPEC)


def test_two_ways_of_running_one_program_are_two_groups():
    from mirtune.tasks.measured import size_key

    plain = {"input_size": 1}
    a = {"input_size": 0, "variant": '{"args": ["in.txt", "10"]}'}
    b = {"input_size": 0, "variant": '{"args": ["in.txt", "20"]}'}
    assert size_key(plain) == "1" and size_key({**plain, "variant": None}) == "1"
    assert size_key(a) != size_key(b) and size_key(a).startswith("0/")


def test_a_rows_configuration_is_named_as_in_the_gain_table():
    """Parquet gives chunk as a float and a missing power limit as NaN: the label is the gain table's all the same."""
    from mirtune.tasks.measured import row_config

    row = {"is_default": False, "power_w": np.nan, "threads": np.int64(2), "schedule": "guided", "chunk": 8.0}
    assert row_config(row, openmp.SPEC) == ("threads=2,schedule=guided,chunk=8",
                                            {"power_w": None, "threads": 2, "schedule": "guided", "chunk": 8})
    assert row_config({**row, "is_default": True}, openmp.SPEC) == ("default", {})


@pytest.mark.parametrize("column, value", [("host_cpu_model", "another CPU"),
                                           ("host_cpu_tag", "0123456789ab")])  # same model name, other flags
def test_one_program_measured_on_two_hosts_is_two_groups(tmp_path, column, value):
    """Rows of the same kernel from another machine never overwrite this machine's cells: a group per host."""
    from mirtune.measure.records import read_rows

    rows = read_rows(VECTORIZE_DATA)
    rows = rows[rows["program"].isin(sorted(set(rows["program"]))[:3])]
    other = rows.copy()
    other[column] = value
    other["median_s"] = other["median_s"] * np.where(other["is_default"], 1.0, 3.0)  # every pragma 3x slower there
    other["timestamp"] = "2099-01-01T00:00:00+00:00"  # newer: it would win a shared cell
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    rows.to_parquet(tmp_path / "a" / "part.parquet")
    other.to_parquet(tmp_path / "b" / "part.parquet")
    here = load_gain_table([tmp_path / "a"], vectorize.SPEC)
    both = load_gain_table([tmp_path / "a", tmp_path / "b"], vectorize.SPEC)
    assert len(here) == 3 and len(both) == 6 and len(both.hosts) == 2
    assert sorted(both.programs) == sorted(here.programs * 2)
    # this host's groups keep their own times; the other host's are its own (3x slower pragmas)
    s = both.speedups
    for p in here.programs:
        a, b = [i for i, q in enumerate(both.programs) if q == p]
        mine = here.speedups[here.programs.index(p)]
        pair = sorted([s[a], s[b]], key=lambda v: -np.nanmean(v[1:]))
        assert np.allclose(pair[0], mine, equal_nan=True)
        assert np.allclose(pair[1][1:], mine[1:] / 3.0, equal_nan=True)


def test_a_sweep_stopped_part_way_keeps_its_space_and_drops_unfinished_groups(tmp_path):
    """A sweep stopped part-way, as datasets/vectorize-epyc once was: the default of every kernel measured first,
    the whole space of some, a few configurations of the others."""
    from mirtune.measure.records import read_rows

    rows = read_rows(REPO_DIR / "datasets" / "vectorize-epyc")
    kernels = sorted(rows["program"].unique())
    whole, partial = set(kernels[:40]), set(kernels[40:60])
    forced = ~rows["is_default"]
    some = rows["program"].isin(partial) & forced & rows["vf"].isin([1, 2])  # 10 of the 35 forced configurations
    keep = rows["is_default"] | rows["program"].isin(whole) | some
    (tmp_path / "stopped").mkdir()
    rows[keep].to_parquet(tmp_path / "stopped" / "part.parquet")
    t = load_gain_table([tmp_path / "stopped"], vectorize.SPEC)
    assert len(t.labels) == 36 and t.labels[0] == "default"  # not shrunk to the default, measured everywhere
    assert sorted(t.programs) == sorted(whole)
    assert len(t.dropped) == len(kernels) - 40 and all("not every configuration" in d for d in t.dropped)


def test_a_source_measured_from_a_copy_of_the_repository_is_found_here(tmp_path):
    """Rows measured from a frozen copy of the repository (collectors/... or benchmarks/programs/...) name the
    copy's path; the source is found at the same place here when its content matches, and refused when not."""
    from mirtune.embedding_cache import file_hash
    from mirtune.tasks.measured import find_source

    for rel in ("collectors/programs/openmp_ordinary/mandel.c", "benchmarks/programs/openmp_unseen/kmeans.c"):
        here = REPO_DIR / rel
        assert find_source(str(tmp_path / "frozen" / rel), file_hash(here)) == here
        with pytest.raises(UsageError, match="cannot find the source of"):
            find_source(str(tmp_path / "frozen" / rel), "0" * 64)


def test_the_latest_row_wins_and_equal_stamps_keep_the_order_read():
    from mirtune.tasks.measured import oldest_first

    df = pd.DataFrame({"key": ["a", "a", "b", "b"], "v": [1, 2, 3, 4],
                       "timestamp": ["2026-01-02", "2026-01-01", "2026-01-01", "2026-01-01"]})
    last = oldest_first(df).drop_duplicates("key", keep="last").set_index("key")["v"].to_dict()
    assert last == {"a": 1, "b": 4}            # a: the later stamp, read first; b: the same stamp, the row read last
    assert oldest_first(df.drop(columns="timestamp"))["v"].tolist() == [1, 2, 3, 4]
