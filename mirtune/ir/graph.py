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
from typing import Any

from mirtune.ir.module import IRModule

INSTRUCTION, VARIABLE, CONSTANT = 0, 1, 2
CONTROL, DATA, CALL = 0, 1, 2
NODE_TYPES = ("instruction", "variable", "constant")
FLOWS = ("control", "data", "call")
SCHEMA_VERSION = "programl-0.3.2"
ROOT_TEXT = "[external]"
UNDEFINED_FUNCTION_TEXT = "; undefined function"

_LIFETIME = ("llvm.lifetime.start", "llvm.lifetime.end")
_ALLOCA_TYPE = re.compile(r"=\s*alloca\s+(?:inalloca\s+)?(.+?)(?:,\s*align\s+\d+)?(?:,\s*addrspace\(\d+\))?$")
_NO_NODE_KINDS = frozenset({"basic_block", "metadata_as_value", "inline_asm", "function"})
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
    key: int
    opcode: str
    text: str
    operands: list[tuple[int, Any]]  # (identity, ValueRef)


_OPCODE = re.compile(r"^(?:%\S+ = )?(?:(?:tail|musttail|notail) )?([a-z_]+)")


class _Kinds:
    """value_kind of operands, answered from what the scan already knows before asking LLVM.

    Each llvmlite call crosses the FFI, which dominates the build time: instructions, arguments,
    blocks and functions are recognised by identity (a ValueRef hashes to its LLVM pointer), and every
    other value is asked about once per module.
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


def _successor_positions(instr: _Instr, kinds: list[str]) -> list[int]:
    """Successor blocks (identities) of a terminator in LLVM's successor order (br: true before false)."""
    if instr.opcode not in _TERMINATORS_WITH_SUCCESSORS:
        return []
    blocks = [key for (key, _), kind in zip(instr.operands, kinds) if kind == "basic_block"]
    if instr.opcode == "br" and len(blocks) == 2:  # operands are [cond, false_dest, true_dest]
        return [blocks[1], blocks[0]]
    return blocks


def _scan(fn: Any, texts: list[str]) -> list[list[_Instr]]:
    """Instructions of a function body, block by block, with opcodes read from their printed text."""
    blocks = []
    it = iter(texts)
    for block in fn.blocks:
        instrs = []
        for ins in block.instructions:
            text = next(it)
            m = _OPCODE.match(text)
            opcode = m.group(1) if m else ins.opcode
            instrs.append(_Instr(hash(ins), opcode, text, [(hash(op), op) for op in ins.operands]))
        blocks.append(instrs)
    return blocks


def build_graph(module: IRModule) -> ProgramGraph:
    """The ProGraML program graph of a module."""
    g = ProgramGraph(module_name=module.name)
    root = g.add_node(INSTRUCTION, ROOT_TEXT, "", None, None)
    functions = list(module.llvm.functions)
    kinds_of = _Kinds({hash(fn): fn.name for fn in functions})
    fn_names = kinds_of.functions
    # Scan every body once: instructions, opcodes and operand refs (the FFI-heavy part).
    bodies: dict[int, list[list[_Instr]]] = {}
    referenced: set[str] = set()
    for fn, ftext in zip(functions, module.functions):
        if fn.is_declaration:
            continue
        blocks = _scan(fn, ftext.instructions)
        for instrs in blocks:
            for ins in instrs:
                referenced.update(fn_names[k] for k, _ in ins.operands if k in fn_names)
        bodies[hash(fn)] = blocks
    sizes = _AllocSizes(module)
    type_texts: dict[int, str] = {}
    const_keys: dict[int, tuple[str, str]] = {}
    entries_exits: dict[str, tuple[int, list[int]]] = {}
    call_sites: list[tuple[int, str]] = []
    constant_uses: dict[tuple[str, str], list[tuple[int, int]]] = {}
    # LLVM's auto-upgrade of old IR leaves the old intrinsic declarations behind with no users (for
    # example llvm.lifetime.start.p0i8 beside the new llvm.lifetime.start.p0): those are dropped.
    kept = [fn for fn in functions
            if not (fn.is_declaration and fn.name.startswith("llvm.") and fn.name not in referenced)]
    for f_index, fn in enumerate(kept):
        g.functions.append(fn.name)
        if fn.is_declaration:
            node = g.add_node(INSTRUCTION, UNDEFINED_FUNCTION_TEXT, "", f_index, 0)
            entries_exits[fn.name] = (node, [node])
            continue
        blocks = bodies[hash(fn)]
        local: dict[int, str] = {}
        for instrs in blocks:
            for ins in instrs:
                local[ins.key] = "instruction"
        args = [(hash(a), a) for a in fn.arguments]
        for key, _ in args:
            local[key] = "argument"
        block_keys = [hash(b) for b in fn.blocks]
        block_index = {k: i for i, k in enumerate(block_keys)}
        for k in block_keys:
            local[k] = "basic_block"
        instr_node: dict[int, int] = {}
        instr_block: dict[int, int] = {}
        producers: dict[int, Any] = {}
        block_first_last: list[tuple[int, int]] = []
        data_uses: list[tuple[int, int, int]] = []  # (producer identity, user node, position)
        arg_uses: dict[int, list[tuple[int, int]]] = {}
        terminator_kinds: list[list[str]] = []
        for b_index, instrs in enumerate(blocks):
            if not instrs:
                raise ValueError(f"empty basic block in {fn.name}")
            first = last = -1
            operand_kinds: list[str] = []
            for ins in instrs:
                node = g.add_node(INSTRUCTION, ins.opcode, ins.text, f_index, b_index)
                if last >= 0:
                    g.add_edge(last, node, CONTROL, 0)
                else:
                    first = node
                operands: list[tuple[int, Any]] = ins.operands
                kinds = [kinds_of(k, ref, local) for k, ref in operands]
                operand_kinds = kinds  # as LLVM lists them: successors are read from these
                if ins.opcode == "call" and operands and kinds[-1] == "function":
                    callee = fn_names[operands[-1][0]]
                    call_sites.append((node, callee))
                    if callee.startswith(_LIFETIME) and len(operands) == 2:
                        size = _lifetime_size(operands[0][0], kinds[0], g, instr_node, sizes)
                        operands = [(0, size)] + operands
                        kinds = ["restored_constant"] + kinds
                elif ins.opcode in ("switch", "shufflevector"):
                    operands, kinds = _restore_operands(ins, operands, kinds)
                for position, ((key, operand), kind) in enumerate(zip(operands, kinds)):
                    if kind in _NO_NODE_KINDS:
                        continue
                    if kind == "instruction":
                        data_uses.append((key, node, position))
                        producers.setdefault(key, operand)
                        continue
                    if kind == "argument":
                        arg_uses.setdefault(key, []).append((node, position))
                        continue
                    # Every other value kind is an llvm::Constant (globals included); LLVM uniques
                    # constants, so type and printed form identify one module-wide.
                    if kind == "restored_constant":
                        ckey = operand
                    else:
                        ckey = const_keys.get(key)
                        if ckey is None:
                            ckey = const_keys[key] = _constant_key(operand, kind)
                    constant_uses.setdefault(ckey, []).append((node, position))
                instr_node[ins.key] = node
                instr_block[ins.key] = b_index
                last = node
            terminator_kinds.append(operand_kinds)
            block_first_last.append((first, last))
        # A new variable node per use of an instruction result.
        var_text: dict[int, tuple[str, str]] = {}
        for key, user, position in data_uses:
            src = instr_node[key]
            if key not in var_text:
                type_text = _type_text(producers[key], type_texts)
                var_text[key] = (type_text, f"{type_text} {_result_name(g.node_full_text[src])}")
            text, full = var_text[key]
            var = g.add_node(VARIABLE, text, full, f_index, instr_block[key])
            g.add_edge(src, var, DATA, 0)
            g.add_edge(var, user, DATA, position)
        # One variable node per used argument (ProGraML gives unused arguments no node).
        for a_index, (key, arg) in enumerate(args):
            if key not in arg_uses:
                continue
            type_text = _type_text(arg, type_texts)
            var = g.add_node(VARIABLE, type_text, f"{type_text} %{arg.name or a_index}", f_index, 0)
            for user, position in arg_uses[key]:
                g.add_edge(var, user, DATA, position)
        # Control edges between blocks, and the function's exits (blocks with no successor).
        exits = []
        for b_index, instrs in enumerate(blocks):
            succs = _successor_positions(instrs[-1], terminator_kinds[b_index])
            src = block_first_last[b_index][1]
            for position, succ in enumerate(succs):
                g.add_edge(src, block_first_last[block_index[succ]][0], CONTROL, position)
            if not succs:
                exits.append(src)
        entries_exits[fn.name] = (block_first_last[0][0], exits)

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


class _AllocSizes:
    """Allocation sizes of alloca'd types, computed with the module's data layout."""

    def __init__(self, module: IRModule) -> None:
        self.module = module
        self.cache: dict[str, int] = {}

    def size_of(self, type_text: str) -> int:
        if type_text not in self.cache:
            self.cache[type_text] = self._compute(type_text)
        return self.cache[type_text]

    def _compute(self, type_text: str) -> int:
        import llvmlite.binding as llvm

        probe = "\n".join([f'target datalayout = "{self.module.llvm.data_layout}"',
                           *self.module.struct_statements(),
                           f"@__mirtune_probe = external global {type_text}"])
        try:
            ref = llvm.parse_assembly(probe, context=llvm.create_context())
            td = llvm.create_target_data(self.module.llvm.data_layout)
            return int(td.get_abi_size(ref.get_global_variable("__mirtune_probe").global_value_type))
        except RuntimeError:
            return -1


def _lifetime_size(pointer: int, kind: str, g: ProgramGraph, instr_node: dict[int, int],
                   sizes: _AllocSizes) -> tuple[str, str]:
    """The `i64 <size>` operand that LLVM 22 removed from llvm.lifetime.start/end.

    Up to LLVM 21 a lifetime marker was `(i64 size, ptr p)`; LLVM 22's auto-upgrade drops the size.
    ProGraML's graphs (and IR from clang <= 21) carry it, so it is restored: the allocation size of
    the alloca it marks, or -1 (LLVM's "unknown") when that cannot be told.
    """
    size = -1
    if kind == "instruction" and pointer in instr_node:
        m = _ALLOCA_TYPE.search(g.node_full_text[instr_node[pointer]])
        if m and ", i32 %" not in m.group(0) and ", i64 %" not in m.group(0):
            type_text = m.group(1).split(", i32 ")[0].split(", i64 ")[0].strip()
            size = sizes.size_of(type_text)
    return ("i64", f"i64 {size}")


_SWITCH_CASE = re.compile(r"(\S+ [^\s,]+), label %")
_SHUFFLE_MASK = re.compile(r", (<\d+ x i32> (?:<[^>]*>|zeroinitializer|undef|poison))$")


def _restore_operands(ins: _Instr, operands: list[tuple[int, Any]],
                      kinds: list[str]) -> tuple[list[tuple[int, Any]], list[str]]:
    """Put back the constant operands that LLVM >= 11 keeps outside the operand list.

    A switch's case values and a shufflevector's mask were operands in LLVM 10 (so ProGraML gives them
    constant nodes and data edges); LLVM 22 stores them inside the instruction. They are read back from
    the printed instruction, in LLVM 10's operand order.
    """
    if ins.opcode == "shufflevector" and len(operands) == 2:
        m = _SHUFFLE_MASK.search(ins.text)
        if m:
            mask = m.group(1).replace("poison", "undef")  # LLVM 10 printed undefined lanes as undef
            type_text = mask.split(">", 1)[0] + ">"
            return operands + [(0, (type_text, mask))], kinds + ["restored_constant"]
        return operands, kinds
    if ins.opcode == "switch" and len(operands) >= 2:
        body = ins.text.split("[", 1)[1] if "[" in ins.text else ""
        cases = _SWITCH_CASE.findall(body)
        dests = list(zip(operands[2:], kinds[2:]))
        if len(cases) != len(dests):
            return operands, kinds
        new_ops, new_kinds = list(operands[:2]), list(kinds[:2])
        for case, (dest, kind) in zip(cases, dests):
            new_ops += [(0, (case.split(" ", 1)[0], case)), dest]
            new_kinds += ["restored_constant", kind]
        return new_ops, new_kinds
    return operands, kinds


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
    return full_text.split(" = ", 1)[0] if " = " in full_text else "%?"


def _constant_key(const: Any, kind: str) -> tuple[str, str]:
    """(type, printed form) of a constant; globals print as `ptr @name`."""
    type_text = str(const.type)
    if kind in ("global_variable", "global_alias", "global_ifunc", "function"):
        if const.name:
            return type_text, f"{type_text} @{const.name}"
        # An unnamed global (@0, @1 ...): its printed definition starts with its slot number.
        return type_text, f"{type_text} {str(const).strip().split(' = ', 1)[0]}"
    return type_text, str(const).strip()
