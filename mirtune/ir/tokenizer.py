"""A WordPiece tokenizer for LLVM IR statements, trained from scratch with HF `tokenizers`.

Text is lower-cased and each space is folded into the piece that follows it ("▁load"), so a statement
costs few tokens and decoding gives back exactly its lower-cased text. Every statement is encoded to
SEQ_LEN ids: [CLS] ... [SEP], truncated or padded with [PAD], with an attention mask.
"""

from __future__ import annotations

import hashlib
import os
import re
import string
from pathlib import Path
from typing import Iterable

import numpy as np
from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers

from mirtune.errors import MirtuneError

SEQ_LEN = 64
PAD, UNK, CLS, SEP, MASK = "[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"
SPECIAL_TOKENS = [PAD, UNK, CLS, SEP, MASK]
SPACE = "\u2581"  # "▁", stands for the space before a piece
DEFAULT_VOCAB_SIZE = 8000
# A piece is a run of identifier characters or one other character, each with its leading space.
_PIECE_PATTERN = SPACE + r"?[a-z0-9_$.]+|" + SPACE + r"?[^a-z0-9_$." + SPACE + r"]|" + SPACE
_PIECE = Regex(_PIECE_PATTERN)
_PIECE_RE = re.compile(_PIECE_PATTERN)  # the same split in Python, for encode_ids' piece memo
MAX_WORD_CHARS = 200  # a longer piece encodes as [UNK] (WordPiece's max_input_chars_per_word)
# Runs of identifier characters too long to become pieces: a 1,000,000-character string literal (GCC's
# limits-stringlit.c) makes the trainer's merges quadratic in its length: half an hour instead of seconds.
_UNUSABLE_RUN = re.compile(r"[A-Za-z0-9_$.]{%d,}" % (MAX_WORD_CHARS + 1))


def _alphabet() -> list[str]:
    return sorted(set(string.printable.lower()) - set(string.whitespace)) + [SPACE]


def _new_tokenizer() -> Tokenizer:
    tok = Tokenizer(models.WordPiece(unk_token=UNK, continuing_subword_prefix="##",
                                     max_input_chars_per_word=MAX_WORD_CHARS))
    tok.normalizer = normalizers.Sequence([normalizers.Lowercase(), normalizers.Replace(" ", SPACE)])
    tok.pre_tokenizer = pre_tokenizers.Split(_PIECE, behavior="isolated")
    tok.decoder = decoders.Sequence([decoders.Replace("##", ""), decoders.Replace(SPACE, " "), decoders.Fuse()])
    return tok


CACHE_ENTRIES = 200_000  # encode_ids' memory of tokenised texts (about 50 MB when full)


class IRTokenizer:
    """Encode IR statements to fixed-length id rows; train, save and load tokenizer.json."""

    def __init__(self, tokenizer: Tokenizer, seq_len: int = SEQ_LEN) -> None:
        self.tk = tokenizer
        self.seq_len = seq_len
        self._row_of: dict[str, int] = {}               # text -> its row in self._rows
        self._rows = np.zeros((0, seq_len), np.int32)   # encode_ids' memo, grown by doubling
        self._pieces: dict[str, list[int]] = {}          # piece -> its WordPiece ids
        self.pad_id = tokenizer.token_to_id(PAD)
        self.unk_id = tokenizer.token_to_id(UNK)
        self.cls_id = tokenizer.token_to_id(CLS)
        self.sep_id = tokenizer.token_to_id(SEP)
        self.mask_id = tokenizer.token_to_id(MASK)
        if None in (self.pad_id, self.unk_id, self.cls_id, self.sep_id, self.mask_id):
            raise MirtuneError("tokenizer lacks the special tokens [PAD] [UNK] [CLS] [SEP] [MASK]")
        tokenizer.post_processor = processors.TemplateProcessing(
            single=f"{CLS} $A {SEP}", special_tokens=[(CLS, self.cls_id), (SEP, self.sep_id)])
        tokenizer.enable_truncation(max_length=seq_len)
        tokenizer.enable_padding(length=seq_len, pad_id=self.pad_id, pad_token=PAD)

    @classmethod
    def train(cls, statements: Iterable[str], vocab_size: int = DEFAULT_VOCAB_SIZE,
              min_frequency: int = 2, seq_len: int = SEQ_LEN) -> "IRTokenizer":
        """Train WordPiece on an iterable of statements, leaving out pieces too long to ever be encoded."""
        tok = _new_tokenizer()
        trainer = trainers.WordPieceTrainer(vocab_size=vocab_size, min_frequency=min_frequency,
                                            special_tokens=SPECIAL_TOKENS, initial_alphabet=_alphabet(),
                                            continuing_subword_prefix="##", show_progress=False)
        tok.train_from_iterator((_UNUSABLE_RUN.sub("", st) for st in statements), trainer=trainer)
        return cls(tok, seq_len)

    @classmethod
    def load(cls, path: str | os.PathLike, seq_len: int = SEQ_LEN) -> "IRTokenizer":
        """Load a tokenizer.json written by save()."""
        try:
            return cls(Tokenizer.from_file(str(path)), seq_len)
        except Exception as exc:  # tokenizers raises plain Exception subclasses for bad files
            if isinstance(exc, MirtuneError):
                raise
            raise MirtuneError(f"cannot load tokenizer: {str(exc).splitlines()[0]}", str(path)) from None

    def save(self, path: str | os.PathLike) -> None:
        """Write tokenizer.json (padding and truncation settings included)."""
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.tk.save(str(path))

    @property
    def vocab_size(self) -> int:
        return self.tk.get_vocab_size()

    @property
    def sha256(self) -> str:
        """Hash of the serialised tokenizer, recorded in model provenance."""
        return hashlib.sha256(self.tk.to_str().encode()).hexdigest()

    def encode(self, statements: list[str]) -> tuple[np.ndarray, np.ndarray]:
        """Ids [n, seq_len] (int32) and attention mask [n, seq_len] (uint8) for each statement."""
        if not statements:
            return (np.zeros((0, self.seq_len), np.int32), np.zeros((0, self.seq_len), np.uint8))
        encs = self.tk.encode_batch(statements)
        ids = np.array([e.ids for e in encs], dtype=np.int32)
        mask = np.array([e.attention_mask for e in encs], dtype=np.uint8)
        return ids, mask

    def encode_ids(self, texts: list[str]) -> np.ndarray:
        """Ids [len(texts), seq_len] (int32), the same as encode()'s; each distinct text is tokenised once per
        tokenizer object and remembered (IR repeats the same statements within and across files)."""
        row_of = self._row_of
        missing = [t for t in dict.fromkeys(texts) if t not in row_of]
        if missing:
            if len(row_of) + len(missing) > CACHE_ENTRIES:
                self.clear_cache()  # texts remembered until now are forgotten too: every one is missing
                missing = list(dict.fromkeys(texts))
            start = len(row_of)
            end = start + len(missing)
            if end > self._rows.shape[0]:
                grown = np.zeros((max(end, 2 * self._rows.shape[0], 1024), self.seq_len), np.int32)
                grown[:start] = self._rows[:start]
                self._rows = grown
            self._rows[start:end] = self._encode_rows(missing)
            row_of.update(zip(missing, range(start, end)))
        return self._rows[np.fromiter((row_of[t] for t in texts), np.intp, len(texts))]

    def _encode_rows(self, texts: list[str]) -> np.ndarray:
        """encode()'s ids for `texts`. ASCII texts are split into pieces here (the pre-tokenizer's regex, after the
        normaliser's lower-casing and space folding) and each distinct piece goes through the WordPiece model
        once; that is several times faster than the library's per-text pipeline and gives the same ids
        (tests/ir/test_tokenizer.py compares them). Other texts take the library's path."""
        out = np.full((len(texts), self.seq_len), self.pad_id, np.int32)
        pieces, model, limit = self._pieces, self.tk.model, self.seq_len - 2
        other = []
        for i, text in enumerate(texts):
            if not text.isascii():
                other.append(i)
                continue
            ids = [self.cls_id]
            for piece in _PIECE_RE.findall(text.lower().replace(" ", SPACE)):
                known = pieces.get(piece)
                if known is None:
                    known = pieces[piece] = [t.id for t in model.tokenize(piece)]
                ids += known
            del ids[limit + 1:]
            ids.append(self.sep_id)
            out[i, :len(ids)] = ids
        if other:
            out[other] = self.encode([texts[i] for i in other])[0]
        return out

    def clear_cache(self) -> None:
        """Forget what encode_ids remembered."""
        self._row_of.clear()
        self._rows = np.zeros((0, self.seq_len), np.int32)
        self._pieces.clear()

    def decode(self, ids: Iterable[int]) -> str:
        """Text of one id row, special tokens dropped."""
        return self.tk.decode([int(i) for i in ids], skip_special_tokens=True)

    def tokens(self, statement: str) -> list[str]:
        """The word pieces of one statement (no special tokens), for inspection."""
        return [t for t in self.tk.encode(statement).tokens if t not in SPECIAL_TOKENS]
