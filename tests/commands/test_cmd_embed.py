"""`mirtune embed` and `mirtune.embed`: rows in input order, .npy and .parquet, bad inputs skipped, exit 2."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import torch

from mirtune.cli import main
from mirtune.embedding import embed, embed_modules
from mirtune.ir.frontend import compile_to_ir
from mirtune.ir.module import IRModule
from mirtune.ir.tokenizer import IRTokenizer
from mirtune.model.config import preset
from mirtune.model.encoder import MIREncoder
from mirtune.model.io import save_model

SOURCES = {
    "a.c": "int f(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }\n",
    "b.c": "void g(float *x, int n) { for (int i = 0; i < n; i++) x[i] = x[i] * 2.0f + 1.0f; }\n",
    "c.cl": "__kernel void k(__global float *x, __global const float *y) { int i = get_global_id(0);"
            " x[i] += y[i] * y[i]; }\n",
}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("inputs")
    out = {}
    for name, code in SOURCES.items():
        (d / name).write_text(code)
        ll = d / (name.rsplit(".", 1)[0] + ".ll")
        compile_to_ir(d / name, ll)
        out[name] = d / name
        out[ll.name] = ll
    (d / "junk.ll").write_bytes(b"\x00\x01 not ir")
    (d / "broken.c").write_text("int main( {\n")
    out["junk.ll"], out["broken.c"] = d / "junk.ll", d / "broken.c"
    return out


@pytest.fixture(scope="module")
def model_dir(files, tmp_path_factory):
    statements = [s for n in ("a.ll", "b.ll", "c.ll") for s in IRModule.from_file(files[n]).statements()]
    tok = IRTokenizer.train(statements, vocab_size=300, min_frequency=1)
    cfg = preset("tiny", tok)
    torch.manual_seed(0)
    return save_model(tmp_path_factory.mktemp("model") / "m", MIREncoder(cfg), cfg, tok)


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """Each test's vector cache in its own folder, never the user's."""
    monkeypatch.setenv("MIRTUNE_EMBED_CACHE", str(tmp_path / "cache" / "embeddings"))
    return tmp_path / "cache"


@pytest.fixture
def cli(monkeypatch):
    import mirtune.cli as cli_module

    if "embed" not in cli_module.COMMANDS:
        monkeypatch.setattr(cli_module, "COMMANDS", cli_module.COMMANDS + ("embed",))


def test_python_api_rows_in_input_order(files, model_dir):
    order = [files["b.ll"], files["a.ll"], files["c.ll"], files["a.ll"]]
    vecs = embed(order, model_dir=model_dir)
    assert vecs.shape == (4, 64) and vecs.dtype == np.float32
    np.testing.assert_array_equal(vecs[1], vecs[3])
    alone = embed(files["c.ll"], model_dir=model_dir)
    np.testing.assert_allclose(alone[0], vecs[2], atol=1e-5, rtol=1e-4)
    # a source is compiled first (-O2, as the .ll here)
    np.testing.assert_allclose(embed([files["a.c"]], model_dir=model_dir)[0], vecs[1], atol=1e-5, rtol=1e-4)
    mods = [IRModule.from_file(p) for p in order]
    np.testing.assert_allclose(embed_modules(mods, model_dir=model_dir, batch_files=3), vecs, atol=1e-5,
                               rtol=1e-4)


def test_package_level_embed_is_the_same_function(files, model_dir):
    """`mirtune.embed(paths)` works at package level, and stays a function after the module is imported."""
    import mirtune
    import mirtune.embedding as membedding

    want = embed([files["a.ll"]], model_dir=model_dir)
    np.testing.assert_array_equal(mirtune.embed([files["a.ll"]], model_dir=model_dir), want)
    assert callable(mirtune.embed) and mirtune.embed is not membedding


def test_python_api_raises_on_a_bad_input(files, model_dir):
    from mirtune.errors import MirtuneError

    with pytest.raises(MirtuneError, match="junk.ll"):
        embed([files["a.ll"], files["junk.ll"]], model_dir=model_dir)


def test_npy_output_skips_bad_inputs_and_exits_2(files, model_dir, tmp_path, capsys, cli):
    out = tmp_path / "e.npy"
    argv = ["embed", str(files["a.ll"]), str(files["junk.ll"]), str(files["b.c"]), str(files["broken.c"]),
            str(tmp_path / "missing.ll"), str(files["c.ll"]), "--model", str(model_dir), "-o", str(out),
            "--batch", "2"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for name in ("junk.ll", "broken.c", "missing.ll"):
        assert any(name in ln for ln in err.splitlines() if ln.startswith("mirtune embed:")), name
    got = np.load(out)
    want = embed([files["a.ll"], files["b.c"], files["c.ll"]], model_dir=model_dir)
    np.testing.assert_allclose(got, want, atol=1e-5, rtol=1e-4)
    assert "3 input(s) failed" in err


def test_parquet_output_names_each_row(files, model_dir, tmp_path, cli):
    import pyarrow.parquet as pq

    out = tmp_path / "e.parquet"
    assert main(["embed", str(files["c.ll"]), str(files["a.ll"]), "--model", str(model_dir), "-o", str(out)]) == 0
    table = pq.read_table(out).to_pydict()
    assert [p.rsplit("/", 1)[1] for p in table["path"]] == ["c.ll", "a.ll"]
    np.testing.assert_allclose(np.array(table["embedding"], dtype=np.float32),
                               embed([files["c.ll"], files["a.ll"]], model_dir=model_dir), atol=1e-5, rtol=1e-4)


def test_bad_model_dir_and_output_are_one_line(files, tmp_path, capsys, cli):
    assert main(["embed", str(files["a.ll"]), "--model", str(tmp_path / "none"), "-o", str(tmp_path / "x.npy")]) == 2
    assert main(["embed", str(files["a.ll"]), "--model", str(tmp_path), "-o", str(tmp_path / "x.txt")]) == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 2 and all(ln.startswith("mirtune embed:") for ln in lines)


def test_embed_via_subprocess_prints_progress_and_vectors(files, model_dir):
    proc = subprocess.run([sys.executable, "-m", "mirtune.cli", "embed", str(files["a.ll"]), "--model",
                           str(model_dir)], capture_output=True, text=True, timeout=300)
    if proc.returncode == 2 and "invalid choice" in proc.stderr:
        pytest.skip("embed is not registered in mirtune.cli.COMMANDS yet")
    assert proc.returncode == 0, proc.stderr
    path, values = proc.stdout.strip().split("\t")
    assert path.endswith("a.ll") and len(values.split()) == 64


def test_bf16_precision_is_close_to_fp32_and_kept_apart(files, model_dir, tmp_path, cli, monkeypatch):
    """--precision bf16 runs the statement Transformer in bfloat16: vectors close to fp32's (not equal, so it
    really ran), float32 rows, fp32 still the default; the environment variable picks it too."""
    order = [files["a.ll"], files["b.ll"], files["c.ll"]]
    exact = embed(order, model_dir=model_dir)
    low = embed(order, model_dir=model_dir, precision="bf16")
    assert low.dtype == np.float32 and low.shape == exact.shape
    assert not np.array_equal(low, exact)
    np.testing.assert_allclose(low, exact, atol=5e-2, rtol=5e-2)
    cosine = (low * exact).sum(1) / np.linalg.norm(low, axis=1) / np.linalg.norm(exact, axis=1)
    assert cosine.min() > 0.999
    np.testing.assert_array_equal(embed(order, model_dir=model_dir), exact)  # fp32 untouched by the bf16 run
    out = tmp_path / "low.npy"
    assert main(["embed", *map(str, order), "--model", str(model_dir), "--precision", "bf16", "-o", str(out)]) == 0
    np.testing.assert_allclose(np.load(out), low, atol=1e-6)
    monkeypatch.setenv("MIRTUNE_PRECISION", "bf16")
    np.testing.assert_allclose(embed(order, model_dir=model_dir), low, atol=1e-6)


def test_unknown_precision_is_one_line(files, model_dir, tmp_path, capsys, cli, monkeypatch):
    from mirtune.errors import UsageError

    with pytest.raises(SystemExit):
        main(["embed", str(files["a.ll"]), "--model", str(model_dir), "--precision", "fp8"])
    monkeypatch.setenv("MIRTUNE_PRECISION", "half")
    assert main(["embed", str(files["a.ll"]), "--model", str(model_dir), "-o", str(tmp_path / "x.npy")]) == 2
    assert "unknown precision 'half'" in capsys.readouterr().err
    with pytest.raises(UsageError, match="unknown precision"):
        embed([files["a.ll"]], model_dir=model_dir)


def test_meanmax_readout_doubles_the_vector_and_keeps_the_means(files, model_dir, tmp_path, cli, capsys):
    order = [files["a.ll"], files["c.ll"]]
    mean = embed(order, model_dir=model_dir)
    both = embed(order, model_dir=model_dir, readout="meanmax")
    assert both.shape == (2, 128)
    np.testing.assert_allclose(both[:, :32], mean[:, :32], atol=1e-5, rtol=1e-4)   # text mean (tiny: 32 + 32)
    np.testing.assert_allclose(both[:, 64:96], mean[:, 32:], atol=1e-5, rtol=1e-4)  # graph mean
    out = tmp_path / "mm.npy"
    assert main(["embed", *map(str, order), "--model", str(model_dir), "--readout", "meanmax", "-o", str(out)]) == 0
    np.testing.assert_allclose(np.load(out), both, atol=1e-6)
    from mirtune.errors import UsageError

    with pytest.raises(UsageError, match="unknown readout"):
        embed(order, model_dir=model_dir, readout="max")


def test_bf16_without_bfloat16_hardware_says_so(files, model_dir, tmp_path, capsys, cli, monkeypatch):
    import mirtune.embedding as membedding

    monkeypatch.setattr(membedding, "native_bf16", lambda: False)
    out = tmp_path / "low.npy"
    assert main(["embed", str(files["a.ll"]), "--model", str(model_dir), "--precision", "bf16", "-o", str(out)]) == 0
    assert "no bfloat16 hardware" in capsys.readouterr().err
    assert np.load(out).shape == (1, 64)


def test_native_bf16_reads_the_cpu_flags():
    from pathlib import Path

    from mirtune.embedding import native_bf16

    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").is_file() else ""
    assert native_bf16() == ("amx_bf16" in flags or "avx512_bf16" in flags)


def test_corrupt_weights_stop_embed_with_one_line_and_no_output(files, model_dir, tmp_path, capsys, cli):
    import shutil

    bad = tmp_path / "bad"
    shutil.copytree(model_dir, bad)
    raw = bytearray((bad / "model.safetensors").read_bytes())
    start = 8 + int.from_bytes(raw[:8], "little")
    size = min(1 << 20, len(raw) - start)
    raw[start:start + size] = b"\xff" * size  # NaN floats, the header still readable
    (bad / "model.safetensors").write_bytes(bytes(raw))
    out = tmp_path / "e.npy"
    assert main(["embed", str(files["a.ll"]), "--model", str(bad), "-o", str(out)]) == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 1 and str(bad / "model.safetensors") in lines[0] and "sha256" in lines[0]
    assert not out.exists()


def test_non_finite_embeddings_are_refused(files, tmp_path, capsys, cli):
    statements = IRModule.from_file(files["a.ll"]).statements()
    tok = IRTokenizer.train(statements, vocab_size=300, min_frequency=1)
    cfg = preset("tiny", tok)
    enc = MIREncoder(cfg)
    with torch.no_grad():
        for p in enc.parameters():
            p.fill_(1e30)  # finite weights whose products overflow
    overflow = save_model(tmp_path / "overflow", enc, cfg, tok)
    from mirtune.errors import MirtuneError

    with pytest.raises(MirtuneError, match="non-finite"):
        embed([files["a.ll"]], model_dir=overflow)
    out = tmp_path / "e.npy"
    assert main(["embed", str(files["a.ll"]), "--model", str(overflow), "-o", str(out)]) == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "non-finite" in lines[0] and str(overflow) in lines[0]
    assert not out.exists()


def test_embed_detects_openmp_in_a_source_and_says_so(files, model_dir, tmp_path, capsys, cli):
    src = tmp_path / "omp.c"
    src.write_text("#include <omp.h>\nvoid scale(double *x, int n) {\n#pragma omp parallel for\n"
                   "  for (int i = 0; i < n; i++) x[i] *= 2.0;\n}\n")
    outs = {}
    for flag in (None, "--openmp", "--no-openmp"):
        out = tmp_path / f"{flag or 'auto'}.npy"
        argv = ["embed", str(src), "--model", str(model_dir), "-o", str(out)] + ([flag] if flag else [])
        assert main(argv) == 0
        outs[flag] = (np.load(out), capsys.readouterr().err)
    assert f"{src} uses OpenMP" in outs[None][1] and "-fopenmp" in outs[None][1]
    assert "uses OpenMP" not in outs["--openmp"][1] and "uses OpenMP" not in outs["--no-openmp"][1]
    np.testing.assert_array_equal(outs[None][0], outs["--openmp"][0])
    assert not np.allclose(outs[None][0], outs["--no-openmp"][0])


@pytest.mark.parametrize("suffix", [".npy", ".parquet"])
def test_every_input_failing_keeps_the_earlier_output(files, model_dir, tmp_path, capsys, cli, suffix):
    # issue 33 item 9: never replace a good output with an empty one
    out = tmp_path / f"e{suffix}"
    assert main(["embed", str(files["a.ll"]), "--model", str(model_dir), "-o", str(out)]) == 0
    before = out.read_bytes()
    capsys.readouterr()
    assert main(["embed", str(files["junk.ll"]), str(files["broken.c"]), "--model", str(model_dir),
                 "-o", str(out)]) == 2
    assert out.read_bytes() == before
    err = capsys.readouterr().err
    assert "Traceback" not in err and f"every input failed: {out} left as it was" in err, err


def test_the_command_embeds_with_numpy_the_vectors_torch_gives(files, model_dir, tmp_path, cli):
    """fp32 `mirtune embed` runs the numpy engine (no torch import): torch's vectors to float32 rounding."""
    order = [files["a.ll"], files["c.ll"], files["b.ll"]]
    out = tmp_path / "e.npy"
    assert main(["embed", *map(str, order), "--model", str(model_dir), "-o", str(out), "--no-cache"]) == 0
    np.testing.assert_allclose(np.load(out), embed(order, model_dir=model_dir, engine="torch"), atol=1e-5, rtol=1e-4)


def test_vector_cache_serves_a_second_run_and_follows_the_bytes(files, model_dir, tmp_path, cli, own_cache,
                                                                  monkeypatch):
    """A second run reads an IR file's vector from the embedding cache without parsing it; changed bytes, another
    readout or a source are embedded afresh; --no-cache neither reads nor writes."""
    import shutil

    import mirtune.ir.inputs as inputs

    ll = tmp_path / "k.ll"
    shutil.copy(files["a.ll"], ll)
    first, second = tmp_path / "1.npy", tmp_path / "2.npy"
    assert main(["embed", str(ll), str(files["b.c"]), "--model", str(model_dir), "-o", str(first)]) == 0
    kept = list((own_cache / "embeddings").rglob("*.npy"))
    assert len(kept) == 1  # the .ll file's, not the source's
    parsed = []
    real = inputs.load_ir
    monkeypatch.setattr(inputs, "load_ir", lambda path, **kw: parsed.append(path) or real(path, **kw))
    assert main(["embed", str(ll), str(files["b.c"]), "--model", str(model_dir), "-o", str(second)]) == 0
    assert parsed == [files["b.c"]]
    np.testing.assert_array_equal(np.load(second)[0], np.load(first)[0])  # the kept vector itself
    np.testing.assert_allclose(np.load(second), np.load(first), atol=1e-5, rtol=1e-4)  # b.c, batched otherwise
    ll.write_text(files["b.ll"].read_text())  # new bytes: a new vector
    assert main(["embed", str(ll), "--model", str(model_dir), "-o", str(second)]) == 0
    np.testing.assert_allclose(np.load(second)[0], embed([files["b.ll"]], model_dir=model_dir)[0], atol=1e-5,
                               rtol=1e-4)
    assert main(["embed", str(ll), "--model", str(model_dir), "-o", str(second), "--readout", "meanmax"]) == 0
    assert np.load(second).shape == (1, 128)
    for kept_file in (own_cache / "embeddings").rglob("*.npy"):  # foreign contents: embedded again
        np.save(kept_file, np.zeros(3, np.float32))
    assert main(["embed", str(ll), "--model", str(model_dir), "-o", str(second)]) == 0
    np.testing.assert_allclose(np.load(second)[0], embed([files["b.ll"]], model_dir=model_dir)[0], atol=1e-5,
                               rtol=1e-4)
    shutil.rmtree(own_cache)
    assert main(["embed", str(ll), "--model", str(model_dir), "-o", str(second), "--no-cache"]) == 0
    assert not own_cache.exists()


def test_jobs_give_the_same_rows_in_the_same_order(files, model_dir, tmp_path, capsys, cli):
    """--jobs 2 parses and encodes batches in two worker processes: the same vectors, rows and failures as one."""
    names = ["a.ll", "junk.ll", "b.c", "c.ll", "broken.c", "b.ll", "a.c"]
    outs = {}
    for jobs in ("1", "2"):
        outs[jobs] = tmp_path / f"j{jobs}.npy"
        assert main(["embed", *(str(files[n]) for n in names), "--model", str(model_dir), "-o", str(outs[jobs]),
                     "--batch", "1", "--jobs", jobs, "--no-cache"]) == 2
        err = capsys.readouterr().err
        assert "Traceback" not in err and "2 input(s) failed" in err
        assert sum("junk.ll" in ln or "broken.c" in ln for ln in err.splitlines()) == 2
    np.testing.assert_allclose(np.load(outs["2"]), np.load(outs["1"]), atol=1e-6, rtol=1e-5)
    assert np.load(outs["2"]).shape == (5, 64)


def test_a_bad_job_count_is_one_line(files, model_dir, tmp_path, capsys, cli, monkeypatch):
    out = tmp_path / "x.npy"
    assert main(["embed", str(files["a.ll"]), "--model", str(model_dir), "-o", str(out), "--jobs", "0"]) == 2
    monkeypatch.setenv("MIRTUNE_EMBED_JOBS", "many")
    assert main(["embed", str(files["a.ll"]), "--model", str(model_dir), "-o", str(out)]) == 2
    lines = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(lines) == 2 and "at least 1" in lines[0] and "MIRTUNE_EMBED_JOBS" in lines[1], lines
    assert not out.exists()
