"""`mirtune evaluate`: one-line errors with exit 2, and quick end-to-end runs with the IR2Vec embedding."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


def _main(argv: list[str]) -> int:
    """`mirtune evaluate ...` through the CLI when it is registered, else through jobs/evaluate.py (same code)."""
    from mirtune import cli

    if "evaluate" in cli.COMMANDS:
        return cli.main(["evaluate", *argv])
    spec = importlib.util.spec_from_file_location("jobs_evaluate", REPO / "jobs" / "evaluate.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.main(argv)


def _one_line_error(capsys, argv: list[str], *fragments: str) -> str:
    rc = _main(argv)
    err = capsys.readouterr().err.strip()
    assert rc == 2, err
    assert len(err.splitlines()) == 1, err
    for f in fragments:
        assert f in err
    return err


def test_unknown_task(capsys, shared_data):
    _one_line_error(capsys, ["published", "vectorise", "--embedding", "ir2vec"], "unknown task", "devmap")
    _one_line_error(capsys, ["measured", "devmap"], "unknown task", "openmp")
    _one_line_error(capsys, [], "say what to evaluate", "data-efficiency")


def test_missing_data_dir(capsys, tmp_path):
    _one_line_error(capsys, ["published", "devmap", "--data-dir", str(tmp_path / "nowhere"), "--embedding", "ir2vec"],
                    "does not exist")


def test_missing_mirtune_data_is_not_passed_over(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("MIRTUNE_DATA", str(tmp_path / "nowhere"))
    _one_line_error(capsys, ["published", "devmap", "--embedding", "ir2vec"], "MIRTUNE_DATA")


def test_data_dir_without_the_task_folder(capsys, tmp_path):
    _one_line_error(capsys, ["published", "coarsening", "--data-dir", str(tmp_path), "--embedding", "ir2vec"],
                    "thread-coarsening")


def test_unknown_embedding_and_ablation(capsys, shared_data):
    _one_line_error(capsys, ["published", "devmap", "--embedding", "word2vec"], "unknown embedding")
    _one_line_error(capsys, ["published", "devmap", "--embedding", "ir2vec", "--ablation", "sound"], "unknown ablation")
    _one_line_error(capsys, ["published", "devmap", "--embedding", "ir2vec", "--ablation", "text"], "MIREncoder")


def test_unknown_head_and_epochs_for_trees(capsys, shared_data):
    _one_line_error(capsys, ["published", "devmap", "--embedding", "ir2vec", "--head", "svm"], "unknown head")
    _one_line_error(capsys, ["published", "devmap", "--embedding", "ir2vec", "--head", "gbt", "--epochs", "10"],
                    "mlp head only")


def test_no_embedding_needs_context_features(capsys, shared_data):
    _one_line_error(capsys, ["published", "devmap", "--embedding", "none"], "applies to openmp and cuda_blocks")
    _one_line_error(capsys, ["measured", "vectorize", "--embedding", "none"], "vectorize has no context features")


def test_grewe_features_are_for_devmap_only(capsys, shared_data):
    _one_line_error(capsys, ["published", "coarsening", "--embedding", "grewe"], "devmap only")
    _one_line_error(capsys, ["published", "devmap", "--embedding", "grewe", "--ablation", "text"], "MIREncoder")


def test_quick_devmap_with_grewe_features(shared_data, tmp_path, capsys):
    out = tmp_path / "grewe.json"
    rc = _main(["published", "devmap", "--embedding", "grewe", "--head", "gbt", "--quick", "--seeds", "1", "--folds", "3",
                "--no-ray", "--json", str(out), "--no-plot"])
    printed = capsys.readouterr()
    assert rc == 0, printed.err
    result = json.loads(out.read_text())
    assert result["embedding"] == "grewe" and result["features"].startswith("grewe (6) ++")
    assert result["nvidia"]["n_rows"] == 68 and result["nvidia"]["accuracy"] > 0.7  # the classic baseline works
    assert "static kernel counts" in printed.out + printed.err


def test_bad_pca_sizes(capsys, shared_data):
    _one_line_error(capsys, ["published", "devmap", "--embedding", "ir2vec", "--pca", "4,x"], "--pca takes whole numbers")
    _one_line_error(capsys, ["published", "devmap", "--embedding", "ir2vec", "--pca", "-4"], "--pca values must be >= 0")


def test_precision_is_for_the_encoder_only(capsys, shared_data):
    _one_line_error(capsys, ["published", "devmap", "--embedding", "ir2vec", "--precision", "bf16"], "mirencoder embedding only")
    _one_line_error(capsys, ["published", "devmap", "--precision", "fp8"], "unknown precision")
    _one_line_error(capsys, ["published", "devmap", "--embedding", "ir2vec", "--readout", "meanmax"], "mirencoder embedding only")
    _one_line_error(capsys, ["published", "devmap", "--readout", "sum"], "unknown readout")


def test_unavailable_encoder_model(capsys, shared_data, tmp_path):
    _one_line_error(capsys, ["published", "devmap", "--embedding", "mirencoder", "--model-dir", str(tmp_path / "none")],
                    "model directory not found")


def test_ablation_needs_a_single_modality_encoder(capsys, shared_data, tmp_path, monkeypatch):
    """The shipped two-modality encoder is refused for an ablation; with no ablation encoder where one is looked
    for (none is shipped), the line says how to make or restore one."""
    from mirtune.embedding import DEFAULT_MODEL_DIR

    _one_line_error(capsys, ["published", "devmap", "--embedding", "mirencoder", "--model-dir", str(DEFAULT_MODEL_DIR),
                             "--ablation", "graph"], "graph modality alone", "pre-trained on both")
    monkeypatch.delenv("MIRTUNE_MODEL", raising=False)
    monkeypatch.setattr("mirtune.embedding.ablation_model_dir", lambda modality: tmp_path / "absent")
    _one_line_error(capsys, ["published", "devmap", "--embedding", "mirencoder", "--ablation", "text"],
                    "no text-only encoder here", "--modality text", "restore the published one")


def test_ir2vec_not_installed(capsys, shared_data, monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "ir2vec", None)  # import ir2vec -> ImportError
    _one_line_error(capsys, ["published", "devmap", "--embedding", "ir2vec"], "IR2Vec", "pip install")


def test_bad_folds_and_protocol(capsys, shared_data):
    _one_line_error(capsys, ["published", "devmap", "--embedding", "ir2vec", "--folds", "x"], "fold numbers")
    _one_line_error(capsys, ["published", "devmap", "--embedding", "ir2vec", "--folds", "12"], "no fold 12")
    _one_line_error(capsys, ["published", "coarsening", "--embedding", "ir2vec", "--folds", "nokernel"], "unknown coarsening kernel")
    _one_line_error(capsys, ["published", "devmap", "--embedding", "ir2vec", "--protocol", "ir2vec"], "coarsening only")
    _one_line_error(capsys, ["published", "coarsening", "--embedding", "ir2vec", "--protocol", "x"], "unknown coarsening protocol")


def test_quick_devmap_with_ir2vec_writes_json_and_plot(shared_data, ray_cluster, tmp_path, capsys):
    pytest.importorskip("ir2vec")
    out = tmp_path / "devmap.json"
    rc = _main(["published", "devmap", "--embedding", "ir2vec", "--quick", "--seeds", "2", "--folds", "0,1",
                "--json", str(out), "--plot", str(tmp_path / "devmap.png")])
    printed = capsys.readouterr()
    assert rc == 0, printed.err
    result = json.loads(out.read_text())
    for platform in ("amd", "nvidia"):
        m = result[platform]
        for key in ("accuracy", "f1", "speedup"):
            assert isinstance(m[key], float) and isinstance(m[key + "_std"], float)
            assert len(m["per_seed"][key]) == 2
        assert 0.0 <= m["accuracy"] <= 1.0 and 0.0 <= m["f1"] <= 1.0 and m["speedup"] > 0
        assert m["n_rows"] == {"amd": 136, "nvidia": 138}[platform]  # the rows of folds 0 and 1
        assert [c["fold"] for c in m["chosen_configs"]] == [0, 1]
        preds = np.array(m["predictions"])  # [seeds, 680]: the evaluated rows get a device, the rest -1
        assert preds.shape == (2, 680) and int((preds >= 0).sum(axis=1)[0]) == m["n_rows"]
        assert set(np.unique(preds)) <= {-1, 0, 1}
    assert result["seeds"] == [0, 1] and result["folds"] == [0, 1] and result["embedding"] == "ir2vec"
    assert (tmp_path / "devmap.png").stat().st_size > 1000
    assert set(result["timing_s"]) >= {"embed", "select", "fit", "total"}
    assert "mirtune + ir2vec, mlp head (this run)" in printed.out and "MIREncoder (paper)" in printed.out


def test_quick_coarsening_in_process_writes_json(shared_data, tmp_path, capsys):
    pytest.importorskip("ir2vec")
    out = tmp_path / "tc.json"
    rc = _main(["published", "coarsening", "--embedding", "ir2vec", "--quick", "--seeds", "2", "--folds", "mt,nbody",
                "--no-ray", "--json", str(out), "--no-plot"])
    printed = capsys.readouterr()
    assert rc == 0, printed.err
    result = json.loads(out.read_text())
    assert set(result["per_gpu"]) == {"Cypress", "Tahiti", "Fermi", "Kepler"}
    assert isinstance(result["average"], float) and isinstance(result["average_std"], float)
    assert result["kernels"] == ["mt", "nbody"] and result["seeds"] == [0, 1]
    for p in result["per_gpu"]:
        assert result["per_gpu"][p] > 0 and len(result["per_seed"][p]) == 2
        assert set(result["predicted_factors"][p]) == {"mt", "nbody"}
        assert all(f in (1, 2, 4, 8, 16, 32) for f in result["predicted_factors"][p]["nbody"])


def test_quick_coarsening_with_the_trees_head(shared_data, tmp_path, capsys):
    pytest.importorskip("ir2vec")
    out = tmp_path / "tc_gbt.json"
    rc = _main(["published", "coarsening", "--embedding", "ir2vec", "--head", "gbt", "--quick", "--seeds", "2",
                "--folds", "mt,nbody", "--no-ray", "--pca", "0,4", "--json", str(out), "--no-plot"])
    printed = capsys.readouterr()
    assert rc == 0, printed.err
    result = json.loads(out.read_text())
    assert result["head"] == "gbt" and all(c["head"] == "gbt" for c in result["candidates"])
    assert result["pca"] == [0, 4] and [c["pca"] for c in result["candidates"]] == [0, 0, 4, 4]
    assert all(c["pca"] in (0, 4) for c in result["chosen_configs"]["Fermi"])
    assert all(result["per_gpu"][p] > 0 for p in result["per_gpu"])


def test_result_json_puts_value_lists_on_one_line_and_round_trips():
    from mirtune.commands.evaluate import result_json

    result = {"predictions": [[0, 1, -1], [1, 1, 0]], "speedup": [1.5, 2e-05], "names": ["a", "b  c,\n d"],
              "command": "mirtune evaluate --folds [0,\n 1]", "empty": [], "nan": [float("nan")],
              "rows": [{"k": [1, 2]}]}
    text = result_json(result)
    assert "[0, 1, -1]" in text and "[1.5, 2e-05]" in text and "[NaN]" in text
    assert '"names": ["a", "b  c,\\n d"]' in text      # strings on one line too, their spaces kept
    back = json.loads(text)
    assert back["command"] == result["command"] and back["predictions"] == result["predictions"]
    assert back["names"] == result["names"] and back["rows"] == result["rows"]
    assert np.isnan(back["nan"][0]) and text.endswith("}\n")


def test_write_result_gzips_a_gz_name_and_the_chart_goes_beside(tmp_path):
    import gzip

    from mirtune.commands.evaluate import chart_beside, result_json, write_result

    result = {"methods": {"default": {"per_group_share": [1.0, 0.5]}}, "command": "mirtune evaluate"}
    write_result(tmp_path / "r.json", result)
    write_result(tmp_path / "r.json.gz", result)
    plain = (tmp_path / "r.json").read_text()
    assert plain == result_json(result) and json.loads(plain) == result
    packed = (tmp_path / "r.json.gz").read_bytes()
    assert packed[:2] == b"\x1f\x8b" and gzip.decompress(packed).decode() == plain
    assert chart_beside(tmp_path / "r.json.gz") == chart_beside(tmp_path / "r.json") == tmp_path / "r.png"


def test_quick_vectorize_on_ray_writes_json_and_per_application_chart(ray_cluster, tmp_path, capsys):
    pytest.importorskip("ir2vec")
    out = tmp_path / "vectorize.json"
    # the 48 kernels measured on the Intel VM: small enough for the suite (the default data is larger)
    rc = _main(["measured", "vectorize", "--quick", "--data", str(REPO / "datasets" / "vectorize"), "--json", str(out)])
    printed = capsys.readouterr()
    assert rc == 0, printed.err
    result = json.loads(out.read_text())
    assert result["protocol"] == "leave-one-application-out" and result["applications"] == 32
    assert list(result["methods"]) == ["default", "best fixed", "mirencoder", "ir2vec", "oracle"]
    assert result["methods"]["default"]["speedup_over_default"] == pytest.approx(1.0)
    assert result["oracle_speedup_over_default"] == pytest.approx(1.17, abs=0.01)
    for name in ("mirencoder", "ir2vec"):
        assert len(result["chosen_heads"][name]) == 32 and len(result["methods"][name]["chosen"]) == 48
    assert out.with_suffix(".png").stat().st_size > 1000
    assert "share of oracle" in printed.out and "best fixed" in printed.out


def test_measured_tasks_reject_options_of_the_published_ones(capsys, tmp_path):
    with pytest.raises(SystemExit) as exc:  # not an option of `evaluate measured` at all
        _main(["measured", "openmp", "--ablation", "text"])
    assert exc.value.code == 2 and "unrecognized arguments: --ablation" in capsys.readouterr().err
    _one_line_error(capsys, ["measured", "openmp", "--head", "mlp"], "gain heads")
    _one_line_error(capsys, ["measured", "openmp", "--embedding", "grewe"], "devmap only")
    _one_line_error(capsys, ["measured", "openmp", "--data", str(tmp_path / "none")], "no such file")
    _one_line_error(capsys, ["measured", "vectorize", "--data", str(REPO / "datasets" / "openmp")], "no vectorize measurements")
