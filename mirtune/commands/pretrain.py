"""`mirtune pretrain --preset small --corpus DIR --workers N [--gpus] [--resume] --out DIR`: pre-train MIREncoder
on Ray Train (data parallel; checkpoints every K steps; a killed worker is replaced; --resume continues)."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("pretrain", help="pre-train the encoder on a corpus with Ray Train",
                       description=__doc__.splitlines()[0])
    from mirtune.pretrain.train import add_arguments

    add_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from mirtune.pretrain.train import config_from_args, pretrain, summary

    result = pretrain(config_from_args(args, ["mirtune", *sys.argv[1:]]))
    print(summary(result))
    return 0
