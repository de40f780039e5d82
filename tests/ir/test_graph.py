"""Program graphs: the ProGraML schema, conformance with llvm2graph-10, JSON and PyG export."""

from __future__ import annotations

import collections
import json
from pathlib import Path

import pytest

from mirtune.ir.frontend import compile_to_ir
from mirtune.ir.graph import (CALL, CONSTANT, CONTROL, DATA, INSTRUCTION, ROOT_TEXT, VARIABLE, ProgramGraph,
                              build_graph)
from mirtune.ir.module import IRModule
from mirtune.paths import devmap_kernel_files
from mirtune.ir.reference import find_llvm2graph, llvm10_compatible, reference_graph

REPO = Path(__file__).resolve().parents[2]
CONFORMANCE_FLOOR = 0.90


@pytest.fixture(scope="module")
def llvm2graph():
    try:
        return find_llvm2graph()
    except Exception as exc:  # the reference binary is a test extra
        pytest.skip(f"llvm2graph-10 unavailable: {exc}")


def _signature(g: ProgramGraph):
    def norm(t):  # LLVM 10 prints typed pointers, LLVM 22 prints ptr
        return "ptr" if t.endswith("*") else t
    return collections.Counter(
        (flow, pos, g.node_type[s], norm(g.node_text[s]), g.node_type[d], norm(g.node_text[d]))
        for s, d, flow, pos in g.edges)


def test_schema_on_a_small_function():
    ir = ("declare i32 @ext(i32)\n"
          "define i32 @f(i32 %x, i32 %unused) {\n"
          "entry:\n  %c = icmp sgt i32 %x, 0\n  br i1 %c, label %pos, label %neg\n"
          "pos:\n  %y = call i32 @ext(i32 %x)\n  ret i32 %y\n"
          "neg:\n  ret i32 0\n}\n")
    g = build_graph(IRModule.from_text(ir))
    assert g.node_type[0] == INSTRUCTION and g.node_text[0] == ROOT_TEXT
    texts = [g.node_text[i] for i in range(g.num_nodes) if g.node_type[i] == INSTRUCTION]
    assert texts == [ROOT_TEXT, "; undefined function", "icmp", "br", "call", "ret", "ret"]
    idx = {t: i for i, t in enumerate(g.node_full_text)}
    br, call, ret_pos, ret_neg = idx["br i1 %c, label %pos, label %neg"], idx["%y = call i32 @ext(i32 %x)"], \
        idx["ret i32 %y"], idx["ret i32 0"]
    control = {(s, d, p) for s, d, f, p in g.edges if f == CONTROL}
    assert (br, call, 0) in control and (br, ret_neg, 1) in control  # true successor first
    # %x is used twice: one argument node, two edges; %unused gets no node.
    xs = [i for i in range(g.num_nodes) if g.node_full_text[i] == "i32 %x"]
    assert len(xs) == 1 and sum(1 for s, _, f, _ in g.edges if s == xs[0] and f == DATA) == 2
    assert not any("%unused" in t for t in g.node_full_text)
    # The call's result flows through its own variable node to `ret i32 %y`.
    y = [i for i in range(g.num_nodes) if g.node_full_text[i] == "i32 %y"]
    assert len(y) == 1 and (call, y[0], DATA, 0) in g.edges and (y[0], ret_pos, DATA, 0) in g.edges
    # Constant 0 is one node shared by icmp (position 1) and ret (position 0).
    zero = [i for i in range(g.num_nodes) if g.node_type[i] == CONSTANT and g.node_full_text[i] == "i32 0"]
    assert len(zero) == 1
    assert {(d, p) for s, d, f, p in g.edges if s == zero[0]} == {(idx["%c = icmp sgt i32 %x, 0"], 1), (ret_neg, 0)}
    # Call edges: root <-> entries/exits, call site <-> callee.
    ext = texts.index("; undefined function")
    calls = {(s, d) for s, d, f, _ in g.edges if f == CALL}
    assert {(0, ext), (ext, 0), (call, ext), (ext, call), (0, idx["%c = icmp sgt i32 %x, 0"]),
            (ret_pos, 0), (ret_neg, 0)} == calls


def test_conformance_with_llvm2graph_on_devmap_kernels(shared_data, llvm2graph):
    files = devmap_kernel_files(shared_data)
    identical, differing = 0, []
    for path in files:
        ours = build_graph(IRModule.from_file(path))
        ref = reference_graph(path.read_text(), llvm2graph)
        if (ours.node_counts(), ours.edge_counts()) == (ref.node_counts(), ref.edge_counts()):
            identical += 1
        else:
            differing.append(path.name)
    share = identical / len(files)
    print(f"identical node/edge counts: {identical}/{len(files)} = {share:.1%}")
    assert len(files) == 669
    assert share >= CONFORMANCE_FLOOR, differing[:10]


@pytest.mark.parametrize("name", [
    "amd-app-sdk-3.0-Reduction-reduce.ll",
    "npb-3.3-CG-main_0_A.ll",
    "rodinia-3.1-hotspot-hotspot.ll",
    "polybench-gpu-1.0-gemm-gemm.ll",
    "shoc-1.1.5-Spmv-spmv_csr_vector_kernel.ll",
])
def test_edge_by_edge_equal_to_llvm2graph(shared_data, llvm2graph, name):
    path = shared_data / "devmap" / "kernels_ir" / name
    if not path.exists():
        pytest.skip(f"{name} not in this copy of the data")
    ours = build_graph(IRModule.from_file(path))
    ref = reference_graph(path.read_text(), llvm2graph)
    assert _signature(ours) == _signature(ref)


@pytest.mark.parametrize("name", ["npb-3.3-BT-compute_rhs3_A.ll", "shoc-1.1.5-FFT-fft1D_512.ll"])
def test_lifetime_markers_differ_only_in_the_marked_pointer(shared_data, llvm2graph, name):
    """LLVM 22 upgrades `lifetime.start(i64 N, i8* bitcast %a)` to `lifetime.start(ptr %a)`.

    The size operand is restored (same counts), but the marker now reads the alloca, not the bitcast.
    """
    path = shared_data / "devmap" / "kernels_ir" / name
    ours = build_graph(IRModule.from_file(path))
    ref = reference_graph(path.read_text(), llvm2graph)
    assert (ours.node_counts(), ours.edge_counts()) == (ref.node_counts(), ref.edge_counts())
    extra, missing = _signature(ours) - _signature(ref), _signature(ref) - _signature(ours)
    assert set(extra) == {(DATA, 0, INSTRUCTION, "alloca", VARIABLE, "ptr")}
    assert set(missing) == {(DATA, 0, INSTRUCTION, "bitcast", VARIABLE, "ptr")}
    assert sum(extra.values()) == sum(missing.values()) > 0


def test_conformance_on_clang14_ir(llvm2graph):
    src = REPO / "mirtune" / "assets" / "examples" / "heat2d.c"
    for opt in (0, 2):
        text = compile_to_ir(src, opt=opt)
        ours = build_graph(IRModule.from_text(text))
        ref = reference_graph(llvm10_compatible(text), llvm2graph)
        assert _signature(ours) == _signature(ref), opt


def test_node_link_json_round_trip_and_shape(devmap_ir_dir, tmp_path):
    g = build_graph(IRModule.from_file(devmap_ir_dir / "amd-app-sdk-3.0-Reduction-reduce.ll"))
    data = json.loads(g.to_json(tmp_path / "g.json"))
    assert data["directed"] is True and data["multigraph"] is True
    node = data["nodes"][1]
    assert set(node) == {"id", "type", "text", "function", "block", "features"}
    assert isinstance(node["features"]["full_text"], list)
    link = data["links"][0]
    assert set(link) == {"flow", "position", "source", "target", "key"}
    assert {n["type"] for n in data["nodes"]} == {INSTRUCTION, VARIABLE, CONSTANT}
    back = ProgramGraph.from_node_link(json.loads((tmp_path / "g.json").read_text()))
    assert back.edges == g.edges and back.node_full_text == g.node_full_text


def test_pyg_data_has_one_edge_index_per_flow(devmap_ir_dir):
    g = build_graph(IRModule.from_file(devmap_ir_dir / "amd-app-sdk-3.0-Reduction-reduce.ll"))
    data = g.to_pyg()
    assert data.num_nodes == g.num_nodes
    counts = g.edge_counts()
    for flow in ("control", "data", "call"):
        ei = data[f"{flow}_edge_index"]
        assert ei.shape == (2, counts[flow])
        assert int(ei.max()) < g.num_nodes
    assert len(data.node_full_text) == g.num_nodes
