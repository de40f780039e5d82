"""Summarise a dataset folder written by a sweep: points by status, measurement noise, per-sweep figures.

    python -m collectors.summarize DIR [DIR ...] [--json]      (also: mirtune collect summary DIR)

Noise is the coefficient of variation (sample standard deviation / mean) of each `ok` point's timed runs; the
summary gives its median over points, with the 10th/90th percentiles and the share of points above 5% and 10%.
For the OpenMP sweep it adds, per (program, input size), the best configuration's speedup over the default; for
the vectorize sweep, per kernel, the best (VF, IF)'s speedup over LLVM's own choice and how often a forced
factor produced wrong output; for the LS-CAT sweep, per (kernel, matrix), the best block's speedup over (16,16)
on the kernel's own time.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any


def _geomean(values: list[float]) -> float | None:
    vals = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in vals) / len(vals)) if vals else None


def _speedups(df: Any, keys: list[str], time_col: str) -> list[dict[str, Any]]:
    """Per group of `keys`: the default's time, the best ok configuration's time, and their ratio."""
    out = []
    for key, g in df.groupby(keys, sort=True):
        ok = g[(g["status"] == "ok") & g[time_col].notna()]
        base = ok[ok["is_default"]]
        if base.empty or ok.empty:
            continue
        best = ok.loc[ok[time_col].idxmin()]
        t0 = float(base[time_col].iloc[0])
        out.append({"group": list(key) if isinstance(key, tuple) else [key], "default_s": t0,
                    "best_s": float(best[time_col]), "speedup": t0 / float(best[time_col]),
                    "best_point_id": best["point_id"]})
    return out


def _window(df: Any, since: str | None, until: str | None) -> Any:
    """The rows whose timestamp lies in [since, until) (ISO 8601 times; UTC when no zone is given)."""
    import pandas as pd

    if (since is None and until is None) or df.empty:
        return df
    ts = pd.to_datetime(df["timestamp"], utc=True)
    keep = pd.Series(True, index=df.index)
    for bound, after in ((since, True), (until, False)):
        if bound is not None:
            t = pd.Timestamp(bound)
            t = t.tz_localize("UTC") if t.tzinfo is None else t.tz_convert("UTC")
            keep &= (ts >= t) if after else (ts < t)
    return df[keep]


def _spread(cv: Any) -> dict[str, Any]:
    """Median, p10, p90 and the shares above 5% and 10% of a series of coefficients of variation."""
    return {"median": float(cv.median()), "p10": float(cv.quantile(0.1)), "p90": float(cv.quantile(0.9)),
            "share_above_5pct": float((cv > 0.05).mean()), "share_above_10pct": float((cv > 0.10).mean()),
            "points": int(len(cv))}


def summary_dict(out_dir: str | Path, since: str | None = None, until: str | None = None) -> dict[str, Any]:
    """The figures of one dataset folder as a dict, optionally of the points measured in [since, until)."""
    from mirtune.measure.records import read_rows

    df = _window(read_rows(out_dir), since, until)
    res: dict[str, Any] = {"dir": str(out_dir), "points": int(len(df))}
    if since or until:
        res["window"] = [since, until]
    if df.empty:
        return res
    res["sweeps"] = sorted(df["sweep"].dropna().unique().tolist())
    res["programs"] = int(df["program"].nunique())
    res["by_status"] = {k: int(v) for k, v in df["status"].value_counts().sort_index().items()}
    ok = df[df["status"] == "ok"]
    cv = ok["cv"].dropna()
    if len(cv):
        res["cv"] = _spread(cv)
    if "timestamp" in df:
        ts = df["timestamp"].dropna().sort_values()
        if len(ts):
            res["first"], res["last"] = str(ts.iloc[0]), str(ts.iloc[-1])
    hosts = df[["host_hostname", "host_cpu_model", "host_logical_cores", "host_gpu_model",
                "host_clang_version"]].drop_duplicates() if "host_cpu_model" in df else None
    if hosts is not None:
        res["hosts"] = [{k: (None if (isinstance(v, float) and math.isnan(v)) else
                             (int(v) if k == "host_logical_cores" and v is not None else v))
                         for k, v in rec.items()} for rec in hosts.to_dict("records")]
    if "loadavg_1m" in ok and ok["loadavg_1m"].notna().any():
        res["loadavg_1m_median"] = float(ok["loadavg_1m"].median())
    sweep = res["sweeps"][0] if len(res["sweeps"]) == 1 else None
    if sweep == "openmp":
        # a group: a program at one input size, or run one way (its variant: arguments and input files)
        runs = df.assign(variant=df["variant"].fillna("")) if "variant" in df else df.assign(variant="")
        sp = _speedups(runs, ["program", "input_size", "variant"], "median_s")
        res["openmp"] = {"groups": len(sp), "best_over_default_geomean": _geomean([s["speedup"] for s in sp]),
                         "groups_where_default_is_best": sum(1 for s in sp if s["speedup"] <= 1.0 + 1e-12)}
    elif sweep == "vectorize":
        sp = _speedups(df, ["program"], "median_s")
        forced = df[~df["is_default"]]
        wrong = forced[forced["status"] == "wrong_output"]
        res["vectorize"] = {"kernels": len(sp), "best_over_baseline_geomean": _geomean([s["speedup"] for s in sp]),
                            "kernels_where_baseline_is_best": sum(1 for s in sp if s["speedup"] <= 1.0 + 1e-12),
                            "wrong_output_points": int(len(wrong)),
                            "kernels_with_wrong_output": int(wrong["program"].nunique()),
                            "wrong_output_templates": sorted(wrong["template"].dropna().unique().tolist())
                            if "template" in wrong else []}
    elif sweep == "lscat":
        sp = _speedups(df, ["program", "input_size"], "reported_median")
        res["lscat"] = {"groups": len(sp), "best_over_16x16_geomean": _geomean([s["speedup"] for s in sp])}
        # the label's own noise: the kernel times the program reported, over the points timed more than once
        import numpy as np
        import pandas as pd

        runs = [np.asarray(v, dtype=float) for v in ok["reported"] if v is not None and len(v) > 1]
        if runs:
            res["reported_cv"] = _spread(pd.Series([r.std() / r.mean() for r in runs]))
    return res


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def summarize(out_dir: str | Path, as_json: bool = False, since: str | None = None,
              until: str | None = None) -> list[str]:
    """Lines describing one dataset folder (one JSON line with `as_json`), or the points of a time window."""
    d = summary_dict(out_dir, since, until)
    if as_json:
        return [json.dumps(d, sort_keys=True)]
    window = f" measured in [{since or '...'}, {until or '...'})" if "window" in d else ""
    lines = [f"{d['dir']}: {d['points']} point(s){window}"]
    if not d["points"]:
        return lines
    lines.append(f"  sweep: {', '.join(d['sweeps'])}; programs: {d['programs']}")
    lines.append("  by status: " + ", ".join(f"{k} {v}" for k, v in d["by_status"].items()))
    for key, what in (("cv", "the timed runs"), ("reported_cv", "the times the programs reported")):
        if key in d:
            c = d[key]
            lines.append(f"  noise (CV of {what} of {c['points']} ok points): median {c['median']:.2%}, "
                         f"p10 {c['p10']:.2%}, p90 {c['p90']:.2%}; above 5%: {c['share_above_5pct']:.0%}, "
                         f"above 10%: {c['share_above_10pct']:.0%}")
    if "loadavg_1m_median" in d:
        lines.append(f"  machine load (1-min load average at the start of a point), median: "
                     f"{d['loadavg_1m_median']:.1f}")
    if "first" in d:
        lines.append(f"  collected: {d['first']} .. {d['last']}")
    for h in d.get("hosts", []):
        lines.append("  host: " + ", ".join(f"{k.removeprefix('host_')}={_fmt(v)}" for k, v in h.items()))
    for key in ("openmp", "vectorize", "lscat"):
        if key in d:
            lines.append(f"  {key}: " + ", ".join(f"{k}={_fmt(v)}" for k, v in d[key].items()))
    return lines


def add_window_arguments(ap: argparse.ArgumentParser) -> None:
    """--since / --until: summarise only the points measured in a time window."""
    ap.add_argument("--since", metavar="TIME", help="only points measured at or after TIME (ISO 8601, UTC default)")
    ap.add_argument("--until", metavar="TIME", help="only points measured before TIME")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m collectors.summarize", description=__doc__.strip().splitlines()[0])
    ap.add_argument("dirs", nargs="+", metavar="DIR")
    ap.add_argument("--json", action="store_true", help="one JSON object per folder")
    add_window_arguments(ap)
    args = ap.parse_args(argv)
    for i, d in enumerate(args.dirs):
        if not Path(d).is_dir():
            print(f"summarize: {d}: not a directory", file=sys.stderr)
            return 2
        if i and not args.json:
            print()
        try:
            lines = summarize(d, as_json=args.json, since=args.since, until=args.until)
        except ValueError as exc:
            print(f"summarize: bad --since/--until time: {exc}", file=sys.stderr)
            return 2
        for line in lines:
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
