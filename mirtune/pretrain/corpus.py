"""The pre-training corpus: programs -> LLVM IR variants -> statements and graphs -> tokenised Parquet shards.

    build_corpus("build/corpus", generate_n=1000, seed=0, sources=["/data/codenet"])

Inputs are programs of the project's own generator (`generate_n`, `seed`) and/or every source file (C, C++,
OpenCL, CUDA) and IR file (.ll, .bc) under `sources`. Each program becomes several IR modules (variants):
clang at each of `opt_levels` and, when an `opt` of clang's LLVM version is installed, `opt -passes=...`
pipelines run on the -O0 IR (compiled without `optnone`, so that the passes act). An IR input is used as
it is and through the same pipelines.

Stages:
1. Ray Data, one task per batch of programs (`batch_size`): compile, run opt (no shell, with a timeout),
   parse with llvmlite, build the ProGraML graph, keep the statements and the graph. A variant that fails is
   a row with its status (build_failed, timeout, parse_failed, graph_failed, too_large) and the reason.
   The driver writes each batch to CORPUS/stage1/<batch key>.parquet as it arrives; the key hashes the
   batch's programs, the variants and the tool versions, so a rerun (after an interruption, or with a larger
   --generate: program i of a seed never changes) skips every batch already written.
2. Driver: split train/heldout by a hash of the ORIGINAL program (all variants of a program land in the
   same split); exclude any module whose content hash equals that of an evaluation kernel in the shared
   data folder (status `excluded`; only `include_evaluation`, a recorded diagnostic, lets them in);
   de-duplicate by content hash (status `duplicate`, the kept copy being
   a train one when there is one, so that no heldout module repeats a train module); train the WordPiece
   tokenizer on the train split's statements and save CORPUS/tokenizer.json.
3. Ray Data again, one task per stage-1 batch: tokenise the kept modules with
   `mirtune.pretrain.samples.module_to_sample` and write CORPUS/samples/split=train|heldout/part-*.parquet
   (the trainer's row format). A shard's name hashes its batch, the tokenizer and its rows; a rerun keeps
   the shards that are still right and deletes stale ones.

CORPUS/manifest.parquet has one row per (program, variant) with its status and reason (nothing is dropped
silently); CORPUS/corpus.json has the counts, the split sizes, the tokenizer, the tool versions, the
command and the timings. Task payloads travel through Ray's object store and only the driver touches the
output folder, so the build runs on a cluster with no shared file system.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from mirtune.errors import MirtuneError, UsageError
from mirtune.paths import DirLock, cache_dir, write_atomic

if TYPE_CHECKING:
    from mirtune.ir.tokenizer import IRTokenizer

STAGE1_VERSION = 2  # 2: sources compiled with _reproducible's flags
STAGE3_VERSION = 1
DEFAULT_OPT_LEVELS = (0, 1, 2, 3)
# opt pipelines run on the -O0 IR (new pass manager syntax, LLVM 14). The names appear in the variant column.
PIPELINES: dict[str, str] = {
    "mem2reg": "function(mem2reg,instcombine,simplifycfg)",
    "unroll": "function(sroa,early-cse,loop-simplify,lcssa,loop-rotate,loop-unroll,instcombine,simplifycfg)",
    "licm": "function(sroa,instcombine,loop-simplify,lcssa,loop-rotate),function(loop-mssa(licm)),"
            "function(gvn,simplifycfg)",
    "vectorize": "function(sroa,instcombine,loop-simplify,lcssa,loop-rotate,loop-vectorize,instcombine,"
                 "simplifycfg)",
}
DEFAULT_PIPELINES = ("mem2reg", "unroll", "licm", "vectorize")
STATUSES = ("ok", "duplicate", "excluded", "build_failed", "timeout", "parse_failed", "graph_failed",
            "too_large")
FAILURE_STATUSES = ("build_failed", "timeout", "parse_failed", "graph_failed", "too_large")
IR_FILE_SUFFIXES = (".ll", ".bc")
MAX_FILE_BYTES = 16 * 1024 * 1024
LOCK_NAME = ".mirtune-corpus.lock"
_OPTNONE_OFF = ["-Xclang", "-disable-O0-optnone"]
_FIXED_CLOCK = ["-Wno-builtin-macro-redefined", '-D__DATE__="Jan  1 1970"', '-D__TIME__="00:00:00"',
                '-D__TIMESTAMP__="Thu Jan  1 00:00:00 1970"']


def _reproducible(folder: str) -> list[str]:
    """Flags that give the same IR for the same text in every build: `__FILE__` without the build's temporary
    `folder`, `__DATE__` and `__TIME__` fixed (clang 14 ignores SOURCE_DATE_EPOCH). Of the corpus's GCC tests 48
    name their file and 3 the time: without these their modules' content hashes, and the statements the
    tokenizer reads, changed from build to build."""
    return [f"-fmacro-prefix-map={folder}/=", *_FIXED_CLOCK]


# --------------------------------------------------------------------------------------------- settings


@dataclass
class CorpusSummary:
    """What a build did; `lines()` is the closing summary the command prints."""

    out_dir: Path
    complete: bool
    programs: int = 0
    batches: int = 0
    batches_reused: int = 0
    batches_built: int = 0
    batches_left: int = 0
    variants_built: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    by_lang: dict[str, dict[str, int]] = field(default_factory=dict)
    splits: dict[str, dict[str, int]] = field(default_factory=dict)
    tokens_per_statement: float | None = None
    at_limit_fraction: float | None = None
    vocab_size: int | None = None
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def samples(self) -> int:
        return sum(s.get("modules", 0) for s in self.splits.values())

    def lines(self) -> list[str]:
        out = []
        if not self.complete:
            out.append(f"partial corpus in {self.out_dir}: {self.batches_built} new batches of programs, "
                       f"{self.batches_left} left; run the same command again to continue")
            return out
        status = ", ".join(f"{k} {v}" for k, v in sorted(self.by_status.items(), key=lambda kv: -kv[1]))
        out.append(f"corpus {self.out_dir}: {self.programs} programs -> {sum(self.by_status.values())} "
                   f"variants ({status})")
        for lang, counts in sorted(self.by_lang.items()):
            out.append(f"  {lang}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
        for split, c in sorted(self.splits.items()):
            out.append(f"  split {split}: {c.get('modules', 0)} modules from {c.get('programs', 0)} programs")
        if self.tokens_per_statement is not None:
            out.append(f"  tokenizer: vocabulary {self.vocab_size}; {self.tokens_per_statement:.1f} tokens per "
                       f"statement, {100 * (self.at_limit_fraction or 0):.2f}% at the 64-token limit")
        if self.batches_built and self.seconds:
            pace = f"{self.variants_built} variants compiled and analysed, {self.variants_built / self.seconds:.2f}/s"
        else:
            pace = "nothing to compile"
        out.append(f"  {self.seconds:.0f}s ({pace}); stage-1 batches: {self.batches_built} built, "
                   f"{self.batches_reused} reused")
        out.extend(f"  note: {n}" for n in self.notes)
        return out


# --------------------------------------------------------------------------------------------- tools


@lru_cache(maxsize=None)
def find_opt() -> str | None:
    """`opt` of clang's LLVM version or newer ($MIRTUNE_OPT, opt-<major>, opt), or None."""
    from mirtune.ir.frontend import find_clang

    wanted = os.environ.get("MIRTUNE_OPT")
    major = find_clang().major
    names = [wanted] if wanted else [f"opt-{major}", "opt"]
    for name in names:
        path = shutil.which(name) if name else None
        if path is None:
            continue
        version = _tool_version(path)
        m = re.search(r"LLVM version (\d+)", version)
        if m and int(m.group(1)) >= major:
            return path
    return None


@lru_cache(maxsize=None)
def _tool_version(path: str) -> str:
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30,
                             stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.SubprocessError):
        return ""
    for line in out.splitlines():
        if "version" in line:
            return line.strip()
    return out.strip().splitlines()[0] if out.strip() else ""


def tool_versions() -> dict[str, str]:
    """Versions of everything that shapes the corpus."""
    import llvmlite
    import ray
    import tokenizers

    from mirtune import __version__
    from mirtune.ir.frontend import find_clang

    opt = find_opt()
    return {"clang": _tool_version(find_clang().path), "opt": _tool_version(opt) if opt else "",
            "llvmlite": llvmlite.__version__, "ray": ray.__version__, "tokenizers": tokenizers.__version__,
            "mirtune": __version__, "python": sys.version.split()[0]}


# --------------------------------------------------------------------------------------------- inputs


def _sha(text: str | bytes, n: int = 32) -> str:
    data = text.encode() if isinstance(text, str) else text
    return hashlib.sha256(data).hexdigest()[:n]


def split_of(program_id: str, heldout_fraction: float) -> str:
    """train or heldout, from the hash of the original program (stable across runs and machines)."""
    bucket = int(hashlib.sha256(f"split:{program_id}".encode()).hexdigest()[:8], 16) / 0x100000000
    return "heldout" if bucket < heldout_fraction else "train"


def _generated_specs(n: int, seed: int, langs: tuple[str, ...]) -> list[dict[str, Any]]:
    from mirtune.pretrain.generator import SUFFIX, generate

    specs = []
    for p in generate(n, seed, langs):
        specs.append({"program_id": _sha(f"{p.lang}\0{p.source}"), "origin": f"generator:seed={seed}:{p.name}",
                      "kind": "generated", "lang": p.lang, "suffix": SUFFIX[p.lang], "openmp": p.openmp,
                      "text": p.source})
    return specs


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
        return True
    except ValueError:
        return False


def check_sources_allowed(sources: Iterable[str | os.PathLike], data: Path | None) -> None:
    """Refuse a --sources path inside (or holding) the shared evaluation data folder."""
    if data is None:
        return
    data = data.resolve()
    for raw in sources:
        path = Path(raw).resolve()
        if _inside(path, data) or (path.is_dir() and _inside(data, path)):
            raise UsageError(f"refusing to pre-train on {raw}: it holds the evaluation data in {data} "
                             "(pre-training must never see the evaluation kernels)")


def _source_specs(sources: list[str], data: Path | None) -> tuple[list[dict[str, Any]], list[str]]:
    from mirtune.ir.frontend import SOURCE_SUFFIXES, language_of
    from mirtune.ir.inputs import expand_inputs

    specs, notes = [], []
    for raw in sources:
        if not Path(raw).exists():
            raise UsageError("no such file or directory", str(raw))
    for path, reason in expand_inputs(sources):
        if reason is not None:
            notes.append(f"{path}: {reason}")
            continue
        resolved = path.resolve()
        if data is not None and _inside(resolved, data.resolve()):
            raise UsageError(f"refusing to pre-train on {path}: it lies in the evaluation data folder {data}")
        suffix = path.suffix
        spec: dict[str, Any] = {"origin": str(resolved), "suffix": suffix, "openmp": False, "text": None,
                                "data_b64": None}
        size = resolved.stat().st_size
        raw_bytes = resolved.read_bytes() if size <= MAX_FILE_BYTES else b""
        spec["program_id"] = _sha(raw_bytes if size <= MAX_FILE_BYTES else f"{resolved}:{size}".encode())
        if size > MAX_FILE_BYTES:
            spec.update(kind="too_large", lang=suffix.lstrip(".") or "unknown")
        elif suffix in IR_FILE_SUFFIXES:
            spec.update(kind="ir", lang="ll")
            if suffix == ".bc":
                spec["data_b64"] = base64.b64encode(raw_bytes).decode()
            else:
                spec["text"] = raw_bytes.decode("utf-8", errors="replace")
        elif suffix in SOURCE_SUFFIXES or suffix.lower() in SOURCE_SUFFIXES:
            text = raw_bytes.decode("utf-8", errors="replace")
            spec.update(kind="source", lang=language_of(path), text=text, openmp="#pragma omp" in text)
        else:
            continue
        specs.append(spec)
    return specs, notes


# --------------------------------------------------------------------------------------------- stage 1


def _stage1_schema() -> Any:
    import pyarrow as pa

    return pa.schema([
        ("program_id", pa.string()), ("origin", pa.string()), ("kind", pa.string()), ("lang", pa.string()),
        ("variant", pa.string()), ("status", pa.string()), ("reason", pa.string()),
        ("content_hash", pa.string()), ("seconds", pa.float64()),
        ("n_stmt", pa.int32()), ("n_nodes", pa.int32()), ("n_edges", pa.int32()),
        ("statements", pa.list_(pa.string())),
        ("node_type", pa.list_(pa.int8())), ("node_text", pa.list_(pa.string())),
        ("node_full_text", pa.list_(pa.string())), ("edges", pa.list_(pa.int32())),
    ])


def _variant_names(kind: str, opt_levels: list[int], pipelines: list[str]) -> list[str]:
    first = ["ll"] if kind == "ir" else [f"O{lv}" for lv in opt_levels]
    return first + [f"opt:{p}" for p in pipelines]


def _clean(message: str, tmp: str, display: str, suffix: str) -> str:
    """A compiler message without the temporary folder, naming the program instead of its temporary copy."""
    message = message.replace(tmp + "/", "").replace(tmp, "").replace(f"prog{suffix}", display)
    return (" | ".join(p.strip() for p in message.strip().splitlines() if p.strip()) or "failed")[:600]


def _run_opt(opt: str, ir: str | bytes, passes: str, timeout: float) -> str:
    from mirtune.ir.frontend import limit_compiler_memory

    data = ir.encode() if isinstance(ir, str) else ir
    try:
        proc = subprocess.run([opt, "-S", f"-passes={passes}", "-o", "-", "-"], input=data, capture_output=True,
                              timeout=timeout, preexec_fn=limit_compiler_memory)
    except subprocess.TimeoutExpired:
        raise TimeoutError(f"opt timed out after {timeout:.0f}s") from None
    if proc.returncode != 0:
        err = proc.stderr.decode(errors="replace").strip().splitlines()
        raise MirtuneError(" | ".join(err[:3]) or f"opt exited with {proc.returncode}")
    return proc.stdout.decode(errors="replace")


def parse_ir(ir: str | bytes, name: str) -> Any:
    """IRModule.from_text, or from_bitcode for bytes (each module in an LLVM context of its own)."""
    from mirtune.ir.module import IRModule

    if isinstance(ir, bytes):
        return IRModule.from_bitcode(ir, name)
    return IRModule.from_text(ir, name)


def _analyse(ir: str | bytes, name: str, max_statements: int) -> dict[str, Any]:
    """Parse, normalise and build the graph of one IR variant: a row's status and payload."""
    from mirtune.ir.graph import build_graph

    try:
        module = parse_ir(ir, name)
        statements = module.statements()
        content_hash = module.content_hash
    except MirtuneError as exc:
        return {"status": "parse_failed", "reason": str(exc)[:600]}
    except Exception as exc:  # llvmlite may raise its own errors on odd IR
        return {"status": "parse_failed", "reason": f"{type(exc).__name__}: {exc}"[:600]}
    if len(statements) > max_statements:
        return {"status": "too_large", "reason": f"{len(statements)} statements (limit {max_statements})",
                "content_hash": content_hash, "n_stmt": len(statements)}
    try:
        g = build_graph(module)
    except Exception as exc:
        return {"status": "graph_failed", "reason": f"{type(exc).__name__}: {exc}"[:600],
                "content_hash": content_hash, "n_stmt": len(statements)}
    edges = [v for e in g.edges for v in e]
    return {"status": "ok", "reason": "", "content_hash": content_hash, "n_stmt": len(statements),
            "n_nodes": g.num_nodes, "n_edges": len(g.edges), "statements": statements,
            "node_type": list(g.node_type), "node_text": list(g.node_text),
            "node_full_text": list(g.node_full_text), "edges": edges}


def _include_flags(spec: dict[str, Any]) -> list[str]:
    """`-I` the source file's own folder, so that its local `#include "x.h"` resolves from the temporary copy.

    Nothing for generated programs, or where the folder is not on this node (a worker elsewhere in a cluster).
    """
    if spec["kind"] != "source":
        return []
    folder = Path(spec["origin"]).parent
    return ["-I", str(folder)] if folder.is_dir() else []


def process_program(spec: dict[str, Any], settings: dict[str, Any]) -> list[dict[str, Any]]:
    """Every variant of one program as stage-1 rows (never raises for a bad program)."""
    from mirtune.ir.frontend import compile_to_ir

    levels: list[int] = settings["opt_levels"]
    pipelines: list[str] = settings["pipelines"]
    opt_path: str | None = find_opt() if pipelines else None  # this node's own opt (the driver checked its)
    max_statements: int = settings["max_statements"]
    name = spec["origin"].rsplit("/", 1)[-1].rsplit(":", 1)[-1]
    display = name + spec["suffix"] if spec["kind"] == "generated" else name
    rows: list[dict[str, Any]] = []
    analysed: dict[str | bytes, dict[str, Any]] = {}

    def analyse(ir: str | bytes) -> dict[str, Any]:
        """_analyse's result, once per distinct IR text: two in five of a GCC test's variants repeat another's
        (-O2 and -O3 often print the same module), and parsing and building the graph again would give the same."""
        if ir not in analysed:
            analysed[ir] = _analyse(ir, name, max_statements)
        return dict(analysed[ir])

    def row(variant: str, result: dict[str, Any], seconds: float) -> None:
        r = {k: spec[k] for k in ("program_id", "origin", "kind", "lang")}
        r.update(variant=variant, seconds=round(seconds, 4), **result)
        rows.append(r)

    if spec["kind"] == "too_large":
        for v in _variant_names("ir" if spec["suffix"] in IR_FILE_SUFFIXES else "source", levels, pipelines):
            row(v, {"status": "too_large", "reason": f"file larger than {MAX_FILE_BYTES >> 20} MiB"}, 0.0)
        return rows

    base: str | bytes | None = None
    base_failure = ""
    if spec["kind"] == "ir":
        base = base64.b64decode(spec["data_b64"]) if spec.get("data_b64") else spec["text"]
        t0 = time.perf_counter()
        row("ll", analyse(base), time.perf_counter() - t0)
    else:
        with tempfile.TemporaryDirectory(prefix="mirtune-corpus-") as tmp:
            src = Path(tmp) / f"prog{spec['suffix']}"
            src.write_text(spec["text"])
            wanted = sorted(set(levels) | ({0} if pipelines else set()))
            includes = _include_flags(spec) + _reproducible(tmp)
            for level in wanted:
                t0 = time.perf_counter()
                try:
                    ir = compile_to_ir(src, lang=spec["lang"], opt=level, openmp=spec["openmp"],
                                       extra=(_OPTNONE_OFF if level == 0 else []) + includes)
                except MirtuneError as exc:
                    msg = _clean(str(exc), tmp, display, spec["suffix"])
                    status = "timeout" if "timed out" in msg else "build_failed"
                    if level == 0:
                        base_failure = f"the -O0 build failed: {msg}"[:600]
                    if level in levels:
                        row(f"O{level}", {"status": status, "reason": msg}, time.perf_counter() - t0)
                    continue
                if level == 0:
                    base = ir
                if level in levels:
                    row(f"O{level}", analyse(ir), time.perf_counter() - t0)
    for pname in pipelines:
        t0 = time.perf_counter()
        variant = f"opt:{pname}"
        if base is None:
            row(variant, {"status": "build_failed", "reason": base_failure or "no IR to start from"}, 0.0)
            continue
        if opt_path is None:
            row(variant, {"status": "build_failed", "reason": "no opt of clang's LLVM version on this node"}, 0.0)
            continue
        try:
            ir = _run_opt(opt_path, base, PIPELINES[pname], settings["opt_timeout"])
        except TimeoutError as exc:
            row(variant, {"status": "timeout", "reason": str(exc)}, time.perf_counter() - t0)
            continue
        except MirtuneError as exc:
            row(variant, {"status": "build_failed", "reason": ("opt: " + str(exc))[:600]},
                time.perf_counter() - t0)
            continue
        row(variant, analyse(ir), time.perf_counter() - t0)
    return rows


def _rows_to_parquet(rows: list[dict[str, Any]], schema: Any) -> bytes:
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {f.name: [r.get(f.name) for r in rows] for f in schema}
    table = pa.Table.from_pydict(cols, schema=schema)
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    return buf.getvalue()


def _stage1_task(item: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    """Ray Data map function: one batch of programs -> one stage-1 Parquet payload."""
    specs = json.loads(item["programs"])
    rows = [r for spec in specs for r in process_program(spec, settings)]
    return {"key": item["key"], "payload": _rows_to_parquet(rows, _stage1_schema()), "n_rows": len(rows)}


# --------------------------------------------------------------------------------------------- stage 3


class _StoredModule:
    """The parts of an IRModule that `module_to_sample` reads, from stage-1 columns."""

    def __init__(self, statements: list[str], content_hash: str) -> None:
        self._statements = statements
        self.content_hash = content_hash

    def statements(self) -> list[str]:
        return self._statements


def _stage3_task(item: dict[str, Any], tokenizer_json: str) -> dict[str, Any]:
    """Ray Data map function: tokenise the kept modules of one stage-1 batch into train/heldout shards."""
    import numpy as np
    import pyarrow.parquet as pq
    from tokenizers import Tokenizer

    from mirtune.ir.graph import ProgramGraph
    from mirtune.ir.tokenizer import IRTokenizer
    from mirtune.pretrain.samples import module_to_sample, write_shard

    tok = IRTokenizer(Tokenizer.from_str(tokenizer_json))
    keep = json.loads(item["keep"])  # row index -> [split, origin]
    table = pq.read_table(io.BytesIO(item["payload"]))
    cols = ["statements", "content_hash", "node_type", "node_text", "node_full_text", "edges"]
    data = {c: table.column(c).to_pylist() for c in cols}
    shards: dict[str, list[dict[str, Any]]] = defaultdict(list)
    n_stmt = tokens = at_limit = 0
    for idx_text, (split, origin) in keep.items():
        i = int(idx_text)
        module = _StoredModule(data["statements"][i], data["content_hash"][i])
        e = data["edges"][i]
        graph = ProgramGraph(node_type=data["node_type"][i], node_text=data["node_text"][i],
                             node_full_text=data["node_full_text"][i],
                             edges=[tuple(e[j:j + 4]) for j in range(0, len(e), 4)])
        sample = module_to_sample(module, tok, origin=origin, graph=graph)
        ids = np.asarray(sample["stmt_ids"]).reshape(-1, tok.seq_len)
        lengths = (ids != tok.pad_id).sum(axis=1)
        n_stmt += len(lengths)
        tokens += int(lengths.sum())
        at_limit += int((lengths >= tok.seq_len).sum())
        shards[split].append(sample)
    out: dict[str, Any] = {"key": item["key"], "n_stmt": n_stmt, "tokens": tokens, "at_limit": at_limit}
    with tempfile.TemporaryDirectory(prefix="mirtune-shard-") as tmp:
        for split in ("train", "heldout"):
            rows = shards.get(split, [])
            if rows:
                path = Path(tmp) / f"{split}.parquet"
                write_shard(rows, path)
                out[split] = path.read_bytes()
            else:
                out[split] = b""
            out[f"n_{split}"] = len(rows)
    return out


# --------------------------------------------------------------------------------------------- evaluation kernels


def evaluation_hashes(data: Path | None) -> dict[str, str]:
    """content hash -> file (relative to `data`) of every .ll under the evaluation data folder.

    Cached in $MIRTUNE_CACHE (default ~/.cache/mirtune) under a fingerprint of the files' names, sizes and
    modification times, so that only the first build on a machine pays for parsing them.
    """
    if data is None or not data.is_dir():
        return {}
    files = sorted(p for p in data.rglob("*.ll") if p.is_file())
    fingerprint = _sha(json.dumps([[str(p), p.stat().st_size, p.stat().st_mtime_ns] for p in files]))
    cache = cache_dir() / f"eval-hashes-v2-{fingerprint}.json"
    if cache.exists():
        try:
            return json.loads(cache.read_text())["hashes"]
        except (OSError, ValueError, KeyError):
            pass
    hashes: dict[str, str] = {}
    for p in files:
        try:
            module = parse_ir(p.read_text(errors="replace"), str(p))
            hashes.setdefault(module.content_hash, str(p.relative_to(data)))
        except MirtuneError:
            continue
    try:
        write_atomic(cache, json.dumps({"data_dir": str(data), "files": len(files), "hashes": hashes}))
    except OSError:
        pass
    return hashes


# --------------------------------------------------------------------------------------------- driver


def _batches(specs: list[dict[str, Any]], batch_size: int, settings_key: str) -> list[tuple[str, list]]:
    out = []
    for start in range(0, len(specs), batch_size):
        chunk = specs[start:start + batch_size]
        key = _sha(json.dumps([settings_key, [(s["program_id"], s["origin"]) for s in chunk]]), 24)
        out.append((key, chunk))
    return out


def _run_ray_map(items: list[dict[str, Any]], fn: Any, fn_kwargs: dict[str, Any]) -> Iterable[dict[str, Any]]:
    """Stream the results of `fn` over `items` (one task each, one CPU each) as they complete."""
    import logging

    import ray.data
    from ray.data import DataContext

    logging.getLogger("ray.data").setLevel(logging.ERROR)  # our own progress lines say what happens
    ctx = DataContext.get_current()
    ctx.enable_progress_bars = False
    ctx.print_on_execution_start = False
    ds = ray.data.from_items(items, override_num_blocks=len(items))
    ds = ds.map(fn, fn_kwargs=fn_kwargs, num_cpus=1)
    yield from ds.iter_rows()


@dataclass(frozen=True)
class _Plan:
    """One build's checked arguments and what follows from them, as the stages read them."""

    out: Path
    generate_n: int
    seed: int
    langs: tuple[str, ...]
    sources: list[str]
    levels: list[int]
    pipelines: list[str]  # those this machine's opt can run
    heldout_fraction: float
    batch_size: int
    max_batches: int | None
    vocab_size: int
    min_frequency: int
    max_tokenizer_statements: int
    address: str | None
    progress: bool
    command: str | None
    include_evaluation: bool
    data: Path | None  # the evaluation data folder
    guarded: Path | None  # the folder whose kernels are kept out, if any
    versions: dict[str, str]
    settings: dict[str, Any]  # what every stage-1 task runs with
    settings_key: str  # part of every stage-1 batch's key
    notes: list[str]

    @property
    def stage1(self) -> Path:
        """CORPUS/stage1: one Parquet file of rows per batch of programs."""
        return self.out / "stage1"


def build_corpus(out_dir: str | os.PathLike, *, generate_n: int = 0, seed: int = 0,
                 langs: tuple[str, ...] = ("c", "opencl", "cuda"), sources: Iterable[str | os.PathLike] = (),
                 vocab_size: int = 8000, min_frequency: int = 2, opt_levels: Iterable[int] = DEFAULT_OPT_LEVELS,
                 pipelines: Iterable[str] | None = None, heldout_fraction: float = 0.05, batch_size: int = 16,
                 max_statements: int = 4096, opt_timeout: float = 60.0, address: str | None = None,
                 data_dir: str | os.PathLike | None = None, max_batches: int | None = None,
                 max_tokenizer_statements: int = 2_000_000, progress: bool = True,
                 command: str | None = None, include_evaluation: bool = False) -> CorpusSummary:
    """Build (or finish) a corpus in `out_dir`; see the module docstring. `max_batches` caps the new stage-1
    batches of this run (the summary then says complete=False and a rerun continues). `include_evaluation`
    lets the evaluation kernels in, on purpose and recorded in corpus.json: a transductive diagnostic (how much
    would seeing the target programs' IR, without labels, help?), never a corpus to ship."""
    from mirtune.progress import note

    t_start = time.monotonic()
    out = Path(out_dir)
    sources = [str(s) for s in sources]
    levels, wanted_pipelines = _checked_variants(opt_levels, pipelines)
    langs = tuple(langs)
    _check_arguments(generate_n, langs, sources, heldout_fraction, vocab_size, batch_size, levels,
                     wanted_pipelines)
    data, guarded = _evaluation_folders(data_dir, include_evaluation, sources, out)
    notes: list[str] = []
    if include_evaluation:
        notes.append("evaluation kernels included on purpose: a transductive diagnostic, not a corpus to ship")
    opt, wanted_pipelines = _usable_pipelines(levels, wanted_pipelines, notes)
    versions = tool_versions()
    settings, settings_key = _stage1_settings(levels, wanted_pipelines, opt, max_statements, opt_timeout, versions)
    plan = _Plan(out=out, generate_n=generate_n, seed=seed, langs=langs, sources=sources, levels=levels,
                 pipelines=wanted_pipelines, heldout_fraction=heldout_fraction, batch_size=batch_size,
                 max_batches=max_batches, vocab_size=vocab_size, min_frequency=min_frequency,
                 max_tokenizer_statements=max_tokenizer_statements, address=address, progress=progress,
                 command=command, include_evaluation=include_evaluation, data=data, guarded=guarded,
                 versions=versions, settings=settings, settings_key=settings_key, notes=notes)

    out.mkdir(parents=True, exist_ok=True)
    with DirLock(out, LOCK_NAME, "corpus build"):
        specs, source_notes = _programs(plan)
        notes.extend(source_notes)
        batches = _batches(specs, batch_size, settings_key)
        plan.stage1.mkdir(parents=True, exist_ok=True)
        todo = [(k, chunk) for k, chunk in batches if not (plan.stage1 / f"{k}.parquet").exists()]
        run_now = todo if max_batches is None else todo[:max_batches]
        summary = CorpusSummary(out, complete=False, programs=len(specs), batches=len(batches),
                                batches_reused=len(batches) - len(todo), batches_built=len(run_now),
                                batches_left=len(todo) - len(run_now), notes=notes)
        for line in notes:
            note(f"mirtune corpus: {line}")

        t1 = time.monotonic()
        summary.variants_built = _compile_and_analyse(plan, run_now, summary.batches_reused)
        if summary.batches_left:
            summary.seconds = time.monotonic() - t_start
            return summary
        timing = {"stage1_this_run": time.monotonic() - t1}

        eval_hashes = evaluation_hashes(guarded)
        manifest = _read_manifest(plan.stage1, batches, specs)
        kept = _exclude_and_deduplicate(manifest, eval_hashes)
        _write_manifest(out, manifest)  # before any refusal below, which points to it
        train_rows, stride, n_statements = _tokenizer_sample(kept, max_tokenizer_statements, out)

        t_tok = time.monotonic()
        tok, tokenizer_info = _tokenizer(plan, batches, kept, train_rows, stride, n_statements)
        timing["tokenizer"] = time.monotonic() - t_tok
        t3 = time.monotonic()
        shards = _tokenise_into_rows(plan, batches, kept, tok)
        timing["stage3_this_run"] = time.monotonic() - t3
        stats = _shard_stats(out / "stage3", shards)

        _complete_summary(summary, specs, manifest, kept, stats, tok.vocab_size)
        summary.seconds = time.monotonic() - t_start
        _write_record(plan, summary, specs, manifest, len(eval_hashes), tokenizer_info, len(shards), stats, timing)
        return summary


# --------------------------------------------------------------------------------------------- driver: arguments


def _checked_variants(opt_levels: Iterable[int], pipelines: Iterable[str] | None) -> tuple[list[int], list[str]]:
    """The optimisation levels and opt pipelines asked for, refusing a level or pipeline that does not exist."""
    levels = sorted(set(int(x) for x in opt_levels))
    for lv in levels:
        if not 0 <= lv <= 3:
            raise UsageError(f"optimisation levels are 0..3, got {lv}")
    wanted_pipelines = list(DEFAULT_PIPELINES if pipelines is None else pipelines)
    for p in wanted_pipelines:
        if p not in PIPELINES:
            raise UsageError(f"unknown opt pipeline {p!r}; choose from {', '.join(PIPELINES)}")
    return levels, wanted_pipelines


def _check_arguments(generate_n: int, langs: tuple[str, ...], sources: list[str], heldout_fraction: float,
                     vocab_size: int, batch_size: int, levels: list[int], pipelines: list[str]) -> None:
    """Refuse, before any work, arguments that cannot make a corpus (the message names the option)."""
    from mirtune.pretrain.generator import LANGS as GENERATED_LANGS

    if generate_n < 0:
        raise UsageError("--generate must be >= 0")
    if generate_n and (not langs or any(lang not in GENERATED_LANGS for lang in langs)):
        raise UsageError(f"--langs must name some of {', '.join(GENERATED_LANGS)}")
    if not generate_n and not sources:
        raise UsageError("nothing to build: pass --generate N and/or --sources DIR")
    if not 0.0 <= heldout_fraction < 1.0:
        raise UsageError("the held-out fraction must be in [0, 1)")
    if vocab_size < 100:
        raise UsageError("--vocab-size must be at least 100")
    if batch_size < 1:
        raise UsageError("the batch size must be >= 1")
    if not levels and not pipelines:
        raise UsageError("no variants: give at least one optimisation level or opt pipeline")


def _evaluation_folders(data_dir: str | os.PathLike | None, include_evaluation: bool, sources: list[str],
                        out: Path) -> tuple[Path | None, Path | None]:
    """The evaluation data folder and the one kept out (none if let in); pre-training must never see its kernels."""
    from mirtune.paths import data_dir as find_data_dir

    data = Path(data_dir) if data_dir else find_data_dir(required=False)
    guarded = None if include_evaluation else data
    check_sources_allowed(sources, guarded)
    if data is not None and _inside(out.resolve(), data.resolve()):
        raise UsageError(f"refusing to write a corpus inside the evaluation data folder {data}")
    return data, guarded


def _usable_pipelines(levels: list[int], pipelines: list[str], notes: list[str]) -> tuple[str | None, list[str]]:
    """`opt` and the pipelines it can run (none, said in `notes`, without one); refuses a build left with no variant."""
    opt = find_opt()
    if pipelines and opt is None:
        notes.append("no opt of clang's LLVM version found (Debian: apt-get install llvm-14); "
                     "opt pipelines skipped")
        pipelines = []
    if not levels and not pipelines:
        raise UsageError("no variants left: opt is not installed and no optimisation level was given")
    return opt, pipelines


def _stage1_settings(levels: list[int], pipelines: list[str], opt: str | None, max_statements: int,
                     opt_timeout: float, versions: dict[str, str]) -> tuple[dict[str, Any], str]:
    """What every stage-1 task runs with, and the key that makes a batch built with other settings or tools stale."""
    settings = {"opt_levels": levels, "pipelines": pipelines, "opt": opt,
                "max_statements": max_statements, "opt_timeout": opt_timeout}
    settings_key = json.dumps({"v": STAGE1_VERSION, "levels": levels,
                               "pipelines": {p: PIPELINES[p] for p in pipelines},
                               "max_statements": max_statements, "clang": versions["clang"],
                               "opt": versions["opt"], "llvmlite": versions["llvmlite"]}, sort_keys=True)
    return settings, settings_key


# --------------------------------------------------------------------------------------------- driver: stages


def _programs(plan: _Plan) -> tuple[list[dict[str, Any]], list[str]]:
    """Every program to build (generated, then --sources) with its split, and notes on the files passed over."""
    specs = _generated_specs(plan.generate_n, plan.seed, plan.langs) if plan.generate_n else []
    src_specs, notes = _source_specs(plan.sources, plan.guarded)
    specs += src_specs
    if not specs:
        raise UsageError("no programs found in the given --sources")
    for s in specs:
        s["split"] = split_of(s["program_id"], plan.heldout_fraction)
    return specs, notes


def _compile_and_analyse(plan: _Plan, run_now: list[tuple[str, list]], reused: int) -> int:
    """Stage 1 on Ray Data: build the batches of `run_now`, each written as it arrives; the variants built."""
    from mirtune.cluster import init_ray
    from mirtune.progress import note
    from mirtune.progress import progress as bar

    if not run_now:
        return 0
    t1 = time.monotonic()
    init_ray(plan.address)
    if plan.progress:
        n_progs = sum(len(c) for _, c in run_now)
        note(f"mirtune corpus: stage 1: {n_progs} programs in {len(run_now)} batches "
             f"({reused} batches already built) x {len(plan.levels) + len(plan.pipelines)} variants")
    items = [{"key": k, "programs": json.dumps([{x: v for x, v in s.items() if x != "split"}
                                                for s in chunk])} for k, chunk in run_now]
    variants = done = 0
    every = max(1, len(items) // 20)
    stream = _run_ray_map(items, _stage1_task, {"settings": plan.settings})
    for res in bar(stream, total=len(items), desc="compiling") if plan.progress else stream:
        write_atomic(plan.stage1 / f"{res['key']}.parquet", res["payload"])
        variants += int(res["n_rows"])
        done += 1
        if plan.progress and not sys.stderr.isatty() and (done % every == 0 or done == len(items)):
            note(f"mirtune corpus: stage 1: {done}/{len(items)} batches "
                 f"({time.monotonic() - t1:.0f}s)")
    return variants


def _read_manifest(stage1: Path, batches: list[tuple[str, list]],
                   specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (program, variant) from the stage-1 batches, without the payload columns, with its split."""
    import pyarrow.parquet as pq

    split_of_program = {s["program_id"]: s["split"] for s in specs}
    meta_cols = ["program_id", "origin", "kind", "lang", "variant", "status", "reason", "content_hash",
                 "seconds", "n_stmt", "n_nodes", "n_edges"]
    manifest: list[dict[str, Any]] = []
    for key, _ in batches:
        t = pq.read_table(stage1 / f"{key}.parquet", columns=meta_cols)
        for i, r in enumerate(t.to_pylist()):
            r.update(batch=key, row=i, split=split_of_program[r["program_id"]], order=len(manifest))
            manifest.append(r)
    return manifest


def _exclude_and_deduplicate(manifest: list[dict[str, Any]], eval_hashes: dict[str, str]) -> list[dict[str, Any]]:
    """Mark evaluation kernels `excluded` and repeated IR `duplicate` (in place); the rows left `ok`."""
    # Exclusions, then duplicates: the kept copy is a train one when there is one, else the first.
    first: dict[str, dict[str, Any]] = {}
    for r in sorted((r for r in manifest if r["status"] == "ok"),
                    key=lambda r: (r["split"] != "train", r["order"])):
        h = r["content_hash"]
        if h in eval_hashes:
            r.update(status="excluded", reason=f"same IR as the evaluation kernel {eval_hashes[h]}")
        elif h in first:
            k = first[h]
            r.update(status="duplicate", reason=f"same IR as {k['origin']}@{k['variant']}")
        else:
            first[h] = r
    return [r for r in manifest if r["status"] == "ok"]


def _tokenizer_sample(kept: list[dict[str, Any]], max_statements: int,
                      out: Path) -> tuple[dict[str, list[int]], int, int]:
    """The train rows by batch, the stride that keeps the tokenizer under `max_statements`, and what it reads."""
    train_rows: dict[str, list[int]] = defaultdict(list)
    for r in kept:
        if r["split"] == "train":
            train_rows[r["batch"]].append(r["row"])
    n_train_stmt = sum(r["n_stmt"] for r in kept if r["split"] == "train")
    stride = max(1, -(-n_train_stmt // max_statements))
    if not train_rows:
        raise MirtuneError("no module of the train split compiled; nothing to train the tokenizer on "
                           f"(see {out / 'manifest.parquet'})")
    return train_rows, stride, n_train_stmt // stride


def _train_statements(stage1: Path, batches: list[tuple[str, list]], train_rows: dict[str, list[int]],
                      stride: int) -> Iterator[str]:
    """Every `stride`-th statement of each train module, read batch by batch from stage 1 (the tokenizer's input)."""
    import pyarrow.parquet as pq

    for key, _ in batches:
        rows = train_rows.get(key)
        if not rows:
            continue
        col = pq.read_table(stage1 / f"{key}.parquet", columns=["statements"]).column("statements")
        for i in rows:
            for j, st in enumerate(col[i].as_py()):
                if (j % stride) == 0:
                    yield st


def _reused_tokenizer(tok_path: Path, state_path: Path, fingerprint: str) -> IRTokenizer | None:
    """The saved tokenizer when it was trained on exactly this train split (`fingerprint`), else None."""
    from mirtune.ir.tokenizer import IRTokenizer

    if not (tok_path.exists() and state_path.exists()):
        return None
    try:
        state = json.loads(state_path.read_text())
        loaded = IRTokenizer.load(tok_path)
        if state.get("train_fingerprint") == fingerprint and state.get("sha256") == loaded.sha256:
            return loaded
    except (OSError, ValueError, MirtuneError):
        pass
    return None


def _tokenizer(plan: _Plan, batches: list[tuple[str, list]], kept: list[dict[str, Any]],
               train_rows: dict[str, list[int]], stride: int,
               n_statements: int) -> tuple[IRTokenizer, dict[str, Any]]:
    """The tokenizer of the train split, reused or trained and saved, and its entry in corpus.json."""
    from mirtune.ir.tokenizer import IRTokenizer
    from mirtune.progress import note

    # HF's WordPiece trainer is not deterministic (huggingface/tokenizers#1794: sub-word ids follow hash-map
    # order), so a tokenizer already trained on exactly this train split is reused, never retrained:
    # a rerun then keeps every shard it wrote.
    fingerprint = _sha(json.dumps([sorted(r["content_hash"] for r in kept if r["split"] == "train"),
                                   plan.vocab_size, plan.min_frequency, stride]))
    tok_path, state_path = plan.out / "tokenizer.json", plan.out / "tokenizer.state.json"
    tok = _reused_tokenizer(tok_path, state_path, fingerprint)
    reused = tok is not None
    if tok is None:
        if plan.progress:
            note(f"mirtune corpus: training the tokenizer on {n_statements} statements "
                 f"of {sum(len(v) for v in train_rows.values())} train modules")
        tok = IRTokenizer.train(_train_statements(plan.stage1, batches, train_rows, stride),
                                vocab_size=plan.vocab_size, min_frequency=plan.min_frequency)
        tmp_tok = plan.out / ".tokenizer.json.tmp"
        tok.save(tmp_tok)
        os.replace(tmp_tok, tok_path)
        write_atomic(state_path, json.dumps({"train_fingerprint": fingerprint, "sha256": tok.sha256}))
    info = {"path": "tokenizer.json", "vocab_size": tok.vocab_size, "sha256": tok.sha256,
            "min_frequency": plan.min_frequency, "requested_vocab_size": plan.vocab_size,
            "trained_on_statements": n_statements, "reused": reused, "train_fingerprint": fingerprint}
    return tok, info


def _expected_shards(batches: list[tuple[str, list]], kept: list[dict[str, Any]],
                     tokenizer_sha: str) -> dict[str, dict[str, Any]]:
    """Shard key -> its stage-1 batch and kept rows; the key hashes both and the tokenizer, so a right shard stays."""
    by_batch: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in kept:
        by_batch[r["batch"]].append(r)
    expected: dict[str, dict[str, Any]] = {}
    for key, _ in batches:
        rows = by_batch.get(key)
        if not rows:
            continue
        keep = {str(r["row"]): [r["split"], f"{r['origin']}@{r['variant']}"] for r in rows}
        skey = _sha(json.dumps([STAGE3_VERSION, key, tokenizer_sha, keep], sort_keys=True), 24)
        expected[skey] = {"key": key, "keep": keep}
    return expected


def _remove_stale_shards(samples_dir: Path, marks: Path, expected: dict[str, dict[str, Any]]) -> None:
    """Delete the shards and marks of no expected shard (another tokenizer, other rows): samples/ is this corpus."""
    for split in ("train", "heldout"):
        d = samples_dir / f"split={split}"
        if d.is_dir():
            for p in d.glob("part-*.parquet"):
                if p.stem[len("part-"):] not in expected:
                    p.unlink()
    for p in marks.glob("*.json"):
        if p.stem not in expected:
            p.unlink()


def _tokenise_into_rows(plan: _Plan, batches: list[tuple[str, list]], kept: list[dict[str, Any]],
                        tok: IRTokenizer) -> list[str]:
    """Stage 3 on Ray Data: the kept modules as samples/ shards, writing only those missing; all the shard keys."""
    from mirtune.cluster import init_ray
    from mirtune.progress import note
    from mirtune.progress import progress as bar

    samples_dir = plan.out / "samples"
    marks = plan.out / "stage3"
    marks.mkdir(parents=True, exist_ok=True)
    expected = _expected_shards(batches, kept, tok.sha256)
    _remove_stale_shards(samples_dir, marks, expected)
    pending = [s for s in expected if not (marks / f"{s}.json").exists()]
    if pending:
        init_ray(plan.address)
        if plan.progress:
            note(f"mirtune corpus: stage 3: tokenising {sum(len(expected[s]['keep']) for s in pending)} "
                 f"modules in {len(pending)} shards ({len(expected) - len(pending)} already written)")
        items = [{"key": s, "keep": json.dumps(expected[s]["keep"]),
                  "payload": (plan.stage1 / f"{expected[s]['key']}.parquet").read_bytes()} for s in pending]
        stream = _run_ray_map(items, _stage3_task, {"tokenizer_json": tok.tk.to_str()})
        for res in bar(stream, total=len(items), desc="tokenising") if plan.progress else stream:
            skey = res["key"]
            for split in ("train", "heldout"):
                if res[f"n_{split}"]:
                    write_atomic(samples_dir / f"split={split}" / f"part-{skey}.parquet", res[split])
            write_atomic(marks / f"{skey}.json", json.dumps(
                {k: res[k] for k in ("n_stmt", "tokens", "at_limit", "n_train", "n_heldout")}))
    return list(expected)


def _shard_stats(marks: Path, shards: list[str]) -> Counter:
    """The statement, token and sample counts of all the shards, summed from the marks stage 3 wrote."""
    stats: Counter = Counter()
    for s in shards:
        stats.update(json.loads((marks / f"{s}.json").read_text()))
    return stats


# --------------------------------------------------------------------------------------------- driver: record


def _complete_summary(summary: CorpusSummary, specs: list[dict[str, Any]], manifest: list[dict[str, Any]],
                      kept: list[dict[str, Any]], stats: Counter, vocab_size: int) -> None:
    """Fill in a finished build's counts by status, language and split, and its tokens per statement."""
    summary.complete = True
    summary.by_status = dict(Counter(r["status"] for r in manifest))
    summary.by_lang = {k: dict(v) for k, v in _by(manifest, "lang").items()}
    for split in ("train", "heldout"):
        summary.splits[split] = {
            "programs": sum(1 for s in specs if s["split"] == split),
            "modules": sum(1 for r in kept if r["split"] == split),
            "statements": sum(r["n_stmt"] for r in kept if r["split"] == split),
            "nodes": sum(r["n_nodes"] for r in kept if r["split"] == split),
        }
    if stats["n_stmt"]:
        summary.tokens_per_statement = (stats["tokens"] - 2 * stats["n_stmt"]) / stats["n_stmt"]
        summary.at_limit_fraction = stats["at_limit"] / stats["n_stmt"]
    summary.vocab_size = vocab_size


def _write_record(plan: _Plan, summary: CorpusSummary, specs: list[dict[str, Any]], manifest: list[dict[str, Any]],
                  eval_kernels: int, tokenizer: dict[str, Any], shards: int, stats: Counter,
                  timing: dict[str, float]) -> None:
    """Write corpus.json: how the corpus was made (inputs, tools, command) and what it holds, for whoever reads it."""
    generator = {"n": plan.generate_n, "seed": plan.seed, "langs": list(plan.langs)} if plan.generate_n else None
    info = {
        "format": "mirtune-corpus-1",
        "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "command": plan.command or " ".join(sys.argv),
        "generator": generator,
        "sources": [str(Path(s).resolve()) for s in plan.sources],
        "variants": {"opt_levels": plan.levels, "pipelines": {p: PIPELINES[p] for p in plan.pipelines},
                     "o0": "clang -O0 -Xclang -disable-O0-optnone (the base of the opt pipelines)"},
        "heldout_fraction": plan.heldout_fraction,
        "split_rule": "sha256('split:' + program_id) < heldout_fraction; program_id hashes the original "
                      "source (generated: language + text; files: their bytes)",
        "tools": plan.versions,
        "counts": {
            "programs": len(specs),
            "programs_by_lang": dict(Counter(s["lang"] for s in specs)),
            "variants": len(manifest),
            "by_status": summary.by_status,
            "by_lang": summary.by_lang,
            "by_variant": {v: dict(c) for v, c in _by(manifest, "variant").items()},
        },
        "splits": summary.splits,
        "excluded_evaluation_kernels": {"data_dir": str(plan.data) if plan.data else None,
                                        "included_on_purpose": plan.include_evaluation,
                                        "hashes_checked": eval_kernels,
                                        "modules_excluded": summary.by_status.get("excluded", 0)},
        "tokenizer": tokenizer,
        "tokens_per_statement": summary.tokens_per_statement,
        "statements_at_64_token_limit": summary.at_limit_fraction,
        "samples": {"dir": "samples", "shards": shards, "train": stats["n_train"], "heldout": stats["n_heldout"]},
        "timing_s": {"total_this_run": round(summary.seconds, 1), **{k: round(v, 1) for k, v in timing.items()},
                     "compile_cpu_s_all_variants": round(sum(r["seconds"] or 0 for r in manifest), 1)},
        "batches": {"total": summary.batches, "built_this_run": summary.batches_built,
                    "reused": summary.batches_reused, "batch_size": plan.batch_size},
        "notes": plan.notes,
    }
    write_atomic(plan.out / "corpus.json", json.dumps(info, indent=2) + "\n")


def _by(rows: list[dict[str, Any]], key: str) -> dict[str, Counter]:
    """`key` value -> its rows' counts by status."""
    out: dict[str, Counter] = defaultdict(Counter)
    for r in rows:
        out[r[key]][r["status"]] += 1
    return out


def _write_manifest(out: Path, manifest: list[dict[str, Any]]) -> None:
    """Write manifest.parquet: every (program, variant) with its split, status and reason (nothing dropped silently)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([
        ("program_id", pa.string()), ("origin", pa.string()), ("kind", pa.string()), ("lang", pa.string()),
        ("variant", pa.string()), ("split", pa.string()), ("status", pa.string()), ("reason", pa.string()),
        ("id", pa.string()), ("n_stmt", pa.int32()), ("n_nodes", pa.int32()), ("n_edges", pa.int32()),
        ("seconds", pa.float64()), ("batch", pa.string()),
    ])
    cols: dict[str, list] = {f.name: [] for f in schema}
    for r in manifest:
        for f in schema:
            cols[f.name].append(r["content_hash"] if f.name == "id" else r.get(f.name))
    buf = io.BytesIO()
    pq.write_table(pa.Table.from_pydict(cols, schema=schema), buf, compression="zstd")
    write_atomic(out / "manifest.parquet", buf.getvalue())
