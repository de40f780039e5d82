"""scripts/fetch_opencl_sources.py: only the named OpenCL folders are extracted, nothing lands outside the
output folder, and a tarball whose sha256 differs is refused."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

import pytest

@pytest.fixture(scope="module")
def fetch(script_module):
    return script_module("fetch_opencl_sources")


def _tarball(path: Path, members: dict[str, bytes], links: tuple[str, ...] = ()) -> Path:
    with tarfile.open(path, "w:xz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for name in links:
            info = tarfile.TarInfo(name)
            info.type = tarfile.SYMTYPE
            info.linkname = "/etc/passwd"
            tar.addfile(info)
    return path


def test_extracts_only_the_opencl_folders(fetch, tmp_path):
    tb = _tarball(tmp_path / "p.tar.xz", {
        "proj-1.0/data/kernels/blur.cl": b"__kernel void k() {}\n",
        "proj-1.0/data/kernels/common.h": b"#define X 1\n",
        "proj-1.0/data/kernels/README": b"not a kernel\n",
        "proj-1.0/modules/core/src/opencl/add.cl": b"__kernel void a() {}\n",
        "proj-1.0/tests/other.cl": b"__kernel void t() {}\n",
        "proj-1.0/data/kernels/../../../evil.cl": b"x\n",
    }, links=("proj-1.0/data/kernels/link.cl",))
    out = tmp_path / "out"
    files = fetch.extract_opencl(tb, ["proj-1.0/data/kernels", "proj-1.0/modules/*/src/opencl"], out)
    assert files == ["data/kernels/blur.cl", "data/kernels/common.h", "modules/core/src/opencl/add.cl"]
    assert (out / "data/kernels/common.h").read_text() == "#define X 1\n"
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert written == ["out/data/kernels/blur.cl", "out/data/kernels/common.h",
                       "out/modules/core/src/opencl/add.cl", "p.tar.xz"]


def test_a_tarball_with_another_checksum_is_refused(fetch, tmp_path):
    tb = _tarball(tmp_path / "p.tar.xz", {"p/a.cl": b"x"})
    dest = tmp_path / "copy.tar.xz"
    with pytest.raises(ValueError, match="sha256"):
        fetch.download(tb.as_uri(), "0" * 64, dest)
    fetch.download(tb.as_uri(), fetch.sha256_of(tb), dest)
    assert dest.read_bytes() == tb.read_bytes()


def test_every_project_is_pinned(fetch):
    assert len({p[0] for p in fetch.PROJECTS}) == len(fetch.PROJECTS)
    assert all(len(sha) == 64 and int(sha, 16) >= 0 for _, _, sha, _, _ in fetch.PROJECTS)
