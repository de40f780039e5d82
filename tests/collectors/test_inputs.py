"""Generated program inputs (collectors/inputs.py): made from the real generator on first use, checked by hash,
and a generator that fails or no longer reproduces the listed bytes refused in one line, nothing moved in place."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from collectors.inputs import LISTING, ensure_inputs, main, read_listing
from collectors.manifest import read_manifest
from mirtune.errors import UsageError

ROOT = Path(__file__).resolve().parents[2]
SOURCE = ROOT / "benchmarks" / "programs" / "openmp_unseen2"  # gen_forest.py writes soil.csv (130 KB) in 0.1 s
FOLDERS = sorted(p.parent for p in (ROOT / "benchmarks" / "programs").glob("*/inputs.json")) + [
    ROOT / "collectors" / "programs" / "openmp_ordinary"]
assert len(FOLDERS) >= 8, "the program folders with generated inputs were not found"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    """A copy of the forest program of openmp_unseen2 (source, generator, manifest entry, its listing alone)."""
    for name in ("forest.c", "gen_forest.py"):
        shutil.copyfile(SOURCE / name, tmp_path / name)
    manifest = [e for e in json.loads((SOURCE / "manifest.json").read_text()) if e["name"] == "forest"]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    listing = json.loads((SOURCE / LISTING).read_text())
    listing["generators"] = [g for g in listing["generators"] if g["script"] == "gen_forest.py"]
    (tmp_path / LISTING).write_text(json.dumps(listing))
    return tmp_path


def _listed(folder: Path) -> dict:
    return json.loads((folder / LISTING).read_text())["generators"][0]["outputs"][0]


def test_a_missing_input_is_generated_with_the_listed_hash(folder):
    out = _listed(folder)
    assert not (folder / out["file"]).exists()
    ensure_inputs(folder)
    assert _sha256(folder / out["file"]) == out["sha256"]
    assert (folder / out["file"]).stat().st_size == out["size"]
    assert sorted(p.name for p in folder.iterdir()) == sorted(["forest.c", "gen_forest.py", "manifest.json", LISTING,
                                                               out["file"]])


def test_a_changed_input_is_made_again_and_a_current_one_left_alone(folder):
    out = _listed(folder)
    path = folder / out["file"]
    path.write_text("ph,moisture\n1,2\n")
    ensure_inputs(folder)
    assert _sha256(path) == out["sha256"]
    before = path.stat().st_mtime_ns
    ensure_inputs(folder)
    assert path.stat().st_mtime_ns == before


def test_read_manifest_makes_the_inputs_it_then_checks(folder):
    runs = read_manifest(folder / "manifest.json")
    assert [r.inputs for r in runs] == [(folder / "soil.csv",)]
    assert _sha256(folder / "soil.csv") == _listed(folder)["sha256"]


def test_a_tampered_hash_is_refused_in_one_line_and_nothing_is_written(folder):
    listing = json.loads((folder / LISTING).read_text())
    listing["generators"][0]["outputs"][0]["sha256"] = "0" * 64
    (folder / LISTING).write_text(json.dumps(listing))
    with pytest.raises(UsageError, match="soil.csv with sha256 .* lists 000000000000") as exc:
        ensure_inputs(folder)
    assert "\n" not in exc.value.line()
    assert not (folder / "soil.csv").exists()
    with pytest.raises(UsageError, match="no longer reproduces"):
        read_manifest(folder / "manifest.json")


def test_a_failing_generator_is_refused_in_one_line(folder):
    listing = json.loads((folder / LISTING).read_text())
    listing["generators"][0]["args"] = ["one", "two"]
    (folder / LISTING).write_text(json.dumps(listing))
    with pytest.raises(UsageError, match=r"failed \(exit 2\): usage: gen_forest.py OUTDIR"):
        ensure_inputs(folder)
    assert main([str(folder)]) == 2
    assert not (folder / "soil.csv").exists()


@pytest.mark.parametrize("listing, message", [
    ("[]", "\"generators\" list"),
    ('{"generators": [{"script": "../gen.py", "outputs": []}]}', "plain file name"),
    ('{"generators": [{"script": "gen.py", "outputs": []}]}', "non-empty list"),
    ('{"generators": [{"script": "gen.py", "outputs": [{"file": "a.txt", "sha256": "ab", "size": 1}]}]}',
     "64 hex digits"),
])
def test_a_malformed_listing_is_refused(tmp_path, listing, message):
    (tmp_path / LISTING).write_text(listing)
    with pytest.raises(UsageError, match=message):
        ensure_inputs(tmp_path)


def test_a_folder_without_a_listing_needs_nothing(tmp_path):
    ensure_inputs(tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("program_folder", FOLDERS, ids=lambda p: p.name)
def test_every_listed_input_is_a_manifest_input_with_its_generator_beside_it(program_folder):
    manifest = json.loads((program_folder / "manifest.json").read_text())
    inputs = {f for entry in manifest for f in entry.get("inputs", [])}
    generators = read_listing(program_folder)
    listed = [o.file for g in generators for o in g.outputs]
    assert sorted(listed) == sorted(inputs)
    assert all((program_folder / g.script).is_file() for g in generators)
