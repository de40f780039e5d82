"""Run the CUDA thread-block sweep (LS-CAT layout, Table 5 sizes) as a Ray job on an existing cluster.

    ray job submit --working-dir . -- python jobs/collect_lscat.py \\
        --lscat-dir collectors/programs/cuda --out /data/lscat [--space matrix=240,496 block=8x8,1x64] [--arch sm_90]

--lscat-dir is a folder of kernel directories in the LS-CAT layout (each holds main.cu and the kernel source), or
an LS-CAT checkout as it is (its data/kernels; kernels are named <Repo>/<underdirectory>); --programs is the same
option. A kernel whose main.cu is LS-CAT's harness (`./main N` loops over sizes and blocks itself) is run once
with --timeout for the whole run and its printed lines become rows; mirtune's per-point kernels are run per point
(collectors/lscat.py, `kernel_form`). Timed runs go to GPU nodes only (each asks Ray for num_gpus=1 and the
node's one timed-run slot); on a cluster without GPUs the job builds every kernel with nvcc in parallel, writes
build_failed rows for the kernels that do not build, says that nothing can be timed and exits 0. Ray sets
RAY_ADDRESS for a job's driver, so this joins the cluster the job was submitted to. Give --out an absolute
path on the head node (or shared storage): the working directory of a job is a temporary copy.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

# The job's working directory (the repository) holds mirtune/ and collectors/.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mirtune.commands.collect import add_lscat_arguments, run_lscat  # noqa: E402
from mirtune.errors import MirtuneError  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="collect_lscat.py", description=__doc__.strip().splitlines()[0])
    add_lscat_arguments(parser, programs_flags=("--lscat-dir", "--programs"))
    args = parser.parse_args(argv)
    if args.address is None and os.environ.get("RAY_ADDRESS"):
        args.address = "auto"
    try:
        return run_lscat(args)
    except MirtuneError as exc:
        print(f"collect_lscat: {exc.line()}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print("collect_lscat: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
