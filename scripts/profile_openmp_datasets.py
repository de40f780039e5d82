"""Profile every program of the OpenMP datasets once under mirtune's OMPT tool (issue 34, part 4's features).

    nice -n 19 .venv/bin/python scripts/profile_openmp_datasets.py [--out datasets/openmp-profile/profile.parquet]

For each (program, input size, variant) whose default configuration ran in a dataset the OpenMP task learns from
(`mirtune.tasks.openmp.DATASETS`), the program is built as its sweep built it (the schedule(runtime) copy, the
MIRTUNE_SIZE define of sized programs) from the repository's copy of its source, run once with its arguments,
input files and answer check at OMP_NUM_THREADS = this machine's cores, and its `ProfileFeatures` become one row.
A source that changed since it was measured (another SHA-256), a missing input or a run without a profile is a
row with its status and reason, not a stop. Rows already in --out are kept and not profiled again (a rerun
resumes); the file is rewritten whole after each program. `--summary` compares, without running anything, the
features of the groups where one thread is at least 1.25x faster than the default with the others. The thread
probe is not run here: the datasets already hold its two runs, the untimed warm-up runs of the default and of one
thread (`mirtune.profile.features.probe_column`).
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import sys
import time
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any, Sequence

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from collectors.openmp import answer_check
from mirtune.errors import MirtuneError  # noqa: E402
from mirtune.measure.build import BuildSpec  # noqa: E402
from mirtune.measure.check import OutputCheck  # noqa: E402
from mirtune.measure.host import host_info  # noqa: E402
from mirtune.measure.openmp import rewrite_for_runtime_schedule  # noqa: E402
from mirtune.measure.records import read_rows  # noqa: E402
from mirtune.paths import write_atomic  # noqa: E402
from mirtune.profile.ompt import ProfileFeatures, profile_build  # noqa: E402
from mirtune.tasks.openmp import DATASETS  # noqa: E402

KEY = ("dataset", "program", "input_size", "variant")
ROOTS = ("collectors/programs/", "benchmarks/programs/")


def repository_source(path: str) -> Path | None:
    """The repository's copy of a program measured from a frozen copy of the code (its path from
    collectors/programs/ or benchmarks/programs/ on)."""
    for root in ROOTS:
        if root in path:
            return REPO / (root + path.split(root, 1)[1])
    return None


def targets(datasets: Sequence[str] = DATASETS) -> list[dict[str, Any]]:
    """One entry per (dataset, program, input size, variant) whose default configuration ran."""
    out = []
    for name in datasets:
        rows = read_rows(REPO / "datasets" / name)
        rows = rows[rows["is_default"] & (rows["status"] == "ok")]
        if "variant" not in rows.columns:
            rows = rows.assign(variant=None)
        rows = rows.assign(variant=rows["variant"].fillna(""))
        for r in rows.drop_duplicates(["program", "input_size", "variant"]).to_dict("records"):
            out.append({"dataset": name, "program": r["program"], "input_size": int(r["input_size"]),
                        "variant": r["variant"], "program_path": r["program_path"],
                        "program_sha256": r["program_sha256"], "default_median_s": float(r["median_s"])})
    return out


def profile_one(t: dict[str, Any], timeout_s: float) -> dict[str, Any]:
    """The profile row of one target (status ok, or why there is none)."""
    from collectors.inputs import ensure_inputs

    src = repository_source(t["program_path"])
    if src is None or not src.is_file():
        return {"status": "missing_source", "reason": f"no repository copy of {t['program_path']}"}
    source = src.read_text(errors="replace")
    if hashlib.sha256(source.encode()).hexdigest() != t["program_sha256"]:
        return {"status": "source_changed", "reason": f"{src.relative_to(REPO)} changed since it was measured"}
    variant = json.loads(t["variant"]) if t["variant"] else {}
    if (src.parent / "inputs.json").is_file():
        ensure_inputs(src.parent)
    files = {}
    for name, digest in (variant.get("inputs") or {}).items():
        path = src.parent / name
        data = path.read_bytes() if path.is_file() else None
        if data is None or hashlib.sha256(data).hexdigest()[:16] != digest:
            return {"status": "missing_input", "reason": f"input {name} is missing or not the one measured"}
        files[name] = data
    check = variant.get("check")
    check = OutputCheck(check[0], check[1] or "", 1e-6) if check else answer_check(source, None)
    sized = "MIRTUNE_SIZE" in source or "checksum:" in source
    text = rewrite_for_runtime_schedule(source)[0]
    spec = BuildSpec(name=src.stem, source=text, suffix=src.suffix, openmp=True, opt=2,
                     defines={"MIRTUNE_SIZE": str(t["input_size"])} if sized else {},
                     include_dirs=(str(src.parent),))
    try:
        prof = profile_build(spec, variant.get("args") or (), files, check, timeout_s, str(src), probe_rounds=0)
    except MirtuneError as exc:
        return {"status": "failed", "reason": exc.line()}
    return {"status": "ok", "reason": "; ".join(prof.notes), "threads": prof.threads, **asdict(prof.features)}


def write(rows: list[dict[str, Any]], out: Path) -> None:
    """All rows as one zstd Parquet file, written whole."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pandas(pd.DataFrame(rows), preserve_index=False), buf, compression="zstd")
    write_atomic(out, buf.getvalue())


SUMMARY = ("region_entries_per_s", "time_per_region_s", "work_share", "parallel_share", "imbalance",
           "iterations_per_loop")


def summary(out: Path, datasets: Sequence[str] = DATASETS) -> None:
    """Print the median features where one thread is >= 1.25x faster than the default (the best one-thread
    configuration's median time in the dataset) and elsewhere, and each feature's rank correlation with that
    one-thread gain."""
    import pandas as pd

    prof = pd.read_parquet(out)
    prof = prof[prof["status"] == "ok"]
    gains = []
    for name in datasets:
        rows = read_rows(REPO / "datasets" / name)
        rows = rows.assign(variant=(rows["variant"] if "variant" in rows.columns else None)).fillna({"variant": ""})
        ok = rows[rows["status"] == "ok"]
        default = ok[ok["is_default"]].groupby(["program", "input_size", "variant"])["median_s"].first()
        one = ok[~ok["is_default"] & (ok["threads"] == 1)].groupby(["program", "input_size", "variant"])["median_s"].min()
        gains.append((default / one).dropna().rename("one_thread_gain").reset_index().assign(dataset=name))
    m = prof.merge(pd.concat(gains), on=list(KEY))
    m["one_thread_wins"] = m["one_thread_gain"] >= 1.25
    print(f"{len(m)} profiled groups with a one-thread measurement; one thread >= 1.25x faster in "
          f"{int(m['one_thread_wins'].sum())}")
    print(m.groupby("one_thread_wins")[list(SUMMARY)].median().T.to_string(float_format=lambda v: f"{v:.4g}"))
    print("Spearman correlation with the one-thread gain:")
    for c in SUMMARY:
        print(f"  {c}: {m[c].corr(m['one_thread_gain'], method='spearman'):.3f}")


def main(argv: list[str] | None = None) -> int:
    """Profile what is not yet in --out; exit 1 when some target gave no profile."""
    ap = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    ap.add_argument("--out", default=str(REPO / "datasets" / "openmp-profile" / "profile.parquet"))
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run before it is killed")
    ap.add_argument("--summary", action="store_true", help="compare the features where one thread wins; run nothing")
    ap.add_argument("--datasets", default=",".join(DATASETS), metavar="NAME,NAME",
                    help="folders under datasets/ to profile (default: the openmp task's data)")
    args = ap.parse_args(argv)
    out = Path(args.out)
    datasets = [d for d in args.datasets.split(",") if d]
    missing = [d for d in datasets if not (REPO / "datasets" / d).is_dir()]
    if missing:
        print(f"profile_openmp_datasets: no such dataset: {', '.join(missing)}", file=sys.stderr)
        return 2
    if out.is_dir() or out.suffix != ".parquet":
        print(f"profile_openmp_datasets: --out names the table to write, a .parquet file: {out}", file=sys.stderr)
        return 2
    if args.summary:
        summary(out, datasets)
        return 0
    import pandas as pd

    rows = pd.read_parquet(out).to_dict("records") if out.is_file() else []
    done = {tuple(r[k] for k in KEY) for r in rows}
    todo = [t for t in targets(datasets) if tuple(t[k] for k in KEY) not in done]
    host = host_info().row()
    print(f"{len(done)} profiled before, {len(todo)} to profile -> {out}", flush=True)
    empty = {f.name: None for f in fields(ProfileFeatures)}
    for i, t in enumerate(todo, 1):
        started = time.time()
        res = profile_one(t, args.timeout)
        row = {k: t[k] for k in (*KEY, "program_sha256", "default_median_s")} | {"threads": None} | empty | res
        row |= {"profiled_at": pd.Timestamp.now(tz="UTC").isoformat(timespec="seconds"),
                "host_cpu_model": host.get("host_cpu_model"), "host_clang_version": host.get("host_clang_version")}
        rows.append(row)
        write(rows, out)
        what = (f"{res['run_s']:.3f}s, {res['region_entries']} entries, share {res['parallel_share']:.2f}"
                if res["status"] == "ok" else f"{res['status']}: {res['reason']}")
        print(f"[{i}/{len(todo)}] {t['dataset']} {t['program']} size {t['input_size']}: {what} "
              f"({time.time() - started:.1f}s)", flush=True)
    failed = [r for r in rows if r["status"] != "ok"]
    print(f"{len(rows) - len(failed)} profiled, {len(failed)} without a profile", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
