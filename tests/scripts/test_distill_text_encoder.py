"""scripts/distill_text_encoder.py: a one-layer student of the shipped encoder, trained on real compiled code, that
`mirtune embed --model` reads, with the teacher's graph half unchanged and its provenance recorded."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np

from mirtune.embedding import embed

REPO = Path(__file__).resolve().parents[2]
PROGRAMS = {
    "sum.c": "int f(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }\n",
    "scale.c": "void g(float *x, int n) { for (int i = 0; i < n; i++) x[i] = x[i] * 2.0f + 1.0f; }\n",
    "fib.c": "long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n",
    "bad.c": "int main( {\n",
}


def test_a_short_distillation_writes_a_one_layer_encoder(tmp_path):
    for name, code in PROGRAMS.items():
        (tmp_path / name).write_text(code)
    listing = tmp_path / "sources.txt"
    listing.write_text("".join(f"{tmp_path / n}\n" for n in PROGRAMS))
    out = tmp_path / "student"
    proc = subprocess.run([sys.executable, str(REPO / "scripts" / "distill_text_encoder.py"), "--sources-from",
                           str(listing), "--every", "1", "--out", str(out), "--steps", "30", "--batch", "64"],
                          capture_output=True, text=True, timeout=600, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "3 files built, 1 failed" in proc.stdout
    config = json.loads((out / "config.json").read_text())
    provenance = json.loads((out / "provenance.json").read_text())
    assert config["n_layers"] == 1 and provenance["steps"] == 30
    assert provenance["corpus"]["package"] is None and len(provenance["corpus"]["list_sha256"]) == 64 and provenance["distilled_from"]["weights_sha256"]
    files = [tmp_path / "sum.c", tmp_path / "scale.c"]
    teacher, student = embed(files, engine="numpy"), embed(files, model_dir=out, engine="numpy")
    np.testing.assert_array_equal(student[:, 128:], teacher[:, 128:])  # the graph half is the teacher's
    assert not np.allclose(student[:, :128], teacher[:, :128], atol=1e-6)  # the text half is the student's
    assert np.corrcoef(student[:, :128].ravel(), teacher[:, :128].ravel())[0, 1] > 0.9
