"""Parse LLVM IR with llvmlite and print it back as normalised statements.

Statements are printed by llvmlite (one LLVM version), not copied from the input, so IR from clang 9
(typed pointers) and clang 19 (opaque pointers) reads the same. Comments, metadata attachments,
debug records and attribute-group references are removed: they carry numbering, not meaning.
"""

from __future__ import annotations

import gc
import hashlib
import os
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import llvmlite.binding as llvm

from mirtune.errors import IRParseError
from mirtune.ir.legacy import upgrade

_BITCODE_MAGIC = (b"BC\xc0\xde", b"\xde\xc0\x17\x0b")  # raw bitcode, bitcode wrapper


class _ContextOwningModule(llvm.ModuleRef):
    """A ModuleRef that disposes of its own LLVM context, right after itself.

    llvmlite gives a module and its context separate finalizers. When both die in one garbage-collected cycle
    (an IRModule and the values that point back at it), Python may finalize the context first, and disposing
    the module then reads freed memory: a segmentation fault, seen in the test suite. Here the context has no
    finalizer of its own; the module's disposes of both, in order.
    """

    _context_ptr = None

    def _dispose(self) -> None:
        super()._dispose()
        if self._context_ptr is not None:
            llvm.ffi.lib.LLVMPY_ContextDispose(self._context_ptr)
            self._context_ptr = None


def parse_in_own_context(ir: str | bytes, bitcode: bool = False) -> llvm.ModuleRef:
    """Parse IR text (or bitcode) into a module with an LLVM context of its own (see `IRModule.from_text` for
    why), owned by the module; RuntimeError from llvmlite when it does not parse."""
    context = llvm.create_context()
    ref = llvm.parse_bitcode(ir, context=context) if bitcode else llvm.parse_assembly(ir, context=context)
    ptr = context._ptr
    context.detach()  # the module's finalizer disposes of it now, after the module
    ref.__class__ = _ContextOwningModule
    ref._context_ptr = ptr
    return ref
_METADATA_ATTACHMENT = re.compile(r",?\s*!(?:[A-Za-z_.][\w.]*|\d+)\s+(?:!\d+|!\{[^}]*\}|distinct\s+!\{[^}]*\})")
_ATTR_GROUP_REF = re.compile(r"\s+#\d+\b")
_FUNC_TRAILING_METADATA = re.compile(r"\s+!\w[\w.]*\s+!\d+")
_PLAIN_NAME = re.compile(r"[-A-Za-z$._][-A-Za-z$._0-9]*")  # printed after @ without quotes


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


def _function_lines(lines: Iterable[str]) -> tuple[list[str], list[tuple[str | None, int]]]:
    """Instruction lines of a printed function body (multi-line instructions such as switch joined), and its
    blocks as (label or None for an unlabelled entry block, number of instructions)."""
    out: list[str] = []
    blocks: list[tuple[str | None, int]] = []
    label: str | None = None
    start = 0
    pending: str | None = None
    for raw in lines:
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
        """Parse IR text (upgrading an older clang's syntax that today's parser rejects, mirtune.ir.legacy);
        IRParseError on empty, binary or malformed input.

        Each module gets its own LLVM context: in a shared one, a named struct type seen before
        (`%struct.ident_t`) would be renamed (`%struct.ident_t.0`) and the same IR would print,
        and hash, differently depending on what the process parsed earlier.
        """
        if "\x00" in text:
            raise IRParseError("not LLVM IR text (binary data)", name)
        if not any(ln.strip() and not ln.lstrip().startswith(";") for ln in text.splitlines()):
            raise IRParseError("empty file: no LLVM IR in it", name)
        try:
            ref = parse_in_own_context(text)
        except RuntimeError as exc:
            upgraded = upgrade(text)  # syntax of an older clang (mirtune.ir.legacy); the first error stands
            if upgraded is None:
                raise IRParseError(_llvm_error(str(exc)), name) from None
            try:
                ref = parse_in_own_context(upgraded)
            except RuntimeError:
                raise IRParseError(_llvm_error(str(exc)), name) from None
        return cls._checked(ref, name)

    @classmethod
    def from_bitcode(cls, data: bytes, name: str = "<bytes>") -> "IRModule":
        """Parse LLVM bitcode."""
        try:
            ref = parse_in_own_context(data, bitcode=True)
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
        """Every function (definitions and declarations) in module order, normalised.

        The module is printed once and cut at its function headers: printing one function through llvmlite
        costs time in proportion to the whole module (LLVM numbers the module's types and slots first), so
        printing each function made loading quadratic in the number of functions. Where the printed module
        cannot be matched to the function list, each function is printed on its own (same result, slower).
        """
        functions = [(fn.name, fn.is_declaration) for fn in self.llvm.functions]
        chunks = _function_chunks(self.printed_lines, functions)
        if chunks is None:
            return self._functions_one_by_one()
        with gc_paused():
            return [_function_text(name, decl, lines) for (name, decl), lines in zip(functions, chunks)]

    def _functions_one_by_one(self) -> list[FunctionText]:
        """`functions`, printing each function through llvmlite (time quadratic in the number of functions)."""
        return [_function_text(fn.name, fn.is_declaration, str(fn).splitlines()) for fn in self.llvm.functions]

    @cached_property
    def printed_lines(self) -> list[str]:
        """The whole module as LLVM prints it, one line each (printed once, then kept)."""
        return str(self.llvm).splitlines()

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
        names = [g.name for g in self.llvm.global_variables]
        lines = _global_lines(self.printed_lines, names)
        if lines is None:  # the printed module did not match the globals: print each (slower, same result)
            lines = [str(g).strip().splitlines()[-1] for g in self.llvm.global_variables]
        return [normalise_line(ln) for ln in lines]

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


@contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for a block that allocates millions of acyclic objects.

    Each full collection walks every live object, and a large module's statements and graph are millions of
    them: with the collector on, building them took about twice as long, growing faster than the module.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _function_text(name: str, is_declaration: bool, lines: list[str]) -> FunctionText:
    """A function's FunctionText from its printed lines (header, and the body of a definition)."""
    header = next((ln for ln in lines if ln.startswith(("define", "declare"))), "")
    ft = FunctionText(name, normalise_line(header.rstrip(" {")), is_declaration)
    if not is_declaration:
        body, ft.blocks = _function_lines(lines)
        ft.instructions = [normalise_line(ln) for ln in body]
    return ft


def _printed_name(name: str) -> str | None:
    """How LLVM prints a global's name after `@` when it needs no quotes; None when quoted or unnamed."""
    return name if _PLAIN_NAME.fullmatch(name) else None


def _function_chunks(lines: list[str], functions: list[tuple[str, bool]]) -> list[list[str]] | None:
    """The printed lines of each function (its header to its closing brace), matched in order to `functions`
    ((name, is_declaration) in module order); None when the printed module does not match them one for one."""
    chunks: list[list[str]] = []
    n, i, k = len(lines), 0, 0
    while i < n:
        line = lines[i]
        if line.startswith("define "):
            end = i + 1
            while end < n and lines[end] != "}":
                end += 1
            if end == n:
                return None
            chunk, declaration, i = lines[i:end + 1], False, end + 1
        elif line.startswith("declare "):
            chunk, declaration, i = [line], True, i + 1
        else:
            i += 1
            continue
        if k >= len(functions) or functions[k][1] != declaration:
            return None
        plain = _printed_name(functions[k][0])
        if plain is not None and f"@{plain}(" not in line:
            return None
        chunks.append(chunk)
        k += 1
    return chunks if k == len(functions) else None


def _global_lines(lines: list[str], names: list[str]) -> list[str] | None:
    """The printed definition line of each global variable, in order; None when the printed module's first
    global lines do not match `names`."""
    out: list[str] = []
    for line in lines:
        if len(out) == len(names) or line.startswith(("define ", "declare ")):
            break
        if not line.startswith("@"):
            continue
        plain = _printed_name(names[len(out)])
        if plain is not None and not line.startswith(f"@{plain} = "):
            return None
        out.append(line)
    return out if len(out) == len(names) else None


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
