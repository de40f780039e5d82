"""OpenMP worksharing loops read from LLVM IR alone, and whether a runtime schedule reaches them.

Clang lowers a worksharing loop to a call into libomp at the start of the loop, in the outlined function:
- `__kmpc_for_static_init_{4,4u,8,8u}(loc, gtid, schedtype, plastiter, plower, pupper, pstride, incr, chunk)`
  for static schedules (`schedule(static[,n])` and loops without a schedule clause);
- `__kmpc_dispatch_init_{4,4u,8,8u}(loc, gtid, schedtype, lb, ub, st, chunk)` for every other schedule
  (dynamic, guided, auto, runtime, and any loop with an `ordered` clause);
- `__kmpc_dist_for_static_init_*` / `__kmpc_dist_dispatch_init_*` for `distribute parallel for` in one call.

The third argument is libomp's `sched_type` constant (openmp/runtime/src/kmp.h), possibly with modifier bits:
bit 29 = monotonic, bit 30 = nonmonotonic (clang 14, OpenMP 5.0, adds nonmonotonic to dynamic, guided, auto and
runtime). Values read from clang 14 output at -O0 and -O2 (`int`, `long` and `unsigned` induction variables give
the _4, _8 and _4u entry points with the same constants):

    no clause / schedule(static)  for_static_init  34  kmp_sch_static
    schedule(static, 8)           for_static_init  33  kmp_sch_static_chunked        (chunk 8 is the last arg)
    schedule(dynamic[, 4])        dispatch_init    35 | 1<<30  kmp_sch_dynamic_chunked  (chunk 1 when omitted)
    schedule(guided[, 4])         dispatch_init    36 | 1<<30  kmp_sch_guided_chunked
    schedule(runtime)             dispatch_init    37 | 1<<30  kmp_sch_runtime
    schedule(auto)                dispatch_init    38 | 1<<30  kmp_sch_auto
    schedule(monotonic:dynamic)   dispatch_init    35 | 1<<29
    ordered (no schedule)         dispatch_init    66  kmp_ord_static
    ordered schedule(runtime)     dispatch_init    69 | 1<<30  kmp_ord_runtime
    sections                      for_static_init  34, with the `loc` ident flagged KMP_IDENT_WORK_SECTIONS
    distribute                    for_static_init  92  kmp_distribute_static (ident flagged WORK_DISTRIBUTE)

Only the runtime kinds (37 kmp_sch_runtime, 69 kmp_ord_runtime, 47 kmp_sch_runtime_simd) read OMP_SCHEDULE:
those loops are `runtime_reachable`. Every loop reads OMP_NUM_THREADS through its parallel region.

The `loc` argument is a `%struct.ident_t { i32, i32 flags, i32, i32, ptr psource }` constant. Its flags tell a
loop (0x200) from `sections` (0x400) and `distribute` (0x800) for the static entry points (dispatch calls carry
no work flag: they are always loops), and with `-g` its psource string `;file;function;line;column;;` gives the
source line of the directive (without `-g` it reads `;unknown;unknown;0;0;;`).

Works on llvmlite-parsed modules of any clang version (typed pointers are printed as `ptr` by llvmlite), reading
the module as llvmlite prints it (IRModule keeps the printed functions), and never imports the model.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, replace
from typing import Any

from mirtune.errors import IRParseError
from mirtune.ir import irtext
from mirtune.ir.module import FunctionText, IRModule, parse_in_own_context

MONOTONIC = 1 << 29
NONMONOTONIC = 1 << 30
_MODIFIER_MASK = MONOTONIC | NONMONOTONIC

# libomp's enum sched_type (kmp.h).
SCHEDULE_NAMES = {
    33: "kmp_sch_static_chunked",
    34: "kmp_sch_static",
    35: "kmp_sch_dynamic_chunked",
    36: "kmp_sch_guided_chunked",
    37: "kmp_sch_runtime",
    38: "kmp_sch_auto",
    39: "kmp_sch_trapezoidal",
    40: "kmp_sch_static_greedy",
    41: "kmp_sch_static_balanced",
    42: "kmp_sch_guided_iterative_chunked",
    43: "kmp_sch_guided_analytical_chunked",
    44: "kmp_sch_static_steal",
    45: "kmp_sch_static_balanced_chunked",
    46: "kmp_sch_guided_simd",
    47: "kmp_sch_runtime_simd",
    65: "kmp_ord_static_chunked",
    66: "kmp_ord_static",
    67: "kmp_ord_dynamic_chunked",
    68: "kmp_ord_guided_chunked",
    69: "kmp_ord_runtime",
    70: "kmp_ord_auto",
    71: "kmp_ord_trapezoidal",
    91: "kmp_distribute_static_chunked",
    92: "kmp_distribute_static",
}
# The OpenMP schedule kind each constant implements (what `schedule(...)` would have said).
SCHEDULE_KIND = {
    33: "static", 34: "static", 35: "dynamic", 36: "guided", 37: "runtime", 38: "auto", 39: "trapezoidal",
    40: "static", 41: "static", 42: "guided", 43: "guided", 44: "static", 45: "static", 46: "guided",
    47: "runtime", 65: "static", 66: "static", 67: "dynamic", 68: "guided", 69: "runtime", 70: "auto",
    71: "trapezoidal", 91: "static", 92: "static",
}
RUNTIME_SCHEDULES = frozenset({37, 47, 69})
CHUNKED_SCHEDULES = frozenset({33, 35, 36, 39, 45, 46, 65, 67, 68, 71, 91})
ORDERED_SCHEDULES = frozenset(range(65, 72))
DISTRIBUTE_SCHEDULES = frozenset({91, 92})

IDENT_WORK_LOOP = 0x200
IDENT_WORK_SECTIONS = 0x400
IDENT_WORK_DISTRIBUTE = 0x800

_ENTRY = re.compile(r"^__kmpc_(dist_for_static_init|for_static_init|dist_dispatch_init|dispatch_init|"
                    r"distribute_static_init)_(4|4u|8|8u)$")
_FORK_ENTRIES = frozenset({"__kmpc_fork_call", "__kmpc_fork_teams", "__kmpc_fork_call_if"})
_IDENT = re.compile(r"\{\s*i32\s+-?\d+,\s*i32\s+(-?\d+),\s*i32\s+-?\d+,\s*i32\s+-?\d+,\s*ptr\s+(.*)\}")
_GLOBAL_REF = re.compile(r'@("(?:[^"\\]|\\.)*"|[-\w$.]+)')
_GLOBAL_DEF = re.compile(r'\s*(@(?:"(?:[^"\\]|\\.)*"|[-\w$.]+))\s*=')
_ALIAS = re.compile(r"\s*(?:[a-z_]+(?:\([^)]*\))?\s+)*?(?:alias|ifunc)\s")  # after `@name =`: not a variable
_INT = re.compile(r"-?\d+")
_LABEL_OPERAND = re.compile(r'label (%(?:"[^"]*"|[-\w$.]+))')
_CSTRING = re.compile(r'c"((?:[^"\\]|\\[0-9A-Fa-f]{2}|\\\\)*)"')


@dataclass(frozen=True)
class WorksharingLoop:
    """One call that starts a worksharing loop (or sections/distribute: see `construct`)."""

    function: str              # the function holding the call (usually an outlined `.omp_outlined.` body)
    call: str                  # the libomp entry point, e.g. "__kmpc_dispatch_init_4"
    kind: str                  # "dispatch" (dynamic dispatch) or "static" (static init)
    schedule: int | None       # the schedtype constant as passed (modifier bits included); None if not constant
    schedule_base: int | None  # without the modifier bits
    schedule_name: str         # e.g. "kmp_sch_runtime"; "unknown" when not a known constant
    schedule_kind: str         # static | dynamic | guided | auto | runtime | trapezoidal | unknown
    modifiers: tuple[str, ...]  # ("nonmonotonic",), ("monotonic",) or ()
    chunk: int | None          # constant chunk of a chunked schedule, else None
    ordered: bool              # an `ordered` loop (kmp_ord_*)
    construct: str             # "loop", "sections" or "distribute"
    runtime_reachable: bool    # OMP_SCHEDULE decides this loop's schedule
    host_function: str | None = None  # the function whose parallel region runs this code (follows
                                      # __kmpc_fork_call/__kmpc_fork_teams from outlined bodies); None if
                                      # the holding function is not forked in this module (orphaned loop)
    line: int | None = None    # source line of the directive (IR compiled with -g), else None
    source_function: str | None = None  # the source function named in the debug location, if any

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["modifiers"] = list(self.modifiers)
        return d


def _ir_module(module: Any) -> IRModule:
    """An IRModule from an IRModule, an llvmlite ModuleRef or IR text."""
    if isinstance(module, IRModule):
        return module
    if isinstance(module, str):
        try:
            return IRModule(parse_in_own_context(module), "<string>")
        except RuntimeError as exc:
            raise IRParseError(f"not LLVM IR: {str(exc).strip().splitlines()[0] if str(exc).strip() else exc}") \
                from None
    if hasattr(module, "functions") and hasattr(module, "global_variables"):
        return IRModule(module, "<module>")
    raise TypeError(f"expected an IRModule, an llvmlite ModuleRef or IR text, got {type(module).__name__}")


def _const_int(operand: tuple[str, str]) -> int | None:
    """The value of an integer constant operand (type, printed value); None for anything else."""
    type_text, value = operand
    if not type_text.startswith("i") or not _INT.fullmatch(value):
        return None
    return int(value)


class _Globals:
    """Global variable definitions by their printed name (unnamed ones print as @0, @1...), read from the module
    printed once (IRModule keeps the printed lines)."""

    def __init__(self, module: IRModule) -> None:
        self._module = module
        self._text: dict[str, str] | None = None

    def text(self, name: str) -> str | None:
        """The printed definition of the global variable printed as `name` (@x, @"a b", @0)."""
        if self._text is None:
            self._text = {}
            for line in self._module.printed_lines:
                if line.startswith(("define ", "declare ")):
                    break  # every global variable is printed before the first function
                if line.startswith("@"):
                    m = _GLOBAL_DEF.match(line)
                    if m and not _ALIAS.match(line, m.end()):
                        self._text[m.group(1)] = line.strip()
        return self._text.get(name)


def _ident_info(loc: tuple[str, str], globals_: _Globals) -> tuple[int | None, int | None, str | None]:
    """(flags, source line, source function) from the `loc` ident_t argument (type, printed value), as far as
    it can be read."""
    definition = globals_.text(loc[1]) if loc[1].startswith("@") else None
    m = _IDENT.search(definition) if definition else None
    if not m:
        return None, None, None
    flags = int(m.group(1))
    ref = _GLOBAL_REF.search(m.group(2))
    if not ref:
        return flags, None, None
    target = globals_.text("@" + ref.group(1))
    if target is None:
        return flags, None, None
    s = _CSTRING.search(target)
    if not s:
        return flags, None, None
    psource = re.sub(r"\\([0-9A-Fa-f]{2})", lambda x: chr(int(x.group(1), 16)), s.group(1).replace("\\\\", "\\"))
    parts = psource.rstrip("\x00").split(";")
    # ";file;function;line;column;;"
    line = None
    func = None
    if len(parts) >= 5:
        try:
            line = int(parts[3]) or None
        except ValueError:
            line = None
        func = parts[2] if parts[2] and parts[2] != "unknown" else None
    return flags, line, func


@dataclass(frozen=True)
class CallSite:
    """A direct call in a defined function: where it is and what it passes, as printed."""

    function: str                        # the calling function
    block: int                           # the index of its basic block in the function
    callee: str
    args: tuple[tuple[str, str], ...]    # (type, printed value) of each argument, in order


def _function_name(value: str) -> str:
    """The name in a printed global reference: @name or @"quoted name"."""
    return value[1:].strip('"')


def call_sites(module: Any) -> list[CallSite]:
    """Every direct call of the module's defined functions, in order, read from the printed functions that
    IRModule keeps (no llvmlite call per instruction, which made this the slowest part of answering
    `mirtune recommend`): one reading that `openmp_schedule_calls` and `parallel_structure` share."""
    mod = _ir_module(module)
    names = {ft.name for ft in mod.functions}
    out: list[CallSite] = []
    for ft in mod.functions:
        if ft.is_declaration:
            continue
        texts = iter(ft.instructions)
        for b, (_, size) in enumerate(ft.blocks):
            for _ in range(size):
                text = next(texts)
                if "call " not in text:
                    continue
                try:
                    _, opcode, rest = irtext.head(text)
                    if opcode != "call":
                        continue
                    ops = irtext.operands(opcode, rest)
                except irtext.Unreadable:
                    if "@__kmpc_" in text:
                        raise IRParseError(f"cannot read this OpenMP runtime call in {ft.name}: {text}") from None
                    continue  # inline asm, operand bundles: not a call of a function of this module
                callee = ops[-1][1]
                if callee.startswith("@") and _function_name(callee) in names:
                    out.append(CallSite(ft.name, b, _function_name(callee), tuple(ops[:-1])))
    return out


def openmp_schedule_calls(module: Any, sites: list[CallSite] | None = None) -> list[WorksharingLoop]:
    """Every libomp loop-start call of a module: loops, and also sections and distribute constructs
    (`sites`: the module's `call_sites`, when already read)."""
    mod = _ir_module(module)
    globals_ = _Globals(mod)
    names = {ft.name for ft in mod.functions}
    out: list[WorksharingLoop] = []
    forked: dict[str, str] = {}  # outlined function -> function that forks it
    for site in call_sites(mod) if sites is None else sites:
        fn, args = site.function, site.args
        if site.callee in _FORK_ENTRIES:
            for _, value in args:
                if value.startswith("@") and _function_name(value) in names:
                    forked.setdefault(_function_name(value), fn)
            continue
        m = _ENTRY.match(site.callee)
        if not m or len(args) < 3:
            continue
        entry = m.group(1)
        sched = _const_int(args[2])
        base = sched & ~_MODIFIER_MASK if sched is not None else None
        mods = ()
        if sched is not None:
            mods = tuple(name for bit, name in ((MONOTONIC, "monotonic"), (NONMONOTONIC, "nonmonotonic"))
                         if sched & bit)
        chunk = _const_int(args[-1]) if base in CHUNKED_SCHEDULES else None
        flags, line, src_fn = _ident_info(args[0], globals_)
        if base in DISTRIBUTE_SCHEDULES or entry == "distribute_static_init" or (
                flags is not None and entry == "for_static_init" and flags & IDENT_WORK_DISTRIBUTE):
            construct = "distribute"
        elif flags is not None and entry == "for_static_init" and flags & IDENT_WORK_SECTIONS:
            construct = "sections"
        else:
            construct = "loop"
        out.append(WorksharingLoop(
            function=fn,
            call=site.callee,
            kind="dispatch" if "dispatch" in entry else "static",
            schedule=sched,
            schedule_base=base,
            schedule_name=SCHEDULE_NAMES.get(base, "unknown") if base is not None else "unknown",
            schedule_kind=SCHEDULE_KIND.get(base, "unknown") if base is not None else "unknown",
            modifiers=mods,
            chunk=chunk,
            ordered=base in ORDERED_SCHEDULES,
            construct=construct,
            runtime_reachable=base in RUNTIME_SCHEDULES,
            line=line,
            source_function=src_fn,
        ))
    return [replace(w, host_function=_host(w.function, forked)) for w in out]


def _host(name: str, forked: dict[str, str]) -> str | None:
    """The first function up the fork chain that is not itself forked (nested parallel regions)."""
    host = None
    seen = set()
    while name in forked and name not in seen:
        seen.add(name)
        name = forked[name]
        host = name
    return host


def worksharing_loops(module: Any) -> list[WorksharingLoop]:
    """The worksharing loops of a module (IRModule, llvmlite ModuleRef or IR text), in module order.

    Sections and distribute constructs, which use the same runtime entry points, are left out.
    """
    return [w for w in openmp_schedule_calls(module) if w.construct == "loop"]


def _successors(ft: FunctionText) -> dict[int, list[int]]:
    """Each basic block's successors, read from its printed terminator (`label %name` operands)."""
    index = {"%" + label: b for b, (label, _) in enumerate(ft.blocks) if label is not None}
    succ: dict[int, list[int]] = {}
    end = 0
    for b, (_, size) in enumerate(ft.blocks):
        end += size
        terminator = ft.instructions[end - 1] if size else ""
        succ[b] = [index[t] for t in _LABEL_OPERAND.findall(terminator) if t in index]
    return succ


def _blocks_in_cycles(ft: FunctionText) -> set[int]:
    """The indices of a function's basic blocks that lie on a cycle of its control-flow graph (the bodies of
    loops)."""
    succ = _successors(ft)
    # Kosaraju: a block is on a cycle when its strongly connected component has two blocks or a self-edge.
    order: list[int] = []
    seen: set[int] = set()
    for root in succ:
        if root in seen:
            continue
        seen.add(root)
        stack = [(root, iter(succ[root]))]
        while stack:
            node, it = stack[-1]
            nxt = next((s for s in it if s not in seen), None)
            if nxt is None:
                order.append(node)
                stack.pop()
            else:
                seen.add(nxt)
                stack.append((nxt, iter(succ[nxt])))
    pred: dict[int, list[int]] = {b: [] for b in succ}
    for b, ss in succ.items():
        for s in ss:
            pred[s].append(b)
    cyclic: set[int] = set()
    assigned: set[int] = set()
    for root in reversed(order):
        if root in assigned:
            continue
        component, todo = [], [root]
        assigned.add(root)
        while todo:
            node = todo.pop()
            component.append(node)
            for p in pred[node]:
                if p not in assigned:
                    assigned.add(p)
                    todo.append(p)
        if len(component) > 1 or root in succ[root]:
            cyclic.update(component)
    return cyclic


def parallel_structure(module: Any, sites: list[CallSite] | None = None) -> dict[str, int]:
    """Counts of the parallel constructs of a module and of those that sit inside a loop of their function (so
    run many times per call): parallel regions forked, worksharing loops started, barriers. A worksharing loop
    inside a sequential loop pays a barrier per outer iteration; a fork inside a loop pays a fork and a join.
    (`sites`: the module's `call_sites`, when already read.)"""
    out = {"forks": 0, "forks_in_loops": 0, "loop_starts": 0, "loop_starts_in_loops": 0,
           "barriers": 0, "barriers_in_loops": 0}
    mod = _ir_module(module)
    functions = {ft.name: ft for ft in mod.functions}
    cyclic: dict[str, set[int]] = {}
    for site in call_sites(mod) if sites is None else sites:
        name = site.callee
        kind = ("forks" if name in _FORK_ENTRIES else "loop_starts" if _ENTRY.match(name)
                else "barriers" if name == "__kmpc_barrier" else None)
        if kind is None:
            continue
        fn_name = site.function
        if fn_name not in cyclic:
            cyclic[fn_name] = _blocks_in_cycles(functions[fn_name])
        out[kind] += 1
        if site.block in cyclic[fn_name]:
            out[kind + "_in_loops"] += 1
    return out


_ATOMIC_UPDATE = re.compile(r"^(?:%[-\w$.]+\s*=\s*)?(?:atomicrmw|cmpxchg)\s")
_CRITICAL_ENTRIES = frozenset({"__kmpc_critical", "__kmpc_critical_with_hint", "omp_set_lock", "omp_set_nest_lock"})
_REDUCE_ENTRIES = frozenset({"__kmpc_reduce", "__kmpc_reduce_nowait"})


def shared_updates(module: Any, sites: list[CallSite] | None = None) -> dict[str, int]:
    """Updates of shared memory that the threads of a parallel region serialise on, counted where they repeat: in
    the loop bodies of the functions a fork runs (atomic read-modify-writes, `atomicrmw`/`cmpxchg`, and entries
    into a critical section or lock). Clang's combining code of a `reduction` clause (after `__kmpc_reduce`, whose
    float case retries a `cmpxchg` in a loop of its own) runs once per thread and is not counted. Many threads
    incrementing one small table run slower than one: the run's timings cannot tell that from useful work."""
    mod = _ir_module(module)
    functions = {ft.name: ft for ft in mod.functions}
    sites = call_sites(mod) if sites is None else sites
    forked = {_function_name(v) for site in sites if site.callee in _FORK_ENTRIES for _, v in site.args
              if v.startswith("@") and _function_name(v) in functions}
    out = {"atomic_updates_in_loops": 0, "critical_entries_in_loops": 0}
    counted: dict[str, set[int]] = {}
    for name in forked:
        ft = functions[name]
        if ft.is_declaration:
            continue
        succ = _successors(ft)
        combining = {b for site in sites if site.function == name and site.callee in _REDUCE_ENTRIES
                     for b in succ[site.block]}
        todo = list(combining)
        while todo:
            for nxt in succ[todo.pop()]:
                if nxt not in combining:
                    combining.add(nxt)
                    todo.append(nxt)
        counted[name] = _blocks_in_cycles(ft) - combining
        texts = iter(ft.instructions)
        for b, (_, size) in enumerate(ft.blocks):
            for _ in range(size):
                text = next(texts)
                if b in counted[name] and _ATOMIC_UPDATE.match(text.strip()):
                    out["atomic_updates_in_loops"] += 1
    out["critical_entries_in_loops"] = sum(1 for site in sites if site.callee in _CRITICAL_ENTRIES
                                           and site.block in counted.get(site.function, ()))
    return out
