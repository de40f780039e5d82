"""Program manifests: reading them, and every bad manifest refused in one line before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from collectors.manifest import ProgramRun, read_manifest
from mirtune.errors import UsageError


def _write(folder: Path, entries: object) -> Path:
    path = folder / "manifest.json"
    path.write_text(json.dumps(entries))
    return path


def test_runs_args_and_paths_relative_to_the_manifest(tmp_path):
    (tmp_path / "a.c").write_text("int main(void){return 0;}\n")
    (tmp_path / "b.c").write_text("int main(void){return 0;}\n")
    (tmp_path / "in.txt").write_text("3\n")
    path = _write(tmp_path, [
        {"name": "a", "source": "a.c", "inputs": ["in.txt"], "runs": [["in.txt", "1"], ["in.txt", 20]]},
        {"source": "b.c", "args": ["7"]},
        {"source": "b.c"},
    ])
    assert read_manifest(path) == [
        ProgramRun("a", tmp_path / "a.c", ("in.txt", "1"), (tmp_path / "in.txt",)),
        ProgramRun("a", tmp_path / "a.c", ("in.txt", "20"), (tmp_path / "in.txt",)),
        ProgramRun("b", tmp_path / "b.c", ("7",), ()),
        ProgramRun("b", tmp_path / "b.c", (), ()),
    ]


@pytest.mark.parametrize("entries, message", [
    ({"source": "a.c"}, "non-empty JSON list"),
    ([], "non-empty JSON list"),
    ([{"name": "x"}], "entry 1 has no \"source\""),
    ([{"source": "gone.c"}], "entry 1's source not found"),
    ([{"source": "a.c", "inputs": ["gone.txt"]}], "a's input not found"),
    ([{"source": "a.c", "runs": []}], "\"runs\" must be a non-empty list"),
    ([{"source": "a.c", "runs": ["x y"]}], "must be a list of strings"),
    ([{"source": "a.c", "args": "x y"}], "must be a list of strings"),
])
def test_a_bad_manifest_is_one_usage_error(tmp_path, entries, message):
    (tmp_path / "a.c").write_text("int main(void){return 0;}\n")
    with pytest.raises(UsageError, match=message):
        read_manifest(_write(tmp_path, entries))


def test_a_missing_or_unreadable_manifest(tmp_path):
    with pytest.raises(UsageError, match="manifest not found"):
        read_manifest(tmp_path / "nothing.json")
    (tmp_path / "m.json").write_bytes(b"\x00\xff[{")
    with pytest.raises(UsageError, match="not readable JSON"):
        read_manifest(tmp_path / "m.json")


def test_a_program_of_several_files_and_its_include_folders(tmp_path):
    for name in ("main.c", "solver.c"):
        (tmp_path / name).write_text("int x;\n")
    (tmp_path / "include").mkdir()
    path = _write(tmp_path, [{"source": ["main.c", "solver.c"], "include": ["include"], "args": ["5"]}])
    assert read_manifest(path) == [ProgramRun("main", tmp_path / "main.c", ("5",), (), (tmp_path / "solver.c",),
                                              (tmp_path / "include",))]
    for entry, message in (({"source": ["main.c", "gone.c"]}, "entry 1's source not found"),
                           ({"source": []}, "entry 1 has no \"source\""),
                           ({"source": ["main.c", 3]}, "entry 1 has no \"source\""),
                           ({"source": "main.c", "include": ["nowhere"]}, "main's include folder not found")):
        with pytest.raises(UsageError, match=message):
            read_manifest(_write(tmp_path, [entry]))
