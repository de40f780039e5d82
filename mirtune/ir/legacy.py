"""Upgrade textual IR from before LLVM 12 that today's parser (llvmlite's LLVM) rejects.

LLVM 12 made the pointee type of the `byval`, `sret` and `inalloca` parameter attributes part of the syntax
(`%struct.S* byval(%struct.S)`); IR printed by clang 11 or older writes the bare attribute (`%struct.S* byval`)
and fails to parse ("expected '('"). With typed pointers the pointee type is the parameter's own type less one
`*`, so the upgrade is exact: it is what LLVM's own bitcode reader does to old modules. The device-mapping
kernels (clang 9) hold one such file; `kernels_ir_patched/` in the data folder is the same upgrade, done by hand.
"""

from __future__ import annotations

import re

LEGACY_ATTRIBUTE = re.compile(r"(?<=\s)(byval|sret|inalloca)\b(?!\s*\()")
_ADDRSPACE = re.compile(r"\s+addrspace\(\d+\)$")
_OPEN, _CLOSE = "([{<", ")]}>"


def has_legacy_attributes(text: str) -> bool:
    """Whether IR text uses a bare (pre-LLVM 12) `byval`, `sret` or `inalloca` attribute."""
    return LEGACY_ATTRIBUTE.search(text) is not None


def _parameter_start(text: str, end: int) -> int:
    """Index just past the `(` or `,` that opens the parameter (or argument) ending at `end`."""
    depth = 0
    for i in range(end - 1, -1, -1):
        ch = text[i]
        if ch in _CLOSE:
            depth += 1
        elif ch in _OPEN:
            if depth == 0:
                return i + 1
            depth -= 1
        elif ch == "," and depth == 0:
            return i + 1
        elif ch == "\n":
            break
    return -1


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
