"""Parsing IR of old and new clangs, normalised statements, content hash and bad input."""

from __future__ import annotations

import re

import pytest

from mirtune.errors import IRParseError, UsageError
from mirtune.ir.frontend import compile_to_ir
from mirtune.ir.inputs import load_ir
from mirtune.ir.module import IRModule, normalise_line, parse_in_own_context


def test_clang9_typed_pointer_ir_parses_and_prints_opaque(devmap_ir_dir):
    m = IRModule.from_file(devmap_ir_dir / "amd-app-sdk-3.0-Reduction-reduce.ll")
    assert m.defined_functions == ["reduce"]
    sts = m.statements()
    assert any(s.startswith("%14 = load <4 x i32>, ptr %13, align 16") for s in sts)
    assert not any("i32>*" in s for s in sts)  # typed pointers are printed as ptr


def test_all_devmap_kernels_parse_the_legacy_one_upgraded(shared_data):
    """Every device-mapping kernel parses as shipped; lavaMD's (clang 9, bare `byval`) only through the upgrade,
    and then prints as the hand-patched copy does."""
    ir_dir = shared_data / "devmap" / "kernels_ir"
    for path in sorted(ir_dir.glob("*.ll")):
        IRModule.from_file(path)
    name = "rodinia-3.1-lavaMD-kernel_gpu_opencl.ll"
    with pytest.raises(RuntimeError):
        parse_in_own_context((ir_dir / name).read_text())
    patched = IRModule.from_file(shared_data / "devmap" / "kernels_ir_patched" / name)
    assert IRModule.from_file(ir_dir / name).statements() == patched.statements()


def test_statements_are_normalised(devmap_ir_dir):
    m = IRModule.from_file(devmap_ir_dir / "amd-app-sdk-3.0-Reduction-reduce.ll")
    for st in m.statements():
        assert not re.search(r"![\w.]+ !\d+", st), st  # metadata attachments
        assert not re.search(r"\s#\d+\b", st), st      # attribute-group references
        assert ";" not in st and st == st.strip() and "  " not in st
    assert any(st.startswith("declare i64 @_Z12get_local_idj(i32)") for st in m.statements())


def test_one_statement_per_global_type_declaration_and_instruction(tmp_path):
    src = tmp_path / "g.c"
    src.write_text("struct P { int x; float y; };\nstruct P table[4];\nint counter = 3;\n"
                   "extern int ext(int);\nint f(int i) { table[i].x = ext(i) + counter; return table[i].x; }\n")
    m = IRModule.from_text(compile_to_ir(src, opt=1))
    sts = m.statements()
    assert any(s.startswith("%struct.P = type { i32, float }") for s in sts)
    assert any(s.startswith("@table = ") for s in sts) and any(s.startswith("@counter = ") for s in sts)
    assert any(s.startswith("declare") and "@ext(" in s for s in sts)
    n_instr = sum(len(f.instructions) for f in m.functions)
    assert len(sts) == 1 + 2 + 1 + n_instr


def test_hash_ignores_comments_and_metadata_but_not_code():
    base = "define i32 @f(i32 %x) {\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n"
    noisy = "; a comment\ndefine i32 @f(i32 %x) #0 {\n  %y = add i32 %x, 1, !foo !0 ; trailing\n  ret i32 %y\n}\n" \
            "attributes #0 = { nounwind }\n!0 = !{}\n"
    other = base.replace("add i32 %x, 1", "add i32 %x, 2")
    h = IRModule.from_text(base).content_hash
    assert h == IRModule.from_text(noisy).content_hash
    assert h != IRModule.from_text(other).content_hash


def test_normalise_keeps_semicolons_and_hashes_in_strings():
    assert normalise_line('@s = constant [4 x i8] c"a;#1\\00", align 1 ; tail') == '@s = constant [4 x i8] c"a;#1\\00", align 1'


@pytest.mark.parametrize("content,reason", [
    (b"", "empty"),
    (b"; just a comment\n\n", "empty"),
    (b"\x7fELF\x02\x01\x01\x00\x00\x00\xff\xfe", "binary"),
    (b"define i32 @f() {\n  %1 = add i32 1,", "line 2"),
    (b"this is not IR at all\n", "line 1"),
])
def test_bad_ir_gives_one_clear_line(tmp_path, content, reason):
    path = tmp_path / "bad.ll"
    path.write_bytes(content)
    with pytest.raises(IRParseError) as info:
        IRModule.from_file(path)
    assert reason in info.value.line() and str(path) in info.value.line()


def test_load_ir_compiles_sources_and_rejects_missing_or_directories(tmp_path):
    src = tmp_path / "a.c"
    src.write_text("int sq(int x) { return x * x; }\n")
    assert load_ir(src).defined_functions == ["sq"]
    with pytest.raises(UsageError, match="no such file"):
        load_ir(tmp_path / "missing.ll")
    with pytest.raises(UsageError, match="directory"):
        load_ir(tmp_path)


def test_bitcode_is_accepted(tmp_path):
    import llvmlite.binding as llvm

    ref = llvm.parse_assembly("define i32 @g(i32 %a) {\n  ret i32 %a\n}\n")
    path = tmp_path / "g.bc"
    path.write_bytes(ref.as_bitcode())
    assert IRModule.from_file(path).defined_functions == ["g"]


def test_the_same_ir_hashes_the_same_whatever_was_parsed_before(tmp_path):
    src = tmp_path / "s.c"
    src.write_text("struct P { int x; float y; };\nfloat f(struct P* p) { return p->x + p->y; }\n")
    text = compile_to_ir(src, opt=1)
    first = IRModule.from_text(text)
    second = IRModule.from_text(text)
    assert first.statements() == second.statements()
    assert first.content_hash == second.content_hash
    assert not any("%struct.P.0" in s for s in second.statements())


def test_multi_line_instructions_are_one_statement(tmp_path):
    src = tmp_path / "t.cpp"
    src.write_text("int f(int);\nint g(int x) { try { return f(x); } catch (...) { return -1; } }\n")
    from mirtune.ir.frontend import compile_to_ir

    module = IRModule.from_text(compile_to_ir(src, opt=0))
    (g,) = [fn for fn in module.functions if not fn.is_declaration]
    invoke = [t for t in g.instructions if " invoke " in t]
    pad = [t for t in g.instructions if "landingpad" in t]
    assert len(invoke) == 1 and " to label %" in invoke[0] and " unwind label %" in invoke[0]
    assert len(pad) == 1 and "catch ptr null" in pad[0]
    assert not any(t.startswith(("to label", "catch")) for t in g.instructions)
    assert sum(n for _, n in g.blocks) == len(g.instructions)


def _many_functions(n: int) -> str:
    """A module of n globals and n defined functions (loop, phi, switch, call chain), plus two declarations."""
    parts = ['target datalayout = "e-m:e-i64:64-f80:128-n8:16:32:64-S128"', "%struct.P = type { i32, double }",
             '@"quoted g" = global i32 7', "declare i32 @ext(i32)", 'declare void @"ext q"()']
    parts += [f"@g{i} = global [4 x i32] [i32 {i}, i32 1, i32 2, i32 3], align 16 ; comment" for i in range(n)]
    for i in range(n):
        callee = f"@f{i - 1}" if i else "@ext"
        parts.append(
            f"define i32 @f{i}(i32 %n) #0 {{\nentry:\n  %s = alloca %struct.P, align 8\n  br label %loop\n"
            f"loop:\n  %i = phi i32 [ 0, %entry ], [ %inc, %loop ]\n  %p = getelementptr [4 x i32], ptr @g{i}, i64 0,"
            f" i32 %i\n  %v = load i32, ptr %p, align 4\n  %inc = add nsw i32 %i, %v\n  %c = icmp slt i32 %inc, %n\n"
            f"  br i1 %c, label %loop, label %exit\nexit:\n  %r = call i32 {callee}(i32 %inc)\n"
            f"  switch i32 %r, label %d [\n    i32 1, label %d\n    i32 2, label %d\n  ]\nd:\n  ret i32 %r\n}}")
    parts.append('define void @"odd name"() {\n  call void @"ext q"()\n  ret void\n}')
    parts.append("attributes #0 = { noinline nounwind }")
    return "\n".join(parts) + "\n"


def test_module_printed_once_gives_what_printing_each_function_gave():
    m = IRModule.from_text(_many_functions(150))
    assert len(m.functions) == 153
    assert m.functions == m._functions_one_by_one()  # the per-function printing loading used to do
    assert m.global_statements() == [normalise_line(str(g).strip().splitlines()[-1]) for g in m.llvm.global_variables]
    f7 = next(f for f in m.functions if f.name == "f7")
    assert f7.header == "define i32 @f7(i32 %n)"
    assert f7.blocks == [("entry", 2), ("loop", 6), ("exit", 2), ("d", 1)]
    assert f7.instructions[-3] == "%r = call i32 @f6(i32 %inc)"
    assert f7.instructions[-2].startswith("switch i32 %r, label %d [ i32 1, label %d i32 2, label %d ]")
    assert m.global_statements()[:2] == ['@"quoted g" = global i32 7', "@g0 = global [4 x i32] [i32 0, i32 1, "
                                         "i32 2, i32 3], align 16"]


def test_loading_is_linear_in_the_number_of_functions():
    """4000 functions took 8 s when each function was printed on its own (quadratic); now well under 1 s."""
    import time

    m = IRModule.from_text(_many_functions(4000))
    t0 = time.perf_counter()
    assert len(m.statements()) == 1 + 4001 + 2 + 4000 * 11 + 2  # type, globals, declarations, instructions
    assert time.perf_counter() - t0 < 4.0  # generous: the machine is shared
