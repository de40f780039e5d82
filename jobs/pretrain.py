"""Pre-train MIREncoder as a Ray job on an existing cluster.

    ray job submit --working-dir . -- python jobs/pretrain.py \\
        --preset small --corpus /shared/corpus --workers 8 [--gpus] --out /shared/models/small \\
        [--storage /shared/checkpoints] [--resume]

Ray sets RAY_ADDRESS for a job's driver, so this joins the cluster the job was submitted to; without it, and
without --address, it starts a private local cluster like `mirtune pretrain`. The options and the code are
those of `mirtune pretrain`. --corpus, --out and --storage must be paths every node can read (shared storage):
workers read the corpus through Ray Data and write checkpoints to the storage path. Submitting the same job
again with --resume continues from the latest checkpoint.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# The job's working directory (the repository) holds mirtune/.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mirtune.pretrain.train import main  # noqa: E402

if __name__ == "__main__":
    if os.environ.get("RAY_ADDRESS") and "--address" not in sys.argv:
        sys.argv += ["--address", "auto"]
    sys.exit(main(sys.argv[1:]))
