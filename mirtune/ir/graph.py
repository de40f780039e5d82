"""ProGraML program graphs (schema 0.3.2) built from llvmlite, for IR of any LLVM version.

The construction follows ProGraML's LLVM builder: instruction nodes per function (block by block) with
control edges, a new variable node for every use of an instruction result, one variable node per
function argument, module-wide constant nodes, and call edges between the root, call sites and
function entries/exits. See docs/graphs.md for where the result differs from `llvm2graph-10`.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from mirtune.ir import irtext
from mirtune.ir.module import FunctionText, IRModule, gc_paused, parse_in_own_context

INSTRUCTION, VARIABLE, CONSTANT = 0, 1, 2
CONTROL, DATA, CALL = 0, 1, 2
NODE_TYPES = ("instruction", "variable", "constant")
FLOWS = ("control", "data", "call")
SCHEMA_VERSION = "programl-0.3.2"
ROOT_TEXT = "[external]"
UNDEFINED_FUNCTION_TEXT = "; undefined function"

_LIFETIME = ("llvm.lifetime.start", "llvm.lifetime.end")
_ALLOCA_TYPE = re.compile(r"=\s*alloca\s+(?:inalloca\s+)?(.+?)(?:,\s*align\s+\d+)?(?:,\s*addrspace\(\d+\))?$")
_TERMINATORS_WITH_SUCCESSORS = frozenset({"br", "switch", "indirectbr", "invoke", "callbr",
                                          "catchswitch", "catchret", "cleanupret"})


@dataclass
class ProgramGraph:
    """Nodes (type, text, full_text, function, block) and edges (source, target, flow, position)."""

    node_type: list[int] = field(default_factory=list)
    node_text: list[str] = field(default_factory=list)
    node_full_text: list[str] = field(default_factory=list)
    node_function: list[int | None] = field(default_factory=list)
    node_block: list[int | None] = field(default_factory=list)
    edges: list[tuple[int, int, int, int]] = field(default_factory=list)
    functions: list[str] = field(default_factory=list)
    module_name: str = ""

    def add_node(self, type_: int, text: str, full_text: str, function: int | None, block: int | None) -> int:
        """Append a node and return its index."""
        self.node_type.append(type_)
        self.node_text.append(text)
        self.node_full_text.append(full_text)
        self.node_function.append(function)
        self.node_block.append(block)
        return len(self.node_type) - 1

    def add_nodes(self, type_: int, texts: list[str], full_texts: list[str], function: int | None,
                  blocks: list[int | None]) -> int:
        """Append one node of one type and function per text (in one go: graphs have millions of nodes);
        return the first one's index."""
        first = len(self.node_type)
        self.node_type.extend([type_] * len(texts))
        self.node_text.extend(texts)
        self.node_full_text.extend(full_texts)
        self.node_function.extend([function] * len(texts))
        self.node_block.extend(blocks)
        return first

    def add_edge(self, source: int, target: int, flow: int, position: int) -> None:
        """Append a directed edge of one flow."""
        self.edges.append((source, target, flow, position))

    @property
    def num_nodes(self) -> int:
        return len(self.node_type)

    def node_counts(self) -> dict[str, int]:
        """Number of nodes of each type, by name."""
        return {name: self.node_type.count(i) for i, name in enumerate(NODE_TYPES)}

    def edge_counts(self) -> dict[str, int]:
        """Number of edges of each flow, by name."""
        counts = [0, 0, 0]
        for _, _, flow, _ in self.edges:
            counts[flow] += 1
        return dict(zip(FLOWS, counts))

    def to_node_link(self) -> dict[str, Any]:
        """ProGraML's networkx node-link JSON (type and flow as the schema's integers)."""
        nodes = [
            {"id": i, "type": t, "text": self.node_text[i], "function": self.node_function[i],
             "block": self.node_block[i], "features": {"full_text": [self.node_full_text[i]]}}
            for i, t in enumerate(self.node_type)
        ]
        keys: dict[tuple[int, int], int] = {}
        links = []
        for src, dst, flow, pos in self.edges:
            key = keys.get((src, dst), 0)
            keys[(src, dst)] = key + 1
            links.append({"flow": flow, "position": pos, "source": src, "target": dst, "key": key})
        return {
            "directed": True,
            "multigraph": True,
            "graph": {"schema": SCHEMA_VERSION, "module": self.module_name, "functions": self.functions},
            "nodes": nodes,
            "links": links,
        }

    def to_json(self, path: str | os.PathLike | None = None) -> str:
        """Serialise as node-link JSON; write it to `path` when given."""
        text = json.dumps(self.to_node_link())
        if path is not None:
            with open(path, "w") as f:
                f.write(text)
        return text

    @classmethod
    def from_node_link(cls, data: dict[str, Any]) -> "ProgramGraph":
        """Read back what to_node_link wrote."""
        g = cls(module_name=data.get("graph", {}).get("module", ""),
                functions=list(data.get("graph", {}).get("functions", [])))
        for n in sorted(data["nodes"], key=lambda n: n["id"]):
            g.add_node(n["type"], n["text"], n["features"]["full_text"][0], n.get("function"), n.get("block"))
        for e in data["links"]:
            g.add_edge(e["source"], e["target"], e["flow"], e["position"])
        return g

    def to_pyg(self) -> Any:
        """A torch_geometric Data: one edge_index (and positions) per flow, node types and texts."""
        import torch
        from torch_geometric.data import Data

        per_flow: dict[int, list[tuple[int, int, int]]] = {CONTROL: [], DATA: [], CALL: []}
        for src, dst, flow, pos in self.edges:
            per_flow[flow].append((src, dst, pos))
        data = Data(num_nodes=self.num_nodes)
        data.node_type = torch.tensor(self.node_type, dtype=torch.long)
        data.node_text = list(self.node_text)
        data.node_full_text = list(self.node_full_text)
        for flow, name in enumerate(FLOWS):
            rows = per_flow[flow]
            ei = torch.tensor([[r[0] for r in rows], [r[1] for r in rows]], dtype=torch.long).reshape(2, -1)
            data[f"{name}_edge_index"] = ei
            data[f"{name}_edge_position"] = torch.tensor([r[2] for r in rows], dtype=torch.long)
        return data


@dataclass
class _Instr:
    key: Any          # identity of the result: its %name (text reader) or its ValueRef's hash (llvmlite reader)
    opcode: str
    text: str
    operands: list[tuple[str, Any, Any]]  # (kind, key, payload) in LLVM 10's order; see _Function


@dataclass
class _Function:
    """One function as the assembler consumes it, whichever reader produced it.

    Operand kinds: "instruction" and "argument" (key: identity, payload: what `type_text` prints the type of),
    "basic_block" (key: block index), "function" (key: name), "constant" (payload: (type, printed form)) and
    "none" (metadata, inline asm: a position but no node).
    """

    name: str
    is_declaration: bool
    blocks: list[list[_Instr]] = field(default_factory=list)
    args: list[tuple[Any, str, Any]] = field(default_factory=list)  # (identity, printed name, type payload)




def _text_functions(module: IRModule) -> list[_Function]:
    """Every function read from its printed text (no llvmlite calls per value); Unreadable when some
    instruction is of a form the text reader does not know."""
    names = {ft.name for ft in module.functions}
    return [_Function(ft.name, True) if ft.is_declaration else _text_function(ft, names)
            for ft in module.functions]


def _text_function(ft: FunctionText, names: set[str]) -> _Function:
    """One defined function read from its printed text; `names` are the module's functions."""
    args = irtext.arguments(ft.header, ft.name)
    parsed = [irtext.head(text) for text in ft.instructions]
    table = _TextOperands(ft, [r for r, _, _ in parsed if r], [name for _, name in args if name], names)
    instrs = [_Instr(result or object(), opcode, text, [table[op] for op in irtext.operands(opcode, rest)])
              for (result, opcode, rest), text in zip(parsed, ft.instructions)]
    blocks: list[list[_Instr]] = []
    start = 0
    for _, size in ft.blocks:
        blocks.append(instrs[start:start + size])
        start += size
    return _Function(ft.name, False, blocks, [(name, name, t) for t, name in args if name is not None])


class _TextOperands(dict):
    """Printed operands (type, value) -> the assembler's operands (see _Function), each distinct one converted
    once per function (a function uses the same values and constants many times); Unreadable for a value the
    text reader cannot tell the kind of."""

    def __init__(self, ft: FunctionText, results: list[str], arg_names: list[str], functions: set[str]) -> None:
        super().__init__()
        self.labels = {"%" + label: b_index for b_index, (label, _) in enumerate(ft.blocks) if label is not None}
        self.locals = _local_kinds(results, arg_names)
        self.functions = functions

    def __missing__(self, operand: tuple[str, str]) -> tuple[str, Any, Any]:
        type_text, value = operand
        if type_text == "label":
            if value not in self.labels:
                raise irtext.Unreadable(value)
            op: tuple[str, Any, Any] = ("basic_block", self.labels[value], None)
        elif type_text in ("metadata", "asm"):
            op = ("none", None, None)
        elif value[0] == "%":
            if value not in self.locals:
                raise irtext.Unreadable(value)
            op = (self.locals[value], value, type_text)
        elif value[0] == "@":
            if not irtext.is_global(value):
                raise irtext.Unreadable(value)
            name = value[1:].strip('"')
            op = ("function", name, None) if name in self.functions else (
                "constant", None, (type_text, f"{type_text} @{name}"))
        else:
            op = ("constant", None, (type_text, f"{type_text} {value}"))
        self[operand] = op
        return op


def _local_kinds(results: list[str], arg_names: list[str]) -> dict[str, str]:
    """The kind of each local name an operand may refer to: "instruction" for a result's, else "argument" for an
    argument's; a name that is not exactly one local name (irtext.is_local) is left out (Unreadable if used)."""
    kinds = {name: "argument" for name in arg_names if irtext.is_local(name)}
    valid = results if irtext.are_local(results) else [name for name in results if irtext.is_local(name)]
    kinds.update(dict.fromkeys(valid, "instruction"))
    return kinds


class _Kinds:
    """value_kind of operands, answered from what the scan already knows before asking LLVM.

    Each llvmlite call crosses the FFI: instructions, arguments, blocks and functions are recognised by
    identity (a ValueRef hashes to its LLVM pointer), and every other value is asked about once per module.
    """

    def __init__(self, functions: dict[int, str]) -> None:
        self.functions = functions
        self.cache: dict[int, str] = {}

    def __call__(self, key: int, ref: Any, local: dict[int, str]) -> str:
        kind = local.get(key)
        if kind is not None:
            return kind
        if key in self.functions:
            return "function"
        kind = self.cache.get(key)
        if kind is None:
            kind = self.cache[key] = ref.value_kind.name
        return kind


def _llvm_functions(module: IRModule) -> list[_Function]:
    """Every function read through llvmlite, value by value: slower, but it understands any instruction."""
    functions = list(module.llvm.functions)
    kinds_of = _Kinds({hash(fn): fn.name for fn in functions})
    const_keys: dict[int, tuple[str, str]] = {}
    out = []
    for fn, ftext in zip(functions, module.functions):
        if fn.is_declaration:
            out.append(_Function(fn.name, True))
            continue
        args = [(hash(a), f"%{a.name or i}", a) for i, a in enumerate(fn.arguments)]
        local: dict[int, str] = {key: "argument" for key, _, _ in args}
        block_index = {hash(b): i for i, b in enumerate(fn.blocks)}
        local.update((k, "basic_block") for k in block_index)
        texts = iter(ftext.instructions)
        raw = []
        for block in fn.blocks:
            instrs = []
            for ins in block.instructions:
                text = next(texts)
                try:
                    opcode = irtext.head(text)[1]
                except irtext.Unreadable:
                    opcode = ins.opcode
                key = hash(ins)
                local[key] = "instruction"
                instrs.append((key, opcode, text, [(hash(op), op) for op in ins.operands]))
            raw.append(instrs)
        blocks = []
        for instrs in raw:
            converted = []
            for key, opcode, text, operands in instrs:
                ops = []
                for k, ref in operands:
                    kind = kinds_of(k, ref, local)
                    if kind in ("instruction", "argument"):
                        ops.append((kind, k, ref))
                    elif kind == "basic_block":
                        ops.append((kind, block_index[k], None))
                    elif kind == "function":
                        ops.append((kind, kinds_of.functions[k], None))
                    elif kind in ("metadata_as_value", "inline_asm"):
                        ops.append(("none", None, None))
                    else:  # an llvm::Constant (globals included): type and printed form identify it
                        ckey = const_keys.get(k)
                        if ckey is None:
                            ckey = const_keys[k] = _constant_key(ref, kind)
                        ops.append(("constant", None, ckey))
                if opcode in ("switch", "shufflevector"):
                    ops = _restore_operands(opcode, text, ops)
                converted.append(_Instr(key, opcode, text, ops))
            blocks.append(converted)
        out.append(_Function(fn.name, False, blocks, args))
    return out


def _successor_positions(instr: _Instr) -> list[int]:
    """Successor block indices of a terminator in LLVM's successor order (br: true before false)."""
    if instr.opcode not in _TERMINATORS_WITH_SUCCESSORS:
        return []
    blocks = [key for kind, key, _ in instr.operands if kind == "basic_block"]
    if instr.opcode == "br" and len(blocks) == 2:  # operands are [cond, false_dest, true_dest]
        return [blocks[1], blocks[0]]
    return blocks


def build_graph(module: IRModule, reader: str = "auto") -> ProgramGraph:
    """The ProGraML program graph of a module.

    reader "auto": functions are read from their printed text, and a module with an instruction the text reader
    does not know is read through llvmlite value by value (same graph, about 3x slower); "llvm" forces llvmlite.
    """
    if reader not in ("auto", "llvm"):
        raise ValueError(f"unknown reader {reader!r}")
    with gc_paused():
        if reader == "auto":
            try:
                return _assemble(module, _text_functions(module), str)
            except irtext.Unreadable:
                pass
        cache: dict[int, str] = {}
        return _assemble(module, _llvm_functions(module), lambda ref: _type_text(ref, cache))


def _assemble(module: IRModule, functions: list[_Function], type_text: Callable[[Any], str]) -> ProgramGraph:
    """ProGraML's construction over functions read by either reader."""
    g = ProgramGraph(module_name=module.name)
    root = g.add_node(INSTRUCTION, ROOT_TEXT, "", None, None)
    sizes = _AllocSizes(module)
    entries_exits: dict[str, tuple[int, list[int]]] = {}
    call_sites: list[tuple[int, str]] = []
    constant_uses: dict[tuple[str, str], list[tuple[int, int]]] = {}
    for f_index, fn in enumerate(_kept_functions(functions)):
        g.functions.append(fn.name)
        if fn.is_declaration:
            node = g.add_node(INSTRUCTION, UNDEFINED_FUNCTION_TEXT, "", f_index, 0)
            entries_exits[fn.name] = (node, [node])
        else:
            entries_exits[fn.name] = _add_function(g, fn, f_index, type_text, sizes, call_sites, constant_uses)

    for name, (entry, exits) in entries_exits.items():
        g.add_edge(root, entry, CALL, 0)
        for ex in exits:
            g.add_edge(ex, root, CALL, 0)
    for site, callee in call_sites:
        if callee in entries_exits:
            entry, exits = entries_exits[callee]
            g.add_edge(site, entry, CALL, 0)
            for ex in exits:
                g.add_edge(ex, site, CALL, 0)
    for const, uses in constant_uses.items():
        node = g.add_node(CONSTANT, const[0], const[1], None, None)
        for user, position in uses:
            g.add_edge(node, user, DATA, position)
    return g


def _kept_functions(functions: list[_Function]) -> list[_Function]:
    """The functions that get nodes.

    LLVM's auto-upgrade of old IR leaves the old intrinsic declarations behind with no users (for
    example llvm.lifetime.start.p0i8 beside the new llvm.lifetime.start.p0): those are dropped.
    """
    referenced = {key for fn in functions for instrs in fn.blocks for ins in instrs
                  for kind, key, _ in ins.operands if kind == "function"}
    return [fn for fn in functions
            if not (fn.is_declaration and fn.name.startswith("llvm.") and fn.name not in referenced)]


def _add_function(g: ProgramGraph, fn: _Function, f_index: int, type_text: Callable[[Any], str],
                  sizes: _AllocSizes, call_sites: list[tuple[int, str]],
                  constant_uses: dict[tuple[str, str], list[tuple[int, int]]]) -> tuple[int, list[int]]:
    """A defined function's nodes and edges; its call sites and constant uses are added to the module's.
    Returns its entry node and exit nodes."""
    if not all(fn.blocks):
        raise ValueError(f"empty basic block in {fn.name}")
    instrs = [ins for block in fn.blocks for ins in block]
    block_of = [b_index for b_index, block in enumerate(fn.blocks) for _ in block]
    # Instruction nodes (function by function, block by block) and the control edges within each block.
    base = g.add_nodes(INSTRUCTION, [ins.opcode for ins in instrs], [ins.text for ins in instrs], f_index, block_of)
    block_first_last = []
    first = base
    for block in fn.blocks:
        last = first + len(block) - 1
        g.edges.extend([(node, node + 1, CONTROL, 0) for node in range(first, last)])
        block_first_last.append((first, last))
        first = last + 1
    node_of = {ins.key: node for node, ins in enumerate(instrs, base)}
    data_uses, producers, arg_uses = _operand_uses(instrs, base, node_of, sizes, call_sites, constant_uses)
    _add_result_uses(g, data_uses, producers, instrs, base, node_of, block_of, f_index, type_text)
    # One variable node per used argument (ProGraML gives unused arguments no node).
    for key, name, payload in fn.args:
        if key not in arg_uses:
            continue
        text = type_text(payload)
        var = g.add_node(VARIABLE, text, f"{text} {name}", f_index, 0)
        for user, position in arg_uses[key]:
            g.add_edge(var, user, DATA, position)
    # Control edges between blocks, and the function's exits (blocks with no successor).
    exits = []
    for b_index, block in enumerate(fn.blocks):
        succs = _successor_positions(block[-1])
        src = block_first_last[b_index][1]
        for position, succ in enumerate(succs):
            g.add_edge(src, block_first_last[succ][0], CONTROL, position)
        if not succs:
            exits.append(src)
    return block_first_last[0][0], exits


def _operand_uses(instrs: list[_Instr], base: int, node_of: dict[Any, int], sizes: _AllocSizes,
                  call_sites: list[tuple[int, str]], constant_uses: dict[tuple[str, str], list[tuple[int, int]]]
                  ) -> tuple[list[tuple[Any, int, int]], dict[Any, Any], dict[Any, list[tuple[int, int]]]]:
    """Every operand's use, by the instruction nodes numbered from `base`: the uses of instruction results
    (producer identity, user node, position) with the producers' type payloads, the uses of each argument,
    and (added to the module's) call sites and constant uses."""
    data_uses: list[tuple[Any, int, int]] = []
    producers: dict[Any, Any] = {}
    arg_uses: dict[Any, list[tuple[int, int]]] = {}
    use, produce, constant_use = data_uses.append, producers.setdefault, constant_uses.setdefault  # hot loop
    for node, ins in enumerate(instrs, base):
        operands = ins.operands
        if ins.opcode == "call" and operands and operands[-1][0] == "function":
            callee = operands[-1][1]
            call_sites.append((node, callee))
            if callee.startswith(_LIFETIME) and len(operands) == 2:
                kind, pointer, _ = operands[0]
                # only an instruction before the marker is looked at (an alloca laid out after it gives -1)
                earlier = node_of.get(pointer, node) if kind == "instruction" else node
                size = _lifetime_size(instrs[earlier - base].text if earlier < node else None, sizes)
                operands = [("constant", None, size)] + operands
        for position, (kind, key, payload) in enumerate(operands):
            if kind == "instruction":
                use((key, node, position))
                produce(key, payload)
            elif kind == "argument":
                arg_uses.setdefault(key, []).append((node, position))
            elif kind == "constant":
                # LLVM uniques constants, so type and printed form identify one module-wide
                constant_use(payload, []).append((node, position))
    return data_uses, producers, arg_uses


def _add_result_uses(g: ProgramGraph, data_uses: list[tuple[Any, int, int]], producers: dict[Any, Any],
                     instrs: list[_Instr], base: int, node_of: dict[Any, int], block_of: list[int], f_index: int,
                     type_text: Callable[[Any], str]) -> None:
    """A new variable node per use of an instruction result, with the data edges producer -> variable -> user."""
    var_text: dict[Any, tuple[str, str, int]] = {}
    for key, payload in producers.items():
        src = node_of[key] - base
        text = type_text(payload)
        var_text[key] = (text, f"{text} {_result_name(instrs[src].text)}", block_of[src])
    uses = [var_text[key] for key, _, _ in data_uses]
    first = g.add_nodes(VARIABLE, [t for t, _, _ in uses], [f for _, f, _ in uses], f_index, [b for _, _, b in uses])
    append = g.edges.append
    for var, (key, user, position) in enumerate(data_uses, first):
        append((node_of[key], var, DATA, 0))
        append((var, user, DATA, position))


class _AllocSizes:
    """Allocation sizes of alloca'd types, computed with the module's data layout.

    The sizes of every fixed-size alloca type of the module are asked of LLVM in one probe module (a probe
    carries the module's struct definitions, so one probe per type grew as types x structs).
    """

    def __init__(self, module: IRModule) -> None:
        self.module = module
        self.cache: dict[str, int] = {}
        self._prefix: list[str] | None = None

    def size_of(self, type_text: str) -> int:
        if self._prefix is None:
            self._prefix = [f'target datalayout = "{self.module.llvm.data_layout}"', *self.module.struct_statements()]
            self.cache.update(self._compute_all(_alloca_types(self.module)))
        if type_text not in self.cache:
            self.cache[type_text] = self._compute([type_text]).get(type_text, -1)
        return self.cache[type_text]

    def _compute_all(self, types: list[str]) -> dict[str, int]:
        """Sizes of all `types` in one probe; where one of them does not parse, each on its own."""
        sizes = self._compute(types)
        if len(sizes) == len(types):
            return sizes
        return {t: self._compute([t]).get(t, -1) for t in types}

    def _compute(self, types: list[str]) -> dict[str, int]:
        """Sizes of `types` from one probe module; empty when LLVM rejects the probe."""
        import llvmlite.binding as llvm

        if not types:
            return {}
        probe = "\n".join([*(self._prefix or []),
                           *(f"@__mirtune_probe_{i} = external global {t}" for i, t in enumerate(types))])
        try:
            ref = parse_in_own_context(probe)
            td = llvm.create_target_data(self.module.llvm.data_layout)
            return {t: int(td.get_abi_size(ref.get_global_variable(f"__mirtune_probe_{i}").global_value_type))
                    for i, t in enumerate(types)}
        except RuntimeError:
            return {}


def _fixed_alloca_type(full_text: str) -> str | None:
    """The allocated type of a printed alloca of a fixed size (None for any other instruction)."""
    m = _ALLOCA_TYPE.search(full_text)
    if m and ", i32 %" not in m.group(0) and ", i64 %" not in m.group(0):
        return m.group(1).split(", i32 ")[0].split(", i64 ")[0].strip()
    return None


def _alloca_types(module: IRModule) -> list[str]:
    """The distinct fixed-size alloca types of a module, in order of first appearance."""
    found: dict[str, None] = {}
    for fn in module.functions:
        for text in fn.instructions:
            if " alloca " in text:
                t = _fixed_alloca_type(text)
                if t is not None:
                    found.setdefault(t)
    return list(found)


def _lifetime_size(pointer_text: str | None, sizes: _AllocSizes) -> tuple[str, str]:
    """The `i64 <size>` operand that LLVM 22 removed from llvm.lifetime.start/end; `pointer_text` is the printed
    instruction that produced the marker's pointer (None when the pointer is no earlier instruction).

    Up to LLVM 21 a lifetime marker was `(i64 size, ptr p)`; LLVM 22's auto-upgrade drops the size.
    ProGraML's graphs (and IR from clang <= 21) carry it, so it is restored: the allocation size of
    the alloca it marks, or -1 (LLVM's "unknown") when that cannot be told.
    """
    size = -1
    if pointer_text is not None:
        type_text = _fixed_alloca_type(pointer_text)
        if type_text is not None:
            size = sizes.size_of(type_text)
    return ("i64", f"i64 {size}")




def _restore_operands(opcode: str, text: str, ops: list[tuple[str, Any, Any]]) -> list[tuple[str, Any, Any]]:
    """Put back the constant operands that LLVM >= 11 keeps outside the operand list (llvmlite reader).

    A switch's case values and a shufflevector's mask were operands in LLVM 10 (so ProGraML gives them
    constant nodes and data edges); LLVM 22 stores them inside the instruction. The text reader reads them
    back from the printed instruction, in LLVM 10's operand order.
    """
    try:
        read = irtext.operands(opcode, irtext.head(text)[2])
    except irtext.Unreadable:
        return ops
    restored = [("constant", None, (t, f"{t} {v}")) for t, v in read]
    if opcode == "shufflevector" and len(ops) == 2 and len(read) == 3:
        return ops + restored[2:]
    if opcode == "switch" and len(ops) >= 2 and len(read) == 2 * len(ops) - 2:
        out = list(ops[:2])
        for case, dest in zip(restored[2::2], ops[2:]):
            out += [case, dest]
        return out
    return ops


def _type_text(value: Any, cache: dict[int, str]) -> str:
    """Printed type of a value, cached by type identity (printing crosses the FFI three times)."""
    type_ref = value.type
    key = hash(type_ref)
    text = cache.get(key)
    if text is None:
        text = cache[key] = str(type_ref)
    return text


def _result_name(full_text: str) -> str:
    """The %name an instruction's result is referred to by, from its printed text."""
    name, equals, _ = full_text.partition(" = ")
    return name if equals else "%?"


def _constant_key(const: Any, kind: str) -> tuple[str, str]:
    """(type, printed form) of a constant; globals print as `ptr @name`."""
    type_text = str(const.type)
    if kind in ("global_variable", "global_alias", "global_ifunc", "function"):
        if const.name:
            return type_text, f"{type_text} @{const.name}"
        # An unnamed global (@0, @1 ...): its printed definition starts with its slot number.
        return type_text, f"{type_text} {str(const).strip().split(' = ', 1)[0]}"
    return type_text, str(const).strip()
