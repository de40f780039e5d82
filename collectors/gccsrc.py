"""GCC's run tests with loops from Debian's `gcc-12-source` package: find them, extract them once, record them.

The package (installed by scripts/setup_system.sh) holds GCC's source as one tarball under /usr/src/gcc-12/.
`extract()` unpacks only the testsuite folders in FOLDERS: gcc/testsuite/gcc.dg/vect/ (the vectorizer's tests,
with its tsvc/, costmodel/ and complex/ folders), the files of gcc.c-torture/execute/ (the C torture run tests)
and the run tests of gcc.dg/torture/, gcc.dg/tree-ssa/ and gcc.dg/ itself (loops among them that clang
vectorizes), about 20 MB, into mirtune's cache folder (`mirtune.paths.cache_dir()`/gcc-12-source/<version>/) the first time it is
asked for, so the sources never enter the repository. `datasets/gccvect/sources.json.gz` (committed) records the
package, its version (dpkg-query), the tarball, and the path inside the tarball and sha256 of every extracted
file; `check_sources` compares an extraction with it, so a program set always says which bytes it came from.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mirtune.errors import UsageError
from mirtune.paths import REPO_DIR, cache_dir, gzip_json, read_gzip_json, write_atomic
from mirtune.tasks.vectorize import FOLDER_PREFIXES, origin_folder

PACKAGE = "gcc-12-source"
PACKAGE_DIR = Path("/usr/src/gcc-12")
TESTSUITE = "gcc/testsuite"
VECT = "gcc.dg/vect"
TORTURE = "gcc.c-torture/execute"
# under TESTSUITE (a test's path, `rel`, is relative to TESTSUITE): VECT with its sub-folders, the others' own files
FOLDERS = (VECT, *FOLDER_PREFIXES)
RUN_BY_DEFAULT = (VECT, TORTURE)  # their drivers run a test without dg-do; gcc.dg's other drivers compile it
RUN_TEST = re.compile(r"\{\s*dg-do\s+run\b")
SOURCES = REPO_DIR / "datasets" / "gccvect" / "sources.json.gz"
INSTALL_HINT = f"install it with: sudo apt-get install {PACKAGE} (or run scripts/setup_system.sh as root)"


@dataclass(frozen=True)
class Testsuite:
    """An extracted testsuite (the folders in FOLDERS) and where it came from."""

    root: Path  # the extracted gcc/testsuite folder
    package: str
    version: str
    tarball: str  # the tarball's file name in /usr/src/gcc-12
    prefix: str  # the tarball's top folder, e.g. gcc-12.2.0


def package_version() -> str | None:
    """The installed version of gcc-12-source (dpkg-query), or None when it is not installed."""
    try:
        proc = subprocess.run(["dpkg-query", "-W", "-f=${Status}\t${Version}", PACKAGE], capture_output=True,
                              text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    status, _, version = proc.stdout.partition("\t")
    return version.strip() if proc.returncode == 0 and status.endswith(" installed") and version.strip() else None


def find_tarball(folder: Path = PACKAGE_DIR) -> Path:
    """GCC's source tarball inside the package (gcc-*.tar.xz); UsageError naming the package when absent."""
    found = sorted(folder.glob("gcc-*.tar.xz")) if folder.is_dir() else []
    if not found:
        raise UsageError(f"{PACKAGE} is not installed (no {folder}/gcc-*.tar.xz); {INSTALL_HINT}")
    return found[0]


def unpack(tarball: Path, dest: Path, wanted, missing: str) -> str:
    """Unpack the files of `tarball` whose names `wanted` accepts into dest/<top folder> in one pass over the
    stream (replacing an earlier unpack whole), mark it done in dest/extracted.json; returns the top folder.
    UsageError "<tarball> holds <missing>" when nothing matched."""
    dest.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".extract-", dir=dest) as tmp:
        prefix = ""
        with tarfile.open(tarball, "r:xz") as tar:
            for member in tar:
                if member.isfile() and wanted(member.name):
                    prefix = member.name.split("/", 1)[0]
                    tar.extract(member, tmp, filter="data")
        if not prefix:
            raise UsageError(f"{tarball} holds {missing}")
        shutil.rmtree(dest / prefix, ignore_errors=True)
        os.replace(Path(tmp) / prefix, dest / prefix)
    write_atomic(dest / "extracted.json", json.dumps({"prefix": prefix}))
    return prefix


def extract(cache: Path | None = None) -> Testsuite:
    """The testsuite folders in FOLDERS, unpacked from the installed package into the cache on first use (again
    when FOLDERS has changed since)."""
    version = package_version()
    if version is None:
        raise UsageError(f"{PACKAGE} is not installed; {INSTALL_HINT}")
    tarball = find_tarball()
    dest = (cache or cache_dir()) / PACKAGE / version
    done = dest / "extracted.json"
    if done.is_file():
        info = json.loads(done.read_text())
        if info.get("folders") == list(FOLDERS):
            return Testsuite(dest / info["prefix"] / TESTSUITE, PACKAGE, version, tarball.name, info["prefix"])
    prefix = unpack(tarball, dest, lambda name: origin_folder(name.partition(f"/{TESTSUITE}/")[2]) is not None,
                    f"no {TESTSUITE}/{VECT}/")
    root = dest / prefix / TESTSUITE
    for folder in FOLDERS:
        if folder not in RUN_BY_DEFAULT:  # keep only the run tests (and headers) of the big gcc.dg folders
            for f in (root / folder).glob("*.c"):
                if not RUN_TEST.search(f.read_text(errors="replace")):
                    f.unlink()
    write_atomic(done, json.dumps({"prefix": prefix, "folders": list(FOLDERS)}))
    return Testsuite(root, PACKAGE, version, tarball.name, prefix)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_record(suite: Testsuite) -> dict[str, object]:
    """What the source manifest holds: package, version, tarball and each file's path in the tarball and sha256."""
    base = suite.root.parents[TESTSUITE.count("/")]  # the tarball's top folder
    files = [{"path": str(f.relative_to(base)), "sha256": _sha256(f)}
             for f in sorted(suite.root.rglob("*")) if f.is_file()]
    return {"package": suite.package, "version": suite.version, "tarball": suite.tarball, "prefix": suite.prefix,
            "files": files}


def write_sources(suite: Testsuite, path: Path = SOURCES) -> Path:
    """Record `suite` in the committed manifest (gzipped JSON, the same bytes for the same files)."""
    return write_atomic(path, gzip_json(source_record(suite), indent=1))


def read_sources(path: Path = SOURCES) -> dict[str, object]:
    """The recorded source manifest; OSError or ValueError when it cannot be read."""
    return read_gzip_json(path)


def check_sources(suite: Testsuite, path: Path = SOURCES) -> None:
    """UsageError (one line) when the extracted files differ from those recorded in the source manifest."""
    try:
        recorded = read_sources(path)
    except (OSError, ValueError, EOFError):
        raise UsageError("no readable source manifest; record one with --record-sources", str(path)) from None
    now = source_record(suite)
    want = {f["path"]: f["sha256"] for f in recorded.get("files", [])}
    have = {f["path"]: f["sha256"] for f in now["files"]}  # type: ignore[union-attr]
    differ = sorted(p for p in want.keys() | have.keys() if want.get(p) != have.get(p))
    if differ or recorded.get("version") != suite.version:
        raise UsageError(f"{PACKAGE} {suite.version} differs from the recorded {recorded.get('version')} "
                         f"({len(differ)} files differ, e.g. {differ[:1]}); record it with --record-sources",
                         str(path))
