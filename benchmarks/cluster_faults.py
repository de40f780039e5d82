"""The three-node cluster scenarios (tests/cluster): how long each took, how many points ran on each node, what was
run again after a node died, the head restarted or a training worker was lost.

Runs the tests in tests/cluster/test_three_nodes.py (a head and two worker nodes on 127.0.0.2-4 of this machine,
see tests/cluster/conftest.py) with $MIRTUNE_CLUSTER_FIGURES set, so that they write what they measured; adds each
test's outcome and duration (pytest's JUnit report) and the machine, and saves it all as JSON.

    .venv/bin/python benchmarks/cluster_faults.py [--out benchmarks/results/cluster_faults.json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TESTS = "tests/cluster/test_three_nodes.py"

from mirtune.paths import write_result  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "benchmarks" / "results" / "cluster_faults.json"))
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="mirtune-cluster-faults-") as tmp:
        figures, junit = Path(tmp) / "figures.json", Path(tmp) / "junit.xml"
        t0 = time.monotonic()
        run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", TESTS,
                              f"--junitxml={junit}"], cwd=REPO, env=dict(os.environ, MIRTUNE_CLUSTER_FIGURES=str(figures)))
        wall = time.monotonic() - t0
        tests = {}
        for case in ET.parse(junit).getroot().iter("testcase"):
            outcome = "passed"
            for tag in ("failure", "error", "skipped"):
                el = case.find(tag)
                if el is not None:
                    outcome = {"failure": "failed", "error": "error", "skipped": "skipped"}[tag]
                    outcome += f": {(el.get('message') or '')[:300]}"
            tests[case.get("name")] = {"outcome": outcome, "seconds": round(float(case.get("time", 0)), 1)}
        scenarios = json.loads(figures.read_text()) if figures.exists() else {}
    import ray

    result = {"command": "benchmarks/cluster_faults.py", "date": time.strftime("%Y-%m-%d"),
              "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "ray": ray.__version__},
              "cluster": "head 127.0.0.2 + worker1 127.0.0.3 + worker2 127.0.0.4, 1 CPU and mirtune_timed_run: 1 each",
              "pytest_exit": run.returncode, "wall_s": round(wall, 1), "tests": tests, "scenarios": scenarios}
    write_result(args.out, result)
    print(json.dumps(result, indent=2))
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
