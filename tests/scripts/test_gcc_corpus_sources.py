"""scripts/gcc_corpus_sources.py: the tests whose loops the VF/IF task measures never enter the pre-training corpus."""

from __future__ import annotations

from pathlib import Path

from mirtune.paths import read_gzip_json

def test_the_vf_if_tasks_tests_never_enter_the_corpus(script_module):
    """The encoder is judged on the real loops' labels: their tests are held out of the selection, by path, and the
    committed manifest (what the corpus reads) lists none of them."""
    corpus = script_module("gcc_corpus_sources")
    labelled = corpus.labelled_tests()
    torture = sorted(t for t in labelled if t.startswith("gcc/testsuite/gcc.c-torture/execute/"))
    dg = sorted(t for t in labelled if t.startswith("gcc/testsuite/gcc.dg/") and "/vect/" not in t)
    assert len(torture) > 40 and len(dg) > 60
    other = "gcc/testsuite/gcc.c-torture/execute/not-a-recorded-test.c"
    chosen = corpus.select(Path("/top"), [torture[0], torture[1], other], labelled)
    assert chosen == [Path("/top") / other]  # every torture test is chosen (share 1.0) unless held out
    manifest = read_gzip_json(corpus.MANIFEST)
    assert not {path for path, _ in manifest["files"]} & labelled
    assert set(manifest["held_out"]) <= labelled and len(manifest["held_out"]) >= len(torture)
