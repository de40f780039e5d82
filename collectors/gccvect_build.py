"""Build the VF/IF program set from GCC's run tests (the vectorizer's and the C torture tests): one program per
runnable test, its dominant loop marked.

For each test that `collectors.gccvect.classify` keeps, in its own temporary folder:
1. `prepare` it (includes inlined, main repeated) and build it as the sweep does (clang -O2 -march=native) with
   the loop vectorizer's remarks on: a build error skips the test. The candidate loops are those LLVM's loop
   vectorizer vectorized or interleaved, or found legal but not worth it ("the cost-model indicates that
   vectorization is not beneficial"): loops a forced vectorize_width can reach. None: skipped.
2. Run it once: it must pass its own check (no abort, exit 0) and print `checksum: passed` (a test that calls
   exit() itself never does).
3. Find the loop that dominates its run time with a real profile: build it again with clang's source-based
   coverage (-fprofile-instr-generate -fcoverage-mapping), run it once, merge the profile (llvm-profdata) and
   read each candidate's execution count (llvm-cov export): the count of the first code region after the loop's
   keyword (its condition, or a do-loop's body), i.e. how often its body ran. The candidate run most often is
   the dominant loop (ties: the first in the file); its share of all candidates' counts goes in the manifest.
4. Mark that loop with MIRTUNE_LOOP_PRAGMA (`gccvect.mark_loop`) and check that the marked program builds with a
   pragma in place (vectorize_width(4) interleave_count(2)), so every configuration of the sweep can build.
5. Choose MIRTUNE_REPS, how many times main runs, so that a run of the baseline lasts about TARGET_S (calibrated
   from timed runs of the baseline build), and check that the test still passes when main runs that often (a
   test that keeps state from one run of main to the next fails here and is skipped). With `--recorded FILE`
   (the committed record of a measured program set, `--record FILE` writes one) a recorded test takes its
   repeat count from the record instead, since a timed calibration differs from machine to machine, and its
   header names the LLVM decision of the machine that built the record (another CPU's -march=native decides
   otherwise); its program must come out with the recorded sha256: the measured programs are rebuilt byte for
   byte anywhere. (A test's candidate loops depend on the CPU too: where a few programs still come out otherwise,
   `--prefer-vector-width` builds as the record's CPU did, 512 for the committed record.)
6. With `--min-share S`, every other candidate loop whose body ran at least S of all candidates' counts gives a
   program of its own, `<test>.L<line>.c` (that loop marked, the same repeat count): a test often holds several
   loops that matter, and each is a labelled loop of its own (its family is the test's, so folds keep them
   together).

Output (`--out DIR`): one program per test (`<test name>.c`, its origin and family in a header comment that the
vectorize collector reads into row columns), `manifest.json` (collectors/manifest.py's format, plus the loop,
its share, the repeat count and LLVM's own decision for each program) and `skips.json` (every skipped test with
its reason); `--report FILE.md` writes the skip table; `--order FILE` the order to measure the programs in
(`collection_order`: round robin over the families, an earlier order kept as its prefix, so that a set grown by
`--min-share` continues the sittings already measured). `--only` or `--limit` rebuilds just those tests and keeps the
rest of an earlier build in DIR (so a folder of FOLDERS is added without rebuilding the others: the TSVC tests
alone take 40 minutes). `mirtune collect vectorize --programs DIR` sweeps them.

    python -m collectors.gccvect_build --out out/gccvect [--jobs 2] [--only 'vect-reduc-*' 'gcc.c-torture/*']
        [--limit N]
        [--report datasets/gccvect/skips.md] [--record-sources] [--recorded FILE] [--record FILE]
        [--prefer-vector-width 128|256|512]
        [--min-share S] [--order FILE]
"""

from __future__ import annotations

import argparse
import fnmatch
import hashlib
import itertools
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

from collectors import gccsrc
from collectors.gccvect import CHECKSUM, MARKER, Skip, classify, mark_loop, prepare, suite_folder
from mirtune.errors import MirtuneError, ToolMissing, UsageError
from mirtune.measure.sandbox import RunLimits, run_once, run_tool
from mirtune.measure.vectorize import pragma
from mirtune.paths import gzip_json, read_gzip_json, write_atomic
from mirtune.tasks.vectorize import FOLDER_PREFIXES, source_family

TARGET_S = 0.03  # a baseline run of each program, as loopgen's kernels (collectors/loopgen.py)
MAX_REPS = 10_000_000
RUN_TIMEOUT_S = 30.0
COMPILE_TIMEOUT_S = 120
FLAGS = ("-O2", "-march=native", "-x", "c", "-std=gnu11", "-w")  # what the sweep builds with (compile_executable)
REMARK = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): remark: (?P<text>.*?) \[-Rpass", re.M)
DECISIONS = (
    (re.compile(r"vectorized loop \(vectorization width: (\d+), interleaved count: (\d+)\)"), "vectorized VF={} IF={}"),
    (re.compile(r"interleaved loop \(interleaved count: (\d+)\)"), "interleaved IF={}"),
    (re.compile(r"vectorization is not beneficial"), "not vectorized: not beneficial"),
)


@dataclass(frozen=True)
class Tools:
    """clang and the profile tools of its own version; `flags`: what every build here adds to FLAGS."""

    clang: str
    profdata: str
    cov: str
    flags: tuple[str, ...] = ()


@dataclass(frozen=True)
class Outcome:
    """What became of one test: a program (name, loop, repeat count...) or a skip reason."""

    test: str  # path under gcc/testsuite/
    name: str
    family: str
    skip: str | None = None
    category: str | None = None
    loop_line: int | None = None
    loop_count: int | None = None
    loop_share: float | None = None
    llvm_decision: str | None = None
    reps: int | None = None
    run_s: float | None = None
    sha256: str | None = None


def find_tools(flags: tuple[str, ...] = ()) -> Tools:
    """clang (as the collectors find it) with llvm-profdata and llvm-cov of the same LLVM, every build adding
    `flags`; ToolMissing if absent."""
    import shutil

    from mirtune.ir.frontend import find_clang

    clang = find_clang()
    beside = Path(clang.path).resolve().parent
    found = []
    for tool in ("llvm-profdata", "llvm-cov"):
        path = beside / tool if (beside / tool).is_file() else shutil.which(f"{tool}-{clang.major}")
        if path is None:
            raise ToolMissing(f"{tool}-{clang.major} not found; install it with: sudo apt-get install "
                              f"llvm-{clang.major} (or run scripts/setup_system.sh as root)")
        found.append(str(path))
    return Tools(clang.path, found[0], found[1], tuple(flags))


def _compile(tools: Tools, src: Path, out: Path, extra: list[str]) -> tuple[bool, str]:
    cmd = [tools.clang, *FLAGS, *tools.flags, *extra, str(src), "-o", str(out), "-lm"]
    try:
        proc = run_tool(cmd, COMPILE_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return False, f"clang timed out after {COMPILE_TIMEOUT_S} s"
    return proc.returncode == 0 and out.exists(), proc.stderr


def compile_error(stderr: str) -> Skip:
    """A build failure as a skip: the GNU C extensions clang lacks named, other errors by clang's message."""
    errors = [ln.split(" error: ", 1)[1] for ln in stderr.splitlines() if " error: " in ln]
    first = errors[0] if errors else (stderr.strip().splitlines() or ["no message"])[-1]
    if "function definition is not allowed here" in first:
        return Skip("GNU C extension clang lacks", "nested function")
    if "variable length array in structure" in first:
        return Skip("GNU C extension clang lacks", "variable-length array in a struct")
    return Skip("does not compile with clang", re.sub(r"'[^']*'", "'…'", first)[:90])


def loop_decisions(stderr: str, name: str) -> dict[tuple[int, int], str]:
    """(line, column) -> LLVM's decision, for each loop its vectorizer transformed or found legal (the remarks)."""
    out: dict[tuple[int, int], str] = {}
    for m in REMARK.finditer(stderr):
        if Path(m["file"]).name != name:
            continue
        for pattern, text in DECISIONS:
            hit = pattern.search(m["text"])
            if hit:
                out.setdefault((int(m["line"]), int(m["col"])), text.format(*hit.groups()))
                break
    return out


def _failure(run) -> str:
    if run.timed_out:
        return f"ran past {RUN_TIMEOUT_S:.0f} s"
    if run.signal:
        return "abort" if run.signal == "SIGABRT" else run.signal
    return f"exit status {run.exit_code}"


def _passes(run) -> bool:
    return run.exit_code == 0 and not run.timed_out and CHECKSUM in run.stdout


def loop_counts(tools: Tools, src: Path, work: Path, loops: list[tuple[int, int]]) -> dict[tuple[int, int], int]:
    """How often each loop's body ran in one run of `src`'s main: a coverage profile (see the module's docstring).
    UsageError when the instrumented build or run fails."""
    exe, raw, merged = work / "cov", work / "prof.profraw", work / "prof.profdata"
    ok, err = _compile(tools, src, exe, ["-fprofile-instr-generate", "-fcoverage-mapping"])
    if not ok:
        raise UsageError(f"instrumented build failed: {compile_error(err)}")
    run = run_once([str(exe), "1"], env={"LLVM_PROFILE_FILE": str(raw)}, limits=RunLimits(timeout_s=RUN_TIMEOUT_S))
    if not _passes(run) or not raw.exists():
        raise UsageError(f"instrumented run failed: {_failure(run)}")
    for cmd in ([tools.profdata, "merge", "-o", str(merged), str(raw)],
                [tools.cov, "export", "-skip-expansions", "-skip-functions", "-instr-profile", str(merged),
                 str(exe)]):
        try:
            proc = run_tool(cmd, COMPILE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise UsageError(f"{Path(cmd[0]).name} timed out after {COMPILE_TIMEOUT_S} s") from None
        if proc.returncode != 0:
            raise UsageError(f"{Path(cmd[0]).name} failed: {proc.stderr.strip()[:80]}")
    files = [f for f in json.loads(proc.stdout)["data"][0]["files"] if Path(f["filename"]).name == src.name]
    segments = sorted((s[0], s[1], s[2]) for f in files for s in f["segments"] if s[3] and s[4] and not s[5])
    counts = {}
    for loop in loops:
        after = [count for line, col, count in segments if (line, col) > loop]
        counts[loop] = after[0] if after else 0
    return counts


def calibrate(exe: Path) -> tuple[int, float] | str:
    """(repeat count, seconds of a run with it) so that a run lasts about TARGET_S, or why it cannot run."""
    limits = RunLimits(timeout_s=RUN_TIMEOUT_S)
    reps, seconds = 1, 0.0
    while True:
        run = run_once([str(exe), str(reps)], limits=limits)
        if not _passes(run):
            return f"{_failure(run)} when main runs {reps} times" if reps > 1 else _failure(run)
        seconds = run.seconds
        if seconds >= TARGET_S / 5 or reps >= MAX_REPS:
            break
        reps = min(MAX_REPS, reps * 10)
    if seconds >= TARGET_S or reps >= MAX_REPS:
        return reps, seconds
    reps = min(MAX_REPS, max(1, round(reps * TARGET_S / max(seconds, 1e-6))))
    run = run_once([str(exe), str(reps)], limits=limits)
    if not _passes(run):
        return f"{_failure(run)} when main runs {reps} times"
    return reps, run.seconds


def build_one(tools: Tools, suite: gccsrc.Testsuite, rel: str, name: str, out_dir: Path, *,
              recorded: dict | None = None, min_share: float | None = None) -> list[Outcome]:
    """Turn one test into its programs in `out_dir` (see the module's docstring: the dominant loop's, then one per
    further loop with at least `min_share` of the counts), or one outcome saying why not. `recorded`: the test's
    entry in a record (repeat count, each program's sha256 and header decision)."""
    root = suite.root
    text = (root / rel).read_text(errors="replace")
    base = Outcome(test=rel, name=name, family=source_family(rel))

    def lookup(path: str) -> str | None:
        f = root / path
        return f.read_text(errors="replace") if f.is_file() else None

    def skipped(skip: Skip) -> list[Outcome]:
        return [Outcome(**{**asdict(base), "skip": str(skip), "category": skip.category})]

    reason = classify(rel, text, lookup)
    if reason is not None:
        return skipped(reason)
    with tempfile.TemporaryDirectory(prefix="mirtune-gccvect-") as tmp:
        work = Path(tmp)
        src, exe = work / f"{name}.c", work / "prog"
        src.write_text(prepare(rel, text, lookup))
        ok, err = _compile(tools, src, exe, ["-Rpass=loop-vectorize", "-Rpass-analysis=loop-vectorize"])
        if not ok:
            return skipped(compile_error(err))
        decisions = loop_decisions(err, src.name)
        program = src.read_text()
        lines = program.splitlines()
        loops = [loc for loc in sorted(decisions)
                 if re.match(r"(for|while|do)\b", lines[loc[0] - 1][loc[1] - 1:] if loc[0] <= len(lines) else "")]
        if not decisions:
            return skipped(Skip("no loop clang can vectorize"))
        if not loops:
            return skipped(Skip("vectorizable loops only inside macros"))
        run = run_once([str(exe), "1"], limits=RunLimits(timeout_s=RUN_TIMEOUT_S))
        if not _passes(run):
            if run.exit_code == 0 and not run.timed_out:
                return skipped(Skip("exits before main returns (calls exit())"))
            return skipped(Skip("fails its own check when built by clang", _failure(run)))
        try:
            counts = loop_counts(tools, src, work, loops)
        except UsageError as exc:
            return skipped(Skip("no loop profile", str(exc)))
        loop = max(loops, key=lambda loc: (counts[loc], -loc[0], -loc[1]))
        total = sum(counts.values())
        origin = f"{suite.package} {suite.version} {suite.prefix}/{gccsrc.TESTSUITE}/{rel}"
        if recorded is not None:
            reps = recorded["reps"]
            run = run_once([str(exe), str(reps)], limits=RunLimits(timeout_s=RUN_TIMEOUT_S))
            if not _passes(run):
                return skipped(Skip("fails its own check when built by clang",
                                    f"{_failure(run)} when main runs {reps} times (recorded)"))
            seconds = run.seconds
        else:
            calibrated = calibrate(exe)
            if isinstance(calibrated, str):
                category = ("keeps state between runs of main" if "when main runs" in calibrated
                            else "fails its own check when built by clang")
                return skipped(Skip(category, calibrated))
            reps, seconds = calibrated
        further = [loc for loc in loops if min_share is not None and loc != loop and total
                   and counts[loc] / total >= min_share]
        outcomes = []
        for at, program in [(loop, name)] + [(loc, f"{name}.L{loc[0]}") for loc in further]:
            decision = (recorded or {}).get("decisions", {}).get(program, decisions[at])
            header = (f"/* mirtune gccvect: origin: {origin}; family: {base.family}; loop: line {{line}}, "
                      f"{decision}; reps: {reps} */\n")
            marked = mark_loop(prepare(rel, text, lookup, header, reps), at[0] + header.count("\n"), at[1])
            line = next(i for i, ln in enumerate(marked.splitlines(), 1) if ln.strip() == MARKER) + 1
            final = marked.replace("{line}", str(line), 1)
            check = work / f"check_{program}.c"
            check.write_text(final)
            ok, err = _compile(tools, check, work / "check", [f"-D{MARKER}={pragma(4, 2)}"])
            if not ok:
                if at == loop:
                    return skipped(Skip("the loop pragma does not build there", str(compile_error(err))))
                continue
            digest = hashlib.sha256(final.encode()).hexdigest()
            want = (recorded or {}).get("programs", {}).get(program)
            if want is not None and want != digest:
                if at == loop:
                    return skipped(Skip("differs from the recorded program",
                                        f"sha256 {digest[:12]}, recorded {want[:12]}"))
                continue
            write_atomic(out_dir / f"{program}.c", final)
            outcomes.append(Outcome(**{**asdict(base), "name": program, "loop_line": line,
                                       "loop_count": counts[at],
                                       "loop_share": round(counts[at] / total, 4) if total else None,
                                       "llvm_decision": decision, "reps": reps,
                                       "run_s": round(seconds, 4),
                                       "sha256": digest}))
    return outcomes


def test_names(suite: gccsrc.Testsuite) -> dict[str, str]:
    """Path under gcc/testsuite/ -> program name. A vectorizer test's is its file's stem (prefixed by its folder
    under gcc.dg/vect/ where two stems clash); another folder's test's is its stem behind the folder's prefix
    (`FOLDER_PREFIXES`: `torture-loop-2`; only the files directly in the folder)."""
    vect = suite.root / gccsrc.VECT
    rels = sorted(str(f.relative_to(vect)) for f in vect.rglob("*.c"))
    stems = Counter(Path(r).stem for r in rels)
    names = {f"{gccsrc.VECT}/{r}": Path(r).stem if stems[Path(r).stem] == 1 else r[:-2].replace("/", "-")
             for r in rels}
    for folder, prefix in FOLDER_PREFIXES.items():
        for f in sorted((suite.root / folder).glob("*.c")):
            names[f"{folder}/{f.name}"] = prefix + f.stem
    return names


def skip_table(outcomes: list[Outcome]) -> str:
    """The skip table in Markdown: totals, then each category with its count and most common details."""
    made = [o for o in outcomes if o.skip is None]
    skips = [o for o in outcomes if o.skip is not None]
    built = {o.test for o in made}
    cats = Counter(o.category for o in skips)
    folders = Counter(suite_folder(test) for test in {o.test for o in outcomes})
    lines = ["| | tests |", "|---|---:|",
             *(f"| test files (.c) under {folder}/{'' if folder in gccsrc.RUN_BY_DEFAULT else ' (dg-do run)'} | {n} |"
               for folder, n in sorted(folders.items())),
             f"| programs produced | {len(built)} |", f"| skipped | {len(skips)} |",
             f"| further loops, a program each (`--min-share`) | {len(made) - len(built)} |", "",
             "| why skipped | tests | most common details |", "|---|---:|---|"]
    for cat, n in cats.most_common():
        details = Counter(o.skip.partition(": ")[2] for o in skips if o.category == cat and o.skip)
        shown = "; ".join(f"{d} ({k})" for d, k in details.most_common(4) if d)
        lines.append(f"| {cat} | {n} | {shown} |")
    return "\n".join(lines) + "\n"


def _work(args: tuple[Tools, gccsrc.Testsuite, str, str, Path, dict | None, float | None]) -> list[Outcome]:
    tools, suite, rel, name, out, recorded, min_share = args
    try:
        return build_one(tools, suite, rel, name, out, recorded=recorded, min_share=min_share)
    except (MirtuneError, OSError, subprocess.SubprocessError, ValueError) as exc:
        msg = exc.line() if isinstance(exc, MirtuneError) else f"{type(exc).__name__}: {exc}"
        return [Outcome(test=rel, name=name, family=source_family(rel), skip=f"pipeline error: {msg[:120]}",
                        category="pipeline error")]


def read_record(path: str | os.PathLike) -> dict:
    """A record written by `--record` (gzipped JSON: package, version, and per test its repeat count, the
    sha256 of each of its programs and LLVM's decision for each program's loop where the record was built);
    UsageError (one line) when it cannot be read."""
    try:
        record = read_gzip_json(path)
        if not isinstance(record.get("tests"), dict):
            raise ValueError("no tests")
    except (OSError, ValueError, AttributeError) as exc:
        raise UsageError(f"not a readable program record ({type(exc).__name__})", str(path)) from None
    return record


def record_folder(out: Path, min_share: float | None) -> bytes:
    """The record of the program set built in `out` (see `read_record`), read from its manifest.json and the
    programs' bytes: the same record for the same programs."""
    manifest = json.loads((out / "manifest.json").read_text())
    skips = json.loads((out / "skips.json").read_text())
    tests: dict[str, dict] = {}
    for entry in manifest:
        digest = hashlib.sha256((out / entry["source"]).read_bytes()).hexdigest()
        test = tests.setdefault(entry["test"], {"reps": entry["reps"], "programs": {}, "decisions": {}})
        test["programs"][entry["name"]] = digest
        test["decisions"][entry["name"]] = entry["llvm_decision"]
    body = {"package": skips["package"], "version": skips["version"], "min_share": min_share,
            "tests": dict(sorted(tests.items()))}
    return gzip_json(body, indent=0, sort_keys=True)


def collection_order(programs: list[tuple[str, str]], previous: list[str] = ()) -> list[str]:
    """The order in which to measure `programs` ((path, family) pairs): the paths of `previous` that are still
    among them first, in place, then the others round robin over their families (families and each family's
    programs in name order), so that any prefix of the order spans the families and a sweep stopped early
    holds a fair sample of them."""
    known = {path for path, _ in programs}
    kept = [path for path in previous if path in known]
    placed = set(kept)
    families: dict[str, list[str]] = {}
    for path, family in sorted(programs):
        if path not in placed:
            families.setdefault(family, []).append(path)
    rounds = itertools.zip_longest(*(families[f] for f in sorted(families)))
    return kept + [path for row in rounds for path in row if path is not None]


def build_all(out: Path, *, jobs: int = 1, only: list[str] | None = None, limit: int | None = None,
              recorded: dict | None = None, min_share: float | None = None, vector_width: int | None = None,
              log=print) -> list[Outcome]:
    """Build the program set into `out` (programs, manifest.json, skips.json); the outcome of every program made
    and of every test skipped. `recorded`: a record (`read_record`) whose repeat counts and hashes to keep;
    `vector_width`: the vector width in bits that clang's vectorizer prefers (else the CPU's own)."""
    suite = gccsrc.extract()
    gccsrc.check_sources(suite)
    if recorded is not None and (recorded.get("package"), recorded.get("version")) != (suite.package,
                                                                                        suite.version):
        raise UsageError(f"the record is of {recorded.get('package')} {recorded.get('version')}, the installed "
                         f"package is {suite.package} {suite.version}")
    tools = find_tools((f"-mprefer-vector-width={vector_width}",) if vector_width else ())
    names = test_names(suite)
    rels = [r for r in names if not only or any(fnmatch.fnmatch(Path(r).name, p) or fnmatch.fnmatch(r, p)
                                                 for p in only)]
    if limit is not None:
        rels = rels[:limit]
    if not rels:
        raise UsageError(f"no test matches {only}")
    out.mkdir(parents=True, exist_ok=True)
    kept = _kept(out, set(rels)) if only or limit is not None else []
    keep = {f"{o.name}.c" for o in kept if o.skip is None}
    for stale in out.glob("*.c"):
        if stale.name not in keep:
            stale.unlink()
    start = time.time()
    outcomes: list[Outcome] = []
    tests = (recorded or {}).get("tests", {})
    work = [(tools, suite, r, names[r], out, tests.get(r), min_share) for r in rels]
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        for i, got in enumerate(pool.map(_work, work), 1):
            outcomes.extend(got)
            if i % 50 == 0 or i == len(rels):
                made = sum(x.skip is None for x in outcomes)
                skipped = sum(x.skip is not None for x in outcomes)
                log(f"[{i}/{len(rels)}] {made} programs, {skipped} skipped, {time.time() - start:.0f} s")
    outcomes = sorted(kept + outcomes, key=lambda o: (o.test, o.name))
    made = [o for o in outcomes if o.skip is None]
    manifest = [{"name": o.name, "source": f"{o.name}.c", "args": [], "family": o.family, "test": o.test,
                 "loop_line": o.loop_line, "loop_count": o.loop_count, "loop_share": o.loop_share,
                 "llvm_decision": o.llvm_decision, "reps": o.reps, "run_s": o.run_s, "sha256": o.sha256,
                 "description": f"GCC test {o.test} ({suite.package} {suite.version})"} for o in made]
    write_atomic(out / "manifest.json", json.dumps(manifest, indent=1) + "\n")
    skips = {"package": suite.package, "version": suite.version, "tests": len({o.test for o in outcomes}),
             "programs": len(made), "skipped": [{"test": o.test, "category": o.category, "reason": o.skip}
                                                for o in outcomes if o.skip is not None]}
    write_atomic(out / "skips.json", json.dumps(skips, indent=1) + "\n")
    return outcomes


def _kept(out: Path, rebuilt: set[str]) -> list[Outcome]:
    """The outcomes of the tests that an earlier build left in `out` and this one (`--only`, `--limit`) does not
    rebuild: a partial build adds to a program set instead of replacing it."""
    try:
        manifest = json.loads((out / "manifest.json").read_text())
        skips = json.loads((out / "skips.json").read_text())["skipped"]
    except (OSError, ValueError, KeyError):
        return []
    fields = set(Outcome.__dataclass_fields__)
    made = [Outcome(**{k: v for k, v in e.items() if k in fields}) for e in manifest if e["test"] not in rebuilt]
    return made + [Outcome(test=e["test"], name=Path(e["test"]).stem, family=source_family(e["test"]),
                           skip=e["reason"], category=e["category"]) for e in skips if e["test"] not in rebuilt]


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module's docstring)."""
    ap = argparse.ArgumentParser(prog="python -m collectors.gccvect_build", description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="folder for the programs, manifest.json and skips.json")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="tests prepared at once")
    ap.add_argument("--only", nargs="+", metavar="GLOB", help="only tests whose name or path matches")
    ap.add_argument("--limit", type=int, help="only the first N tests (in path order)")
    ap.add_argument("--report", metavar="FILE.md", help="also write the skip table here")
    ap.add_argument("--record-sources", action="store_true",
                    help=f"record the installed package in {gccsrc.SOURCES.relative_to(gccsrc.REPO_DIR)} first")
    ap.add_argument("--recorded", metavar="FILE",
                    help="a record of a measured program set (e.g. datasets/gccvect/programs.json.gz): its tests "
                         "keep their repeat counts and must give the recorded programs, byte for byte")
    ap.add_argument("--record", metavar="FILE", help="write the record of the programs built here")
    ap.add_argument("--prefer-vector-width", type=int, choices=(128, 256, 512), metavar="BITS",
                    help="build as a CPU whose vectorizer prefers BITS-bit vectors (128, 256 or 512): 512 rebuilds "
                         "the committed record, made on an AMD EPYC with AVX-512, on an Intel CPU with AVX-512, "
                         "which prefers 256")
    ap.add_argument("--order", metavar="FILE",
                    help="write the programs' collection order here, one path a line (those already listed in "
                         "FILE keep their places; new ones follow, round robin over the families)")
    ap.add_argument("--min-share", type=float, default=None, metavar="S",
                    help="also make a program for every further loop whose body ran at least S (0 < S <= 1) of "
                         "all candidate loops' counts (default: only the dominant loop; the record's value with "
                         "--recorded)")
    args = ap.parse_args(argv)
    try:
        if args.jobs < 1 or (args.limit is not None and args.limit < 1):
            raise UsageError("--jobs and --limit must be positive")
        if args.min_share is not None and not 0 < args.min_share <= 1:
            raise UsageError(f"--min-share must be in (0, 1], got {args.min_share:g}")
        recorded = read_record(args.recorded) if args.recorded else None
        min_share = args.min_share if args.min_share is not None else (recorded or {}).get("min_share")
        if args.record_sources:
            print(f"recorded {gccsrc.write_sources(gccsrc.extract())}")
        outcomes = build_all(Path(args.out), jobs=args.jobs, only=args.only, limit=args.limit,
                             recorded=recorded, min_share=min_share, vector_width=args.prefer_vector_width)
        table = skip_table(outcomes)
        if args.report:
            write_atomic(args.report, table)
        if args.record:
            write_atomic(args.record, record_folder(Path(args.out), min_share))
        if args.order:
            previous = Path(args.order).read_text().split() if Path(args.order).is_file() else []
            made = [(str(Path(args.out) / f"{o.name}.c"), o.family) for o in outcomes if o.skip is None]
            write_atomic(args.order, "\n".join(collection_order(made, previous)) + "\n")
    except MirtuneError as exc:
        print(exc.line(), file=sys.stderr)
        return exc.exit_code
    print(table, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
