"""Parse LLVM IR with llvmlite and print it back as normalised statements.

Statements are printed by llvmlite (one LLVM version), not copied from the input, so IR from clang 9
(typed pointers) and clang 19 (opaque pointers) reads the same. Comments, metadata attachments,
debug records and attribute-group references are removed: they carry numbering, not meaning.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import llvmlite.binding as llvm

from mirtune.errors import IRParseError

_BITCODE_MAGIC = (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")  # raw bitcode, bitcode wrapper
_METADATA_ATTACHMENT = re.compile(r",?\s*!(?:[A-Za-z_.][\w.]*|\d+)\s+(?:!\d+|!\{[^}]*\}|distinct\s+!\{[^}]*\})")
_ATTR_GROUP_REF = re.compile(r"\s+#\d+\b")
_FUNC_TRAILING_METADATA = re.compile(r"\s+!\w[\w.]*\s+!\d+")


def _split_code_comment(line: str) -> str:
    """Drop a trailing `; comment`, ignoring semicolons inside quoted strings."""
    if ";" not in line:
        return line
    in_str = False
    for i, ch in enumerate(line):
        if ch == '"':
            in_str = not in_str
        elif ch == ";" and not in_str:
            return line[:i]
    return line


def _strip_outside_strings(line: str, pattern: re.Pattern[str]) -> str:
    if '"' not in line:
        return pattern.sub("", line)
    parts = line.split('"')
    for i in range(0, len(parts), 2):  # even parts are outside quotes
        parts[i] = pattern.sub("", parts[i])
    return '"'.join(parts)


def normalise_line(line: str) -> str:
    """One printed IR line with comments, metadata attachments and attribute-group refs removed."""
    line = _split_code_comment(line)
    if "!" in line:
        line = _strip_outside_strings(line, _METADATA_ATTACHMENT)
    if "#" in line:
        line = _strip_outside_strings(line, _ATTR_GROUP_REF)
    return " ".join(line.split())


def _is_instruction_line(line: str) -> bool:
    return line.startswith("  ") and not line.lstrip().startswith(("#dbg_", ";"))


def _function_lines(text: str) -> tuple[list[str], list[tuple[str | None, int]]]:
    """Instruction lines of a printed function body (multi-line instructions such as switch joined), and its
    blocks as (label or None for an unlabelled entry block, number of instructions)."""
    out: list[str] = []
    blocks: list[tuple[str | None, int]] = []
    label: str | None = None
    start = 0
    pending: str | None = None
    for raw in text.splitlines():
        if pending is not None:
            pending += " " + raw.strip()
            if raw.strip().startswith("]"):
                out.append(pending)
                pending = None
            continue
        if raw.startswith("   ") and out and not raw.lstrip().startswith(("#dbg_", ";")):
            out[-1] += " " + raw.strip()  # a continuation: invoke's `to label ...`, landingpad clauses
            continue
        if not _is_instruction_line(raw):
            code = _split_code_comment(raw).rstrip()
            if code.endswith(":") and not raw.startswith((" ", "define", "declare")):
                if len(out) > start or label is not None:
                    blocks.append((label, len(out) - start))
                label, start = code[:-1], len(out)
            continue
        code = _split_code_comment(raw).rstrip()
        if code.endswith("["):
            pending = raw.rstrip()
            continue
        out.append(raw)
    if len(out) > start or label is not None:
        blocks.append((label, len(out) - start))
    return out, blocks


@dataclass
class FunctionText:
    """A function's normalised header and its instructions' normalised text, in block order."""

    name: str
    header: str
    is_declaration: bool
    instructions: list[str] = field(default_factory=list)
    blocks: list[tuple[str | None, int]] = field(default_factory=list)  # (label, instruction count) in order


class IRModule:
    """A parsed LLVM module with its normalised statements and a stable content hash."""

    def __init__(self, ref: llvm.ModuleRef, name: str) -> None:
        self.llvm = ref
        self.name = name

    @classmethod
    def from_text(cls, text: str, name: str = "<string>") -> "IRModule":
        """Parse IR text; IRParseError on empty, binary or malformed input.

        Each module gets its own LLVM context: in a shared one, a named struct type seen before
        (`%struct.ident_t`) would be renamed (`%struct.ident_t.0`) and the same IR would print,
        and hash, differently depending on what the process parsed earlier.
        """
        if "\x00" in text:
            raise IRParseError("not LLVM IR text (binary data)", name)
        if not any(ln.strip() and not ln.lstrip().startswith(";") for ln in text.splitlines()):
            raise IRParseError("empty file: no LLVM IR in it", name)
        try:
            ref = llvm.parse_assembly(text, context=llvm.create_context())
        except RuntimeError as exc:
            raise IRParseError(_llvm_error(str(exc)), name) from None
        return cls._checked(ref, name)

    @classmethod
    def from_bitcode(cls, data: bytes, name: str = "<bytes>") -> "IRModule":
        """Parse LLVM bitcode."""
        try:
            ref = llvm.parse_bitcode(data, context=llvm.create_context())
        except RuntimeError as exc:
            raise IRParseError(_llvm_error(str(exc)), name) from None
        return cls._checked(ref, name)

    @classmethod
    def from_file(cls, path: str | os.PathLike) -> "IRModule":
        """Parse a .ll (text) or .bc (bitcode) file."""
        path = Path(path)
        if not path.exists():
            raise IRParseError("no such file", str(path))
        if path.is_dir():
            raise IRParseError("is a directory, not an IR file", str(path))
        data = path.read_bytes()
        if data.startswith(_BITCODE_MAGIC):
            return cls.from_bitcode(data, str(path))
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise IRParseError("not LLVM IR text (binary data)", str(path)) from None
        return cls.from_text(text, str(path))

    @classmethod
    def _checked(cls, ref: llvm.ModuleRef, name: str) -> "IRModule":
        try:
            ref.verify()
        except RuntimeError as exc:
            raise IRParseError(f"invalid IR: {_llvm_error(str(exc))}", name) from None
        if not any(True for _ in ref.functions) and not any(True for _ in ref.global_variables):
            raise IRParseError("no functions or globals in the module", name)
        return cls(ref, name)

    @cached_property
    def functions(self) -> list[FunctionText]:
        """Every function (definitions and declarations) in module order, normalised."""
        result = []
        for fn in self.llvm.functions:
            text = str(fn)
            header = next((ln for ln in text.splitlines() if ln.startswith(("define", "declare"))), "")
            ft = FunctionText(fn.name, normalise_line(header.rstrip(" {")), fn.is_declaration)
            if not fn.is_declaration:
                lines, ft.blocks = _function_lines(text)
                ft.instructions = [normalise_line(ln) for ln in lines]
            result.append(ft)
        return result

    @property
    def defined_functions(self) -> list[str]:
        """Names of the functions that have a body."""
        return [f.name for f in self.functions if not f.is_declaration]

    def struct_statements(self) -> list[str]:
        """Named struct type definitions."""
        out = []
        for st in self.llvm.struct_types:
            if st.name and not st.is_literal_struct:
                body = "opaque" if st.is_opaque_struct else str(st)
                if not body.startswith("%"):
                    body = f"%{_quote_name(st.name)} = type {body}"
                out.append(normalise_line(body))
        return out

    def global_statements(self) -> list[str]:
        """Global variable definitions."""
        return [normalise_line(str(g).strip().splitlines()[-1]) for g in self.llvm.global_variables]

    def statements(self) -> list[str]:
        """One normalised statement per named type, global, declaration and instruction, in module order."""
        out = self.struct_statements() + self.global_statements()
        for fn in self.functions:
            if fn.is_declaration:
                out.append(fn.header)
            else:
                out.extend(fn.instructions)
        return out

    @cached_property
    def content_hash(self) -> str:
        """SHA-256 of the normalised statements: equal for IR that differs only in comments or metadata."""
        h = hashlib.sha256()
        for st in self.statements():
            h.update(st.encode())
            h.update(b"\n")
        return h.hexdigest()

    def __repr__(self) -> str:
        return f"IRModule({self.name!r}, functions={len(self.functions)})"


def _quote_name(name: str) -> str:
    return name if re.fullmatch(r"[A-Za-z$._][\w$.]*", name) else f'"{name}"'


def _llvm_error(message: str) -> str:
    """The first real diagnostic of an llvmlite error message."""
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    for ln in lines:
        m = re.search(r":(\d+):(\d+): error: (.*)", ln)
        if m:
            return f"line {m.group(1)}: {m.group(3)}"
    return lines[-1] if lines else "LLVM could not parse the module"
