"""scripts/fetch_velvet.py: the tarball's files land under the output folder and nowhere else, and reads.fa holds
the first N reads whole."""

from __future__ import annotations

import io
import tarfile

import pytest


@pytest.fixture(scope="module")
def fetch(script_module):
    return script_module("fetch_velvet")


def test_extracts_the_top_folder_only_inside_the_output(fetch, tmp_path):
    tb = tmp_path / "v.tar.xz"
    with tarfile.open(tb, "w:xz") as tar:
        for name, data in {f"{fetch.TOP}/src/run.c": b"int main(void) { return 0; }\n",
                           f"{fetch.TOP}/data/test_reads.fa": b">r\nACGT\n",
                           f"{fetch.TOP}/../evil.c": b"x\n", "other/x.c": b"x\n"}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    out = tmp_path / "out"
    fetch.extract(tb, out)
    written = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert written == ["out/data/test_reads.fa", "out/src/run.c", "v.tar.xz"]


def test_first_reads_keeps_whole_records(fetch, tmp_path):
    fasta = tmp_path / "in.fa"
    fasta.write_text(">a\nAC\nGT\n>b\nTT\n>c\nGG\n")
    out = tmp_path / "out.fa"
    assert fetch.first_reads(fasta, 2, out) == 2
    assert out.read_text() == ">a\nAC\nGT\n>b\nTT\n"
    assert fetch.first_reads(fasta, 10, out) == 3 and out.read_text() == fasta.read_text()


def test_the_tarball_is_pinned_and_the_flags_are_velvets(fetch):
    assert len(fetch.SHA256) == 64 and int(fetch.SHA256, 16) >= 0
    assert fetch.VELVETH[0] == "run" and len(set(fetch.VELVETH)) == len(fetch.VELVETH) == 12
    assert "-DMAXKMERLENGTH=31" in fetch.CFLAGS.split()
