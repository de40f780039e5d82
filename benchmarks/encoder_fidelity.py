"""How closely one encoder's embeddings follow another's on the 669 device-mapping kernels (a distilled encoder
against its teacher): R^2 and cosine of the text half, the largest difference of the graph half, R^2 of the whole.

    .venv/bin/python benchmarks/encoder_fidelity.py --model build/encoder-distilled [--against DIR] \
        [--json benchmarks/results/encoder_fidelity.json]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from mirtune.embedding import default_model_dir, embed  # noqa: E402
from mirtune.model.io import load_config  # noqa: E402
from mirtune.paths import devmap_kernel_files, write_result  # noqa: E402


def r2(got: np.ndarray, want: np.ndarray) -> float:
    """The share of `want`'s variance (over rows, all columns pooled) that `got` reproduces."""
    from sklearn.metrics import r2_score

    return float(r2_score(want, got, multioutput="variance_weighted"))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="the encoder to check")
    ap.add_argument("--against", default=None, help="the reference encoder (default: the shipped one)")
    ap.add_argument("--json", type=Path, default=Path("benchmarks/results/encoder_fidelity.json"))
    args = ap.parse_args()
    files = [str(p) for p in devmap_kernel_files()]
    want = embed(files, model_dir=args.against, engine="numpy")
    got = embed(files, model_dir=args.model, engine="numpy")
    d = load_config(default_model_dir(args.against)).d_model  # the text half comes first
    text, graph = slice(0, d), slice(d, None)
    cos = (got[:, text] * want[:, text]).sum(1) / (np.linalg.norm(got[:, text], axis=1)
                                                   * np.linalg.norm(want[:, text], axis=1))
    result = {"files": len(files), "model": args.model, "against": args.against or "shipped",
              "text_r2": r2(got[:, text], want[:, text]), "text_cosine_median": float(np.median(cos)),
              "text_cosine_min": float(cos.min()), "graph_max_abs_diff": float(np.abs(got[:, graph] - want[:, graph]).max()),
              "whole_r2": r2(got, want)}
    print(f"{len(files)} device-mapping kernels: text half R^2 {result['text_r2']:.4f}, cosine median "
          f"{result['text_cosine_median']:.5f} (least {result['text_cosine_min']:.5f}); graph half differs by at most "
          f"{result['graph_max_abs_diff']:.2e}; whole vector R^2 {result['whole_r2']:.4f}")
    write_result(args.json, result)
    print(f"saved {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
