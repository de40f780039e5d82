"""Conformance of mirtune's program graphs with ProGraML's llvm2graph-10 on the device-mapping kernels.

For every kernel: node counts per type and edge counts per flow, mirtune vs llvm2graph-10. Files that
differ are classified by what differs. Prints the share of identical files and saves JSON.

    .venv/bin/python benchmarks/conformance_graph.py [--out benchmarks/results/conformance.json]
"""

from __future__ import annotations

import argparse
import collections
import sys
import time

from mirtune.ir.graph import CONSTANT, build_graph
from mirtune.ir.module import IRModule
from mirtune.ir.reference import find_llvm2graph, reference_graph
from mirtune.paths import devmap_kernel_files, write_result


def classify(ours, ref) -> str:
    """A short label for what differs between two graphs of the same file."""
    parts = []
    for kind, a, b in (("nodes", ours.node_counts(), ref.node_counts()),
                       ("edges", ours.edge_counts(), ref.edge_counts())):
        for name in a:
            if a[name] != b[name]:
                parts.append(f"{name} {kind} {a[name] - b[name]:+d}")
    consts = lambda g: {g.node_full_text[i] for i, t in enumerate(g.node_type) if t == CONSTANT}
    if any(("getelementptr" in c or "bitcast" in c) for c in consts(ref) - consts(ours)):
        parts.append("(a constant expression of LLVM 10 folds into its global in LLVM 22)")
    return ", ".join(parts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="benchmarks/results/conformance.json")
    args = ap.parse_args()
    files = devmap_kernel_files()
    binary = find_llvm2graph()
    identical = 0
    classes: collections.Counter[str] = collections.Counter()
    examples: dict[str, str] = {}
    for path in files:
        ours = build_graph(IRModule.from_file(path))
        ref = reference_graph(path.read_text(), binary)
        if (ours.node_counts(), ours.edge_counts()) == (ref.node_counts(), ref.edge_counts()):
            identical += 1
            continue
        label = classify(ours, ref)
        classes[label] += 1
        examples.setdefault(label, path.name)
    share = identical / len(files)
    print(f"identical node counts per type and edge counts per flow: {identical}/{len(files)} files = {share:.1%}")
    for label, n in classes.most_common():
        print(f"  {n:4d}  {label}   e.g. {examples[label]}")
    result = {"files": len(files), "identical": identical, "share": share,
              "differences": [{"count": n, "what": label, "example": examples[label]} for label, n in classes.most_common()],
              "date": time.strftime("%Y-%m-%d"), "command": "python " + " ".join(sys.argv)}
    write_result(args.out, result)
    print(f"saved {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
