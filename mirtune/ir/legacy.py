"""Upgrade textual IR from older clangs that today's parser (llvmlite's LLVM) rejects; `IRModule.from_text` applies
`upgrade` when a text fails to parse.

LLVM 12 made the pointee type of the `byval`, `sret` and `inalloca` parameter attributes part of the syntax
(`%struct.S* byval(%struct.S)`); IR printed by clang 11 or older writes the bare attribute (`%struct.S* byval`)
and fails to parse ("expected '('"). With typed pointers the pointee type is the parameter's own type less one
`*`, so the upgrade is exact: it is what LLVM's own bitcode reader does to old modules. The device-mapping
kernels (clang 9) hold one such file; `kernels_ir_patched/` in the data folder is the same upgrade, done by hand.

LLVM 19 removed `icmp`/`fcmp` constant expressions, which clang 14 still prints as an instruction's operand
(`br i1 icmp ne (i32 (i8*)* @weak_fn, i32 (i8*)* null), ...`, a weak symbol's test in GCC's tests). LLVM's own
upgrade turns each into an instruction placed before its user; `hoist_compare_constexprs` does the same in the
text (not in a phi, whose operand would belong in a predecessor block, nor inside another constant expression).
LLVM 18 removed the cast constant expressions (`zext`, `sext`, `fptrunc`, `fpext`, `fptoui`, `fptosi`, `uitofp`,
`sitofp`), which clang 14 prints too (`sub i64 %a, zext (i32 ptrtoint (i8* blockaddress(@f, %b) to i32) to i64)`
in GCC's computed-goto tests): `hoist_cast_constexprs` moves each to an instruction the same way, as
`hoist_binary_constexprs` does for `and`, `or`, `lshr`, `ashr`, `mul` and `shl` (LLVM 18 to 21), nested ones
included.
"""

from __future__ import annotations

import itertools
import re
from typing import Iterator

COMPARE_CONSTEXPR = re.compile(r"(?:(?<=\bi1 )|(?<=, ))(icmp|fcmp) (\w+) \(")  # ", ": a binary op's 2nd operand
CAST_CONSTEXPR = re.compile(r"(?<=[ ,(])(zext|sext|fptrunc|fpext|fptoui|fptosi|uitofp|sitofp) \(")
BINARY_CONSTEXPR = re.compile(r"(?<=[ ,(])(and|or|lshr|ashr|mul|shl) \(")
LEGACY_ATTRIBUTE = re.compile(r"(?<=\s)(byval|sret|inalloca)\b(?!\s*\()")
_ADDRSPACE = re.compile(r"\s+addrspace\(\d+\)$")
_OPEN, _CLOSE = "([{<", ")]}>"


def has_legacy_attributes(text: str) -> bool:
    """Whether IR text uses a bare (pre-LLVM 12) `byval`, `sret` or `inalloca` attribute."""
    return LEGACY_ATTRIBUTE.search(text) is not None


def _scan(text: str, start: int = 0, stop: int | None = None) -> Iterator[tuple[int, str, list[int]]]:
    """(index, character, positions of the brackets still open after it) for each character of text[start:stop]:
    the one bracket-depth walk every rewrite here uses (the list is shared between steps)."""
    opened: list[int] = []
    for i in range(start, len(text) if stop is None else stop):
        ch = text[i]
        if ch in _OPEN:
            opened.append(i)
        elif ch in _CLOSE and opened:
            opened.pop()
        yield i, ch, opened


def _open_before(text: str, at: int, start: int = 0) -> tuple[list[int], int]:
    """The brackets open just before `at` (scanning from `start`), and the last comma outside any of them after
    the innermost (-1 when none)."""
    opened: list[int] = []
    commas: dict[int, int] = {}
    for i, ch, opened in _scan(text, start, at):
        if ch == ",":
            commas[len(opened)] = i
    comma = commas.get(len(opened), -1)
    return list(opened), comma if comma > (opened[-1] if opened else -1) else -1


def _parameter_start(text: str, end: int) -> int:
    """Index just past the `(` or `,` that opens the parameter (or argument) ending at `end`; -1 when its line
    has neither."""
    opened, comma = _open_before(text, end, text.rfind("\n", 0, end) + 1)
    if comma >= 0:
        return comma + 1
    return opened[-1] + 1 if opened else -1


def upgrade_legacy_ir(text: str) -> str:
    """`text` with each bare `byval`/`sret`/`inalloca` given its pointee type (`T* byval` -> `T* byval(T)`).
    Attributes whose parameter type cannot be read (not a typed pointer) are left as they are."""
    out, last = [], 0
    for m in LEGACY_ATTRIBUTE.finditer(text):
        start = _parameter_start(text, m.start())
        if start < 0:
            continue
        param = text[start:m.start()].strip()
        star = param.rfind("*")
        if star <= 0 or any(ch in param[star + 1:] for ch in "()[]{}<>"):
            continue
        pointee = _ADDRSPACE.sub("", param[:star].rstrip())
        out.append(text[last:m.end()])
        out.append(f"({pointee})")
        last = m.end()
    out.append(text[last:])
    return "".join(out)


def has_compare_constexprs(text: str) -> bool:
    """Whether IR text has an `icmp`/`fcmp` constant expression as an `i1` operand (rejected since LLVM 19)."""
    return COMPARE_CONSTEXPR.search(text) is not None


def _closing(line: str, open_at: int) -> int:
    """Index of the bracket closing the one at `open_at` in `line`, or -1."""
    return next((i for i, ch, opened in _scan(line, open_at) if ch in _CLOSE and not opened), -1)


def _inside_constant_expression(line: str, at: int) -> bool:
    """Whether `at` lies inside the parentheses of a constant expression (`zext (`, `select (`: printed with a
    space before the parenthesis) rather than a call's argument list (`@g(`) or at the top level."""
    return any(line[i] == "(" and line[i - 1:i] == " " for i in _open_before(line, at)[0])


def _split_operands(inner: str) -> tuple[str, str] | None:
    """`T A, T B` -> (`T A`, `B`): the instruction form names the type once; None when it does not read so."""
    comma = next((i for i, ch, opened in _scan(inner) if ch == "," and not opened), -1)
    if comma < 0:
        return None
    first, second = inner[:comma].strip(), inner[comma + 1:].strip()
    # the type ends at the first space outside brackets that does not go on with a function type's parameters
    # (`i32 (i8*)* @f`) or an address space (`i8 addrspace(1)* @p`); what follows may be an expression itself
    cut = next((i for i, ch, opened in _scan(first) if ch == " " and not opened
                and not first.startswith(("(", "addrspace("), i + 1)), -1)
    kind = first[:cut] if cut > 0 else ""
    if not kind or not second.startswith(kind + " "):
        return None
    return first, second[len(kind) + 1:].strip()


def _hoist(text: str, pattern: re.Pattern, prefix: str, instruction) -> str:
    """`text` with each operand that `pattern` finds (up to its opening parenthesis) in an instruction (not a phi,
    not inside another constant expression) replaced by `%<prefix>.N`, computed by the instruction that
    `instruction(match, inside the parentheses)` gives (None: left as it is) inserted just before its user; the
    inserted instructions are rewritten the same way (nested expressions: `or (i1 and (...), ...)`)."""
    count = itertools.count()

    def rewrite(line: str) -> list[str]:
        hoisted: list[str] = []
        pos = 0
        while (m := pattern.search(line, pos)) is not None:
            end = _closing(line, m.end() - 1)
            body = instruction(m, line[m.end():end]) if end >= 0 and not _inside_constant_expression(
                line, m.start()) else None
            if body is None:
                pos = m.end()
                continue
            name = f"%{prefix}.{next(count)}"
            hoisted += rewrite(f"  {name} = {body}")
            line = line[:m.start()] + name + line[end + 1:]
            pos = m.start() + len(name)
        return hoisted + [line]

    out: list[str] = []
    for line in text.split("\n"):
        out += [line] if not line.startswith("  ") or " phi " in line else rewrite(line)
    return "\n".join(out)


def hoist_compare_constexprs(text: str) -> str:
    """`text` with every `i1 icmp|fcmp PRED (T A, T B)` operand of an instruction (not a phi) replaced by a value
    computed by an instruction inserted just before it; other lines, and operands it cannot move, are kept."""
    def compare(m: re.Match, inner: str) -> str | None:
        operands = _split_operands(inner)
        return None if operands is None else f"{m.group(1)} {m.group(2)} {operands[0]}, {operands[1]}"

    return _hoist(text, COMPARE_CONSTEXPR, "cmp.constexpr", compare)


def has_cast_constexprs(text: str) -> bool:
    """Whether IR text has a `zext`/`sext`/... `(T V to T2)` constant expression (rejected since LLVM 18)."""
    return CAST_CONSTEXPR.search(text) is not None


def has_binary_constexprs(text: str) -> bool:
    """Whether IR text has an `and`/`or`/`lshr`/`ashr`/`mul`/`shl` `(T A, T B)` constant expression (rejected
    since LLVM 18 to 21)."""
    return BINARY_CONSTEXPR.search(text) is not None


def hoist_binary_constexprs(text: str) -> str:
    """`text` with every such binary constant expression that is an operand of an instruction (not a phi) replaced
    by a value computed by `OP T A, B` inserted just before it; what it cannot move is kept."""
    def binary(m: re.Match, inner: str) -> str | None:
        operands = _split_operands(inner)
        return None if operands is None else f"{m.group(1)} {operands[0]}, {operands[1]}"

    return _hoist(text, BINARY_CONSTEXPR, "bin.constexpr", binary)


def hoist_cast_constexprs(text: str) -> str:
    """`text` with every cast constant expression `OP (T V to T2)` that is an operand of an instruction (not a phi)
    replaced by a value computed by `OP T V to T2` inserted just before it; what it cannot move is kept."""
    return _hoist(text, CAST_CONSTEXPR, "cast.constexpr",
                  lambda m, inner: f"{m.group(1)} {inner}" if " to " in inner else None)


def upgrade(text: str) -> str | None:
    """`text` with every upgrade that applies to it, or None when none does."""
    new = upgrade_legacy_ir(text) if has_legacy_attributes(text) else text
    if has_binary_constexprs(new):  # before compares: a compare inside one is then an instruction's operand
        new = hoist_binary_constexprs(new)
    if has_cast_constexprs(new):
        new = hoist_cast_constexprs(new)
    if has_compare_constexprs(new):
        new = hoist_compare_constexprs(new)
    return None if new == text else new
