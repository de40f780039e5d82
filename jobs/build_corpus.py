"""Build the pre-training corpus as a Ray job on an existing cluster.

    ray job submit --working-dir . -- python jobs/build_corpus.py \\
        --generate 20000 --sources /data/codenet /data/lscat -o /shared/corpus [--vocab-size 8000]

Ray sets RAY_ADDRESS for a job's driver, so this joins the cluster the job was submitted to (address "auto");
without it, and without --address, it starts a private local cluster, like `mirtune corpus build`. The options
and the code are those of `mirtune corpus build`. Compilation runs in Ray tasks on every node; only the
driver writes, so -o must be an absolute path on the head node (or shared storage): the working directory of
a job is a temporary copy. --sources must be readable on the head node (the driver reads the files and ships
their text to the tasks). Rerunning the same job continues an interrupted build.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# The job's working directory (the repository) holds mirtune/.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mirtune.commands.corpus import add_build_arguments, run_build  # noqa: E402
from mirtune.errors import MirtuneError  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="build_corpus.py", description=__doc__.strip().splitlines()[0])
    add_build_arguments(parser)
    args = parser.parse_args(argv)
    if args.address is None and os.environ.get("RAY_ADDRESS"):
        args.address = "auto"
    try:
        return run_build(args)
    except MirtuneError as exc:
        print(f"build_corpus: {exc.line()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("build_corpus: interrupted; run the same command again to continue", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
