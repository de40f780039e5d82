"""IR in an older clang's syntax (a bare `byval`/`sret`/`inalloca` before LLVM 12; `icmp`, cast and `and`/`or`
constant expressions, gone since LLVM 18 and 19) is upgraded to today's syntax when it fails to parse."""

from __future__ import annotations

import json
import shutil

import pytest

from mirtune.errors import IRParseError
from mirtune.ir.graph import build_graph
from mirtune.ir.inputs import load_ir
from mirtune.ir.legacy import (has_compare_constexprs, has_legacy_attributes, hoist_compare_constexprs, upgrade,
                               upgrade_legacy_ir)
from mirtune.ir.module import IRModule, parse_in_own_context

LAVAMD = "rodinia-3.1-lavaMD-kernel_gpu_opencl.ll"


def test_upgrade_gives_each_bare_attribute_its_pointee_type():
    text = ("declare void @f(%struct.S* noalias sret, { i32, float }* byval align 8, i8 addrspace(1)** inalloca)\n"
            "  call void @g(%struct.x* byval align 8 %p, i32 3)\n")
    assert upgrade_legacy_ir(text) == (
        "declare void @f(%struct.S* noalias sret(%struct.S), { i32, float }* byval({ i32, float }) align 8, "
        "i8 addrspace(1)** inalloca(i8 addrspace(1)*))\n"
        "  call void @g(%struct.x* byval(%struct.x) align 8 %p, i32 3)\n")
    modern = "declare void @f(ptr byval(%struct.S) align 8)\n"
    assert not has_legacy_attributes(modern) and upgrade_legacy_ir(modern) == modern


def test_upgrade_of_the_shipped_kernel_is_the_hand_patched_copy(shared_data):
    original = (shared_data / "devmap" / "kernels_ir" / LAVAMD).read_text()
    patched = (shared_data / "devmap" / "kernels_ir_patched" / LAVAMD).read_text()
    with pytest.raises(RuntimeError):
        parse_in_own_context(original)
    assert has_legacy_attributes(original)
    assert upgrade_legacy_ir(original) == patched


def test_load_ir_reads_legacy_ir_and_keeps_the_first_error_for_junk(shared_data, tmp_path):
    module = load_ir(shared_data / "devmap" / "kernels_ir" / LAVAMD)
    want = build_graph(load_ir(shared_data / "devmap" / "kernels_ir_patched" / LAVAMD))
    got = build_graph(module)
    assert got.num_nodes == want.num_nodes and got.edges == want.edges
    bad = tmp_path / "bad.ll"
    bad.write_text("declare void @f(i32 byval)\ndefine i32 @g( {\n")  # legacy, and broken anyway
    with pytest.raises(IRParseError) as err:
        load_ir(bad)
    assert str(bad) in err.value.line()


def test_graph_of_a_folder_with_the_legacy_kernel_writes_every_graph(shared_data, tmp_path):
    from mirtune.cli import main

    kernels = tmp_path / "kernels_ir"
    kernels.mkdir()
    for name in (LAVAMD, "rodinia-3.1-backprop-bpnn_layerforward_ocl.ll"):
        shutil.copyfile(shared_data / "devmap" / "kernels_ir" / name, kernels / name)
    out = tmp_path / "graphs"
    assert main(["graph", str(kernels), "-o", f"{out}/"]) == 0
    assert sorted(p.name for p in out.iterdir()) == sorted(n.replace(".ll", ".json") for n in
                                                          (LAVAMD, "rodinia-3.1-backprop-bpnn_layerforward_ocl.ll"))
    assert json.loads((out / LAVAMD.replace(".ll", ".json")).read_text())["nodes"][0]["text"] == "[external]"


WEAK_TEST = """declare extern_weak i32 @posix_memalign(i8**, i64, i64)
declare void @g(i1, i32)

define i32 @main() {
  br i1 icmp ne (i32 (i8**, i64, i64)* @posix_memalign, i32 (i8**, i64, i64)* null), label %1, label %2

1:
  call void @g(i1 fcmp olt (float 1.0, float 2.0), i32 zext (i1 icmp eq (i8* null, i8* null) to i32))
  ret i32 1

2:
  %3 = phi i1 [ icmp ne (i32 (i8**, i64, i64)* @posix_memalign, i32 (i8**, i64, i64)* null), %0 ]
  ret i32 0
}
"""


def test_compare_constant_expressions_become_instructions_before_their_user():
    """What clang 14 prints for a weak symbol's test; a phi's operand and one inside a zext stay (LLVM's own
    upgrade would move them where text cannot), so this module as a whole still fails, with the first error."""
    assert has_compare_constexprs(WEAK_TEST)
    lines = hoist_compare_constexprs(WEAK_TEST).splitlines()
    assert lines[4:6] == ["  %cmp.constexpr.0 = icmp ne i32 (i8**, i64, i64)* @posix_memalign, null",
                          "  br i1 %cmp.constexpr.0, label %1, label %2"]
    assert lines[8:10] == ["  %cmp.constexpr.1 = fcmp olt float 1.0, 2.0",
                           "  call void @g(i1 %cmp.constexpr.1, i32 zext (i1 icmp eq (i8* null, i8* null) to i32))"]
    assert "phi i1 [ icmp ne" in lines[13]
    with pytest.raises(IRParseError) as err:
        IRModule.from_text(WEAK_TEST, "weak.ll")
    assert "line 5" in err.value.line() and "icmp constexprs" in err.value.line()
    ok = "\n".join(ln for ln in WEAK_TEST.splitlines() if "phi" not in ln and "zext" not in ln)
    call = "  call void @g(i1 fcmp olt (float 1.0, float 2.0), i32 0)\n  ret i32 1"
    module = IRModule.from_text(ok.replace("  ret i32 1", call))
    printed = "\n".join(module.printed_lines)
    assert "icmp ne ptr @posix_memalign, null" in printed and "fcmp olt float" in printed
    assert not has_compare_constexprs("  %3 = icmp eq i64 %2, 1016\n")


# what clang 14 prints for GCC's torture tests comp-goto-1.c (a computed goto's label arithmetic) and pr57877.c
# (an overlap test of four globals folded into one constant)
COMPUTED_GOTO = """define i64 @f(i64 %a) {
  %1 = sub i64 %a, zext (i32 ptrtoint (i8* blockaddress(@f, %2) to i32) to i64)
  br label %2

2:
  ret i64 %1
}
"""
OVERLAP = """@e = global [2 x i32] zeroinitializer
@h = global [2 x i32] zeroinitializer

define i1 @g(i1 %a) {
  %1 = or i1 %a, or (i1 and (i1 icmp ugt (i32* getelementptr inbounds ([2 x i32], [2 x i32]* @e, i64 0, i64 1), \
i32* getelementptr inbounds ([2 x i32], [2 x i32]* @h, i64 0, i64 0)), i1 icmp ugt (i32* getelementptr inbounds \
([2 x i32], [2 x i32]* @h, i64 0, i64 1), i32* getelementptr inbounds ([2 x i32], [2 x i32]* @e, i64 0, i64 0))), \
i1 icmp eq (i32* getelementptr inbounds ([2 x i32], [2 x i32]* @e, i64 0, i64 0), i32* null))
  ret i1 %1
}
"""


@pytest.mark.parametrize("text, hoisted", [(COMPUTED_GOTO, 1), (OVERLAP, 5)])
def test_cast_and_nested_binary_constant_expressions_become_instructions(text, hoisted):
    """Today's parser rejects them ("zext constexprs are no longer supported"); each becomes an instruction before
    its user, nested ones first, and the module parses with the same function."""
    with pytest.raises(Exception, match="constexprs are no longer supported"):
        parse_in_own_context(text)
    new = upgrade(text)
    assert new is not None and new.count(".constexpr.") == 2 * hoisted  # each defined once and used once
    module = IRModule.from_text(text, "old.ll")
    printed = "\n".join(module.printed_lines)
    assert "constexpr" in printed and "zext (" not in printed and " or (" not in printed
