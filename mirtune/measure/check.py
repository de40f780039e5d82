"""Is a configuration's answer the default configuration's answer? The output checks of a measurement.

A collector's own programs print `checksum: <value>`; a user's program prints whatever it prints. `OutputCheck`
names what to compare (`OutputCheck.parse` reads the `--check` option):

- `stdout` (the default for user programs): the whole standard output, line by line. Numbers are compared
  within a relative tolerance (floating-point ones also within one unit in the last digit printed, since
  `%.6e` of two sums added in another order may round the other way), all other text exactly. Lines that
  change between the default configuration's own runs by more than the rounding of their last digit (a program
  that prints its own run time or a clock) are *volatile*: they are left out of the comparison, and
  `volatile_lines` says which.
- `checksum`: the value of the last `checksum: <value>` line (the collectors' programs).
- `regex:PATTERN`: every match of PATTERN in stdout (its groups, when it has any), compared like stdout.
- `file:NAME`: the file NAME that the program writes in its working folder, compared like stdout.
- `none`: no check (a crash or a timeout still fails).

An answer is a string: for `stdout`, `regex` and `file` a JSON list of lines in which volatile lines are null,
so that the default configuration's answer is also the reference every other configuration is checked against
(and can be stored in a dataset row and read back when a run resumes).
"""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from dataclasses import dataclass
from typing import Sequence

from mirtune.errors import MirtuneError, UsageError

KINDS = ("stdout", "checksum", "regex", "file", "none")
_CHECKSUM_RE = re.compile(r"^\s*checksum:\s*(\S+)\s*$", re.MULTILINE)
_NUMBER_RE = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?<![A-Za-z])(?:nan|inf(?:inity)?)\b",
                        re.IGNORECASE)


class CheckTimeout(MirtuneError):
    """A `regex:` check that ran past its time limit (a pattern that backtracks on this output)."""


# re.findall in a process of its own, which a timeout kills: Python's re cannot be interrupted, and a pattern such as
# `(a+)+$` backtracks for minutes on a line of 30 a's and a b
_FINDALL = ("import json, re, sys; text = sys.stdin.buffer.read().decode('utf-8', 'surrogateescape'); "
            "print(json.dumps(re.findall(sys.argv[1], text, re.MULTILINE)))")


def bounded_findall(pattern: str, text: str, timeout_s: float | None) -> list:
    """`re.findall(pattern, text, re.MULTILINE)`, in a child process killed after `timeout_s` (None: in this
    process, unbounded); CheckTimeout when it is."""
    if timeout_s is None:
        return re.findall(pattern, text, re.MULTILINE)
    try:
        proc = subprocess.run([sys.executable, "-I", "-S", "-c", _FINDALL, pattern], capture_output=True,
                              input=text.encode("utf-8", "surrogateescape"), timeout=timeout_s)
    except subprocess.TimeoutExpired:
        raise CheckTimeout(f"the --check regex {pattern!r} took more than the {timeout_s:g}s time limit on this "
                           "output (a pattern that backtracks?)") from None
    if proc.returncode != 0:
        last = proc.stderr.decode(errors="replace").strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        raise MirtuneError(f"the --check regex {pattern!r} failed: {last[0]}")
    return [tuple(m) if isinstance(m, list) else m for m in json.loads(proc.stdout)]


@dataclass(frozen=True)
class OutputCheck:
    """What to compare between a configuration's output and the default configuration's."""

    kind: str = "checksum"
    arg: str = ""
    rtol: float = 1e-9

    @classmethod
    def parse(cls, text: str, rtol: float = 1e-6) -> "OutputCheck":
        """`stdout`, `checksum`, `none`, `regex:PATTERN` or `file:NAME`; UsageError otherwise."""
        kind, _, arg = text.partition(":")
        kind = kind.strip()
        if kind not in KINDS:
            raise UsageError(f"--check: unknown check {kind!r}; use stdout, checksum, regex:PATTERN, file:NAME "
                             "or none")
        if kind in ("regex", "file") and not arg:
            raise UsageError(f"--check {kind}: needs a {'pattern' if kind == 'regex' else 'file name'} "
                             f"after '{kind}:'")
        if kind not in ("regex", "file") and arg:
            raise UsageError(f"--check {kind} takes no argument")
        if kind == "regex":
            try:
                re.compile(arg)
            except re.error as exc:
                raise UsageError(f"--check regex: bad pattern {arg!r}: {exc}") from None
        if kind == "file" and ("/" in arg or arg in (".", "..")):
            raise UsageError(f"--check file: {arg!r} must be a plain file name in the program's working folder")
        if not (rtol >= 0 and math.isfinite(rtol)):
            raise UsageError("--rtol must be a non-negative number")
        return cls(kind, arg, rtol)

    @property
    def output_file(self) -> str | None:
        """The file the program writes that holds its answer (kind `file`), else None."""
        return self.arg if self.kind == "file" else None

    def describe(self) -> str:
        """One phrase for messages: what is compared."""
        return {"stdout": "the whole stdout", "checksum": "the checksum line", "none": "nothing",
                "regex": f"the matches of {self.arg!r} in stdout",
                "file": f"the file {self.arg!r} it writes"}[self.kind]

    def answer(self, stdout: str, file_text: str | None = None, timeout_s: float | None = None) -> str | None:
        """The answer of one run, or None when it has none (no checksum line, no match, no output file);
        a `regex:` match that takes more than `timeout_s` raises CheckTimeout (see `bounded_findall`)."""
        if self.kind == "none":
            return ""
        if self.kind == "checksum":
            found = _CHECKSUM_RE.findall(stdout)
            return found[-1] if found else None
        if self.kind == "regex":
            found = bounded_findall(self.arg, stdout, timeout_s)
            if not found:
                return None
            lines = [" ".join(m) if isinstance(m, tuple) else m for m in found]
        elif self.kind == "file":
            if file_text is None:
                return None
            lines = file_text.splitlines()
        else:
            lines = stdout.splitlines()
        return json.dumps(lines)

    def reference(self, answers: Sequence[str]) -> str:
        """The reference made from the default configuration's answers (at least one): lines that differ between
        them become volatile (null). Checksums: the first (`stable_problem` says when they differ)."""
        if self.kind in ("none", "checksum"):
            return answers[0]
        runs = [json.loads(a) for a in answers]
        first = runs[0]
        if any(len(r) != len(first) for r in runs):
            return json.dumps(first)  # a changing line count is not maskable: `stable_problem` reports it
        # stable means equal up to the rounding of the last digit printed, not within rtol: a clock printed as
        # 12815.563520445 moves by less than 1e-6 relative between runs, and is still volatile
        ref = [line if all(line is not None and r[i] is not None and lines_match(line, r[i], 0.0)
                           for r in runs) else None for i, line in enumerate(first)]
        return json.dumps(ref)

    def stable_problem(self, answers: Sequence[str]) -> str | None:
        """Why the default configuration's own runs cannot serve as a reference, or None when they can."""
        if self.kind == "none" or len(answers) < 2:
            return None
        if self.kind == "checksum":
            for a in answers[1:]:
                if not checksums_match(a, answers[0], self.rtol):
                    return f"checksum changed between runs: {answers[0]} then {a}"
            return None
        n = {len(json.loads(a)) for a in answers}
        if len(n) > 1:
            return f"the number of output lines changes between runs of the default ({sorted(n)})"
        ref = json.loads(self.reference(answers))
        if ref and all(line is None for line in ref):
            return "every output line changes between runs of the default: nothing stable to compare"
        return None

    def mismatch(self, answer: str | None, reference: str) -> str | None:
        """Why `answer` is not the reference's answer (one line), or None when it is."""
        if self.kind == "none":
            return None
        if answer is None:
            return {"checksum": "no 'checksum:' line in the output", "regex": f"no match of {self.arg!r} in stdout",
                    "file": f"no output file {self.arg!r}", "stdout": "no output"}[self.kind]
        if self.kind == "checksum":
            if checksums_match(answer, reference, self.rtol):
                return None
            return f"checksum {answer} differs from the default configuration's {reference}"
        got, ref = json.loads(answer), json.loads(reference)
        if len(got) != len(ref):
            return f"{len(got)} output lines where the default configuration printed {len(ref)}"
        for i, (g, r) in enumerate(zip(got, ref)):
            if r is not None and not lines_match(g, r, self.rtol):
                return f"line {i + 1} is {g[:80]!r} where the default configuration printed {r[:80]!r}"
        return None

    def volatile_lines(self, reference: str) -> list[int]:
        """1-based numbers of the reference's volatile lines (left out of every comparison)."""
        if self.kind in ("none", "checksum"):
            return []
        return [i + 1 for i, line in enumerate(json.loads(reference)) if line is None]


def _last_place(token: str) -> float:
    """One unit in the last digit a floating-point number was printed with (`1.25e3` -> 10, `0.50` -> 0.01); 0
    for an integer (a count that differs by one is a different answer)."""
    if not any(c in token for c in ".eE"):
        return 0.0
    mant, _, exp = token.lower().partition("e")
    decimals = len(mant.split(".", 1)[1]) if "." in mant else 0
    return 10.0 ** (int(exp or 0) - decimals)


def numbers_match(a: str, b: str, rtol: float) -> bool:
    """Two printed numbers are equal within `rtol`, or within one unit of the last digit either was printed with
    (nan matches nan, inf its own sign)."""
    if a == b:
        return True
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return math.isclose(x, y, rel_tol=rtol, abs_tol=0.0) or abs(x - y) <= max(_last_place(a), _last_place(b)) * 1.0001


def lines_match(a: str, b: str, rtol: float) -> bool:
    """The same text between the numbers, and numbers that match (`numbers_match`)."""
    if a == b:
        return True
    na, nb = _NUMBER_RE.findall(a), _NUMBER_RE.findall(b)
    if len(na) != len(nb) or _NUMBER_RE.split(a) != _NUMBER_RE.split(b):
        return False
    return all(numbers_match(x, y, rtol) for x, y in zip(na, nb))


def checksums_match(a: str | None, b: str | None, rtol: float = 1e-9) -> bool:
    """Equal text, or numbers equal within a relative tolerance (nan matches nan, inf its own sign)."""
    if a is None or b is None:
        return False
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return math.isclose(x, y, rel_tol=rtol, abs_tol=0.0)
