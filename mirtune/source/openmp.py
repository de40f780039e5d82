"""Find OpenMP worksharing loops in C/C++ source and make their schedule tunable.

`OMP_SCHEDULE` only reaches loops compiled with `schedule(runtime)`; a loop written without a schedule clause
gets the runtime's default (static) whatever the environment says. This module rewrites a *copy* of a program so
that every worksharing loop without a schedule clause gets one:

- `make_schedule_runtime(source)` writes `schedule(runtime)`, so `OMP_SCHEDULE` decides (the collectors' build);
- `apply_config(source, "dynamic", 8)` writes `schedule(dynamic,8)` (what `mirtune apply` does).

The scanner understands what the C/C++ preprocessor does before it sees a directive: line continuations
(backslash-newline, anywhere), `//` and `/* */` comments (a comment inside a directive is one space, and a block
comment may even carry the directive over a line break), string, character and C++ raw string literals (text
that looks like `#pragma omp for` inside them is not a directive), and `#` only starting a directive as the
first token of a line. A directive is parsed into its construct words (`parallel for simd`) and its clauses in
any order, with parenthesised arguments that may nest and contain commas; clauses may be separated by commas.

Which loops are tuned:
- `for`, `for simd`, `parallel for`, `parallel for simd` without a schedule clause: **tunable**; the clause is
  inserted right after the construct words (before the other clauses, so that clang parses it even if a later
  clause is unknown to it and ignored with a warning).
- the same with `schedule(runtime)` already: **tunable** (the environment reaches them already; `apply_config`
  replaces the kind and chunk, keeping any `monotonic`/`simd` modifiers).
- any other explicit schedule: **fixed**, left as written.
- loop constructs combined with `target`, `teams` or `distribute` (`distribute parallel for`,
  `target parallel for`, ...): **fixed** with a reason; they are offload/league constructs that mirtune does not
  tune on the host.
- `_Pragma("omp parallel for")` (usually inside a macro): reported as **fixed** with a problem, not rewritten,
  because its text lives in a string that may be shared by many loops.
- a directive that cannot be parsed (unbalanced parentheses, an unexpected token, an unknown schedule kind,
  two schedule clauses, an unknown directive name): **unparsed**, left byte for byte as it was, and reported in
  `.problems` with its line number (every OpenMP directive is checked, loop or not).

Edits are minimal: every byte outside the inserted/replaced clause is kept, no line is added or removed (so the
compiler's line numbers still match the user's file), and continuation lines stay intact.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from mirtune.errors import UsageError

SCHEDULE_KINDS = ("static", "dynamic", "guided", "auto", "runtime")
LIMITS = {"threads": 1 << 16, "chunk": (1 << 31) - 1}  # the largest thread count and chunk accepted (a chunk is an int)
KINDS_WITHOUT_CHUNK = frozenset({"auto", "runtime"})
TUNABLE_CONSTRUCTS = frozenset({("for",), ("for", "simd"), ("parallel", "for"), ("parallel", "for", "simd")})
STATUSES = ("tunable", "fixed", "unparsed")

# Words that may follow the first word of a combined/composite directive (`target teams distribute parallel
# for simd`, `parallel masked taskloop`, ...). None of them is also a clause name on a loop directive.
_COMPOSITE_WORDS = frozenset({"parallel", "for", "simd", "target", "teams", "distribute", "taskloop", "master",
                              "masked", "loop", "sections", "workshare", "single", "do", "data", "update",
                              "point", "variant", "mapper", "reduction", "enter", "exit"})
_LOOP_FIRST_WORDS = frozenset({"for", "parallel", "target", "teams", "distribute"})
# Directive names clang knows (OpenMP 5.2 plus a few newer); a first word outside this set is a typo.
_DIRECTIVES = frozenset({
    "allocate", "allocators", "assume", "assumes", "atomic", "barrier", "begin", "cancel", "cancellation",
    "critical", "declare", "depobj", "dispatch", "distribute", "do", "end", "error", "flush", "for", "interop",
    "loop", "masked", "master", "metadirective", "nothing", "ordered", "parallel", "requires", "scan", "scope",
    "section", "sections", "simd", "single", "target", "task", "taskgroup", "taskloop", "taskwait", "taskyield",
    "teams", "threadprivate", "tile", "unroll", "workshare", "groupprivate", "interchange", "reverse", "fuse",
    "split", "stripe",
})

# Backslash-newline (clang and gcc also accept blanks between the two, with a warning).
_SPLICE = re.compile(r"\\[ \t\f\v]*\r?\n")
_TOKEN = re.compile(r"""
    (?P<nl>\n)
  | (?P<ws>[ \t\r\f\v]+)
  | (?P<lc>//[^\n]*)
  | (?P<bc>/\*.*?(?:\*/|\Z))
  | (?P<raw>(?:u8|[uUL])?R"(?P<delim>[^ ()\\\t\v\f\n"]{0,16})\()
  | (?P<str>(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*"?)
  | (?P<chr>(?:u8|[uUL])?'(?:[^'\\\n]|\\.)*'?)
  | (?P<num>\.?[0-9](?:[eEpP][+-]|['\w.])*)
  | (?P<id>[A-Za-z_$][\w$]*)
  | (?P<punct>.)
""", re.X | re.S)
_PRAGMA_OPERATOR = re.compile(r"[ \t\r\f\v\n]*\([ \t\r\f\v\n]*((?:u8|[uUL])?\"((?:[^\"\\\n]|\\.)*)\")")


@dataclass(frozen=True)
class Problem:
    """Something the rewriter could not do, with the 1-based line of the directive."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


@dataclass(frozen=True)
class LoopPragma:
    """One OpenMP worksharing-loop directive of a source file."""

    line: int                 # 1-based line of the `#` (of `_Pragma` for the operator form)
    text: str                 # the directive as the compiler sees it: continuations joined, comments dropped
    construct: str            # construct words, e.g. "parallel for simd"
    schedule: str | None      # the schedule clause's argument as written (blanks dropped), None if absent
    status: str               # "tunable" | "fixed" | "unparsed"
    reason: str = ""          # why it is fixed or unparsed, or a note for tunable ones
    end_line: int = 0         # last physical line of the directive (after continuations)

    @property
    def runtime_schedule(self) -> bool:
        """True when the loop already reads OMP_SCHEDULE (schedule(runtime), with or without modifiers)."""
        return self.schedule is not None and _split_schedule(self.schedule)[1] == "runtime"


@dataclass
class RewriteResult:
    """The rewritten source and what was found in it."""

    source: str
    loops: list[LoopPragma] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    changed: int = 0          # directives whose text was edited

    @property
    def tunable(self) -> int:
        """Loops the rewritten source lets the configuration reach."""
        return sum(1 for lp in self.loops if lp.status == "tunable")

    @property
    def fixed(self) -> int:
        """Loops that keep their own schedule (explicit clause, unsupported construct, `_Pragma`)."""
        return sum(1 for lp in self.loops if lp.status == "fixed")

    @property
    def unparsed(self) -> int:
        """Loop directives left unchanged because they could not be parsed."""
        return sum(1 for lp in self.loops if lp.status == "unparsed")

    def summary(self) -> str:
        """One line: how many worksharing loops were tunable, fixed and unparsed."""
        parts = [f"{self.tunable} tunable", f"{self.fixed} fixed"]
        if self.unparsed:
            parts.append(f"{self.unparsed} unparsed")
        n = len(self.loops)
        return f"{n} worksharing loop{'s' if n != 1 else ''}: " + ", ".join(parts)


# ----------------------------------------------------------------------------------------------------------
# scanning


@dataclass
class _Tok:
    kind: str     # id, num, str, chr, punct
    text: str
    start: int    # index into the spliced text
    end: int


@dataclass
class _Clause:
    name: str
    args: list[_Tok] | None   # tokens between the parentheses, None without parentheses
    start: int
    end: int


@dataclass
class _Directive:
    line: int
    end_line: int
    text: str
    words: tuple[str, ...] = ()
    clauses: list[_Clause] = field(default_factory=list)
    error: str | None = None
    operator: bool = False        # the `_Pragma("...")` form
    insert_at: int | None = None  # raw offset just after the construct words
    words_end: int = 0            # spliced offset just after the construct words
    schedule: _Clause | None = None

    @property
    def is_loop(self) -> bool:
        w = self.words
        if not w or w[0] not in _LOOP_FIRST_WORDS:
            return False
        return w[-1] == "for" or w[-2:] == ("for", "simd")


class _Source:
    """The source with line continuations removed, and a map back to raw offsets and lines."""

    def __init__(self, raw: str) -> None:
        self.raw = raw
        pieces: list[str] = []
        self.starts: list[int] = []   # spliced offset where each piece starts
        self.offsets: list[int] = []  # raw offset of each piece
        last = 0
        pos = 0
        for m in _SPLICE.finditer(raw):
            pieces.append(raw[last:m.start()])
            self.starts.append(pos)
            self.offsets.append(last)
            pos += m.start() - last
            last = m.end()
        pieces.append(raw[last:])
        self.starts.append(pos)
        self.offsets.append(last)
        self.text = "".join(pieces)
        self._line_starts = [0] + [m.end() for m in re.finditer(r"\n", raw)]

    def to_raw(self, k: int) -> int:
        """Raw offset of spliced offset k (k == len(text) maps to len(raw))."""
        if k >= len(self.text):
            return len(self.raw)
        i = bisect.bisect_right(self.starts, k) - 1
        return self.offsets[i] + (k - self.starts[i])

    def raw_end(self, k_end: int) -> int:
        """Raw offset just after the spliced character k_end - 1."""
        return self.to_raw(k_end - 1) + 1

    def line(self, raw_offset: int) -> int:
        return bisect.bisect_right(self._line_starts, raw_offset)


def _tokens(text: str, start: int = 0, stop: int | None = None):
    """Yield (kind, match-start, match-end, match) over text; raw strings are skipped whole."""
    stop = len(text) if stop is None else stop
    k = start
    while k < stop:
        m = _TOKEN.match(text, k)
        kind = m.lastgroup
        end = m.end()
        if kind == "delim":  # the named subgroup of `raw` wins lastgroup
            kind = "raw"
        if kind == "raw":
            close = text.find(")" + (m.group("delim") or "") + '"', end)
            end = len(text) if close < 0 else close + len(m.group("delim") or "") + 2
            kind = "str"
        yield kind, k, end, m
        k = end


def _scan(src: _Source) -> list[_Directive]:
    """Every `#pragma omp` directive and every `_Pragma("omp ...")`, in file order."""
    text = src.text
    found: list[_Directive] = []
    line_start = True
    directive: list[_Tok] | None = None  # tokens of the directive being read
    d_start = 0
    gen = _tokens(text)
    for kind, s, e, m in gen:
        if kind == "nl":
            if directive is not None:
                _finish_directive(src, directive, d_start, s, found)
                directive = None
            line_start = True
            continue
        if kind in ("ws", "lc", "bc"):
            continue
        if kind == "punct" and text[s] == "#" and line_start and directive is None:
            directive = []
            d_start = s
            line_start = False
            continue
        line_start = False
        if kind == "id" and text[s:e] == "_Pragma":
            op = _PRAGMA_OPERATOR.match(text, e)
            if op:
                _pragma_operator(src, s, op, found)
        if directive is not None:
            directive.append(_Tok(kind, text[s:e], s, e))
    if directive is not None:
        _finish_directive(src, directive, d_start, len(text), found)
    return found


def _finish_directive(src: _Source, toks: list[_Tok], start: int, end: int, found: list[_Directive]) -> None:
    if len(toks) < 2 or toks[0].text != "pragma" or toks[1].text != "omp":
        return
    raw_start = src.to_raw(start)
    raw_end = src.to_raw(end)
    norm = _normalised(src.text[start:end])
    d = _Directive(line=src.line(raw_start), end_line=src.line(max(raw_start, raw_end - 1)), text=norm)
    _parse(d, toks[2:])
    if d.error is None and d.words:
        d.insert_at = src.raw_end(d.words_end)
    found.append(d)


def _normalised(text: str) -> str:
    out = []
    for kind, s, e, _ in _tokens(text):
        if kind in ("ws", "lc", "bc", "nl"):
            out.append(" ")
        else:
            out.append(text[s:e])
    return re.sub(r"\s+", " ", "".join(out)).strip()


def _pragma_operator(src: _Source, at: int, op: re.Match, found: list[_Directive]) -> None:
    body = re.sub(r"\\(.)", r"\1", op.group(2))
    toks = [_Tok(k, body[s:e], s, e) for k, s, e, _ in _tokens(body) if k not in ("ws", "lc", "bc", "nl")]
    if not toks or toks[0].text != "omp":
        return
    raw_at = src.to_raw(at)
    d = _Directive(line=src.line(raw_at), end_line=src.line(src.to_raw(op.end() - 1)),
                   text=f"_Pragma({_normalised(op.group(1))})", operator=True)
    _parse(d, toks[1:])
    found.append(d)


def _parse(d: _Directive, toks: list[_Tok]) -> None:
    """Construct words, then clauses `name` or `name(args)`, optionally comma-separated."""
    if not toks:
        d.error = "no OpenMP directive after '#pragma omp'"
        return
    if toks[0].kind != "id":
        d.error = f"expected an OpenMP directive name, found {toks[0].text!r}"
        return
    words = [toks[0].text]
    i = 1
    while (i < len(toks) and toks[i].kind == "id" and toks[i].text in _COMPOSITE_WORDS
           and not (i + 1 < len(toks) and toks[i + 1].text == "(")):
        words.append(toks[i].text)
        i += 1
    d.words = tuple(words)
    d.words_end = toks[i - 1].end
    if words[0] not in _DIRECTIVES:
        d.error = f"unknown OpenMP directive {words[0]!r}"
        return
    if not d.is_loop and i < len(toks) and toks[i].text == "(":
        # a directive's own argument: critical(name), flush(a, b), declare reduction(...), threadprivate(x)
        j = _matching(toks, i)
        if j is None:
            d.error = f"unbalanced '(' after '{' '.join(words)}'"
            return
        i = j + 1
    while i < len(toks):
        t = toks[i]
        if t.text == ",":
            i += 1
            continue
        if t.kind != "id":
            d.error = f"unexpected {t.text!r} after '{' '.join(words)}'" if not d.clauses else \
                f"unexpected {t.text!r} after clause '{d.clauses[-1].name}'"
            return
        start = t.start
        i += 1
        args = None
        end = t.end
        if i < len(toks) and toks[i].text == "(":
            j = _matching(toks, i)
            if j is None:
                d.error = f"unbalanced '(' in clause '{t.text}'"
                return
            args = toks[i + 1:j]
            end = toks[j].end
            i = j + 1
        clause = _Clause(t.text, args, start, end)
        d.clauses.append(clause)
        if t.text == "schedule":
            if d.schedule is not None:
                d.error = "more than one schedule clause"
                return
            if not args:
                d.error = "schedule clause without a kind"
                return
            _, kind, _ = _split_schedule(_join(args))
            if kind not in SCHEDULE_KINDS:
                d.error = f"unknown schedule kind {kind!r}"
                return
            d.schedule = clause


def _matching(toks: list[_Tok], i: int) -> int | None:
    """Index of the ')' closing the '(' at toks[i], or None."""
    depth = 0
    for j in range(i, len(toks)):
        if toks[j].text == "(":
            depth += 1
        elif toks[j].text == ")":
            depth -= 1
            if depth == 0:
                return j
    return None


def _join(toks: list[_Tok]) -> str:
    """Argument text without blanks, keeping a blank between two words (`sizeof x`)."""
    out = ""
    prev = None
    for t in toks:
        if prev is not None and prev.kind in ("id", "num") and t.kind in ("id", "num"):
            out += " "
        out += t.text
        prev = t
    return out


def _split_top(text: str, sep: str) -> list[str]:
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return parts


def _split_schedule(arg: str) -> tuple[list[str], str, str | None]:
    """`monotonic,simd:dynamic,4` -> (["monotonic", "simd"], "dynamic", "4")."""
    colon = _split_top(arg, ":")
    mods: list[str] = []
    rest = arg
    if len(colon) > 1:
        mods = [m.strip() for m in _split_top(colon[0], ",") if m.strip()]
        rest = ":".join(colon[1:])
    parts = _split_top(rest, ",")
    kind = parts[0].strip()
    chunk = ",".join(parts[1:]).strip() if len(parts) > 1 else None
    return mods, kind, chunk


# ----------------------------------------------------------------------------------------------------------
# classification


def _classify(d: _Directive) -> tuple[str, str]:
    if d.error is not None:
        return "unparsed", d.error
    if d.words not in TUNABLE_CONSTRUCTS:
        return "fixed", f"'{' '.join(d.words)}' is not tuned (target/teams/distribute construct)"
    sched = _join(d.schedule.args) if d.schedule else None
    if d.operator:
        if sched is not None and _split_schedule(sched)[1] != "runtime":
            return "fixed", f"explicit schedule({sched})"
        return "fixed", "_Pragma operator: not rewritten (write the loop's directive as #pragma omp)"
    if sched is None:
        return "tunable", ""
    if _split_schedule(sched)[1] == "runtime":
        return "tunable", "already schedule(runtime)"
    return "fixed", f"explicit schedule({sched})"


def _analyse(source: str) -> tuple[_Source, list[tuple[_Directive, LoopPragma | None]], list[Problem]]:
    src = _Source(source)
    out: list[tuple[_Directive, LoopPragma | None]] = []
    problems: list[Problem] = []
    for d in _scan(src):
        status, reason = _classify(d)
        if d.error is not None:
            problems.append(Problem(d.line, f"cannot parse '{d.text}': {d.error}; left unchanged"))
        elif d.operator and d.is_loop and status == "fixed" and d.words in TUNABLE_CONSTRUCTS:
            problems.append(Problem(d.line, f"'{d.text}' is a loop the rewriter cannot reach: {reason}"))
        loop = None
        if d.is_loop or (d.error is not None and "for" in d.words
                         and d.words[0] not in ("cancel", "cancellation")):
            sched = _join(d.schedule.args) if d.schedule and d.schedule.args else None
            loop = LoopPragma(line=d.line, text=d.text, construct=" ".join(d.words), schedule=sched,
                              status=status, reason=reason, end_line=d.end_line)
        out.append((d, loop))
    return src, out, problems


def find_loops(source: str) -> list[LoopPragma]:
    """Every OpenMP worksharing-loop directive in C/C++ source text, in file order."""
    _, found, _ = _analyse(source)
    return [loop for _, loop in found if loop is not None]


# ----------------------------------------------------------------------------------------------------------
# rewriting


def _schedule_spec(schedule: str, chunk: int | str | None) -> str:
    if schedule not in SCHEDULE_KINDS:
        raise UsageError(f"unknown schedule {schedule!r}; choose one of {', '.join(SCHEDULE_KINDS)}")
    if chunk is None:
        return schedule
    try:
        n = int(str(chunk).strip())
    except ValueError:
        raise UsageError(f"chunk must be a positive integer, got {chunk!r}") from None
    if n < 1:
        raise UsageError(f"chunk must be a positive integer, got {chunk!r}")
    if schedule in KINDS_WITHOUT_CHUNK:
        raise UsageError(f"schedule {schedule} takes no chunk size")
    return f"{schedule},{n}"


def _rewrite(source: str, spec: str) -> RewriteResult:
    src, found, problems = _analyse(source)
    kind = _split_schedule(spec)[1]
    edits: list[tuple[int, int, str]] = []
    for d, loop in found:
        if loop is None or loop.status != "tunable" or d.operator:
            continue
        if d.schedule is None:
            assert d.insert_at is not None
            edits.append((d.insert_at, d.insert_at, f" schedule({spec})"))
        elif kind != "runtime":
            assert d.schedule.args
            mods, _, _ = _split_schedule(_join(d.schedule.args))
            if kind not in ("dynamic", "guided"):
                mods = [m for m in mods if m != "nonmonotonic"]
            new = (",".join(mods) + ":" if mods else "") + spec
            a = src.to_raw(d.schedule.args[0].start)
            b = src.raw_end(d.schedule.args[-1].end)
            edits.append((a, b, new + "\\\n" * source.count("\n", a, b)))
    pieces = []
    last = 0
    for a, b, new in sorted(edits):
        pieces += [source[last:a], new]
        last = b
    pieces.append(source[last:])
    return RewriteResult(source="".join(pieces), loops=[lp for _, lp in found if lp is not None], problems=problems,
                         changed=len(edits))


def make_schedule_runtime(source: str) -> RewriteResult:
    """Give every tunable worksharing loop `schedule(runtime)`, so OMP_SCHEDULE decides its schedule."""
    return _rewrite(source, "runtime")


def apply_config(source: str, schedule: str, chunk: int | str | None = None) -> RewriteResult:
    """Write `schedule(kind[,chunk])` into every tunable worksharing loop (UsageError on a bad kind/chunk)."""
    return _rewrite(source, _schedule_spec(schedule, chunk))
