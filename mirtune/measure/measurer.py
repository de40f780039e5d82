"""The one measurement interface: a `Measurer` builds and times one configuration of a program, or looks it up.

`measure(params)` answers a `Record` for a configuration (None: the default): its score, the speedup over the
default (0 when it failed or was never measured, so that it can never win), its status and, for a live
measurement, the dataset row. Two implementations:

- `LiveMeasurer` (in `mirtune.predict.tune`, where the plan of a tuning lives) builds the configuration and
  times it against the default in interleaved rounds, on this node: what a Ray Tune trial of `mirtune tune` runs,
  and what `mirtune.predict.search.search` can drive in-process;
- `RecordedMeasurer` looks configurations up in a recorded dataset (one group's rows, or its gain-table row):
  what the replay of tuning on the datasets (`mirtune evaluate tuning`) feeds to the very same search.

The Ray Data sweep's timed points (`collectors.sweep.timed_point`) are no measurer: a sweep times every point of
a grid on its own (repeats, under a power limit, on a GPU), not against the default, so a point has no score when
it is measured; its speedup exists only once the group's rows are read back, which `RecordedMeasurer.from_rows`
does.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Protocol, Sequence

METRIC = "speedup"
MISSING = "missing"


@dataclass(frozen=True)
class Record:
    """What measuring one configuration showed: its score (speedup over the default, 0 when it failed or is
    missing), its status ("ok", a failure, or "missing") and, where one was written, its dataset row."""

    score: float
    status: str = "ok"
    row: dict[str, Any] | None = field(default=None, compare=False)


class Measurer(Protocol):
    """Builds and times one configuration of a program (None: the default), or looks it up."""

    def measure(self, params: Mapping[str, Any] | None) -> Record:
        """The record of one configuration."""
        ...


def score_of(row: Mapping[str, Any]) -> float:
    """A row's speedup over the default, 0 when it failed or has none."""
    s = row.get(METRIC)
    return float(s) if row.get("status") == "ok" and s is not None and s == s else 0.0


class RecordedMeasurer:
    """A `Measurer` over a recorded dataset: configuration (values in `names`' order) -> its record; a
    configuration the dataset lacks scores 0 with status "missing". The default scores 1."""

    def __init__(self, names: Sequence[str], records: Mapping[tuple, Record]) -> None:
        self.names = tuple(names)
        self.records = dict(records)
        self.calls: list[tuple | None] = []

    def key(self, params: Mapping[str, Any]) -> tuple:
        """A configuration's identity: its values in the measurer's parameter order."""
        return tuple(params.get(n) for n in self.names)

    def measure(self, params: Mapping[str, Any] | None) -> Record:
        """The recorded record of a configuration (None: the default, 1.0)."""
        if params is None:
            self.calls.append(None)
            return Record(1.0)
        key = self.key(params)
        self.calls.append(key)
        return self.records.get(key, Record(0.0, MISSING))

    @classmethod
    def from_speedups(cls, names: Sequence[str], configs: Sequence[Mapping[str, Any]],
                      speedups: Iterable[float]) -> "RecordedMeasurer":
        """From a gain table's row: `configs[i]` measured `speedups[i]` (NaN: failed, scores 0); configs[0], the
        default, is left out."""
        records = {}
        for cfg, s in list(zip(configs, speedups))[1:]:
            ok = s is not None and math.isfinite(s)
            records[tuple(cfg.get(n) for n in names)] = Record(float(s) if ok else 0.0, "ok" if ok else "failed")
        return cls(names, records)

    @classmethod
    def from_rows(cls, names: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> "RecordedMeasurer":
        """From one group's dataset rows (one program variant, one input size), oldest first: a row's own speedup
        where it has one (a tuning's rows), else the group's default time over its time; the latest row of a
        configuration wins."""
        rows = list(rows)
        defaults = [r for r in rows if r.get("is_default") and r.get("status") == "ok"]
        base = defaults[-1].get("median_s") if defaults else None
        records = {}
        for r in rows:
            if r.get("is_default"):
                continue
            row = dict(r)
            if row.get(METRIC) is None and row.get("status") == "ok" and base and row.get("median_s"):
                row[METRIC] = float(base) / float(row["median_s"])
            records[tuple(r.get(n) for n in names)] = Record(score_of(row), str(r.get("status")), row)
        return cls(names, records)
