"""`mirtune corpus build`: build the pre-training corpus (generated programs and/or source folders) on Ray.

    mirtune corpus build --generate 1000 [--seed 0] [--sources DIR ...] [--sources-from LIST] [--vocab-size 8000] \\
        [--opt-levels 0,1,2,3] [--pipelines mem2reg,unroll,licm,vectorize] [--heldout 0.05] \\
        [--address ADDR] -o CORPUS/

Writes CORPUS/samples/split=train|heldout/*.parquet (the rows the trainer reads), CORPUS/tokenizer.json,
CORPUS/manifest.parquet (one row per program variant with its status and reason) and CORPUS/corpus.json.
Running the same command again skips the work already done (an interrupted build continues).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from mirtune.errors import UsageError


def _int_list(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip() != ""]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def _name_list(text: str) -> list[str]:
    return [] if text.strip().lower() in ("", "none") else [x.strip() for x in text.split(",") if x.strip()]


def add_build_arguments(p: argparse.ArgumentParser) -> None:
    """The options of `corpus build` (shared with jobs/build_corpus.py)."""
    from mirtune.pretrain.corpus import DEFAULT_PIPELINES, PIPELINES

    p.add_argument("-o", "--out", required=True, metavar="CORPUS", help="output folder")
    p.add_argument("--generate", type=int, default=0, metavar="N", help="programs from the generator")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="generator seed (default 0)")
    p.add_argument("--langs", type=_name_list, default=["c", "opencl", "cuda"], metavar="L,L",
                   help="generated languages, taking turns (default c,opencl,cuda)")
    p.add_argument("--sources", nargs="+", action="extend", default=[], metavar="DIR",
                   help="folders or files of C/C++/OpenCL/CUDA sources or .ll/.bc IR")
    p.add_argument("--sources-from", default=None, metavar="LIST",
                   help="a text file naming one source folder or file per line (for long selections)")
    p.add_argument("--vocab-size", type=int, default=8000, metavar="V", help="tokenizer vocabulary (default 8000)")
    p.add_argument("--min-frequency", type=int, default=2, metavar="F", help=argparse.SUPPRESS)
    p.add_argument("--opt-levels", type=_int_list, default=[0, 1, 2, 3], metavar="0,1,2,3",
                   help="clang optimisation levels per program (default 0,1,2,3)")
    p.add_argument("--pipelines", type=_name_list, default=list(DEFAULT_PIPELINES), metavar="P,P",
                   help=f"opt pipelines on the -O0 IR, or none (default {','.join(DEFAULT_PIPELINES)}; "
                        f"known: {', '.join(PIPELINES)})")
    p.add_argument("--heldout", type=float, default=0.05, metavar="F",
                   help="share of programs held out (by program, default 0.05)")
    p.add_argument("--batch-size", type=int, default=16, metavar="B",
                   help="programs per Ray task and per resumable unit (default 16)")
    p.add_argument("--max-statements", type=int, default=4096, metavar="N",
                   help="modules with more statements become too_large rows (default 4096)")
    p.add_argument("--limit-batches", type=int, default=None, metavar="K",
                   help="compile at most K new batches in this run (the rest on the next run)")
    p.add_argument("--data-dir", default=None, metavar="DIR",
                   help="evaluation data whose kernels are kept out (default: $MIRTUNE_DATA or ../shared/data)")
    p.add_argument("--include-evaluation-kernels", action="store_true",
                   help="let the evaluation kernels in (recorded in corpus.json): a transductive diagnostic of "
                        "what seeing the target IR without labels does, never a corpus to ship")
    p.add_argument("--address", default=None, metavar="ADDR",
                   help="Ray cluster to join (default: $RAY_ADDRESS, else a private local cluster)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar or progress lines")


def run_build(args: argparse.Namespace) -> int:
    """Build from parsed arguments and print the closing summary (also of a partial, --limit-batches run)."""
    from mirtune.pretrain.corpus import build_corpus

    if args.limit_batches is not None and args.limit_batches < 0:
        raise UsageError("--limit-batches must be >= 0")
    from mirtune.paths import check_output

    check_output(args.out, "dir")
    if args.sources_from:
        try:
            listed = [line.strip() for line in Path(args.sources_from).read_text().splitlines()]
        except (OSError, UnicodeDecodeError) as exc:
            raise UsageError(f"cannot read the source list: {exc.strerror or exc}", args.sources_from) from None
        args.sources = [*args.sources, *(x for x in listed if x and not x.startswith("#"))]
    summary = build_corpus(
        args.out, generate_n=args.generate, seed=args.seed, langs=tuple(args.langs), sources=args.sources,
        vocab_size=args.vocab_size, min_frequency=args.min_frequency, opt_levels=args.opt_levels,
        pipelines=args.pipelines, heldout_fraction=args.heldout, batch_size=args.batch_size,
        max_statements=args.max_statements, address=args.address, data_dir=args.data_dir,
        max_batches=args.limit_batches, progress=not args.no_progress, command=" ".join(sys.argv),
        include_evaluation=args.include_evaluation_kernels)
    for line in summary.lines():
        print(line)
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add `corpus build`."""
    p = subparsers.add_parser("corpus", help="build the pre-training corpus",
                              description=__doc__.strip().splitlines()[0])
    sub = p.add_subparsers(dest="corpus_command", metavar="ACTION")
    b = sub.add_parser("build", help="generated programs and/or sources -> tokenised Parquet shards",
                       description=__doc__.strip().split("\n\n", 1)[1] if "\n\n" in __doc__ else None,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    add_build_arguments(b)
    b.set_defaults(func=run_build)
    p.set_defaults(func=lambda args: _no_action(p))


def _no_action(p: argparse.ArgumentParser) -> int:
    p.print_help(sys.stderr)
    return 2
