"""Merge what a GPU run of scripts/collect_cudagen_gpu.py returned into datasets/cuda-<gpu>/.

    python scripts/merge_gpu_rows.py FOLDER...

Each `cudagen-<gpu>-<time>.parquet` goes to `datasets/cuda-<gpu>/`, its `-repeats.parquet` (the noise runs) to
`datasets/cuda-<gpu>-repeats/` and its `-summary.json` (the machine, counts, timings) to
`datasets/cuda-<gpu>/runs/`. A file already there with the same name is left alone (merging twice adds nothing).
Rows are stored without the columns that are recomputed from the others (`point_id`, a hash of the point:
`mirtune.measure.records.point_id`; `cv`, the spread of `reported`), compressed harder: a run of 700 kernels is then
about 1.4 MB instead of 4, which keeps the repository small enough to travel to the GPU machine.
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import pyarrow.parquet as pq

from mirtune.measure.records import write_kept_parquet

REPO = Path(__file__).resolve().parents[1]
DERIVED_COLUMNS = ("point_id", "cv")
_NAME = re.compile(r"^cudagen-(?P<gpu>[a-z0-9]+)-(?P<stamp>\d{8}T\d{6})(?P<kind>-repeats\.parquet|\.parquet|-summary\.json)$")


def destination(name: str, datasets: Path) -> Path | None:
    """Where a returned file belongs, or None for a file that is not one of the run's."""
    m = _NAME.match(name)
    if m is None:
        return None
    gpu, kind = m["gpu"], m["kind"]
    folder = {"-repeats.parquet": f"cuda-{gpu}-repeats", ".parquet": f"cuda-{gpu}",
              "-summary.json": f"cuda-{gpu}/runs"}[kind]
    return datasets / folder / name


def compact_copy(src: Path, dest: Path) -> None:
    """Write the rows of `src` to `dest` without the derived columns, encoded to be kept."""
    table = pq.read_table(src)
    write_kept_parquet(table.drop_columns([c for c in DERIVED_COLUMNS if c in table.column_names]), dest)


def main(argv: list[str] | None = None) -> int:
    folders = [Path(a) for a in (sys.argv[1:] if argv is None else argv)]
    if not folders:
        print("usage: merge_gpu_rows.py FOLDER...", file=sys.stderr)
        return 2
    moved = 0
    for folder in folders:
        if not folder.is_dir():
            print(f"merge_gpu_rows: not a folder: {folder}", file=sys.stderr)
            return 2
        for f in sorted(folder.iterdir()):
            dest = destination(f.name, REPO / "datasets")
            if dest is None or dest.exists():
                continue
            dest.parent.mkdir(parents=True, exist_ok=True)
            if dest.suffix == ".parquet":
                compact_copy(f, dest)
            else:
                shutil.copyfile(f, dest)
            print(f"{f.name} -> {dest.relative_to(REPO)}")
            moved += 1
    print(f"merged {moved} file(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
