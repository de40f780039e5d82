"""ProGraML's own `llvm2graph-10`, used as the reference that mirtune's graphs are checked against.

Only the binary bundled in the `programl==0.3.2` wheel is used (installed with --no-deps); its Python
package is never imported (its protobuf clashes with Ray's).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sysconfig
from pathlib import Path

from mirtune.errors import ToolMissing
from mirtune.ir.graph import CALL, CONSTANT, CONTROL, DATA, INSTRUCTION, VARIABLE, ProgramGraph

_NODE_TYPE = {"INSTRUCTION": INSTRUCTION, "VARIABLE": VARIABLE, "CONSTANT": CONSTANT}
_FLOW = {"CONTROL": CONTROL, "DATA": DATA, "CALL": CALL}
# LLVM 10 does not know these clang >= 11 keywords; removing them changes no graph structure.
_LLVM10_UNKNOWN = re.compile(r" (?:noundef|mustprogress)\b")


def find_llvm2graph() -> str:
    """Path of `llvm2graph-10`: $MIRTUNE_LLVM2GRAPH, else the programl wheel's bin/, else PATH."""
    env = os.environ.get("MIRTUNE_LLVM2GRAPH")
    if env and Path(env).is_file():
        return env
    for base in {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        cand = Path(base) / "programl" / "bin" / "llvm2graph-10"
        if cand.is_file():
            return str(cand)
    found = shutil.which("llvm2graph-10")
    if found:
        return found
    raise ToolMissing("llvm2graph-10 not found: pip install --no-deps programl==0.3.2 (needs Debian's libtinfo5)")


def llvm10_compatible(text: str) -> str:
    """Remove the clang-14 attributes that LLVM 10's parser rejects."""
    return _LLVM10_UNKNOWN.sub("", text)


def reference_graph(ir_text: str, binary: str | None = None, timeout: float = 60.0) -> ProgramGraph:
    """Run llvm2graph-10 on IR text and read its protobuf-JSON output into a ProgramGraph."""
    proc = subprocess.run([binary or find_llvm2graph(), "--stdout_fmt=json"], input=ir_text.encode(),
                          capture_output=True, timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"llvm2graph-10 failed: {proc.stderr.decode(errors='replace').strip()[:300]}")
    return parse_programl_json(json.loads(proc.stdout))


def parse_programl_json(data: dict) -> ProgramGraph:
    """Convert ProGraML's protobuf JSON (default values omitted) into a ProgramGraph."""
    import base64

    g = ProgramGraph()
    g.functions = [f.get("name", "") for f in data.get("function", [])]
    for node in data.get("node", []):
        full = ""
        feat = node.get("features", {}).get("feature", {}).get("full_text")
        if feat:
            values = feat.get("bytes_list", {}).get("value", [])
            full = base64.b64decode(values[0]).decode(errors="replace") if values else ""
        g.add_node(_NODE_TYPE[node.get("type", "INSTRUCTION")], node.get("text", ""), full,
                   node.get("function", 0), node.get("block", 0))
    for edge in data.get("edge", []):
        g.add_edge(edge.get("source", 0), edge.get("target", 0), _FLOW[edge.get("flow", "CONTROL")],
                   edge.get("position", 0))
    return g
