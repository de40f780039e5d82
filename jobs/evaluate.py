"""Run `mirtune evaluate` as a Ray job on an existing cluster.

    ray job submit --working-dir . -- python jobs/evaluate.py published devmap --embedding ir2vec \\
        --data-dir /data/shared --json /results/evaluate_devmap_ir2vec.json

Ray sets RAY_ADDRESS for a job's driver, so the head-selection trials and the final fits run on the cluster the
job was submitted to (without it, and without --address, a private local cluster is started, as by
`mirtune evaluate`). The options and the code are those of `mirtune evaluate`. Give --data-dir, --json and
--plot absolute paths on the head node (or shared storage): the working directory of a job is a temporary copy.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# The job's working directory (the repository) holds mirtune/.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mirtune.commands.evaluate import add_arguments, run_evaluate  # noqa: E402
from mirtune.errors import MirtuneError  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="evaluate.py", description=__doc__.strip().splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    if args.address is None and os.environ.get("RAY_ADDRESS"):
        args.address = "auto"
    try:
        return run_evaluate(args)
    except MirtuneError as exc:
        print(f"evaluate: {exc.line()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("evaluate: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
