"""Weights I/O: safetensors + JSON round trip, provenance, no pickle, one clear line for bad files."""

from __future__ import annotations

import json

import pytest
import torch

from mirtune.cli import main
from mirtune.errors import MirtuneError
from mirtune.ir.frontend import compile_to_ir
from mirtune.ir.module import IRModule
from mirtune.ir.tokenizer import IRTokenizer
from mirtune.model.config import EncoderConfig, preset
from mirtune.model.encoder import MIREncoder, collate
from mirtune.model.io import load_model, make_provenance, save_model
from mirtune.model.objectives import PretrainingHeads
from mirtune.model.samples import module_to_sample, sample_arrays


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    d = tmp_path_factory.mktemp("io")
    (d / "a.c").write_text("int f(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i] * 3;"
                           " return s; }\n")
    module = IRModule.from_text(compile_to_ir(d / "a.c", opt=1), "a")
    tok = IRTokenizer.train(module.statements(), vocab_size=300, min_frequency=1)
    cfg = preset("tiny", tok)
    torch.manual_seed(0)
    enc, heads = MIREncoder(cfg), PretrainingHeads(cfg)
    batch = collate([sample_arrays(module_to_sample(module, tok))])
    prov = make_provenance(cfg, tok, corpus={"path": "x", "train_samples": 1}, steps=7,
                           heldout={"mlm_accuracy": 0.5}, command=["mirtune", "pretrain", "--steps", "7"])
    model_dir = save_model(d / "model", enc, cfg, tok, prov, heads=heads)
    return model_dir, enc, heads, cfg, tok, batch


@pytest.fixture
def cli_with_model(monkeypatch):
    import mirtune.cli as cli

    if "model" not in cli.COMMANDS:
        monkeypatch.setattr(cli, "COMMANDS", cli.COMMANDS + ("model",))


def test_round_trip_gives_the_same_model(setup):
    model_dir, enc, heads, cfg, tok, batch = setup
    loaded = load_model(model_dir, with_heads=True)
    assert loaded.config == cfg
    assert loaded.tokenizer.sha256 == tok.sha256
    assert torch.equal(loaded.encoder.embed(batch), enc.embed(batch))
    for (n1, p1), (n2, p2) in zip(heads.state_dict().items(), loaded.heads.state_dict().items()):
        assert n1 == n2 and torch.equal(p1, p2)
    # the tied embedding is still one tensor in the loaded encoder
    assert loaded.encoder.text.token_embedding.weight is loaded.encoder.token_embedding.weight
    assert loaded.encoder.graph.token_embedding.weight is loaded.encoder.token_embedding.weight


def test_provenance_records_what_made_the_model(setup):
    model_dir, *_, tok, _ = setup
    prov = json.loads((model_dir / "provenance.json").read_text())
    assert prov["preset"] == "tiny" and prov["steps"] == 7
    assert prov["tokenizer_sha256"] == tok.sha256
    assert prov["heldout_metrics"] == {"mlm_accuracy": 0.5}
    assert prov["command"] == "mirtune pretrain --steps 7"
    assert prov["corpus"]["train_samples"] == 1
    assert prov["code"]["mirtune"] and "torch" in prov["code"]


def test_weights_are_safetensors_not_pickle(setup):
    model_dir = setup[0]
    raw = (model_dir / "model.safetensors").read_bytes()
    header_len = int.from_bytes(raw[:8], "little")
    header = json.loads(raw[8:8 + header_len])
    assert header["__metadata__"]["format"].startswith("mirtune")
    assert any(k.startswith("encoder.") for k in header) and any(k.startswith("heads.") for k in header)
    assert b"\x80\x04\x95" not in raw[:8 + header_len]  # no pickle protocol marker in the header


def _copy(model_dir, tmp_path):
    import shutil

    target = tmp_path / "m"
    shutil.copytree(model_dir, target)
    return target


@pytest.mark.parametrize("damage", ["truncate", "garbage", "empty", "missing"])
def test_corrupt_weights_are_one_clear_error(setup, tmp_path, damage):
    target = _copy(setup[0], tmp_path)
    w = target / "model.safetensors"
    if damage == "truncate":
        w.write_bytes(w.read_bytes()[: w.stat().st_size // 2])
    elif damage == "garbage":
        w.write_bytes(b"\x00" * 100)
    elif damage == "empty":
        w.write_bytes(b"")
    else:
        w.unlink()
    with pytest.raises(MirtuneError) as err:
        load_model(target)
    line = err.value.line()
    assert "\n" not in line and "model.safetensors" in line
    assert ("corrupt" in line) or ("not found" in line)


@pytest.mark.parametrize("damage", ["not-json", "wrong-shape", "unknown-field", "bad-type"])
def test_bad_config_is_one_clear_error(setup, tmp_path, damage):
    target = _copy(setup[0], tmp_path)
    c = target / "config.json"
    data = json.loads(c.read_text())
    if damage == "not-json":
        c.write_text('{"d_model": 12')
    elif damage == "wrong-shape":
        data["d_model"] = 64
        c.write_text(json.dumps(data))
    elif damage == "unknown-field":
        data["colour"] = "red"
        c.write_text(json.dumps(data))
    else:
        data["n_layers"] = "two"
        c.write_text(json.dumps(data))
    with pytest.raises(MirtuneError) as err:
        load_model(target)
    assert "\n" not in err.value.line()


def test_config_json_round_trip():
    cfg = preset("paper")
    assert EncoderConfig.from_dict(json.loads(cfg.to_json())) == cfg


def test_model_info_command(setup, tmp_path, capsys, cli_with_model):
    assert main(["model", "info", "--preset", "paper"]) == 0
    out = capsys.readouterr().out
    assert "pretraining_total" in out and "statement_transformer" in out
    assert main(["model", "info", "--preset", "small", "--modality", "graph", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["embedding_dim"] == 128 and info["parameters"]["statement_transformer"] == 0
    assert info["parameters"]["graph_gcn"] > 0 and info["parameters"]["matching_head"] == 0
    assert main(["model", "info", "--model", str(setup[0]), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["preset"] == "tiny" and info["parameters"]["encoder_total"] > 0
    assert info["provenance"]["steps"] == 7
    target = _copy(setup[0], tmp_path)
    (target / "model.safetensors").write_bytes(b"junk")
    assert main(["model", "info", "--model", str(target)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "corrupt or truncated weights file" in err[0]



def test_model_info_names_a_distilled_encoder_s_teacher(setup, tmp_path, capsys, cli_with_model):
    """A distilled encoder's provenance (scripts/distill_text_encoder.py's teacher_record) is shown: the teacher's
    fingerprint and commit, the statements it was distilled on, and the teacher's own training."""
    student = _copy(setup[0], tmp_path)
    prov = json.loads((student / "provenance.json").read_text())
    teacher = {**prov, "steps": 1100, "training": {"samples_seen": 8800}}
    prov.update(steps=3000, heldout_metrics={"text_state_r2": 0.995},
                corpus={"package": "gcc-12-source", "distinct_statements": 690902},
                distilled_from={"directory": "mirtune/assets/encoder", "git_commit": "5f4a34f9bb84",
                                "fingerprint": "80b861db9a1140b6", "provenance": teacher})
    (student / "provenance.json").write_text(json.dumps(prov))
    assert main(["model", "info", "--model", str(student)]) == 0
    out = capsys.readouterr().out
    assert ("distilled from encoder 80b861db9a1140b6, git 5f4a34f:mirtune/assets/encoder: 3000 steps on 690,902 "
            "statements of gcc-12-source; held-out text_state_r2 0.995") in out
    assert "teacher trained 1100 steps (8,800 files seen)" in out
    assert main(["model", "info", "--model", str(student), "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["provenance"]["distilled_from"]["provenance"]["steps"] == 1100


# ------------------------------------------------------------------ checksums and non-finite weights (#18 item 4)
def _copy_model(model_dir, dest):
    import shutil

    shutil.copytree(model_dir, dest)
    return dest


def _overwrite_data(path, byte=0xFF, size=1 << 20):
    """Write `size` bytes of `byte` into the tensor data of a safetensors file (the header stays readable)."""
    raw = bytearray(path.read_bytes())
    start = 8 + int.from_bytes(raw[:8], "little")
    size = min(size, len(raw) - start)
    raw[start:start + size] = bytes([byte]) * size
    path.write_bytes(bytes(raw))


def test_provenance_records_the_weights_sha256(setup):
    import hashlib

    from mirtune.model.io import verify_weights

    model_dir = setup[0]
    prov = json.loads((model_dir / "provenance.json").read_text())
    digest = hashlib.sha256((model_dir / "model.safetensors").read_bytes()).hexdigest()
    assert prov["weights_sha256"] == {"model.safetensors": digest}
    assert verify_weights(model_dir, prov) == "verified"
    assert load_model(model_dir).weights_check == "verified"


def test_shipped_encoders_record_and_verify_their_weights():
    from mirtune.model.io import read_json, verify_weights
    from mirtune.paths import ASSETS_DIR

    dirs = sorted(d for d in ASSETS_DIR.glob("encoder*") if (d / "model.safetensors").is_file())
    assert dirs, "no shipped encoder"
    for d in dirs:
        prov = read_json(d / "provenance.json", "provenance")
        assert set(prov["weights_sha256"]) == {"model.safetensors"}, d
        assert verify_weights(d, prov) == "verified", d


def test_corrupt_weights_are_refused_on_load_naming_the_file(setup, tmp_path, capsys, cli_with_model):
    from mirtune.model.io import WeightsCorrupt

    bad = _copy_model(setup[0], tmp_path / "bad")
    _overwrite_data(bad / "model.safetensors")
    with pytest.raises(WeightsCorrupt) as err:
        load_model(bad)
    line = err.value.line()
    assert "\n" not in line and str(bad / "model.safetensors") in line and "sha256" in line
    # `mirtune model info` says so too: one line, exit 2; a good model is reported as verified
    assert main(["model", "info", "--model", str(bad)]) == 2
    err_lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err_lines) == 1 and "model.safetensors" in err_lines[0] and "sha256" in err_lines[0]
    assert main(["model", "info", "--model", str(setup[0])]) == 0
    assert "weights: sha256 verified" in capsys.readouterr().out
    assert main(["model", "info", "--model", str(setup[0]), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["weights"]["check"] == "verified"


def test_nan_weights_are_refused_even_when_their_sha256_matches(setup, tmp_path, capsys, cli_with_model):
    from mirtune.model.io import WeightsCorrupt, record_weights_sha256

    old = _copy_model(setup[0], tmp_path / "old")
    _overwrite_data(old / "model.safetensors")  # 0xFFFFFFFF is a float32 NaN
    prov = json.loads((old / "provenance.json").read_text())
    (old / "provenance.json").write_text(json.dumps(record_weights_sha256(old, prov)))
    with pytest.raises(WeightsCorrupt, match="non-finite"):
        load_model(old)


def test_weights_without_a_recorded_sha256_are_refused(setup, tmp_path, capsys, cli_with_model):
    # issue 33 item 8: one rule for the encoder and the heads: a missing digest is refused
    from mirtune.model.io import WeightsCorrupt

    old = _copy_model(setup[0], tmp_path / "old")
    prov = json.loads((old / "provenance.json").read_text())
    del prov["weights_sha256"]
    (old / "provenance.json").write_text(json.dumps(prov))
    with pytest.raises(WeightsCorrupt, match="records no sha256") as err:
        load_model(old)
    assert "\n" not in err.value.line() and str(old) in err.value.line()
    from mirtune.model.numpy_encoder import load_numpy_encoder

    with pytest.raises(WeightsCorrupt, match="records no sha256"):
        load_numpy_encoder(old)
    assert main(["model", "info", "--model", str(old)]) == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "records no sha256" in lines[0]
