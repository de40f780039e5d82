"""The IR WordPiece tokenizer: fixed-length rows, special tokens, exact round trip, save/load."""

from __future__ import annotations

import numpy as np
import pytest

from mirtune.errors import MirtuneError
from mirtune.ir.module import IRModule
from mirtune.ir.tokenizer import SEQ_LEN, IRTokenizer


@pytest.fixture(scope="module")
def split(shared_data):
    files = sorted((shared_data / "devmap" / "kernels_ir").glob("*.ll"))
    files = [f for f in files if "lavaMD" not in f.name]
    train = [s for f in files[0::3] for s in IRModule.from_file(f).statements()]
    held_out = [s for f in files[1::50] for s in IRModule.from_file(f).statements()]
    return train, held_out


@pytest.fixture(scope="module")
def tokenizer(split):
    return IRTokenizer.train(split[0], vocab_size=3000)


def test_rows_are_fixed_length_with_cls_and_sep(tokenizer, split):
    ids, mask = tokenizer.encode(split[1][:200])
    assert ids.shape == (200, SEQ_LEN) and mask.shape == (200, SEQ_LEN)
    assert (ids[:, 0] == tokenizer.cls_id).all()
    for row, m in zip(ids, mask):
        n = int(m.sum())
        assert row[n - 1] == tokenizer.sep_id
        assert (row[n:] == tokenizer.pad_id).all()


def test_held_out_statements_decode_to_their_lower_cased_text(tokenizer, split):
    held_out = split[1]
    ids, mask = tokenizer.encode(held_out)
    fits = [(s, row) for s, row, m in zip(held_out, ids, mask) if m.sum() < SEQ_LEN]
    assert len(fits) > 0.9 * len(held_out)
    mismatches = [s for s, row in fits if tokenizer.decode(row) != s.lower()]
    assert mismatches == []


def test_long_statements_are_truncated_to_64_ids(tokenizer):
    long = "call void @f(" + ", ".join(f"i32 {i}" for i in range(200)) + ")"
    ids, mask = tokenizer.encode([long])
    assert ids.shape == (1, SEQ_LEN) and mask.all() and ids[0, -1] == tokenizer.sep_id


def test_save_load_gives_the_same_ids(tokenizer, split, tmp_path):
    path = tmp_path / "tokenizer.json"
    tokenizer.save(path)
    again = IRTokenizer.load(path)
    assert again.sha256 == tokenizer.sha256
    assert (again.encode(split[1][:50])[0] == tokenizer.encode(split[1][:50])[0]).all()


def test_a_broken_tokenizer_file_is_one_clear_error(tmp_path):
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{not json")
    with pytest.raises(MirtuneError, match="cannot load tokenizer"):
        IRTokenizer.load(bad)


def test_encode_ids_remembers_texts_and_equals_encode(tokenizer, split):
    _, held = split
    texts = held[:50] + held[:50][::-1] + ["%1 = add i32 %0, 1"]
    tokenizer.clear_cache()
    first = tokenizer.encode_ids(texts)
    np.testing.assert_array_equal(first, tokenizer.encode(texts)[0])
    assert len(tokenizer._row_of) == len(set(texts))
    np.testing.assert_array_equal(tokenizer.encode_ids(texts[::-1]), first[::-1])  # now from the cache
    assert tokenizer.encode_ids([]).shape == (0, tokenizer.seq_len)


ODD_TEXTS = ["", " ", "  double  space ", "A" * 300, "x " * 100, "%1 = add i32 %0, 1\n", "TAB\there",
             "caf\u00e9 = load i8", "\u2581 already folded", "\u0130stanbul", "a" * 201 + " b", "!!!",
             '@"quoted name" = global i32 0', "call void @f(" + ", ".join(f"i32 {i}" for i in range(200)) + ")",
             "UPPER Case %MixedName = FADD float"]


def test_encode_ids_fast_path_gives_the_librarys_ids(tokenizer, split):
    """encode_ids splits ASCII texts itself and memoises WordPiece per piece: every id must be the library's,
    on real statements (many unseen by training) and on odd ones: empty, non-ASCII, over-long words,
    truncation, upper case, newlines and tabs."""
    train, held = split
    texts = list(dict.fromkeys(held + train[:2000])) + ODD_TEXTS
    tokenizer.clear_cache()
    fast = tokenizer.encode_ids(texts)
    slow = tokenizer.encode(texts)[0]
    wrong = [texts[i] for i in np.flatnonzero((fast != slow).any(1))]
    assert wrong == []
    assert len(tokenizer._pieces) > 100  # the memo really served the ASCII texts


def test_encode_ids_memo_is_bounded(tokenizer, split, monkeypatch):
    import mirtune.ir.tokenizer as tk

    monkeypatch.setattr(tk, "CACHE_ENTRIES", 40)
    tokenizer.clear_cache()
    held = list(dict.fromkeys(split[1]))[:100]
    for start in range(0, 100, 25):
        rows = tokenizer.encode_ids(held[start:start + 25])
        np.testing.assert_array_equal(rows, tokenizer.encode(held[start:start + 25])[0])
        assert len(tokenizer._row_of) <= 40
    # a call that fills the memo past its bound with texts it already holds beside new ones (this once raised a
    # KeyError: the remembered texts were forgotten by the clearing and never encoded again)
    tokenizer.clear_cache()
    tokenizer.encode_ids(held[:30])
    mixed = held[:30] + held[30:45]
    np.testing.assert_array_equal(tokenizer.encode_ids(mixed), tokenizer.encode(mixed)[0])


def test_pieces_too_long_to_encode_are_left_out_of_training():
    """A string literal of thousands of letters (GCC's limits-stringlit.c has 1,000,000) can never become pieces
    (WordPiece encodes a word over 200 characters as [UNK]); training on it made merges quadratic in its length."""
    statements = ["%x = load i32, ptr %p, align 4", "store i32 %x, ptr %q, align 4"] * 20
    statements.append('@s = constant [5002 x i8] c"' + "q" * 5000 + '\\00"')
    vocab = IRTokenizer.train(statements, vocab_size=300).tk.get_vocab()
    assert not [t for t in vocab if len(t.strip("#\u2581")) > 1 and set(t.strip("#\u2581")) == {"q"}]
    assert "\u2581load" in vocab or "load" in vocab
