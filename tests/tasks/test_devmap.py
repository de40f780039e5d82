"""Device mapping: the published folds, the IR map, and the metrics (hand-made and against published figures)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mirtune.tasks import devmap


@pytest.fixture(scope="module")
def frames(shared_data):
    return {p: devmap.load_platform(shared_data, p) for p in devmap.PLATFORMS}


def test_folds_reproduce_the_provenance_class_counts(frames):
    counts = {p: df.groupby(["oracle", "fold"]).size().unstack(0) for p, df in frames.items()}
    # AMD: 400 CPU / 280 GPU -> 40 / 28 in every fold
    assert (counts["amd"]["CPU"] == 40).all() and (counts["amd"]["GPU"] == 28).all()
    # NVIDIA: 293 CPU / 387 GPU -> the first n % 10 folds one longer
    assert counts["nvidia"]["CPU"].tolist() == [30, 30, 30] + [29] * 7
    assert counts["nvidia"]["GPU"].tolist() == [39] * 7 + [38] * 3
    for df in frames.values():
        assert len(df) == 680 and sorted(df.fold.unique()) == list(range(10))


def test_old_sklearn_fold_algorithm_matches_the_fold_column(frames):
    for df in frames.values():
        assert np.array_equal(devmap.deeptune_folds(df.label.to_numpy()), df.fold.to_numpy())


def test_rows_map_to_ir_files_with_the_patched_lavamd(frames):
    df = frames["amd"]
    assert df.ir_path.nunique() == 669
    lava = [p for p in df.ir_path if "lavaMD" in p]
    assert lava and all("kernels_ir_patched" in p for p in lava)
    assert all(pd.Series(df.ir_path).map(lambda p: p.endswith(".ll")))
    assert frames["amd"].ir_path.tolist() == frames["nvidia"].ir_path.tolist()
    X = devmap.context_features(df)
    assert X.shape == (680, 2) and np.isfinite(X).all()


def test_accuracy_and_f1_on_hand_made_examples():
    y = [1, 1, 1, 0, 0, 0]
    p = [1, 1, 0, 1, 0, 0]
    assert devmap.accuracy(y, p) == pytest.approx(4 / 6)
    # GPU class: tp 2, fp 1, fn 1 -> 2*2 / (4 + 1 + 1)
    assert devmap.f1(y, p, 1) == pytest.approx(4 / 6)
    # CPU class: tp 2, fp 1, fn 1
    assert devmap.f1(y, p, 0) == pytest.approx(4 / 6)
    assert devmap.f1([0, 0], [0, 0], 1) == 0.0
    assert devmap.f1([1, 0], [1, 0], 1) == 1.0


def _toy_frame():
    # runtimes chosen by hand; label = faster device
    return pd.DataFrame({"runtime_cpu": [1.0, 4.0, 2.0, 9.0], "runtime_gpu": [2.0, 1.0, 8.0, 3.0],
                         "label": [0, 1, 0, 1]})


def test_speedup_over_static_and_oracle_on_hand_made_examples():
    df = _toy_frame()
    # AMD: static = CPU. oracle per row: 1/1, 4/1, 2/2, 9/3 -> mean (1 + 4 + 1 + 3) / 4
    m = devmap.platform_metrics(df, "amd", [0, 1, 0, 1])
    assert m["accuracy"] == 1.0 and m["f1"] == 1.0
    assert m["speedup"] == pytest.approx(9 / 4) and m["oracle_speedup"] == pytest.approx(9 / 4)
    # static predictions give exactly 1.0
    assert devmap.platform_metrics(df, "amd", [0, 0, 0, 0])["speedup"] == pytest.approx(1.0)
    assert devmap.platform_metrics(df, "nvidia", [1, 1, 1, 1])["speedup"] == pytest.approx(1.0)
    # NVIDIA: static = GPU. all-CPU predictions: 2/1, 1/4, 8/2, 3/9
    m = devmap.platform_metrics(df, "nvidia", [0, 0, 0, 0])
    assert m["speedup"] == pytest.approx((2 + 0.25 + 4 + 1 / 3) / 4)
    assert m["oracle_speedup"] == pytest.approx((2 + 1 + 4 + 1) / 4)
    # a wrong prediction on row 1 (AMD): 4/4 instead of 4/1
    assert devmap.platform_metrics(df, "amd", [0, 0, 0, 1])["speedup"] == pytest.approx((1 + 1 + 1 + 3) / 4)
    # rows subset
    assert devmap.platform_metrics(df, "amd", [1], rows=np.array([1]))["speedup"] == pytest.approx(4.0)


def test_perfect_predictions_reach_the_oracle_speedup(frames):
    for p, df in frames.items():
        m = devmap.platform_metrics(df, p, df.label.to_numpy())
        assert m["accuracy"] == 1.0 and m["f1"] == 1.0
        assert m["speedup"] == pytest.approx(m["oracle_speedup"])
        assert m["oracle_speedup"] > 1.0


def test_metric_code_reproduces_the_published_prior_figures(shared_data):
    rows = {r["model"]: r for r in devmap.prior_from_predictions(shared_data)}
    dt = rows["DeepTune"]
    assert dt["amd"]["accuracy"] * 100 == pytest.approx(83.676471, abs=1e-4)
    assert dt["nvidia"]["accuracy"] * 100 == pytest.approx(80.294118, abs=1e-4)
    assert dt["amd"]["speedup"] == pytest.approx(3.335612, abs=1e-4)
    assert dt["nvidia"]["speedup"] == pytest.approx(1.412222, abs=1e-4)
    grewe = rows["Grewe et al."]
    assert grewe["amd"]["speedup"] == pytest.approx(2.905822, abs=1e-4)
    static = rows["Static mapping"]
    assert static["amd"]["speedup"] == 1.0 and static["amd"]["accuracy"] * 100 == pytest.approx(58.823529, abs=1e-4)


def test_problem_uses_the_published_folds(frames):
    df = frames["nvidia"]
    prob = devmap.make_problem(df, np.zeros((680, 3)), "nvidia", folds=[3, 7])
    assert prob.fold_ids == [3, 7]
    for k, (tr, te) in zip([3, 7], prob.outer):
        assert set(te) == set(np.flatnonzero(df.fold == k))
        assert not set(tr) & set(te) and len(tr) + len(te) == 680
    with pytest.raises(Exception, match="no fold 12"):
        devmap.make_problem(df, np.zeros((680, 3)), "nvidia", folds=[12])
    # gains: the speedup over the static mapping (GPU on NVIDIA) of choosing the CPU or the GPU
    assert prob.gains.shape == (680, 2) and (prob.gains[:, 1] == 1).all()
    assert np.allclose(prob.gains[:, 0], df.runtime_gpu / df.runtime_cpu)
    assert (prob.gains.argmax(axis=1) == df.label).mean() > 0.99  # the oracle device is the faster one


def test_grewe_features_are_the_static_counts_shared_by_both_platforms(frames):
    g = devmap.grewe_features(frames["amd"])
    assert g.shape == (680, 6) and g.min() >= 0
    assert np.array_equal(g, devmap.grewe_features(frames["nvidia"]))
    row = frames["amd"].iloc[16]  # npb-3.3-BT-add, dataset A
    assert np.allclose(np.expm1(g[16]), [row[c] for c in devmap.GREWE_COLUMNS])


def _devmap_copy(shared_data, dest):
    import shutil

    root = dest / "devmap"
    (root / "folds").mkdir(parents=True)
    for name in ("cgo17-amd.csv", "cgo17-nvidia.csv", "kernels_ir_map_680.csv", "folds/devmap_folds_680.csv"):
        shutil.copyfile(shared_data / "devmap" / name, root / name)
    return root


def test_a_truncated_published_csv_is_one_line_naming_the_file(shared_data, tmp_path, capsys):
    from mirtune.cli import main
    from mirtune.errors import MirtuneError

    root = _devmap_copy(shared_data, tmp_path)
    csv = root / "cgo17-amd.csv"
    raw = csv.read_bytes()
    csv.write_bytes(raw[: len(raw) // 2])  # cut short, as an interrupted download leaves it
    with pytest.raises(MirtuneError) as err:
        devmap.load_platform(tmp_path, "amd")
    assert str(csv) in err.value.line() and "truncated" in err.value.line()
    # cut inside a quoted source field but ending in a newline: pandas' ParserError, named as this file
    cut = raw.index(b',"', len(raw) // 2) + 2
    csv.write_bytes(raw[:cut] + b"\n")
    with pytest.raises(MirtuneError) as err:
        devmap.load_platform(tmp_path, "amd")
    assert str(csv) in err.value.line() and "ParserError" in err.value.line() and "\n" not in err.value.line()
    # the IR map cut at a line end: whole rows missing, and that file is the one named
    csv.write_bytes(raw)
    irmap = root / "kernels_ir_map_680.csv"
    lines = irmap.read_bytes().splitlines(keepends=True)
    irmap.write_bytes(b"".join(lines[:400]))
    with pytest.raises(MirtuneError) as err:
        devmap.load_platform(tmp_path, "amd")
    assert str(irmap) in err.value.line() and "fewest" in err.value.line()
    csv.write_bytes(raw[: len(raw) // 2])
    # through the command line: one line, exit 2
    assert main(["fit", "--task", "devmap", "--data-dir", str(tmp_path), "-o", str(tmp_path / "heads")]) == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip() and "mirtune fit:" in ln]
    assert len(lines) == 1 and str(csv) in lines[0] and "internal error" not in lines[0]
