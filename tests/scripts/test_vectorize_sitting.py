"""scripts/vectorize_sitting.py: which programs a sitting still has to measure, refusals before anything is built
(programs not built, a dataset of another CPU), and one real sitting of one chunk that a second sitting resumes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from mirtune.measure.host import cpu_tag
from mirtune.measure.records import read_rows

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "vectorize_sitting.py"
KERNELS = REPO / "collectors" / "programs" / "vectorize" / "kernels"


@pytest.fixture(scope="module")
def script(script_module):
    return script_module("vectorize_sitting")


def _other_cpu_dataset(tmp_path: Path) -> Path:
    """A copy of a committed VF/IF dataset measured on a CPU other than this one."""
    for name in ("vectorize-gcc-xeon", "vectorize-gcc"):
        src = REPO / "datasets" / name
        if cpu_tag() not in set(read_rows(src)["host_cpu_tag"]):
            return Path(shutil.copytree(src, tmp_path / name))
    pytest.skip("this CPU measured every committed VF/IF dataset")


def test_pending_keeps_the_order_and_drops_programs_measured_whole(script, tmp_path):
    data = REPO / "datasets" / "vectorize-gcc-xeon"
    rows = read_rows(data)
    measured = sorted(rows["program"].unique())[:3]
    order = [f"out/gccvect/new-{i}.c" for i in range(2)] + [f"out/gccvect/{p}.c" for p in measured]
    order.insert(1, "out/gccvect/new-x.c")
    assert script.pending(order, str(data)) == ["out/gccvect/new-0.c", "out/gccvect/new-x.c", "out/gccvect/new-1.c"]
    assert script.pending(order, str(tmp_path / "absent")) == order


def test_a_half_measured_program_is_still_pending(script, tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = REPO / "datasets" / "vectorize-gcc-xeon"
    rows = read_rows(data)
    a, b = sorted(rows["program"].unique())[:2]
    cut = rows[(rows["program"] == a) | ((rows["program"] == b) & (rows["vf"] != 1))]
    out = tmp_path / "cut"
    out.mkdir()
    pq.write_table(pa.Table.from_pandas(cut, preserve_index=False), out / "part-0-cut.parquet")
    assert script.pending([f"x/{a}.c", f"x/{b}.c"], str(out)) == [f"x/{b}.c"]


def test_refuses_programs_not_built_and_a_dataset_of_another_cpu(tmp_path):
    order = tmp_path / "order.txt"
    order.write_text(f"{tmp_path}/nowhere.c\n")
    r = subprocess.run([sys.executable, str(SCRIPT), "--order", str(order), "--out", str(tmp_path / "d"),
                        "--minutes", "1"], capture_output=True, text=True)
    assert r.returncode == 1 and "1 program(s) of the order are not built" in r.stderr
    assert "Traceback" not in r.stderr

    other = _other_cpu_dataset(tmp_path)
    order.write_text(f"{KERNELS / 'absdiff_char_0.c'}\n")
    before = sorted(p.name for p in other.iterdir())
    r = subprocess.run([sys.executable, str(SCRIPT), "--order", str(order), "--out", str(other), "--minutes", "1"],
                       capture_output=True, text=True)
    assert r.returncode == 1 and "was measured on CPU" in r.stderr and cpu_tag() in r.stderr
    assert sorted(p.name for p in other.iterdir()) == before


@pytest.mark.slow
def test_one_real_sitting_then_a_resume_with_nothing_left(tmp_path):
    order = tmp_path / "order.txt"
    progs = [KERNELS / "absdiff_char_0.c", KERNELS / "absdiff_double_0.c"]
    order.write_text("".join(f"{p}\n" for p in progs) + f"{tmp_path}/x-skipme-1.c\n")
    out = tmp_path / "d"
    cmd = [sys.executable, str(SCRIPT), "--order", str(order), "--out", str(out), "--minutes", "10", "--chunk", "1",
           "--exclude", "skipme", "--repeats", "1", "--warmup", "0", "--space", "vf=1,4", "if=1"]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 program(s) to measure" in r.stdout and "nothing left to measure" in r.stdout
    assert r.stdout.count(" build: ") == 2 and "load " in r.stdout
    rows = read_rows(out)
    assert sorted(rows["program"].unique()) == ["absdiff_char_0", "absdiff_double_0"]
    assert (rows["status"] == "ok").all() and set(rows["host_cpu_tag"]) == {cpu_tag()}
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "0 program(s) to measure" in again.stdout and " build: " not in again.stdout
    assert len(read_rows(out)) == len(rows)
