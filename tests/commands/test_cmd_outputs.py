"""Every command with an output path checks it before the work: a path inside a file, or a folder where a file is
expected, is one line on stderr and exit 2, never "internal error" (#18 item 6)."""

from __future__ import annotations

import pytest

from mirtune.cli import main

SOURCE = "int sq(int x) { return x * x; }\n"


@pytest.fixture
def place(tmp_path):
    """A source, its IR, a plain file to write "inside", and a folder named like an output file."""
    (tmp_path / "a.c").write_text(SOURCE)
    from mirtune.ir.frontend import compile_to_ir

    compile_to_ir(tmp_path / "a.c", tmp_path / "a.ll")
    (tmp_path / "file").write_text("not a folder")
    for name in ("dir.npy", "dir.ll", "dir.json", "tok.json"):
        (tmp_path / name).mkdir()
    return tmp_path


INSIDE_A_FILE = [
    ["embed", "{d}/a.ll", "-o", "{d}/file/e.npy"],
    ["embed", "{d}/a.ll", "-o", "{d}/file/e.parquet"],
    ["graph", "{d}/a.ll", "-o", "{d}/file/graphs"],
    ["graph", "{d}/a.ll", "-o", "{d}/file/a.json"],
    ["compile", "{d}/a.c", "-o", "{d}/file/a.ll"],
    ["tokenizer", "train", "{d}/a.ll", "-o", "{d}/file/tok.json"],
    ["corpus", "build", "--generate", "2", "-o", "{d}/file/corpus"],
    ["fit", "--task", "devmap", "-o", "{d}/file/heads"],
    ["demo", "-o", "{d}/file/demo"],
    ["collect", "openmp", "--programs", "{d}/a.c", "--out", "{d}/file/data"],
    ["pretrain", "--corpus", "{d}", "--out", "{d}/file/run"],
    ["evaluate", "measured", "openmp", "--no-ray", "--json", "{d}/file/r.json"],  # issue 33 item 6: before the work
    ["evaluate", "published", "devmap", "--no-ray", "--json", "{d}/file/r.json"],
    ["evaluate", "tuning", "--task", "openmp", "--no-ray", "--json", "{d}/file/r.json"],
    ["apply", "{d}/a.c", "--config", "threads=2", "-o", "{d}/file/a.c"],
]
FOLDER_FOR_A_FILE = [
    ["embed", "{d}/a.ll", "-o", "{d}/dir.npy"],
    ["graph", "{d}/a.ll", "-o", "{d}/dir.json"],
    ["compile", "{d}/a.c", "-o", "{d}/dir.ll"],
    ["tokenizer", "train", "{d}/a.ll", "-o", "{d}/tok.json"],
    ["evaluate", "measured", "openmp", "--no-ray", "--json", "{d}/dir.json"],  # issue 33 item 6
    ["evaluate", "measured", "openmp", "--no-ray", "--plot", "{d}/dir.json"],
    ["evaluate", "published", "devmap", "--no-ray", "--plot", "{d}/dir.json"],
    ["evaluate", "published", "coarsening", "--no-ray", "--json", "{d}/dir.json"],
    ["evaluate", "tuning", "--task", "openmp", "--no-ray", "--json", "{d}/dir.json"],
    ["evaluate", "tuning", "--task", "vectorize", "--no-ray", "--plot", "{d}/dir.json"],
    ["apply", "{d}/a.c", "--config", "threads=2", "-o", "{d}/dir.json"],
]
FILE_FOR_A_FOLDER = [
    ["graph", "{d}/a.ll", "-o", "{d}/file"],
    ["fit", "--task", "devmap", "-o", "{d}/file"],
    ["demo", "-o", "{d}/file"],
    ["collect", "vectorize", "--programs", "{d}/a.c", "--out", "{d}/file"],
    ["pretrain", "--corpus", "{d}", "--out", "{d}/file"],
]


def _run(argv, d, capsys):
    code = main([a.format(d=d) for a in argv])
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    return code, err


@pytest.mark.parametrize("argv", INSIDE_A_FILE, ids=lambda a: " ".join(a[:2]))
def test_output_inside_a_file_is_one_line_exit_2(argv, place, capsys):
    code, err = _run(argv, place, capsys)
    assert code == 2, err
    assert len(err) == 1 and "internal error" not in err[0], err
    assert f"{place}/file is a file, not a folder" in err[0]


@pytest.mark.parametrize("argv", FOLDER_FOR_A_FILE, ids=lambda a: " ".join(a[:2]))
def test_output_naming_a_folder_where_a_file_is_expected(argv, place, capsys):
    code, err = _run(argv, place, capsys)
    assert code == 2 and len(err) == 1 and "names a folder" in err[0], err


@pytest.mark.parametrize("argv", FILE_FOR_A_FOLDER, ids=lambda a: " ".join(a[:2]))
def test_output_folder_naming_a_file(argv, place, capsys):
    code, err = _run(argv, place, capsys)
    assert code == 2 and len(err) == 1 and "names a file, not a folder" in err[0], err
    assert (place / "file").read_text() == "not a folder"


def test_check_output_creates_nothing_and_accepts_new_paths(tmp_path):
    from mirtune.errors import UsageError
    from mirtune.paths import check_output

    assert check_output(tmp_path / "new" / "deeper" / "x.npy") == tmp_path / "new" / "deeper" / "x.npy"
    assert check_output(tmp_path / "new" / "dir", "dir") == tmp_path / "new" / "dir"
    assert not (tmp_path / "new").exists()
    (tmp_path / "f").write_text("")
    with pytest.raises(UsageError, match="--out cannot be created"):
        check_output(tmp_path / "f" / "g" / "h", "dir", "--out")
