"""Put a loop pragma into a copy of a C/C++ source: before the loop that starts on a given line, or in place of
the MIRTUNE_LOOP_PRAGMA markers of a collector kernel (`mirtune apply` for a task that tunes one loop)."""

from __future__ import annotations

from mirtune.errors import MirtuneError, UsageError

LOOP_MARKER = "MIRTUNE_LOOP_PRAGMA"


def loop_pragma(vf: int, interleave: int) -> str:
    """The clang loop pragma that forces one vectorization factor and interleave count."""
    return f"#pragma clang loop vectorize_width({vf}) interleave_count({interleave})"


class NothingToTune(MirtuneError):
    """The program has no loop the configuration can reach."""


def insert_before_loop(text: str, line: int, directive: str) -> str:
    """The source with `directive` on its own line before line `line` (1-based, indented as it), which must start
    a loop (for/while/do); UsageError otherwise."""
    lines = text.splitlines(keepends=True)
    if not 1 <= line <= len(lines):
        raise UsageError(f"--line {line} is outside the file (1..{len(lines)})")
    target = lines[line - 1]
    if not target.lstrip().startswith(("for", "while", "do")):
        raise UsageError(f"line {line} does not start a loop (for/while/do): {target.strip()[:60]!r}")
    indent = target[:len(target) - len(target.lstrip())]
    newline = "\r\n" if target.endswith("\r\n") else "\n"
    return "".join(lines[:line - 1] + [indent + directive + newline] + lines[line - 1:])


def apply_loop_pragma(text: str, vf: int, interleave: int, line: int | None) -> tuple[str, int]:
    """The source with the loop pragma before line `line` (1-based; indented as that line), else in place of every
    MIRTUNE_LOOP_PRAGMA marker; returns (text, number of loops it reaches). UsageError when there is nowhere."""
    directive = loop_pragma(vf, interleave)
    lines = text.splitlines(keepends=True)
    if line is not None:
        return insert_before_loop(text, line, directive), 1
    count = sum(1 for ln in lines if ln.strip() == LOOP_MARKER)
    if not count:
        raise NothingToTune("no loop named: pass --line N, the line where the loop to vectorize starts")
    return "".join(ln.replace(LOOP_MARKER, directive) if ln.strip() == LOOP_MARKER else ln for ln in lines), count
