"""Real code for the pre-training corpus: GCC's C, C++ and OpenMP testsuites from Debian's gcc-12-source.

    python scripts/gcc_corpus_sources.py [--record] [--select LIST]

Unpacks the chosen testsuite folders (FOLDERS; about 33,000 files, 60 MB) from the installed package into
mirtune's cache folder once and prints the folders to pass to `mirtune corpus build --sources`. Why these:
compiler engineers wrote them to exercise every construct of C, C++ and OpenMP (loops, reductions, aliasing,
templates, atomics, vector extensions), most are small self-contained programs, and they reach every machine
through the package registry. gcc.dg/vect/ is left out whole, and so is every test of the other folders that the
real-loop VF/IF task measures (the tests of datasets/gccvect/programs.json.gz: GCC's torture and gcc.dg run
tests): the encoder is judged on their labels; `corpus build` also keeps out any module whose IR equals an
evaluation kernel's.
gcc.target/ (target intrinsics and assembler) is left out: few of its files build for this machine with clang.

`--record` writes datasets/corpus/gcc-sources.json.gz: package, version, tarball, and the path in the tarball
and the first 16 hex digits of the sha256 of each file the corpus reads (selected units and headers) (the manifest the corpus refers to; the sources are never
committed). Without --record the extraction is compared with that manifest and a difference is one line.

`--select LIST` writes the files of the corpus selection (SELECTION) to LIST, for `corpus build --sources-from`:
every torture test and OpenMP test, and a share of gcc.dg, g++.dg and c-c++-common chosen by a hash of the
path (so the same files are chosen on every machine). The shares keep the build within about 50 minutes on
2 cores while giving over 30,000 distinct modules of real code (at 0.15 and 0.10 for gcc.dg and g++.dg, before
the VF/IF task's tests were held out, the corpus had 29,497).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from collectors.gccsrc import INSTALL_HINT, PACKAGE, find_tarball, package_version, unpack  # noqa: E402
from mirtune.errors import UsageError  # noqa: E402
from mirtune.paths import REPO_DIR, cache_dir, gzip_json, read_gzip_json, write_atomic  # noqa: E402

FOLDERS = (
    "gcc/testsuite/gcc.c-torture/execute",
    "gcc/testsuite/gcc.c-torture/compile",
    "gcc/testsuite/gcc.dg",
    "gcc/testsuite/g++.dg",
    "gcc/testsuite/c-c++-common",
    "libgomp/testsuite/libgomp.c",
    "libgomp/testsuite/libgomp.c++",
    "libgomp/testsuite/libgomp.c-c++-common",
)
EXCLUDED = ("gcc/testsuite/gcc.dg/vect/",)
SUFFIXES = (".c", ".C", ".cc", ".cpp", ".h")
# folder -> share of its translation units chosen (by a hash of the path); the rest take all.
SELECTION = {"gcc/testsuite/gcc.dg": 0.20, "gcc/testsuite/g++.dg": 0.13, "gcc/testsuite/c-c++-common": 0.25}
UNITS = (".c", ".C", ".cc", ".cpp")
MANIFEST = REPO_DIR / "datasets" / "corpus" / "gcc-sources.json.gz"
VF_IF_RECORD = REPO_DIR / "datasets" / "gccvect" / "programs.json.gz"


def labelled_tests(record: Path = VF_IF_RECORD) -> set[str]:
    """The paths (below the tarball's top folder) of the GCC tests whose loops the VF/IF task measures."""
    return {f"gcc/testsuite/{test}" for test in read_gzip_json(record)["tests"]}


def _wanted(name: str) -> str | None:
    """The path below the tarball's top folder when `name` is a file of a chosen folder, else None."""
    rel = name.split("/", 1)[1] if "/" in name else ""
    if not rel.endswith(SUFFIXES) or any(rel.startswith(e) for e in EXCLUDED):
        return None
    return rel if any(rel.startswith(f + "/") for f in FOLDERS) else None


def extract(cache: Path | None = None) -> tuple[Path, str, str]:
    """(the unpacked top folder, package version, tarball name), unpacking on first use."""
    version = package_version()
    if version is None:
        raise UsageError(f"{PACKAGE} is not installed; {INSTALL_HINT}")
    tarball = find_tarball()
    dest = (cache or cache_dir()) / PACKAGE / version / "corpus"
    done = dest / "extracted.json"
    if done.is_file():
        return dest / json.loads(done.read_text())["prefix"], version, tarball.name
    prefix = unpack(tarball, dest, _wanted, "none of the corpus folders")
    return dest / prefix, version, tarball.name


def select(top: Path, files: list[str], held_out: set[str] = frozenset()) -> list[Path]:
    """The translation units of the corpus selection (see SELECTION) but those of `held_out`, in the order given."""
    chosen = []
    for rel in files:
        if not rel.endswith(UNITS) or rel in held_out:
            continue
        share = next((v for k, v in SELECTION.items() if rel.startswith(k + "/")), 1.0)
        if int(hashlib.sha256(rel.encode()).hexdigest()[:8], 16) < share * 2**32:
            chosen.append(top / rel)
    return chosen


def record(top: Path, version: str, tarball: str) -> dict[str, object]:
    """The manifest: package, version, tarball, the VF/IF task's tests held out (`labelled_tests`) and [path,
    sha256 prefix] of every file the corpus reads (the selected translation units and the headers beside them)."""
    every = sorted(str(f.relative_to(top)) for f in top.rglob("*") if f.is_file())
    held_out = labelled_tests()
    used = sorted({str(f.relative_to(top)) for f in select(top, every, held_out)}
                  | {p for p in every if p.endswith(".h")})
    return {"package": PACKAGE, "version": version, "tarball": tarball, "prefix": top.name,
            "folders": list(FOLDERS), "excluded": list(EXCLUDED), "selection": SELECTION,
            "held_out": sorted(held_out & set(every)),
            "files": [[p, hashlib.sha256((top / p).read_bytes()).hexdigest()[:16]] for p in used]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--record", action="store_true", help=f"write {MANIFEST.relative_to(REPO_DIR)}")
    p.add_argument("--select", metavar="LIST", help="write the selection's files to LIST, one per line")
    args = p.parse_args(argv)
    try:
        top, version, tarball = extract()
        now = record(top, version, tarball)
        if args.record:
            MANIFEST.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(MANIFEST, gzip_json(now, separators=(",", ":")))
        else:
            try:
                want = read_gzip_json(MANIFEST)
            except (OSError, ValueError):
                raise UsageError("no readable manifest; write one with --record", str(MANIFEST)) from None
            if want != now:
                differ = {tuple(f) for f in want["files"]} ^ {tuple(f) for f in now["files"]}
                raise UsageError(f"{PACKAGE} {version} differs from the manifest ({len(differ)} files)",
                                 str(MANIFEST))
    except UsageError as exc:
        print(f"gcc_corpus_sources: {exc}", file=sys.stderr)
        return 2
    print(f"{len(now['files'])} files of {PACKAGE} {version} under {top}", file=sys.stderr)
    if args.select:
        chosen = [top / f[0] for f in now["files"] if f[0].endswith(UNITS)]
        Path(args.select).write_text("".join(f"{f}\n" for f in chosen))
        print(f"{len(chosen)} translation units selected -> {args.select}", file=sys.stderr)
    for folder in FOLDERS:
        print(top / folder)
    return 0


if __name__ == "__main__":
    sys.exit(main())
