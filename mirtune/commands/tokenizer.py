"""`mirtune tokenizer train INPUT... -o tokenizer.json`: train the IR WordPiece tokenizer."""

from __future__ import annotations

import argparse
import sys

from mirtune.errors import MirtuneError, UsageError
from mirtune.paths import check_output


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("tokenizer", help="train or try the IR WordPiece tokenizer")
    tsub = p.add_subparsers(dest="tokenizer_command", metavar="ACTION", required=True)
    t = tsub.add_parser("train", help="train a tokenizer on IR statements")
    t.add_argument("inputs", nargs="+", help=".ll files, sources or directories")
    t.add_argument("-o", "--output", required=True, help="tokenizer.json to write")
    t.add_argument("--vocab-size", type=int, default=8000)
    t.add_argument("--min-frequency", type=int, default=2)
    t.set_defaults(func=run_train)
    e = tsub.add_parser("encode", help="show how a tokenizer splits the statements of a file")
    e.add_argument("input", help=".ll file or source")
    e.add_argument("--tokenizer", required=True, help="tokenizer.json")
    e.add_argument("--limit", type=int, default=10, help="statements to show")
    e.set_defaults(func=run_encode)


def run_train(args: argparse.Namespace) -> int:
    from mirtune.ir.inputs import expand_inputs, load_ir
    from mirtune.ir.tokenizer import IRTokenizer
    from mirtune.progress import note, progress

    if args.vocab_size < 100:
        raise UsageError("--vocab-size must be at least 100")
    check_output(args.output, "file")
    statements: list[str] = []
    failed = 0
    items = list(expand_inputs(args.inputs))
    for path, reason in progress(items, desc="reading IR"):
        if reason is not None:
            note(f"mirtune tokenizer: {path}: {reason}")
            failed += 1
            continue
        try:
            statements.extend(load_ir(path).statements())
        except MirtuneError as exc:
            note(f"mirtune tokenizer: {exc.line()}")
            failed += 1
    if not statements:
        raise UsageError("no statements to train on")
    tok = IRTokenizer.train(statements, vocab_size=args.vocab_size, min_frequency=args.min_frequency)
    tok.save(args.output)
    print(f"trained on {len(statements)} statements: vocabulary {tok.vocab_size}, wrote {args.output}",
          file=sys.stderr)
    return 2 if failed else 0


def run_encode(args: argparse.Namespace) -> int:
    from mirtune.ir.inputs import load_ir
    from mirtune.ir.tokenizer import IRTokenizer

    tok = IRTokenizer.load(args.tokenizer)
    for st in load_ir(args.input).statements()[: args.limit]:
        print(f"{st}\n    {' '.join(tok.tokens(st))}")
    return 0
