"""The corpus build on Ray: exact row schema, de-duplication, failure rows, splits by program, tokenizer,
resuming an interrupted build, and keeping the evaluation kernels out."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from mirtune.errors import UsageError
from mirtune.ir.frontend import compile_to_ir
from mirtune.ir.tokenizer import IRTokenizer
from mirtune.pretrain.corpus import build_corpus, parse_ir
from mirtune.pretrain.samples import arrow_schema, module_to_sample

KERNEL_C = """\
void saxpy(float *y, const float *x, float a, int n) {
    #pragma omp parallel for
    for (int i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
"""
SMALL_C = "int tri(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * i; return s; }\n"
VEC_CL = """\
__kernel void scale(__global float *v, const float s, const int n) {
    int i = get_global_id(0);
    if (i < n) v[i] *= s;
}
"""
# Small enough for a 2-core machine: 12 generated programs + 5 files, 4 variants each.
SETTINGS = dict(generate_n=12, seed=7, heldout_fraction=0.3, batch_size=4, vocab_size=400,
                opt_levels=(0, 2), pipelines=("mem2reg", "unroll"), progress=False)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("corpus-inputs")
    src = root / "sources"
    src.mkdir()
    (src / "kern.c").write_text(KERNEL_C)
    (src / "kern_copy.c").write_text(KERNEL_C)  # the same program twice: every variant is a duplicate
    (src / "broken.c").write_text("int broken( {\n")
    (src / "vec.cl").write_text(VEC_CL)
    # A kernel that needs a header from its own folder, as real OpenCL projects do.
    (src / "lib").mkdir()
    (src / "lib" / "clamp.h").write_text("#define CLAMP01(x) clamp((x), 0.0f, 1.0f)\n")
    (src / "lib" / "clamp.cl").write_text(
        '#include "clamp.h"\n__kernel void sat(__global float *v) { int i = get_global_id(0); v[i] = CLAMP01(v[i]); }\n')
    small = root / "small.c"
    small.write_text(SMALL_C)
    compile_to_ir(small, src / "small.ll", opt=1)
    # A stand-in for the evaluation data: it holds small.ll, which must then be excluded.
    evaluation = root / "evaluation" / "devmap" / "kernels_ir"
    evaluation.mkdir(parents=True)
    shutil.copy(src / "small.ll", evaluation / "some-kernel.ll")
    return {"sources": src, "data": root / "evaluation", "root": root}


def _build(out: Path, inputs: dict[str, Path], **extra):
    return build_corpus(out, sources=[inputs["sources"]], data_dir=inputs["data"], **SETTINGS, **extra)


@pytest.fixture(scope="module")
def corpus(ray_cluster, inputs) -> Path:
    out = inputs["root"] / "corpus"
    summary = _build(out, inputs)
    assert summary.complete
    return out


def _manifest(folder: Path) -> list[dict]:
    return pq.read_table(folder / "manifest.parquet").to_pylist()


def _samples(folder: Path) -> dict[str, list[dict]]:
    out = {}
    for split in ("train", "heldout"):
        files = sorted((folder / "samples" / f"split={split}").glob("part-*.parquet"))
        out[split] = [r for f in files for r in pq.read_table(f).to_pylist()]
    return out


def test_shards_have_exactly_the_trainer_schema(corpus):
    files = sorted((corpus / "samples").rglob("part-*.parquet"))
    assert files
    for f in files:
        assert pq.read_schema(f).remove_metadata() == arrow_schema()
    for rows in _samples(corpus).values():
        for r in rows:
            assert len(r["stmt_ids"]) == 64 * r["n_stmt"] > 0
            assert len(r["node_ids"]) == 64 * r["n_nodes"] == 64 * len(r["node_type"])
            assert len(r["edges"]) == 4 * r["n_edges"] > 0
            assert set(r["node_type"]) <= {0, 1, 2}
            edges = np.asarray(r["edges"]).reshape(-1, 4)
            assert edges[:, :2].max() < r["n_nodes"] and set(edges[:, 2]) <= {0, 1, 2}


def test_rows_are_what_module_to_sample_makes_of_the_module(corpus, inputs, tmp_path):
    tok = IRTokenizer.load(corpus / "tokenizer.json")
    module = parse_ir(compile_to_ir(inputs["sources"] / "kern.c", opt=2, openmp=True), "kern.c")
    expected = module_to_sample(module, tok)
    rows = [r for rs in _samples(corpus).values() for r in rs if r["id"] == module.content_hash]
    assert len(rows) == 1
    row = rows[0]
    assert row["origin"] == f"{inputs['sources'].resolve() / 'kern.c'}@O2"
    for key in ("stmt_ids", "node_ids", "node_type", "edges"):
        assert np.array_equal(np.asarray(row[key]), np.asarray(expected[key])), key
    assert (row["n_stmt"], row["n_nodes"], row["n_edges"]) == (expected["n_stmt"], expected["n_nodes"],
                                                               expected["n_edges"])


def test_duplicates_are_removed_and_recorded(corpus):
    manifest = _manifest(corpus)
    samples = [r for rs in _samples(corpus).values() for r in rs]
    ids = [r["id"] for r in samples]
    assert len(ids) == len(set(ids))
    ok = {r["id"] for r in manifest if r["status"] == "ok"}
    assert set(ids) == ok
    copies = [r for r in manifest if r["origin"].endswith("kern_copy.c")]
    assert len(copies) == 4 and all(r["status"] == "duplicate" and "kern.c@" in r["reason"] for r in copies)
    assert all(r["id"] in ok for r in manifest if r["status"] == "duplicate")


def test_failures_are_rows_with_reasons(corpus):
    manifest = _manifest(corpus)
    broken = [r for r in manifest if r["origin"].endswith("broken.c")]
    assert sorted(r["variant"] for r in broken) == ["O0", "O2", "opt:mem2reg", "opt:unroll"]
    assert all(r["status"] == "build_failed" and "broken.c:1:" in r["reason"] and "error" in r["reason"]
               for r in broken)
    assert all("-O0 build failed" in r["reason"] for r in broken if r["variant"].startswith("opt:"))
    info = json.loads((corpus / "corpus.json").read_text())
    assert info["counts"]["by_status"]["build_failed"] == 4
    assert sum(info["counts"]["by_status"].values()) == len(manifest) == 17 * 4 + 3


def test_local_headers_resolve_from_the_sources_folder(corpus):
    rows = [r for r in _manifest(corpus) if r["origin"].endswith("lib/clamp.cl")]
    assert len(rows) == 4 and all(r["status"] in ("ok", "duplicate") for r in rows), rows
    ok = [r for r in rows if r["status"] == "ok"]
    assert ok and ok[0]["lang"] == "opencl"


def test_evaluation_kernels_are_excluded(corpus):
    small = [r for r in _manifest(corpus) if r["origin"].endswith("small.ll")]
    assert [r["variant"] for r in small] == ["ll", "opt:mem2reg", "opt:unroll"]
    first = small[0]
    assert first["status"] == "excluded" and "devmap/kernels_ir/some-kernel.ll" in first["reason"]
    sample_ids = {r["id"] for rs in _samples(corpus).values() for r in rs}
    assert first["id"] not in sample_ids


def test_splits_follow_the_original_program(corpus):
    manifest = _manifest(corpus)
    split_of: dict[str, set] = {}
    for r in manifest:
        split_of.setdefault(r["program_id"], set()).add(r["split"])
    assert all(len(s) == 1 for s in split_of.values())
    assert {s for v in split_of.values() for s in v} == {"train", "heldout"}
    samples = _samples(corpus)
    by_origin = {f"{r['origin']}@{r['variant']}": r["split"] for r in manifest if r["status"] == "ok"}
    for split, rows in samples.items():
        assert rows and all(by_origin[r["origin"]] == split for r in rows)
    info = json.loads((corpus / "corpus.json").read_text())
    assert info["splits"]["train"]["modules"] == len(samples["train"])
    assert info["splits"]["heldout"]["modules"] == len(samples["heldout"])
    assert info["generator"] == {"n": 12, "seed": 7, "langs": ["c", "opencl", "cuda"]}
    assert info["tools"]["clang"] and info["tokenizer"]["vocab_size"] <= 400


def test_tokenizer_is_trained_on_the_corpus(corpus):
    tok = IRTokenizer.load(corpus / "tokenizer.json")
    assert 100 < tok.vocab_size <= 400
    rows = _samples(corpus)["train"]
    ids = np.concatenate([np.asarray(r["stmt_ids"]) for r in rows])
    assert (ids == tok.unk_id).mean() < 0.001


def _digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted((folder / "samples").rglob("*.parquet"))}


def test_an_interrupted_build_resumes_to_the_same_samples(corpus, inputs):
    out = inputs["root"] / "interrupted"
    first = _build(out, inputs, max_batches=2)  # stops after 2 of its 5 batches, like a killed build
    assert not first.complete and first.batches_left == 3 and not (out / "samples").exists()
    second = _build(out, inputs)
    assert second.complete and second.batches_reused == 2 and second.batches_built == 3

    def content(folder: Path) -> set:
        return {(split, r["id"], r["origin"], r["n_stmt"], r["n_nodes"], r["n_edges"])
                for split, rows in _samples(folder).items() for r in rows}

    assert content(out) == content(corpus)
    strip = ("seconds", "batch")
    assert ([{k: v for k, v in r.items() if k not in strip} for r in _manifest(out)]
            == [{k: v for k, v in r.items() if k not in strip} for r in _manifest(corpus)])

    # Killed while tokenising: a lost shard is written again, with the same tokenizer, byte for byte.
    before, tok_before = _digest(out), (out / "tokenizer.json").read_bytes()
    lost = sorted((out / "samples" / "split=train").glob("part-*.parquet"))[0]
    lost.unlink()
    (out / "stage3" / f"{lost.stem[len('part-'):]}.json").unlink()
    third = _build(out, inputs)
    assert third.complete and third.batches_built == 0
    assert _digest(out) == before and (out / "tokenizer.json").read_bytes() == tok_before


def test_evaluation_kernels_come_in_only_when_asked_and_it_is_recorded(ray_cluster, inputs, tmp_path):
    settings = {**SETTINGS, "generate_n": 0, "heldout_fraction": 0.0}
    summary = build_corpus(tmp_path / "c", sources=[inputs["data"]], data_dir=inputs["data"],
                           include_evaluation=True, **settings)
    rows = _manifest(tmp_path / "c")
    assert [r["status"] for r in rows if r["variant"] == "ll"] == ["ok"]
    info = json.loads((tmp_path / "c" / "corpus.json").read_text())
    assert info["excluded_evaluation_kernels"]["included_on_purpose"] is True
    assert any("transductive" in line for line in summary.lines())
    with pytest.raises(UsageError, match="refusing to pre-train"):
        build_corpus(tmp_path / "d", sources=[inputs["data"]], data_dir=inputs["data"], **settings)


def test_refuses_to_pretrain_on_the_evaluation_data(shared_data, tmp_path):
    for sources in ([shared_data / "devmap" / "kernels_ir"], [shared_data], [shared_data.parent]):
        with pytest.raises(UsageError, match="refusing to pre-train"):
            build_corpus(tmp_path / "c", sources=sources, progress=False)
    assert not (tmp_path / "c" / "stage1").exists()


def test_the_command_refuses_with_one_line(shared_data, tmp_path, capsys):
    from mirtune import cli

    if "corpus" not in cli.COMMANDS:
        pytest.skip("the corpus command is not registered in mirtune.cli.COMMANDS")
    code = cli.main(["corpus", "build", "--sources", str(shared_data / "devmap"), "-o", str(tmp_path / "c")])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and "refusing to pre-train" in err[0]


def test_no_train_module_is_one_line_pointing_to_the_written_manifest(ray_cluster, inputs, tmp_path):
    from mirtune.errors import MirtuneError

    settings = {**SETTINGS, "generate_n": 0, "heldout_fraction": 0.0}
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(inputs["sources"] / "broken.c", src / "broken.c")
    with pytest.raises(MirtuneError, match="no module of the train split compiled") as err:
        build_corpus(tmp_path / "c", sources=[src], data_dir=inputs["data"], **settings)
    rows = _manifest(tmp_path / "c")  # the file the message names exists and says why
    assert str(tmp_path / "c" / "manifest.parquet") in err.value.line()
    assert rows and all(r["status"] == "build_failed" for r in rows)


def test_variants_printing_the_same_ir_are_analysed_once(tmp_path, monkeypatch):
    """-O2 and -O3 of a small function print the same module: it is parsed and its graph built once, and both
    variants get the same row (the corpus's duplicate marking then keeps one)."""
    from mirtune.pretrain import corpus as corpus_mod

    src = tmp_path / "tri.c"
    src.write_text(SMALL_C)
    specs, _ = corpus_mod._source_specs([str(src)], None)
    texts = []
    real = corpus_mod._analyse

    def counting(ir, name, max_statements):
        texts.append(ir)
        return real(ir, name, max_statements)

    monkeypatch.setattr(corpus_mod, "_analyse", counting)
    settings = {"opt_levels": [1, 2, 3], "pipelines": [], "opt": None, "max_statements": 4096, "opt_timeout": 60.0}
    rows = corpus_mod.process_program(specs[0], settings)
    assert [r["variant"] for r in rows] == ["O1", "O2", "O3"] and {r["status"] for r in rows} == {"ok"}
    assert compile_to_ir(src, opt=2) == compile_to_ir(src, opt=3)  # the premise
    assert len(texts) == len(set(texts)) == 2  # -O1 and the text -O2 and -O3 share
    o2, o3 = rows[1], rows[2]
    assert {k: v for k, v in o2.items() if k not in ("variant", "seconds")} == \
        {k: v for k, v in o3.items() if k not in ("variant", "seconds")}


def test_a_program_naming_its_file_and_the_time_compiles_to_the_same_module_in_every_build(tmp_path):
    """__FILE__ would name the build's temporary folder and __TIME__ the second of the build: the module's content
    hash, and the statements the tokenizer reads, would change from one build to the next."""
    from mirtune.pretrain import corpus as corpus_mod

    src = tmp_path / "stamp.c"
    src.write_text('const char *where(void) { return __FILE__ " " __DATE__ " " __TIME__; }\n')
    specs, _ = corpus_mod._source_specs([str(src)], None)
    settings = {"opt_levels": [1], "pipelines": [], "opt": None, "max_statements": 4096, "opt_timeout": 60.0}
    first, second = (corpus_mod.process_program(specs[0], settings)[0] for _ in range(2))  # two temporary folders
    assert first["status"] == "ok" and first["content_hash"] == second["content_hash"]
    module = "\n".join(compile_to_ir(src, opt=1).splitlines())
    assert str(tmp_path) in module  # the premise: a user's own compile keeps the real path

