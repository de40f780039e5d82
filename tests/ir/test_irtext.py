"""Reading operands from printed instructions: unit cases, and the same graph as asking llvmlite value by value."""

from __future__ import annotations

import pytest

from mirtune.ir import graph, irtext
from mirtune.ir.frontend import compile_to_ir
from mirtune.ir.module import IRModule
from mirtune.paths import ASSETS_DIR


def ops(line: str) -> list[tuple[str, str]]:
    _, opcode, rest = irtext.head(line)
    return irtext.operands(opcode, rest)


@pytest.mark.parametrize("line, expected", [
    ("%31 = getelementptr inbounds double, ptr %0, i64 %30", [("ptr", "%0"), ("i64", "%30")]),
    ("%5 = add nsw i32 %4, -2", [("i32", "%4"), ("i32", "-2")]),
    ("%47 = fcmp ogt float %46, 0.000000e+00", [("float", "%46"), ("float", "0.000000e+00")]),
    ("%12 = fsub <4 x float> splat (float 1.000000e+00), %11",
     [("<4 x float>", "splat (float 1.000000e+00)"), ("<4 x float>", "%11")]),
    ("%9 = trunc i64 %8 to i32", [("i64", "%8")]),
    ("%3 = ptrtoint ptr getelementptr inbounds ([4 x i8], ptr @s, i64 0, i64 1) to i64",
     [("ptr", "getelementptr inbounds ([4 x i8], ptr @s, i64 0, i64 1)")]),
    ("store double %49, ptr %51, align 8", [("double", "%49"), ("ptr", "%51")]),
    ("%7 = load atomic i32, ptr addrspace(1) %p seq_cst, align 4", [("ptr addrspace(1)", "%p")]),
    # an alloca's array size is an operand even when not printed (LLVM's implicit i32 1)
    ("%5 = alloca <4 x float>, align 16", [("i32", "1")]),
    ("%5 = alloca i32, i64 %n, align 4", [("i64", "%n")]),
    ("%74 = phi i32 [ %0, %65 ], [ 7, %89 ]", [("i32", "%0"), ("i32", "7")]),
    # LLVM lists a conditional branch's operands as [cond, false, true]
    ("br i1 %64, label %65, label %71", [("i1", "%64"), ("label", "%71"), ("label", "%65")]),
    ("br label %9", [("label", "%9")]),
    # switch case values come back as constants, in LLVM 10's order
    ("switch i32 %1, label %9 [ i32 -1, label %5 i32 2, label %7 ]",
     [("i32", "%1"), ("label", "%9"), ("i32", "-1"), ("label", "%5"), ("i32", "2"), ("label", "%7")]),
    ("%22 = shufflevector <4 x float> %21, <4 x float> poison, <4 x i32> <i32 0, i32 poison, i32 0, i32 0>",
     [("<4 x float>", "%21"), ("<4 x float>", "poison"), ("<4 x i32>", "<i32 0, i32 undef, i32 0, i32 0>")]),
    ("%6 = tail call i64 @_Z12get_local_idj(i32 0)", [("i32", "0"), ("ptr", "@_Z12get_local_idj")]),
    ("%4 = call noundef i32 (ptr, ...) @printf(ptr noundef nonnull dereferenceable(1) @.str, i32 noundef %3)",
     [("ptr", "@.str"), ("i32", "%3"), ("ptr", "@printf")]),
    ("call void @llvm.dbg.value(metadata i32 %x, metadata !12, metadata !DIExpression())",
     [("metadata", "i32 %x"), ("metadata", "!12"), ("metadata", "!DIExpression()"), ("ptr", "@llvm.dbg.value")]),
    ('%3 = call i32 asm sideeffect "mov $1, $0", "=r,r,~{dirflag}"(i32 %0)', [("i32", "%0"), ("asm", "")]),
    ("%8 = invoke noundef i32 @f(i32 noundef %7) to label %9 unwind label %11",
     [("i32", "%7"), ("label", "%9"), ("label", "%11"), ("ptr", "@f")]),
    ("%11 = landingpad { ptr, i32 } cleanup catch ptr @_ZTIi", [("ptr", "@_ZTIi")]),
    ("%r = cmpxchg ptr %p, i32 %o, i32 %n seq_cst seq_cst, align 4", [("ptr", "%p"), ("i32", "%o"), ("i32", "%n")]),
    ("%v = extractvalue { i32, i1 } %r, 0", [("{ i32, i1 }", "%r")]),
    ("ret void", []),
    ("ret { i32, double } %s", [("{ i32, double }", "%s")]),
])
def test_operands_in_llvm10_order(line, expected):
    assert ops(line) == expected


@pytest.mark.parametrize("line", [
    "call void @f() [ \"deopt\"(i32 1) ]",            # operand bundles are not read
    "%x = catchswitch within none [label %h] unwind to caller",
    "%y = add i32",                                    # malformed
])
def test_unknown_forms_are_refused(line):
    with pytest.raises(irtext.Unreadable):
        ops(line)


@pytest.mark.parametrize("line", [
    "%5 = load double, ptr %4, align 8",
    "%5 = load %struct.S, ptr @g",
    "store i64 %63, ptr %65, align 8",
    "store double 4.000000e-01, ptr @x, align 16",
    "%36 = getelementptr inbounds [65 x [65 x [5 x double]]], ptr %20, i64 %22, i64 %24, i64 3",
    "%7 = getelementptr inbounds nuw %struct.S, ptr %6, i64 0, i32 1",
    "%8 = getelementptr i8, ptr %p, i64 -4",
    "%918 = tail call double @llvm.fmuladd.f64(double %917, double 4.000000e-01, double %913)",
    "call void @f()",
    "%2 = call i32 %fp(i32 0, i1 true, ptr null)",
    "%515 = phi double [ %510, %502 ], [ %460, %496 ]",
    "%5 = fadd fast float %3, 1.000000e+00",
    "%5 = add nuw nsw i64 %4, 1",
    "%9 = icmp slt i32 %8, %n",
    "%9 = fcmp nnan olt double %a, 0.000000e+00",
    "%9 = sext i32 %8 to i64",
    "%9 = bitcast <2 x float> %v to double",
    # near misses: forms the general readers read differently or refuse
    "%5 = load atomic i32, ptr %4 monotonic, align 4",
    "%5 = load i32, ptr monotonic, align 4",
    "%5 = load volatile i32, ptr %4, align 4",
    "%7 = getelementptr inbounds [4 x [5 x i32], ptr %6, i64 0",
    "%6 = call i32 @f(i32 noundef %x)",
    "%6 = call i32 @f(i32 align)",
    "%9 = icmp nsw i32 %8, %n",
    "%9 = fcmp fast float %a, %b",
    "%5 = add i32 %4",
])
def test_fast_paths_read_as_the_general_readers(line):
    _, opcode, rest = irtext.head(line)
    try:
        general = irtext._READERS[opcode](opcode, rest)
    except (ValueError, IndexError, AttributeError):
        general = None
    try:
        fast = irtext.operands(opcode, rest)
    except irtext.Unreadable:
        fast = None
    assert fast == general


def test_fast_paths_read_every_plain_devmap_instruction_as_the_general_readers(devmap_ir_dir):
    matched = 0
    for path in sorted(devmap_ir_dir.glob("*.ll"))[::15]:
        for fn in IRModule.from_file(path).functions:
            for line in fn.instructions:
                _, opcode, rest = irtext.head(line)
                fast = irtext._FAST.get(opcode)
                if fast is not None and fast[0].fullmatch(rest):
                    matched += 1
                    assert fast[1](fast[0].fullmatch(rest)) == irtext._READERS[opcode](opcode, rest), line
    assert matched > 1000


def test_are_local():
    assert irtext.are_local(["%0", "%x.y", "%a-b"])
    assert irtext.are_local(['%"a b"', "%1"])
    assert irtext.are_local([])
    assert not irtext.are_local(["%0", "%a,b"])
    assert not irtext.are_local(["%0", "x"])


def test_arguments_of_a_header():
    header = 'define spir_kernel void @k(ptr addrspace(1) noundef readonly align 4 %0, i32 %n, ...) local_unnamed_addr'
    assert irtext.arguments(header, "k") == [("ptr addrspace(1)", "%0"), ("i32", "%n")]
    assert irtext.arguments('declare i32 @"odd name"(i32 noundef, ptr)', "odd name") == [("i32", None), ("ptr", None)]


def _graph_fields(g: graph.ProgramGraph):
    return g.node_type, g.node_text, g.node_full_text, g.node_function, g.node_block, g.edges


def _both_readers(module: IRModule):
    graph._text_functions(module)  # raises Unreadable if the text reader would not be used
    return _graph_fields(graph.build_graph(module)), _graph_fields(graph.build_graph(module, reader="llvm"))


CXX = r"""
#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <stdexcept>
std::atomic<int> counter;
struct S { int a; double b; };
int f(int x) { if (x < 0) throw std::runtime_error("neg"); return x * 2; }
int g(int x) { try { return f(x); } catch (const std::exception &e) { std::printf("%s\n", e.what()); return -1; } }
int sw(int x) { switch (x) { case 1: return 4; case 7: return 9; case 100: return g(x); default: return 0; } }
int va(int n, ...) { va_list ap; va_start(ap, n); int s = 0; for (int i = 0; i < n; i++) s += va_arg(ap, int);
                     va_end(ap); return s; }
S mk(int a) { S s{a, 1.5}; return s; }
int (*fp)(int) = f;
int h(int x) { int y; asm volatile("mov %1, %0" : "=r"(y) : "r"(x)); return y + fp(x) + counter.fetch_add(1)
               + va(3, 1, 2, 3) + mk(x).a + sw(x); }
"""


@pytest.mark.parametrize("opt", [0, 2])
def test_same_graph_as_llvmlite_on_cxx_with_exceptions_atomics_varargs_and_asm(tmp_path, opt):
    src = tmp_path / "t.cpp"
    src.write_text(CXX)
    module = IRModule.from_text(compile_to_ir(src, opt=opt))
    assert any("landingpad" in t for f in module.functions for t in f.instructions)
    text, llvm = _both_readers(module)
    assert text == llvm


@pytest.mark.parametrize("opt", [0, 3])
def test_same_graph_as_llvmlite_on_openmp_c(opt):
    module = IRModule.from_text(compile_to_ir(ASSETS_DIR / "examples" / "heat2d.c", opt=opt, openmp=True))
    text, llvm = _both_readers(module)
    assert text == llvm


def test_same_graph_as_llvmlite_on_devmap_kernels(devmap_ir_dir):
    for path in sorted(devmap_ir_dir.glob("*.ll"))[::15]:  # 45 kernels across the suites
        text, llvm = _both_readers(IRModule.from_file(path))
        assert text == llvm, path.name


def test_build_graph_falls_back_to_llvmlite_for_what_text_cannot_read():
    ir = ("declare void @f(i32)\n"
          "define void @g(i32 %x) {\n  call void @f(i32 %x) [ \"deopt\"(i32 7) ]\n  ret void\n}\n")
    module = IRModule.from_text(ir)
    with pytest.raises(irtext.Unreadable):
        graph._text_functions(module)
    g = graph.build_graph(module)
    # the bundle's constant is an operand that only llvmlite's reading sees
    assert "i32 7" in g.node_full_text and "i32 %x" in g.node_full_text
