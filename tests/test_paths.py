"""mirtune.paths: temporary folders that a killed process left behind are removed by the next one (issue 33 item 12);
a file is written whole; a folder lock keeps a second writer out."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

import pytest

from mirtune.errors import UsageError
from mirtune.paths import DirLock, gzip_json, private_temp_dir, read_gzip_json, write_atomic, write_result


def test_a_killed_process_s_temporary_folder_is_removed_at_the_next_start(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()  # its pid is free now: the folder it named is stale
    stale = tmp_path / f"mirtune-tune-{gone.pid}-abcd1234"
    (stale / "mirtune-tune").mkdir(parents=True)
    alive = tmp_path / f"mirtune-tune-{os.getppid()}-abcd1234"  # a running process's: kept
    alive.mkdir()
    other = tmp_path / "mirtune-tune-something"  # not named by a pid: not ours to judge
    other.mkdir()
    fresh = private_temp_dir("mirtune-tune-")
    assert not stale.exists() and alive.is_dir() and other.is_dir()
    assert fresh.parent == tmp_path and fresh.name.startswith(f"mirtune-tune-{os.getpid()}-")
    assert (fresh.stat().st_mode & 0o777) == 0o700


def test_write_atomic_leaves_no_temporary_file_and_sets_the_mode(tmp_path):
    path = write_atomic(tmp_path / "a" / "f.txt", "text", mode=0o600)
    assert path.read_text() == "text" and os.stat(path).st_mode & 0o777 == 0o600
    assert sorted(p.name for p in path.parent.iterdir()) == ["f.txt"]


def test_gzip_json_gives_the_same_bytes_for_the_same_value_and_reads_back(tmp_path):
    value = {"b": [1, 2.5, "x"], "a": None}
    assert gzip_json(value, indent=1) == gzip_json(dict(value), indent=1)  # no time in the header
    path = write_atomic(tmp_path / "m.json.gz", gzip_json(value, sort_keys=True))
    assert read_gzip_json(path) == value


def test_a_truncated_or_foreign_gzip_json_is_a_value_or_os_error(tmp_path):
    whole = gzip_json({"tests": list(range(1000))})
    (tmp_path / "cut.gz").write_bytes(whole[: len(whole) // 2])
    (tmp_path / "plain.gz").write_bytes(b'{"not": "gzipped"}')
    with pytest.raises(ValueError):
        read_gzip_json(tmp_path / "cut.gz")
    with pytest.raises(OSError):
        read_gzip_json(tmp_path / "plain.gz")


def test_a_folder_lock_keeps_a_second_writer_out_until_it_is_released(tmp_path):
    with DirLock(tmp_path, ".lock", "sweep"):
        with pytest.raises(UsageError, match="another sweep is writing to this folder") as err:
            with DirLock(tmp_path, ".lock", "sweep"):
                pass
        assert err.value.path == str(tmp_path)
    with DirLock(tmp_path, ".lock", "sweep"):
        pass


def test_a_result_file_is_one_compact_json_line_in_a_folder_made_for_it(tmp_path):
    import json

    import numpy as np

    value = {"share": [0.95, np.float64(0.5)], "groups": np.int64(279), "name": "openmp"}
    path = write_result(tmp_path / "new" / "result.json", value)
    text = path.read_text()
    assert text.count("\n") == 1 and ", " not in text and ": " not in text  # no indentation, no spaces
    assert json.loads(text) == {"share": [0.95, 0.5], "groups": 279, "name": "openmp"}
