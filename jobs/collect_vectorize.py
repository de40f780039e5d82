"""Run the loop vectorization (VF x IF) sweep as a Ray job on an existing cluster.

    ray job submit --working-dir . -- python jobs/collect_vectorize.py \\
        --programs collectors/programs/vectorize/kernels --out /data/vectorize [--space vf=1,4 if=1,2 ...]

Ray sets RAY_ADDRESS for a job's driver, so this joins the cluster the job was submitted to (without it, and
without --address, it starts a private local cluster, like `mirtune collect vectorize`). The options and the
code are those of `mirtune collect vectorize`. Give --out an absolute path on the head node (or shared
storage): the working directory of a job is a temporary copy.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# The job's working directory (the repository) holds mirtune/ and collectors/.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mirtune.commands.collect import add_vectorize_arguments, run_vectorize  # noqa: E402
from mirtune.errors import MirtuneError  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="collect_vectorize.py", description=__doc__.strip().splitlines()[0])
    add_vectorize_arguments(parser)
    args = parser.parse_args(argv)
    if args.address is None and os.environ.get("RAY_ADDRESS"):
        args.address = "auto"
    try:
        return run_vectorize(args)
    except MirtuneError as exc:
        print(f"collect_vectorize: {exc.line()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("collect_vectorize: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
