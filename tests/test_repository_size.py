"""The tracked tree stays small enough to travel (a GPU machine takes 64 MiB with everything built): under 40 MiB,
with generated program inputs kept out of git (made on first use from inputs.json, collectors/inputs.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from collectors.inputs import read_listing

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 40 * 1024 * 1024
PROGRAM_FOLDERS = sorted(p.parent for p in (ROOT / "benchmarks" / "programs").glob("*/inputs.json")) + [
    ROOT / "collectors" / "programs" / "openmp_ordinary"]
assert len(PROGRAM_FOLDERS) >= 8, "the program folders with generated inputs were not found"


def _git(*args: str) -> str:
    """stdout of git in the repository (exit 1, "nothing matched", is an answer); skip the test when this is not a
    git checkout."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    top = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if top.returncode != 0 or Path(top.stdout.strip()).resolve() != ROOT:
        pytest.skip("not a git checkout of mirtune: nothing tracked to measure")
    proc = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True)
    assert proc.returncode in (0, 1), proc.stderr.decode(errors="replace")
    return proc.stdout.decode("utf-8", "surrogateescape")


def test_tracked_files_stay_under_40_mib():
    files = [ROOT / f for f in _git("ls-files", "-z").split("\0") if f]
    # a symbolic link travels as a link (its target is tracked and counted itself)
    sizes = sorted(((p.lstat().st_size, p) for p in files if p.is_file() or p.is_symlink()), key=lambda t: t[0],
                   reverse=True)
    total = sum(n for n, _ in sizes)
    largest = ", ".join(f"{p.relative_to(ROOT)} ({n / 2**20:.1f} MiB)" for n, p in sizes[:5])
    assert total < LIMIT, f"tracked files take {total / 2**20:.1f} MiB, over 40 MiB; largest: {largest}"


@pytest.mark.parametrize("folder", PROGRAM_FOLDERS, ids=lambda p: p.name)
def test_generated_inputs_are_ignored_not_tracked(folder):
    listed = [str((folder / o.file).relative_to(ROOT)) for g in read_listing(folder) for o in g.outputs]
    assert listed
    assert _git("ls-files", "--", *listed) == ""
    ignored = _git("check-ignore", "--no-index", "--", *listed).split("\n")
    assert sorted(f for f in ignored if f) == sorted(listed)
