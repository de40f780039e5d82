"""scripts/profile_openmp_datasets.py: bad arguments are one line and exit 2, before anything runs; the summary of
the committed profiles runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "profile_openmp_datasets.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, timeout=120)


def test_an_unknown_dataset_or_a_folder_as_out_is_one_line(tmp_path):
    for args, said in ((["--datasets", "no-such-set"], "no such dataset: no-such-set"),
                       (["--out", str(tmp_path)], "a .parquet file")):
        proc = _run(*args)
        assert proc.returncode == 2 and said in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not list(tmp_path.iterdir())


def test_the_summary_of_the_committed_profiles(tmp_path):
    proc = _run("--summary", "--datasets", "openmp-fewer-epyc")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("18 profiled groups with a one-thread measurement; one thread >= 1.25x faster in 13")
