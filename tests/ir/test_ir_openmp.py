"""Worksharing loops and their schedules read from IR alone, for every schedule kind at -O0 and -O2."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import llvmlite.binding as llvm
import pytest

from mirtune.ir.frontend import compile_to_ir
from mirtune.ir.openmp import openmp_schedule_calls, worksharing_loops

# One function per schedule; each holds one loop (the induction variable type picks the _4/_8/_4u entry point).
SCHEDULES = {
    "none": "",
    "runtime": "schedule(runtime)",
    "dyn4": "schedule(dynamic, 4)",
    "dyn": "schedule(dynamic)",
    "guided": "schedule(guided)",
    "guided8": "schedule(guided, 8)",
    "static": "schedule(static)",
    "static8": "schedule(static, 8)",
    "auto": "schedule(auto)",
    "monodyn": "schedule(monotonic: dynamic)",
}
# function -> (kind, schedule constant, name, chunk, runtime reachable)
NONMONO = 1 << 30
EXPECTED = {
    "none": ("static", 34, "kmp_sch_static", None, False),
    "runtime": ("dispatch", NONMONO | 37, "kmp_sch_runtime", None, True),
    "dyn4": ("dispatch", NONMONO | 35, "kmp_sch_dynamic_chunked", 4, False),
    "dyn": ("dispatch", NONMONO | 35, "kmp_sch_dynamic_chunked", 1, False),
    "guided": ("dispatch", NONMONO | 36, "kmp_sch_guided_chunked", 1, False),
    "guided8": ("dispatch", NONMONO | 36, "kmp_sch_guided_chunked", 8, False),
    "static": ("static", 34, "kmp_sch_static", None, False),
    "static8": ("static", 33, "kmp_sch_static_chunked", 8, False),
    "auto": ("dispatch", NONMONO | 38, "kmp_sch_auto", None, False),
    "monodyn": ("dispatch", (1 << 29) | 35, "kmp_sch_dynamic_chunked", 1, False),
}
INDEX_TYPES = (("int", "_4"), ("long", "_8"), ("unsigned", "_4u"))


def _source() -> str:
    out = []
    for name, clause in SCHEDULES.items():
        for ctype, suffix in INDEX_TYPES:
            out.append(f"void {name}{suffix}({ctype} n, double *a) {{\n"
                       f"#pragma omp parallel for {clause}\n"
                       f"  for ({ctype} i = 0; i < n; i++) a[i] = a[i] * 2.0 + 1.0;\n}}\n")
    out.append("""
void ordered_rt(int n, double *a) {
#pragma omp parallel for ordered schedule(runtime)
  for (int i = 0; i < n; i++) {
#pragma omp ordered
    a[i] += 1;
  }
}
void ordered_default(int n, double *a) {
#pragma omp parallel for ordered
  for (int i = 0; i < n; i++) {
#pragma omp ordered
    a[i] += 1;
  }
}
void sections(double *a) {
#pragma omp parallel sections
  {
#pragma omp section
    a[0] = 1;
#pragma omp section
    a[1] = 2;
  }
}
void nested(int n, double *a) {
#pragma omp parallel
  {
#pragma omp for schedule(runtime) nowait
    for (int i = 0; i < n; i++) a[i] += 1;
#pragma omp for
    for (int i = 0; i < n; i++) a[i] *= 2;
  }
}
""")
    return "".join(out)


@pytest.fixture(scope="module", params=[0, 2], ids=["O0", "O2"])
def loops_by_host(request, tmp_path_factory):
    src = tmp_path_factory.mktemp("omp") / "schedules.c"
    src.write_text(_source())
    text = compile_to_ir(src, opt=request.param, openmp=True)
    calls = openmp_schedule_calls(text)
    by_host: dict[str, list] = {}
    for c in calls:
        by_host.setdefault(c.host_function, []).append(c)
    return by_host


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_each_schedule_kind(loops_by_host, name):
    kind, const, sched_name, chunk, reachable = EXPECTED[name]
    for ctype, suffix in INDEX_TYPES:
        [loop] = loops_by_host[name + suffix]
        entry = "__kmpc_dispatch_init" if kind == "dispatch" else "__kmpc_for_static_init"
        assert loop.call == entry + suffix
        assert (loop.kind, loop.schedule, loop.schedule_name, loop.chunk, loop.runtime_reachable) == \
            (kind, const, sched_name, chunk, reachable), (name, ctype)
        assert loop.construct == "loop" and not loop.ordered
        assert loop.function.startswith(".omp_outlined")


def test_ordered_sections_and_orphaned_loops(loops_by_host):
    [rt] = loops_by_host["ordered_rt"]
    assert (rt.schedule_name, rt.ordered, rt.runtime_reachable) == ("kmp_ord_runtime", True, True)
    [default] = loops_by_host["ordered_default"]
    assert (default.schedule, default.schedule_name, default.runtime_reachable) == (66, "kmp_ord_static", False)
    [sections] = loops_by_host["sections"]
    assert sections.construct == "sections"
    first, second = loops_by_host["nested"]
    assert (first.schedule_name, first.runtime_reachable) == ("kmp_sch_runtime", True)
    assert (second.schedule_name, second.runtime_reachable) == ("kmp_sch_static", False)


def test_every_loop_found_and_sections_are_not_loops(loops_by_host):
    calls = [c for v in loops_by_host.values() for c in v]
    assert len(calls) == len(SCHEDULES) * len(INDEX_TYPES) + 5
    assert sum(c.construct == "loop" for c in calls) == len(calls) - 1
    assert all(c.host_function is not None for c in calls)


def test_debug_info_gives_the_directive_line(tmp_path):
    src = tmp_path / "lines.c"
    src.write_text("void f(int n, double *a) {\n#pragma omp parallel\n  {\n"
                   "#pragma omp for schedule(runtime) nowait\n    for (int i = 0; i < n; i++) a[i] += 1;\n"
                   "#pragma omp for\n    for (int i = 0; i < n; i++) a[i] *= 2;\n  }\n}\n")
    ir = compile_to_ir(src, opt=2, openmp=True, extra=["-g"])
    assert len(openmp_schedule_calls(ir)) == len(worksharing_loops(ir)) == 2
    loops = worksharing_loops(ir)
    assert [(lp.line, lp.source_function, lp.runtime_reachable) for lp in loops] == [(4, "f", True), (6, "f", False)]
    assert [lp.line for lp in worksharing_loops(compile_to_ir(src, opt=2, openmp=True))] == [None, None]


OPAQUE_IR = """
%struct.ident_t = type { i32, i32, i32, i32, ptr }
@0 = private unnamed_addr constant [23 x i8] c";unknown;unknown;0;0;;\\00", align 1
@1 = private unnamed_addr constant %struct.ident_t { i32 0, i32 2, i32 0, i32 22, ptr @0 }, align 8
@2 = private unnamed_addr constant %struct.ident_t { i32 0, i32 514, i32 0, i32 22, ptr @0 }, align 8

define void @body(ptr %gtid, ptr %b, i32 %n) {
entry:
  %last = alloca i32
  %lb = alloca i32
  %ub = alloca i32
  %st = alloca i32
  %id = load i32, ptr %gtid
  call void @__kmpc_dispatch_init_4(ptr @1, i32 %id, i32 1073741861, i32 0, i32 %n, i32 1, i32 1)
  call void @__kmpc_for_static_init_4(ptr @2, i32 %id, i32 33, ptr %last, ptr %lb, ptr %ub, ptr %st, i32 1, i32 16)
  ret void
}

define void @host(i32 %n) {
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr @1, i32 1, ptr @body, i32 %n)
  ret void
}

declare void @__kmpc_dispatch_init_4(ptr, i32, i32, i32, i32, i32, i32)
declare void @__kmpc_for_static_init_4(ptr, i32, i32, ptr, ptr, ptr, ptr, i32, i32)
declare void @__kmpc_fork_call(ptr, i32, ptr, ...)
"""


def test_opaque_pointer_ir_and_every_input_form():
    ref = llvm.parse_assembly(OPAQUE_IR)
    results = [worksharing_loops(OPAQUE_IR), worksharing_loops(ref)]
    try:
        from mirtune.ir.module import IRModule
    except ImportError:  # pragma: no cover - module.py not there yet
        pass
    else:
        results.append(worksharing_loops(IRModule.from_text(OPAQUE_IR)))
    for loops in results:
        assert [(lp.function, lp.host_function, lp.schedule_name, lp.chunk, lp.runtime_reachable)
                for lp in loops] == [("body", "host", "kmp_sch_runtime", None, True),
                                     ("body", "host", "kmp_sch_static_chunked", 16, False)]


def test_a_runtime_call_the_reader_cannot_read_is_one_clear_error():
    """The calls are read from the printed IR; a libomp call in a form that reader does not know (here an operand
    bundle) is an IRParseError naming it, never a loop silently missed."""
    from mirtune.errors import IRParseError

    odd = OPAQUE_IR.replace("i32 1, i32 16)\n", 'i32 1, i32 16) [ "deopt"() ]\n')
    assert odd != OPAQUE_IR
    with pytest.raises(IRParseError, match="cannot read this OpenMP runtime call in body"):
        worksharing_loops(odd)


def test_no_openmp_means_no_loops(tmp_path):
    src = tmp_path / "plain.c"
    src.write_text("int f(int n) { int s = 0; for (int i = 0; i < n; i++) s += i; return s; }\n")
    assert worksharing_loops(compile_to_ir(src, opt=2)) == []


def test_does_not_import_the_model():
    tree = ast.parse(Path(sys.modules["mirtune.ir.openmp"].__file__).read_text())
    imported = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    imported |= {n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert not any(m.startswith(("mirtune.model", "torch")) for m in imported)


STRUCTURE = """
#include <omp.h>
void once(int n, double *a) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) a[i] += 1.0;
}
void steps(int n, int t, double *a) {
  for (int s = 0; s < t; s++) {
#pragma omp parallel for
    for (int i = 0; i < n; i++) a[i] *= 0.5;
  }
}
void waves(int n, int t, double *a) {
#pragma omp parallel
  for (int s = 0; s < t; s++) {
#pragma omp for
    for (int i = 0; i < n; i++) a[i] -= 1.0;
  }
}
"""


@pytest.mark.parametrize("opt", [0, 2])
def test_parallel_structure_counts_constructs_inside_loops(tmp_path, opt):
    from mirtune.ir.openmp import parallel_structure

    src = tmp_path / "structure.c"
    src.write_text(STRUCTURE)
    counts = parallel_structure(compile_to_ir(src, opt=opt, openmp=True))
    # three parallel regions; the one in `steps` is forked once per time step
    assert counts["forks"] == 3 and counts["forks_in_loops"] == 1
    # three worksharing loops; the `omp for` of `waves` starts once per step inside its region, with its barrier
    assert counts["loop_starts"] == 3 and counts["loop_starts_in_loops"] == 1
    assert counts["barriers_in_loops"] >= 1


def _many_globals_ir(n_globals: int, n_loops: int) -> str:
    """Unnamed ident_t globals (as clang names them) pointing at one source location each, n_globals other
    globals, and one function with n_loops static-schedule loop starts."""
    parts = ["%struct.ident_t = type { i32, i32, i32, i32, ptr }"]
    for k in range(n_loops):
        loc = f";app.c;work;{k + 10};3;;"
        parts.append(f'@{2 * k} = private unnamed_addr constant [{len(loc) + 1} x i8] c"{loc}\\00"')
        parts.append(f"@{2 * k + 1} = private unnamed_addr constant %struct.ident_t {{ i32 0, i32 514, i32 0, "
                     f"i32 22, ptr @{2 * k} }}")
    parts += [f"@data{i} = global [2 x i32] [i32 {i}, i32 0]" for i in range(n_globals)]
    body = [f"  call void @__kmpc_for_static_init_4(ptr @{2 * k + 1}, i32 %id, i32 34, ptr %p, ptr %p, ptr %p, "
            f"ptr %p, i32 1, i32 1)" for k in range(n_loops)]
    parts.append("define void @work(i32 %id, ptr %p) {\n" + "\n".join(body) + "\n  ret void\n}")
    parts.append("declare void @__kmpc_for_static_init_4(ptr, i32, i32, ptr, ptr, ptr, ptr, i32, i32)")
    return "\n".join(parts) + "\n"


def test_source_lines_of_many_loops_in_a_module_of_many_globals():
    """Each global used to be printed on its own through llvmlite (a cost in proportion to the module): 40000
    globals and 200 loops took 12 s; the module is now printed once (about 1 s)."""
    import time

    ir = _many_globals_ir(40000, 200)
    t0 = time.perf_counter()
    loops = openmp_schedule_calls(ir)
    elapsed = time.perf_counter() - t0
    assert [(lp.line, lp.source_function) for lp in loops] == [(k + 10, "work") for k in range(200)]
    assert elapsed < 5.0, elapsed  # generous: the machine is shared



SHARED = {  # one function each: an atomic per iteration, a reduction and an atomic once per thread, a critical
    "tally": """int hist[16];
void tally(int n, const int *v) {
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
#pragma omp atomic
    hist[v[i] & 15]++;
  }
}
""",
    "reduce": """double reduce(int n, const double *a, int *hits) {
  double s = 0.0; float f = 0.0f;
#pragma omp parallel
  {
#pragma omp for reduction(+:s, f)
    for (int i = 0; i < n; i++) { s += a[i]; f += (float)a[i]; }
#pragma omp atomic
    (*hits)++;
  }
  return s + f;
}
""",
    "guarded": """long guarded(int n) {
  long total = 0;
#pragma omp parallel for
  for (int i = 0; i < n; i++) {
    if (i % 7 == 0) {
#pragma omp critical
      total += i;
    }
  }
  return total;
}
"""}


@pytest.mark.parametrize("opt", [0, 2])
def test_shared_updates_counts_what_the_threads_serialise_on_per_iteration(tmp_path, opt):
    from mirtune.ir.openmp import shared_updates

    counts = {}
    for name, text in (*SHARED.items(), ("all", "".join(SHARED.values()))):
        src = tmp_path / f"{name}.c"
        src.write_text(text)
        counts[name] = shared_updates(compile_to_ir(src, opt=opt, openmp=True))
    assert counts["tally"]["atomic_updates_in_loops"] >= 1 and counts["tally"]["critical_entries_in_loops"] == 0
    # a reduction's combining code (a cmpxchg retry loop for the float) and an atomic once per thread: nothing
    assert counts["reduce"] == {"atomic_updates_in_loops": 0, "critical_entries_in_loops": 0}
    assert counts["guarded"] == {"atomic_updates_in_loops": 0, "critical_entries_in_loops": 1}
    assert counts["all"] == {"atomic_updates_in_loops": counts["tally"]["atomic_updates_in_loops"],
                             "critical_entries_in_loops": 1}
