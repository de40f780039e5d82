"""Plain-text tables for the terminal: columns padded to their widest cell."""

from __future__ import annotations


def format_table(header: list[str], rows: list[list[str]], rule: bool = True, indent: str = "") -> str:
    """Aligned columns, the first and last left-justified and the others right-justified (numbers), with a rule
    of dashes under the header unless `rule` is False."""
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]

    def line(r: list[str]) -> str:
        return indent + "  ".join(c.ljust(w) if i in (0, len(r) - 1) else c.rjust(w)
                                  for i, (c, w) in enumerate(zip(r, widths))).rstrip()

    return "\n".join([line(header)] + ([line(["-" * w for w in widths])] if rule else []) + [line(r) for r in rows])
