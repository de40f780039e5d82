"""Search spaces and the `--space key=v1,v2 ...` restrictions a user gives on the command line.

A sweep declares its dimensions (name, value type, default values, allowed choices); `parse_space` turns
`["threads=1,2", "schedule=static", "chunk=1,64"]` (or the same in one whitespace-separated string) into
`{"threads": (1, 2), "schedule": ("static",), "chunk": (1, 64)}`, and rejects an unknown key, a value of the
wrong type, a non-positive or non-finite number, one above the dimension's maximum, a choice not offered, an empty list or a key given twice, each with one
clear line (UsageError).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Mapping

from mirtune.errors import UsageError


@dataclass(frozen=True)
class Dimension:
    """One configuration parameter: its type, its default values and (for text) the values allowed."""

    name: str
    kind: type
    values: tuple[Any, ...]
    choices: tuple[Any, ...] | None = None
    positive: bool = True
    help: str = ""
    maximum: float | None = None  # the largest value accepted (None: no bound)

    def parse(self, text: str, item: str) -> Any:
        """One value of this dimension from text; UsageError naming `item` when it is not valid."""
        text = text.strip()
        if self.kind is str:
            value: Any = text.lower()
        else:
            try:
                value = self.kind(text)
            except ValueError:
                what = "an integer" if self.kind is int else "a number"
                raise UsageError(f"--space {item}: {text!r} is not {what}") from None
            if self.kind is float and not math.isfinite(value):
                raise UsageError(f"--space {item}: {text!r} is not a finite number")
            if self.kind is float and value == int(value):
                value = float(int(value))
            if self.positive and value <= 0:
                raise UsageError(f"--space {item}: {self.name} must be positive, got {text}")
            if self.maximum is not None and value > self.maximum:
                raise UsageError(f"--space {item}: {self.name} must be at most {self.kind(self.maximum)}, got {text}")
        if self.choices is not None and value not in self.choices:
            raise UsageError(f"--space {item}: {text!r} is not a {self.name}; choose from "
                             f"{', '.join(map(str, self.choices))}")
        return value


def _items(specs: Iterable[str] | str | None) -> list[str]:
    if specs is None:
        return []
    if isinstance(specs, str):
        specs = [specs]
    out: list[str] = []
    for s in specs:
        out += s.split()
    return out


def parse_space(specs: Iterable[str] | str | None, dims: Mapping[str, Dimension]) -> dict[str, tuple[Any, ...]]:
    """Parse restrictions `key=v1,v2` against `dims`; only the keys given appear in the result."""
    out: dict[str, tuple[Any, ...]] = {}
    for item in _items(specs):
        if "=" not in item:
            raise UsageError(f"--space {item}: expected key=value[,value...] with a key among "
                             f"{', '.join(dims)}")
        key, _, raw = item.partition("=")
        key = key.strip().lower()
        if key not in dims:
            raise UsageError(f"--space {item}: unknown key {key!r}; known keys: {', '.join(dims)}")
        if key in out:
            raise UsageError(f"--space {item}: {key} given twice")
        parts = [p for p in raw.split(",") if p.strip()]
        if not parts:
            raise UsageError(f"--space {item}: no values for {key}")
        values: list[Any] = []
        for p in parts:
            v = dims[key].parse(p, item)
            if v not in values:
                values.append(v)
        out[key] = tuple(values)
    return out


def resolve(dims: Mapping[str, Dimension], restrict: Mapping[str, tuple[Any, ...]]) -> dict[str, tuple[Any, ...]]:
    """Every dimension's values: the restriction where one is given, else the default values."""
    return {name: tuple(restrict.get(name, d.values)) for name, d in dims.items()}
