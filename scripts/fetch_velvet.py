"""Fetch Velvet, a real OpenMP program of several files, as the example of `mirtune tune` on such a program.

    python scripts/fetch_velvet.py [-o build/velvet] [--reads 20000]

Velvet (Zerbino & Birney's short-read assembler, GPL-2.0) is plain C (31 files in src/) with OpenMP
worksharing loops that take their thread count from OMP_NUM_THREADS; its `velveth` (k-mer hashing) is 12 of them.
This downloads Debian's pinned source tarball (bookworm), checks its sha256 and extracts it to OUT, and writes
OUT/reads.fa, the first N reads of the test reads the tarball ships (data/test_reads.fa), so that a run lasts
seconds. Debian's tarball drops the bundled zlib that src/binarySequences.c includes by a relative path; Debian's
own build patches that line to use the system's zlib, and this script leaves the sources as they are and writes a
one-line header at that path that includes the system's <zlib.h> instead. Nothing is committed.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fetch_opencl_sources import POOL, download, extract_files  # noqa: E402 (a script beside this one)

TARBALL = "v/velvet/velvet_1.2.10+dfsg1.orig.tar.xz"
SHA256 = "368d760ad56ffa010a2ae72b25d46680ecb7ad8cc573cf6c389848c87b32ee26"
TOP = "velvet_1.2.10"
#: velveth's translation units (the Makefile's velveth target, allocArray added as its debug target has it)
VELVETH = ["run", "tightString", "recycleBin", "splay", "splayTable", "readSet", "binarySequences", "utility",
           "kmer", "kmerOccurenceTable", "autoOpen", "allocArray"]
#: the Makefile's definitions and what clang needs for its C89-style `inline` functions
CFLAGS = "-fgnu89-inline -DMAXKMERLENGTH=31 -DCATEGORIES=2 -lz"


def extract(tarball: Path, out: Path) -> list[str]:
    """Extract the tarball's files under its top folder into `out`; return their paths."""
    return extract_files(tarball, out, lambda parts: parts[0] == TOP)


def first_reads(fasta: Path, n: int, out: Path) -> int:
    """Write the first `n` records of `fasta` to `out`; return how many were written."""
    written = 0
    with fasta.open() as src, out.open("w") as dst:
        for line in src:
            if line.startswith(">"):
                if written == n:
                    break
                written += 1
            dst.write(line)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", default="build/velvet", help="output folder")
    ap.add_argument("--reads", type=int, default=20000, help="reads in OUT/reads.fa (default 20000)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="mirtune-fetch-") as tmp:
        tarball = Path(tmp) / TARBALL.rsplit("/", 1)[-1]
        try:
            download(f"{POOL}/{TARBALL}", SHA256, tarball)
        except (OSError, ValueError) as exc:
            print(f"fetch_velvet: {exc}", file=sys.stderr)
            return 1
        extract(tarball, out)
    shim = out / "third-party" / "zlib-1.2.3" / "zlib.h"
    shim.parent.mkdir(parents=True, exist_ok=True)
    shim.write_text("#include <zlib.h>\n")
    n = first_reads(out / "data" / "test_reads.fa", args.reads, out / "reads.fa")
    files = " ".join(f"src/{u}.c" for u in VELVETH)
    print(f"velvet 1.2.10 in {out} ({TARBALL.rsplit('/', 1)[-1]}, sha256 {SHA256[:12]}...), {n} reads in reads.fa")
    print(f"cd {out} && mirtune tune {files} --task openmp --cflags '{CFLAGS}' --input reads.fa "
          "-- out 31 -fasta -short reads.fa")
    return 0


if __name__ == "__main__":
    sys.exit(main())
