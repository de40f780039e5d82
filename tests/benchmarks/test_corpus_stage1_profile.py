"""benchmarks/corpus_stage1_profile.py: every compiler call of stage 1 is counted and timed, and the parts add up
to the wall time (run as a script: it replaces functions of the corpus build while it runs)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def test_the_split_counts_each_compiler_call_and_adds_up(tmp_path):
    good, bad = tmp_path / "tri.c", tmp_path / "broken.c"
    good.write_text("int tri(int n) { int s = 0; for (int i = 0; i < n; i++) s += i * i; return s; }\n")
    bad.write_text("int broken( {\n")
    listed = tmp_path / "sources.txt"
    listed.write_text(f"{good}\n{bad}\n")
    out = tmp_path / "profile.json"
    proc = subprocess.run([sys.executable, str(BENCHMARKS / "corpus_stage1_profile.py"), "--sources", str(listed),
                           "--every", "1", "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["programs"] == 2 and result["variants"] == 16 and result["ok"] > 0
    # clang at -O0..-O3 for both files; opt's four pipelines only where -O0 compiled
    assert result["calls"]["clang"] == 8 and result["calls"]["opt"] == 4
    assert sum(result["seconds"].values()) == pytest.approx(result["wall_s"], abs=0.05)
    assert result["seconds"]["clang"] > 0 and 0 < result["empty_clang_s"] < 5
    assert "variants/s" in proc.stdout
