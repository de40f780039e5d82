"""Fetch real OpenCL kernels (outside every evaluation suite) for the pre-training corpus.

    python scripts/fetch_opencl_sources.py [-o build/opencl_sources]

Downloads five pinned Debian source tarballs (bookworm), checks their sha256, and extracts only their OpenCL
folders (kernels and the headers beside them) into OUT/<project>/, with OUT/SOURCES.json saying where every file
came from and under which licence. Nothing is committed: the corpus reads the folder with
`mirtune corpus build --sources OUT ...`. Kernels that need a host program's -D definitions fail to build and
are recorded as such in the corpus manifest.
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import json
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path, PurePosixPath
from typing import Callable

POOL = "http://deb.debian.org/debian/pool/main"
SUFFIXES = (".cl", ".h", ".clh")

# project, tarball under POOL, sha256, licence, folders (globs) whose OpenCL files are kept
PROJECTS = [
    ("darktable", "d/darktable/darktable_4.2.1.orig.tar.xz",
     "603a39c6074291a601f7feb16ebb453fd0c5b02a6f5d3c7ab6db612eadc97bac", "GPL-3.0-or-later",
     ["darktable-4.2.1/data/kernels"]),
    ("opencv", "o/opencv/opencv_4.6.0+dfsg.orig.tar.xz",
     "40a59ba7e5c18a43652de0a08733c9843a39bba619b1f3e26a5fac4a6f041423", "Apache-2.0",
     ["opencv-4.6.0/modules/*/src/opencl"]),
    ("opencv_contrib", "o/opencv/opencv_4.6.0+dfsg.orig-contrib.tar.xz",
     "3bba7c17e4a4a8b995c60904453dfc39315b3bea50e14008fd851afe7a1ff798", "Apache-2.0",
     ["opencv_contrib-4.6.0/modules/*/src/opencl"]),
    ("gegl", "g/gegl/gegl_0.4.42.orig.tar.xz",
     "aba83a0cbaa6c56edc29ea22f2e8172950a53b96daa51592083d59222bdde02d", "LGPL-3.0-or-later",
     ["gegl-0.4.42/opencl"]),
    ("bullet", "b/bullet/bullet_3.24+dfsg.orig.tar.xz",
     "43c1edae2024ba18bb5d7bfd3bb2394b066a79151a29789504a2d8efcdc333d7", "Zlib",
     ["bullet3-3.24/src/Bullet3OpenCL/*/kernels"]),
]


def sha256_of(path: Path) -> str:
    """Hex sha256 of a file."""
    with path.open("rb") as fh:
        return hashlib.file_digest(fh, "sha256").hexdigest()


def extract_files(tarball: Path, out: Path, wanted: Callable[[tuple[str, ...]], bool]) -> list[str]:
    """Copy the regular files of `tarball` whose path parts satisfy `wanted` to `out`; return their paths.

    Files keep their path below the tarball's top folder. Only regular files with plain relative names are
    written: no member can land outside `out`.
    """
    written = []
    with tarfile.open(tarball) as tar:
        for member in tar:
            parts = PurePosixPath(member.name).parts
            if (not member.isfile() or len(parts) < 2 or member.name.startswith("/") or ".." in parts
                    or not wanted(parts)):
                continue
            target = out.joinpath(*parts[1:])
            target.parent.mkdir(parents=True, exist_ok=True)
            src = tar.extractfile(member)
            assert src is not None  # a regular file always has a stream
            target.write_bytes(src.read())
            written.append("/".join(parts[1:]))
    return sorted(written)


def extract_opencl(tarball: Path, folders: list[str], out: Path) -> list[str]:
    """Copy the OpenCL files directly inside `folders` (globs) of `tarball` to `out` (`extract_files`), so that
    headers stay beside their kernels; return their paths."""
    return extract_files(tarball, out, lambda parts: parts[-1].endswith(SUFFIXES) and any(
        fnmatch.fnmatchcase("/".join(parts[:-1]), f) for f in folders))


def download(url: str, sha256: str, dest: Path) -> None:
    """Download `url` to `dest` and check its sha256 (raise ValueError on a mismatch)."""
    with urllib.request.urlopen(url, timeout=120) as resp, dest.open("wb") as fh:  # noqa: S310 (pinned http + sha256)
        while block := resp.read(1 << 20):
            fh.write(block)
    got = sha256_of(dest)
    if got != sha256:
        raise ValueError(f"{url}: sha256 {got}, expected {sha256}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-o", "--out", default="build/opencl_sources", help="output folder")
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    record = []
    for project, rel, sha, licence, folders in PROJECTS:
        url = f"{POOL}/{rel}"
        with tempfile.TemporaryDirectory(prefix="mirtune-fetch-") as tmp:
            tarball = Path(tmp) / rel.rsplit("/", 1)[-1]
            try:
                download(url, sha, tarball)
            except (OSError, ValueError) as exc:
                print(f"fetch_opencl_sources: {project}: {exc}", file=sys.stderr)
                return 1
            files = extract_opencl(tarball, folders, out / project)
        kernels = sum(f.endswith(".cl") for f in files)
        print(f"{project}: {kernels} .cl files, {len(files) - kernels} headers ({licence})")
        record.append({"project": project, "url": url, "sha256": sha, "licence": licence, "folders": folders,
                       "files": files})
    (out / "SOURCES.json").write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
