"""Operands of printed LLVM instructions, read from the text that LLVM's printer wrote.

The graph builder needs every instruction's operands in LLVM's order with their types. Asking llvmlite costs
several ctypes calls per operand (iterate, identify, classify, print the type), which made graph building the
slowest part of embedding a file; the printed function already says all of it. `operands` returns
(type, value) pairs for one normalised instruction line, in LLVM 10's operand order (the order ProGraML's
positions follow): the constants that newer LLVM keeps inside the instruction (switch case values, the
shufflevector mask, the implicit array size of an alloca) are put back where LLVM 10 had them. The plainest
forms of the most frequent instructions are read by one regex each (`_FAST`), every other form by a reader per
opcode (`_READERS`) that walks the text.

Anything this reader does not know raises `Unreadable`; the caller then asks llvmlite instead, so an unusual
instruction costs speed, never correctness.
"""

from __future__ import annotations

import re
from typing import Callable

_OPENERS = {"(": ")", "[": "]", "{": "}", "<": ">"}
_CLOSERS = frozenset(_OPENERS.values())
_NESTING = re.compile(r'["(\[{<]')
_PRIMITIVE = (r"(?:ptr|i\d+|half|bfloat|float|double|x86_fp80|fp128|ppc_fp128|void|label|metadata|token|x86_amx|"
              r"x86_mmx)(?![\w.])")  # `ptr` and the primitive types
_SIMPLE_TYPE = re.compile(rf" *({_PRIMITIVE})")  # one after spaces (group 1)
# a simple type (but not `ptr addrspace(n)`) and what follows it
_SIMPLE_TYPED = re.compile(_SIMPLE_TYPE.pattern + r"(?! addrspace\()(.*)", re.S)
_NAME = r'(?:[-\w$.]+|"[^"]*")'
_LOCAL = re.compile(rf"%{_NAME}")
_GLOBAL = re.compile(rf"@{_NAME}")
_UNQUOTED_LOCALS = re.compile(r"(?:%[-\w$.]+ )*")  # local names, each followed by a space
_WORD = re.compile(r"[\w.]+")
_SPACED_WORD = re.compile(r" *([\w.]*)")  # spaces, then a word or nothing (group 1)
_HEAD = re.compile(r"^(?:(%\S+|%\"[^\"]*\") = )?(?:(?:tail|musttail|notail) )?([a-z_]+)(?: |$)(.*)", re.S)
_ORDERING = re.compile(r'(?:\s+syncscope\("[^"]*"\))?(?:\s+(?:unordered|monotonic|acquire|release|acq_rel|seq_cst))+$')
_SWITCH_CASE = re.compile(rf"(\S+) ([^\s,]+), label (%{_NAME})")
_ASM = re.compile(r'asm(?: \w+)* "(?:[^"\\]|\\.)*", "(?:[^"\\]|\\.)*"')

_BINARY = frozenset("add sub mul udiv sdiv urem srem shl lshr ashr and or xor fadd fsub fmul fdiv frem".split())
_CASTS = frozenset("trunc zext sext fptrunc fpext fptoui fptosi uitofp sitofp ptrtoint ptrtoaddr inttoptr bitcast "
                   "addrspacecast".split())
_FLAGS = frozenset("nsw nuw exact disjoint nneg samesign inbounds nusw fast nnan ninf nsz arcp contract afn reassoc "
                   "volatile atomic weak inalloca swifterror".split())
_PARAM_ATTRS = frozenset(
    "zeroext signext noext inreg byval byref preallocated inalloca sret elementtype align noalias nocapture captures "
    "nofree nest returned nonnull dereferenceable dereferenceable_or_null swiftself swiftasync swifterror immarg "
    "noundef nofpclass alignstack allocalign allocptr readnone readonly writeonly writable initializes range "
    "dead_on_unwind dead_on_return".split())


class Unreadable(ValueError):
    """An instruction this reader does not parse (the graph builder then asks llvmlite)."""


_STRUCTURE = '"()[]{}<>'
_SPECIAL: dict[str, re.Pattern[str]] = {}  # separator -> the characters _walk stops at
_BRACKET = re.compile(r"[()\[\]{}<>]")
_OPENING = re.compile(r"[(\[{<]")
_CLOSING = re.compile(r"[)\]}>]")


def _walk(s: str, i: int = 0, sep: str = ","):
    """(index, character, bracket depth after it) for each quote, bracket and `sep` character of s[i:] outside
    quoted strings: the only characters the readers here act on (a regex skips the others, which a walk character
    by character spent most of the graph builder's reading time on)."""
    special = _SPECIAL.get(sep)
    if special is None:
        special = _SPECIAL[sep] = re.compile("[" + re.escape(_STRUCTURE + sep) + "]")
    depth = 0
    m = special.search(s, i)
    while m:
        i = m.start()
        ch = s[i]
        if ch == '"':
            i = s.find('"', i + 1)
            if i < 0:
                raise Unreadable(s)
        elif ch in _OPENERS:
            depth += 1
        elif ch in _CLOSERS:
            depth -= 1
        yield i, ch, depth
        m = special.search(s, i + 1)


def _close(s: str, i: int) -> int:
    """Index just past the bracket group (or quoted string) that starts at s[i]."""
    for j, ch, depth in _walk(s, i):
        if depth == 0 and (ch in _CLOSERS or j > i):
            return j + 1
    raise Unreadable(s)


def split_top(s: str, sep: str = ",") -> list[str]:
    """`s` split at `sep` characters outside brackets and quotes, parts stripped."""
    if not _NESTING.search(s):
        return [p.strip() for p in s.split(sep)]
    if '"' in s or sep in _STRUCTURE:
        return _split_walking(s, sep)
    # No quotes: split everywhere, then join each piece to the one before while the brackets are open there.
    parts: list[str] = []
    depth = 0
    for piece in s.split(sep):
        if depth:
            parts[-1] += sep + piece
        else:
            parts.append(piece)
        if _BRACKET.search(piece):
            depth += len(_OPENING.findall(piece)) - len(_CLOSING.findall(piece))
    return [p.strip() for p in parts]


def _split_walking(s: str, sep: str) -> list[str]:
    """`split_top` for any `s`, quoted strings included, walking its special characters."""
    parts, start = [], 0
    for i, ch, depth in _walk(s, 0, sep):
        if ch == sep and depth == 0:
            parts.append(s[start:i].strip())
            start = i + 1
    parts.append(s[start:].strip())
    return parts


def read_type(s: str, i: int = 0) -> tuple[str, int]:
    """The type printed at s[i:] (after spaces) and the index just past it; Unreadable if none is there."""
    m = _SIMPLE_TYPE.match(s, i)
    if m:
        j = m.end()
        if s.startswith(" addrspace(", j) and m.group(1) == "ptr":
            j = s.index(")", j) + 1
            return s[m.start(1):j], j
        return m.group(1), j
    while i < len(s) and s[i] == " ":
        i += 1
    ch = s[i:i + 1]
    if ch in ("<", "[", "{"):
        j = _close(s, i)
        return s[i:j], j
    if ch == "%":
        m = _LOCAL.match(s, i)
        if m:
            return m.group(0), m.end()
    if s.startswith("target(", i):
        j = _close(s, i + 6)
        return s[i:j], j
    raise Unreadable(s)


def read_typed(segment: str) -> tuple[str, str]:
    """(type, value) of one `TYPE VALUE` operand."""
    m = _SIMPLE_TYPED.match(segment)
    if m:
        type_text, value = m.group(1), m.group(2).strip()
    else:
        type_text, j = read_type(segment)
        value = segment[j:].strip()
    if not value:
        raise Unreadable(segment)
    return type_text, value


def is_local(value: str) -> bool:
    """Whether `value` is exactly one local name (%x, %7, %"a b")."""
    return _LOCAL.fullmatch(value) is not None


def are_local(names: list[str]) -> bool:
    """Whether each of `names` is exactly one local name (all checked by one regex when none is quoted)."""
    return _UNQUOTED_LOCALS.fullmatch(" ".join(names) + " ") is not None or all(map(is_local, names))


def is_global(value: str) -> bool:
    """Whether `value` is exactly one global name (@x, @"a b")."""
    return _GLOBAL.fullmatch(value) is not None


def _skip_words(s: str, i: int, words: frozenset[str]) -> int:
    """Past the leading words of s[i:] that are in `words` (and the spaces before the first other one)."""
    m = _SPACED_WORD.match(s, i)
    while m.group(1) in words:
        m = _SPACED_WORD.match(s, m.end())
    return m.start(1)


def _argument(segment: str) -> tuple[str, str]:
    """(type, value) of a call argument: `TYPE [attributes] VALUE`."""
    type_text, i = read_type(segment)
    if type_text == "metadata":
        return type_text, segment[i:].strip()
    m = _SPACED_WORD.match(segment, i)
    while m.group(1) in _PARAM_ATTRS:
        i = m.end()
        if segment.startswith("(", i):
            i = _close(segment, i)
        elif m.group(1) == "align":
            i = _WORD.match(segment, i + 1).end()
        m = _SPACED_WORD.match(segment, i)
    i = m.start(1)
    value = segment[i:].strip()
    if not value:
        raise Unreadable(segment)
    return type_text, value


def _call(opcode: str, rest: str) -> list[tuple[str, str]]:
    """Operands of call / invoke: the arguments, (invoke: normal and unwind labels), the callee last."""
    i = 0
    while True:  # calling convention, return attributes, fast-math flags: skipped up to the return type
        try:
            _, i = read_type(rest, i)
            break
        except Unreadable:
            while i < len(rest) and rest[i] == " ":
                i += 1
            m = _WORD.match(rest, i)
            if not m:
                raise
            i = m.end()
            if rest.startswith("(", i):
                i = _close(rest, i)
    while i < len(rest) and rest[i] == " ":
        i += 1
    if rest.startswith("(", i):  # the function type's parameters (variadic callees)
        i = _close(rest, i)
        while i < len(rest) and rest[i] == " ":
            i += 1
    m = _GLOBAL.match(rest, i) or _LOCAL.match(rest, i)
    if m:
        callee = ("ptr", m.group(0))
    else:
        m = _ASM.match(rest, i)
        if not m:
            raise Unreadable(rest)
        callee = ("asm", "")
    i = m.end()
    if not rest.startswith("(", i):
        raise Unreadable(rest)
    j = _close(rest, i)
    inner = rest[i + 1:j - 1].strip()
    args = [_argument(a) for a in split_top(inner)] if inner else []
    tail = rest[j:]
    if "[" in tail:  # operand bundles are operands too
        raise Unreadable(rest)
    if opcode == "invoke":
        labels = re.fullmatch(rf".*?\bto label (%{_NAME}) unwind label (%{_NAME})", tail)
        if not labels:
            raise Unreadable(rest)
        args += [("label", labels.group(1)), ("label", labels.group(2))]
    return args + [callee]


def head(text: str) -> tuple[str | None, str, str]:
    """(result name or None, opcode, the rest) of a normalised instruction line."""
    m = _HEAD.match(text)
    if not m:
        raise Unreadable(text)
    return m.groups()


def operands(opcode: str, rest: str) -> list[tuple[str, str]]:
    """(type, value) of each operand of an instruction (opcode and text after it), in LLVM 10's order."""
    fast = _FAST.get(opcode)
    if fast is not None:
        m = fast[0].fullmatch(rest)
        if m:
            return fast[1](m)
    reader = _READERS.get(opcode)
    if reader is None:
        raise Unreadable(opcode)
    try:
        return reader(opcode, rest)
    except Unreadable:
        raise
    except (ValueError, IndexError, AttributeError):  # a shape the readers do not expect
        raise Unreadable(f"{opcode} {rest}") from None


def _binary(opcode: str, rest: str) -> list[tuple[str, str]]:
    """Operands of a binary operator or a comparison: `[flags or predicate] TYPE A, B`."""
    i = _skip_words(rest, 0, _FLAGS)
    if opcode in ("icmp", "fcmp"):
        i = _WORD.match(rest, i).end()
    a, b = split_top(rest[i:])
    type_text, value = read_typed(a)
    return [(type_text, value), (type_text, b)]


def _cast(opcode: str, rest: str) -> list[tuple[str, str]]:
    """Operand of a cast: `[flags] TYPE VALUE to TYPE`."""
    type_text, j = read_type(rest, _skip_words(rest, 0, _FLAGS))
    value, to, _ = rest[j:].rpartition(" to ")
    if not to:
        raise Unreadable(rest)
    return [(type_text, value.strip())]


def _list(opcode: str, rest: str) -> list[tuple[str, str]]:
    """Operands of the instructions that print a comma-separated list (see `_listed`)."""
    i = _skip_words(rest, 0, _FLAGS)
    if opcode == "atomicrmw":
        i = _WORD.match(rest, i).end()
    parts = [p for p in split_top(rest[i:]) if not p.startswith(("align ", "addrspace("))]
    return _listed(opcode, parts)


def _phi(opcode: str, rest: str) -> list[tuple[str, str]]:
    """Incoming values of a phi: `TYPE [ VALUE, %block ], ...`."""
    type_text, j = read_type(rest, _skip_words(rest, 0, _FLAGS))
    out = []
    for pair in split_top(rest[j:]):
        if not (pair.startswith("[") and pair.endswith("]")):
            raise Unreadable(rest)
        out.append((type_text, split_top(pair[1:-1])[0]))
    return out


def _br(opcode: str, rest: str) -> list[tuple[str, str]]:
    """Operands of a branch; a conditional one's in LLVM's order [cond, false, true]."""
    parts = [read_typed(p) for p in split_top(rest)]
    return parts if len(parts) == 1 else [parts[0], parts[2], parts[1]]


def _switch(opcode: str, rest: str) -> list[tuple[str, str]]:
    """Condition, default label, then each case value and its label."""
    k = rest.find("[")
    if k < 0 or not rest.rstrip().endswith("]"):
        raise Unreadable(rest)
    out = [read_typed(p) for p in split_top(rest[:k])[:2]]
    for case_type, case_value, dest in _SWITCH_CASE.findall(rest[k + 1:rest.rindex("]")]):
        out += [(case_type, case_value), ("label", dest)]
    return out


def _indirectbr(opcode: str, rest: str) -> list[tuple[str, str]]:
    """The address, then each possible destination."""
    k = rest.find("[")
    addr = read_typed(split_top(rest[:k])[0])
    return [addr] + [read_typed(p) for p in split_top(rest[k + 1:rest.rindex("]")]) if p]


def _ret(opcode: str, rest: str) -> list[tuple[str, str]]:
    """The returned value, if any."""
    return [] if rest.strip() == "void" else [read_typed(rest)]


def _resume(opcode: str, rest: str) -> list[tuple[str, str]]:
    """The resumed exception value."""
    return [read_typed(rest)]


def _landingpad(opcode: str, rest: str) -> list[tuple[str, str]]:
    """Each catch / filter clause is an operand; cleanup is a flag."""
    _, j = read_type(rest)
    clauses = re.split(r"\s*\b(catch|filter) ", rest[j:])[1:]
    return [read_typed(value) for value in clauses[1::2]]


def _no_operands(opcode: str, rest: str) -> list[tuple[str, str]]:
    """unreachable, fence: none."""
    return []


_READERS: dict[str, Callable[[str, str], list[tuple[str, str]]]] = {
    **dict.fromkeys(_BINARY | {"icmp", "fcmp"}, _binary),
    **dict.fromkeys(_CASTS, _cast),
    **dict.fromkeys(("load", "store", "getelementptr", "select", "extractelement", "insertelement", "extractvalue",
                     "insertvalue", "fneg", "freeze", "va_arg", "alloca", "atomicrmw", "cmpxchg", "shufflevector"),
                    _list),
    "phi": _phi, "br": _br, "switch": _switch, "indirectbr": _indirectbr, "ret": _ret, "resume": _resume,
    "landingpad": _landingpad, "unreachable": _no_operands, "fence": _no_operands,
    "call": _call, "invoke": _call,
}


# Fast paths: the plainest printed forms of the most frequent instructions (simple types, no quotes, no attributes),
# each matched whole by one regex and read from its groups exactly as the readers above read it: the regexes admit
# no flag those skip but in the flags' place, no word that `_ORDERING` or `_argument` would drop, and no bracket
# that would change where `split_top` splits. Every other form goes to those readers, which took 3-6 times as long
# on these shapes, most of the kernels' instructions.
_T = f"(?:{_PRIMITIVE})"
_VALUE = r'[^\s,()\[\]{}<>"]+'  # one token of a value: no space, comma, bracket or quote
_NAMED = r"[%@][-\w$.]+"  # an unquoted local or global name
_ARG_VALUE = rf"(?:{_NAMED}|-?\d[\w.+-]*|true|false|null|undef|poison|zeroinitializer)"  # no attribute word
_FLAG_WORDS = "(?:(?:" + "|".join(sorted(_FLAGS)) + ") )*"
_PREDICATE = "(?:eq|ne|ugt|uge|ult|ule|sgt|sge|slt|sle|false|oeq|ogt|oge|olt|ole|one|ord|ueq|une|uno|true)"


def _element_type(depth: int) -> str:
    """A primitive or named type, or an array of those nested up to `depth` deep (brackets balanced)."""
    inner = rf"(?:{_T}|%[-\w$.]+)"
    for _ in range(depth):
        inner = rf"(?:{_T}|%[-\w$.]+|\[\d+ x {inner}\])"
    return inner


_TYPED_PAIR = re.compile(rf"({_T}) ({_VALUE})")
_INCOMING = re.compile(rf"\[ ({_VALUE}),")
_FAST: dict[str, tuple[re.Pattern[str], Callable[[re.Match[str]], list[tuple[str, str]]]]] = {
    # load T, ptr P[, align N] -> the pointer
    "load": (re.compile(rf"(?:{_T}|%[-\w$.]+), ptr ({_NAMED})(?:, align \d+)?"), lambda m: [("ptr", m.group(1))]),
    # store T V, ptr P[, align N]
    "store": (re.compile(rf"({_T}) ({_VALUE}), ptr ({_NAMED})(?:, align \d+)?"),
              lambda m: [m.group(1, 2), ("ptr", m.group(3))]),
    # getelementptr [flags] SOURCE, ptr P, T I... -> the pointer and the indices
    "getelementptr": (re.compile(rf"{_FLAG_WORDS}{_element_type(4)}, ptr ({_VALUE})((?:, {_T} {_VALUE})*)"),
                      lambda m: [("ptr", m.group(1))] + _TYPED_PAIR.findall(m.group(2))),
    # phi T [ V, %block ], ... -> the incoming values
    "phi": (re.compile(rf"({_T})((?: \[ {_VALUE}, %[-\w$.]+ \],)* \[ {_VALUE}, %[-\w$.]+ \])"),
            lambda m: [(m.group(1), value) for value in _INCOMING.findall(m.group(2))]),
    # call T @f(T V, ...) -> the arguments, the callee last
    "call": (re.compile(rf"{_T} ({_NAMED})\(((?:{_T} {_ARG_VALUE}(?:, {_T} {_ARG_VALUE})*)?)\)"),
             lambda m: _TYPED_PAIR.findall(m.group(2)) + [("ptr", m.group(1))]),
}
_BINARY_FORM = (re.compile(rf"{_FLAG_WORDS}({_T}) ({_VALUE}), ({_VALUE})"),
                lambda m: [m.group(1, 2), m.group(1, 3)])
_FAST.update(dict.fromkeys(_BINARY, _BINARY_FORM))
_FAST.update(dict.fromkeys(("icmp", "fcmp"), (re.compile(rf"{_FLAG_WORDS}{_PREDICATE} ({_T}) ({_VALUE}), ({_VALUE})"),
                                                _BINARY_FORM[1])))
_FAST.update(dict.fromkeys(_CASTS, (re.compile(rf"{_FLAG_WORDS}({_T}) ({_VALUE}) to (?:{_T}|%[-\w$.]+)"),
                                    lambda m: [m.group(1, 2)])))


def _listed(opcode: str, parts: list[str]) -> list[tuple[str, str]]:
    """Operands of the instructions whose operands are a comma-separated list of `TYPE VALUE`."""
    if opcode == "load":
        return [read_typed(_ORDERING.sub("", parts[1]))]
    if opcode == "store":
        return [read_typed(parts[0]), read_typed(_ORDERING.sub("", parts[1]))]
    if opcode == "getelementptr":
        return [read_typed(p) for p in parts[1:]]
    if opcode == "alloca":
        return [read_typed(parts[1])] if len(parts) > 1 else [("i32", "1")]  # LLVM's implicit size
    if opcode == "extractvalue":
        return [read_typed(parts[0])]
    if opcode == "insertvalue":
        return [read_typed(parts[0]), read_typed(parts[1])]
    if opcode == "va_arg":
        return [read_typed(parts[0])]
    if opcode == "atomicrmw":
        return [read_typed(parts[0]), read_typed(_ORDERING.sub("", parts[1]))]
    if opcode == "cmpxchg":
        return [read_typed(parts[0]), read_typed(parts[1]), read_typed(_ORDERING.sub("", parts[2]))]
    if opcode == "shufflevector":
        mask_type, mask = read_typed(parts[2])
        return [read_typed(parts[0]), read_typed(parts[1]), (mask_type, mask.replace("poison", "undef"))]
    return [read_typed(p) for p in parts]  # select, extractelement, insertelement, fneg, freeze


def arguments(header: str, name: str) -> list[tuple[str, str | None]]:
    """(type, %name or None) of each parameter in a normalised `define`/`declare` line."""
    plain = re.fullmatch(r"[-\w$.]+", name) is not None
    marker = f"@{name}(" if plain else f'@"{name}"('
    k = header.find(marker)
    if k < 0:
        raise Unreadable(header)
    i = k + len(marker) - 1
    inner = header[i + 1:_close(header, i) - 1].strip()
    out: list[tuple[str, str | None]] = []
    for part in split_top(inner) if inner else []:
        if part == "...":
            continue
        type_text, _ = read_type(part)
        last = part.rsplit(" ", 1)[-1]
        out.append((type_text, last if _LOCAL.fullmatch(last) else None))
    return out
