"""One run of an OpenMP program under mirtune's OMPT tool, turned into features: `mirtune recommend --profile`.

    prof = profile_program(Program(Path("app.c"), args=("in.txt", "100")))
    prof.features.region_entries_per_s, prof.features.imbalance

The tool (ompt_tool.c beside this file) is built with the project's clang into mirtune's cache folder on first
use, keyed by a hash of its source and the compiler, and loaded by LLVM's libomp through OMP_TOOL_LIBRARIES. The
program is built and run as `mirtune tune` runs its default configuration (the same binary, OMP_NUM_THREADS = all
cores, the same sandbox, arguments, input files and answer check: `mirtune.measure`), once. The tool writes one
JSON file at exit; `Profile` is what it says, with the features the issue asks for (time per region instance, the
share of the run inside parallel regions, region entries per second, imbalance, iterations per loop instance).
Then, on a machine of several cores, the probes (`mirtune.profile.features.PROBES`): plain runs in interleaved
rounds (PROBE_ROUNDS), each all cores at the default configuration, one thread
(`ProfileFeatures.one_thread_speedup`: whether the threads' work pays for their contention, which atomics on a small
table or spread over a large grid hide from the profile) and all cores with guided, 1
(`ProfileFeatures.guided_speedup`: whether balancing the work pays).

Every failure is a `ProfileError` with one line: a program that does not build, crashes, hangs or answers badly
under the profiling run, a libomp that never starts the tool (no OMPT support; checked with a probe program), a
program that ended without shutting the OpenMP runtime down.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import statistics
import subprocess
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from mirtune.errors import MirtuneError
from mirtune.measure.program import Program
from mirtune.profile.features import PROBE_ROUNDS, PROBES

TOOL_SOURCE = Path(__file__).with_name("ompt_tool.c")
OUT_VARIABLE = "MIRTUNE_OMPT_OUT"  # the JSON file the tool writes (the tool stays inactive without it)
FORMAT = 1
PROBE_SOURCE = """#include <stdio.h>
int main(void) {
  int n = 0;
#pragma omp parallel reduction(+ : n)
  n += 1;
  printf("%d\\n", n > 0);
  return 0;
}
"""


class ProfileError(MirtuneError):
    """The profiling run gave no profile: one line that says why."""


# --------------------------------------------------------------------------------------------- the tool


def _clang() -> tuple[str, str]:
    """(path, first line of --version) of the clang the front end uses."""
    from mirtune.ir.frontend import find_clang
    from mirtune.measure.host import clang_version

    return find_clang().path, clang_version() or ""


@lru_cache(maxsize=None)
def tool_library(cache: str | None = None) -> Path:
    """The OMPT tool as a shared library: built on first use into `cache` (default mirtune's cache folder)/ompt,
    a folder only this user can write, under a name that hashes the tool's source and the compiler; one found
    there that another user could have changed is rebuilt, never loaded."""
    from mirtune.paths import cache_dir
    from mirtune.private import UnsafePath, check_private_file, private_dir

    source = TOOL_SOURCE.read_bytes()
    clang, version = _clang()
    key = hashlib.sha256(source + f"|{clang}|{version}".encode()).hexdigest()[:16]
    try:
        folder = private_dir(Path(cache or cache_dir()) / "ompt", "or set MIRTUNE_CACHE to a folder of your own")
    except UnsafePath as exc:
        raise ProfileError(f"cannot keep the OMPT tool: {exc.line()}") from None
    lib = folder / f"libmirtune-ompt-{key}.so"
    try:
        check_private_file(lib)
        return lib
    except UnsafePath:
        lib.unlink(missing_ok=True)
    tmp = folder / f".{lib.name}.{os.getpid()}.tmp"
    cmd = [clang, "-shared", "-fPIC", "-O2", "-std=gnu11", "-w", str(TOOL_SOURCE), "-o", str(tmp), "-ldl",
           "-pthread"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
        if proc.returncode != 0:
            first = next((ln for ln in proc.stderr.splitlines() if "error" in ln), proc.stderr.strip()[:200])
            raise ProfileError(f"clang cannot build the OMPT tool ({TOOL_SOURCE.name}): {first} (is libomp-dev "
                               "installed? omp-tools.h comes with it)")
        os.replace(tmp, lib)
    except (OSError, subprocess.SubprocessError) as exc:
        raise ProfileError(f"cannot build the OMPT tool: {exc}") from None
    finally:
        tmp.unlink(missing_ok=True)
    return lib


def tool_env(lib: Path, out: Path) -> dict[str, str]:
    """The environment that loads the tool into a run and names the file it writes."""
    return {"OMP_TOOL": "enabled", "OMP_TOOL_LIBRARIES": str(lib), OUT_VARIABLE: str(out)}


@lru_cache(maxsize=None)
def _runtime_starts_tools(lib: Path, cache: str | None) -> bool:
    """Whether the libomp that clang links starts an OMPT tool: a probe program that runs one parallel region,
    run with the tool (built once into the build cache), writes its file."""
    from mirtune.measure.build import BuildSpec, build
    from mirtune.measure.sandbox import RunLimits, run_once
    from mirtune.paths import private_temp_dir

    res = build(BuildSpec(name="mirtune_ompt_probe", source=PROBE_SOURCE, openmp=True), cache)
    if res.status != "ok" or res.exe is None:
        raise ProfileError(f"cannot build the OMPT probe program: {res.reason}")
    folder = private_temp_dir("mirtune-ompt-")
    try:
        out = folder / "probe.json"
        run_once([res.exe], tool_env(lib, out), RunLimits(timeout_s=60.0))
        return out.is_file()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# --------------------------------------------------------------------------------------------- the profile


@dataclass(frozen=True)
class Site:
    """One parallel region or worksharing loop (by its code pointer), over the whole run.

    `where` is the object and offset of the code pointer (the return address of the call into the runtime), and
    `function` the function that holds the construct, from the object's symbol table (None when unknown). Regions: `instances` started, `nested` of them inside another region,
    `time_s` the wall time of all instances, `team` the mean team size. Loops: `iterations` over all instances (the
    loop's trip count as the runtime reports it). `work_s` is per team index, in CPU time (so that a thread the
    system preempts does not look busier): for a region, each thread's time in it up to the closing barrier less
    its waits at barriers inside; for a loop, each thread's time in its share of the iterations. `imbalance` is max / mean of `work_s` over the threads that worked (1: even).
    """

    kind: str
    where: str
    function: str | None
    instances: int
    work_s: list[float]
    imbalance: float | None
    nested: int = 0
    time_s: float = 0.0
    min_s: float | None = None
    max_s: float | None = None
    team: float | None = None
    iterations: int | None = None


@dataclass(frozen=True)
class ProfileFeatures:
    """What a run says that static IR does not (None where the run has nothing to say).

    run_s: the run's wall time (under the tool); parallel_share: the share of it inside outermost parallel regions;
    region_entries: outermost region instances, and per second of the run; time_per_region_s: the mean wall time of
    an outermost instance; work_share: the threads' CPU time in the regions' code over the teams' wall time in
    regions (the rest is starting, joining, waiting, or the CPU taken by other work); imbalance: max / mean thread work (CPU time) of a region,
    averaged over regions weighted by their time; iterations_per_loop: iterations per worksharing-loop instance;
    loop_imbalance: the same for worksharing loops, weighted by their thread time; threads: the mean team size;
    one_thread_speedup: the probes' all-cores time over their one-thread time (> 1: one thread is faster);
    guided_speedup: their all-cores time over all cores with guided, 1 (> 1: guided is faster); None on a machine of
    one core.
    """

    run_s: float
    parallel_share: float
    region_entries: int
    region_entries_per_s: float
    time_per_region_s: float | None
    work_share: float | None
    imbalance: float | None
    iterations_per_loop: float | None
    loop_imbalance: float | None
    threads: float | None
    regions: int
    loops: int
    one_thread_speedup: float | None = None
    guided_speedup: float | None = None


@dataclass
class Profile:
    """One profiled run: the features, every region and loop, how it ran, the probes' plain runs (every round's
    seconds, by what each ran: `run_label`), and notes."""

    input: str
    features: ProfileFeatures
    sites: list[Site]
    threads: int
    runtime: str
    notes: list[str] = field(default_factory=list)
    probe_s: dict[str, list[float]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return asdict(self)


def _imbalance(work: list[float]) -> float | None:
    """max / mean of the work of the threads that worked (None with fewer than two)."""
    busy = [w for w in work if w > 0]
    if len(busy) < 2:
        return None
    return max(busy) / (sum(busy) / len(busy))


def _where(rec: dict[str, Any]) -> str:
    """`object+offset` of a site's code pointer."""
    return f"{Path(rec.get('object') or '?').name}+{int(rec.get('offset') or 0):#x}"


def _symbolizer() -> str | None:
    """llvm-symbolizer beside the clang in use, else on PATH."""
    try:
        from mirtune.ir.frontend import find_clang

        beside = Path(find_clang().path).resolve().parent / "llvm-symbolizer"
    except MirtuneError:
        beside = None
    return str(beside) if beside is not None and beside.is_file() else shutil.which("llvm-symbolizer")


def functions_of(data: dict[str, Any]) -> dict[tuple[str, int], str]:
    """(object, offset) -> the function that holds each code pointer of a tool file, by llvm-symbolizer over the
    objects' symbol tables; what it cannot name (or no symbolizer) is left out."""
    tool = _symbolizer()
    by_object: dict[str, list[int]] = {}
    for r in [*data.get("regions", []), *data.get("loops", [])]:
        if r.get("object") and r.get("offset"):
            by_object.setdefault(r["object"], []).append(int(r["offset"]))
    found: dict[tuple[str, int], str] = {}
    for obj, offsets in by_object.items() if tool else ():
        # the return address follows the call: one byte back is inside it
        cmd = [tool, f"--obj={obj}", "--demangle", *(f"{o - 1:#x}" for o in offsets)]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)
        except (OSError, subprocess.SubprocessError):
            continue
        names = [block.splitlines()[0] for block in proc.stdout.strip().split("\n\n") if block.strip()]
        for offset, name in zip(offsets, names if len(names) == len(offsets) else []):
            if name and name != "??":
                found[(obj, offset)] = name
    return found


def read_profile(data: dict[str, Any], path: str | None = None) -> tuple[list[Site], list[str]]:
    """The sites of a finished tool file, and notes on what it left out; ProfileError (naming `path`, the
    program) for a file in another format or one the runtime never finished."""
    if data.get("tool") != "mirtune-ompt" or data.get("format") != FORMAT:
        raise ProfileError(f"the OMPT tool's file is not in format {FORMAT} (a stale tool library?)", path)
    if not data.get("finished"):
        raise ProfileError("the program ended without shutting the OpenMP runtime down (_exit or quick_exit?): "
                           "the OMPT tool could not write its profile", path)
    notes = []
    refused = [k for k, v in data.get("callbacks", {}).items() if v in (0, 1, 2)]  # error, never, impossible
    if refused:
        notes.append(f"the OpenMP runtime does not report {', '.join(refused)}: figures that need it are missing")
    if data.get("dropped_records"):
        notes.append(f"{data['dropped_records']} region or loop start(s) beyond the tool's 1024 sites were not "
                     "counted")
    if data.get("dropped_threads"):
        notes.append(f"{data['dropped_threads']} thread(s) beyond a team's requested size were not counted")
    sites = []
    names = functions_of(data)

    def function(r: dict[str, Any]) -> str | None:
        return names.get((r.get("object"), int(r.get("offset") or 0)))

    for r in data.get("regions", []):
        work = [ns / 1e9 for ns in r["work_ns"]]
        sites.append(Site(kind="region", where=_where(r), function=function(r), instances=int(r["instances"]), work_s=work,
                          imbalance=_imbalance(work), nested=int(r["nested"]), time_s=r["time_ns"] / 1e9,
                          min_s=r["min_ns"] / 1e9 if r["instances"] else None,
                          max_s=r["max_ns"] / 1e9 if r["instances"] else None,
                          team=r["team_sum"] / r["instances"] if r["instances"] else None))
    for r in data.get("loops", []):
        work = [ns / 1e9 for ns in r["work_ns"]]
        sites.append(Site(kind="loop", where=_where(r), function=function(r), instances=int(r["instances"]), work_s=work,
                          imbalance=_imbalance(work), iterations=int(r["iterations"])))
    return sites, notes


def features_of(data: dict[str, Any], run_s: float) -> ProfileFeatures:
    """The features of a finished tool file (its raw nanoseconds, so that outermost and nested times stay apart)
    for a run of `run_s` seconds."""
    regions = [r for r in data.get("regions", []) if r["instances"]]
    loops = [r for r in data.get("loops", []) if r["instances"]]
    outer_s = sum(r["outer_ns"] for r in regions) / 1e9
    entries = sum(r["instances"] - r["nested"] for r in regions)
    team_time = sum(r["time_ns"] * r["team_sum"] / r["instances"] for r in regions)
    work = sum(sum(r["work_ns"]) for r in regions)
    n_iter = sum(r["instances"] for r in loops)
    instances = sum(r["instances"] for r in regions)
    return ProfileFeatures(
        run_s=run_s,
        parallel_share=min(1.0, outer_s / run_s) if run_s > 0 else 0.0,
        region_entries=entries,
        region_entries_per_s=entries / run_s if run_s > 0 else 0.0,
        time_per_region_s=outer_s / entries if entries else None,
        work_share=min(1.0, work / team_time) if team_time > 0 else None,
        imbalance=_weighted_imbalance([(r["time_ns"], r["work_ns"]) for r in regions]),
        iterations_per_loop=sum(r["iterations"] for r in loops) / n_iter if n_iter else None,
        loop_imbalance=_weighted_imbalance([(sum(r["work_ns"]), r["work_ns"]) for r in loops]),
        threads=sum(r["team_sum"] for r in regions) / instances if instances else None,
        regions=len(regions), loops=len(loops))


def _weighted_imbalance(sites: list[tuple[float, list[int]]]) -> float | None:
    """The mean of the sites' imbalance (max / mean thread work), weighted by the given weights (time)."""
    pairs = [(w, _imbalance(work)) for w, work in sites]
    pairs = [(w, i) for w, i in pairs if i is not None and w > 0]
    return sum(w * i for w, i in pairs) / sum(w for w, _ in pairs) if pairs else None


def program_to_profile(source: Path, args: Sequence[str], inputs: Sequence[str], cflags: Sequence[str], check: str,
                       rtol: float, timeout_s: float, extra_sources: Sequence[Path] = (),
                       include_dirs: Sequence[Path] = ()) -> Program:
    """The program a command profiles, from its options as `tune` takes them (`check` as --check says it; the other
    files of a program of several, its header folders); UsageError for a bad check."""
    from mirtune.measure.check import OutputCheck

    return Program(source, tuple(args), tuple(inputs), tuple(cflags), OutputCheck.parse(check, rtol), timeout_s,
                   extra_sources=tuple(extra_sources), include_dirs=tuple(include_dirs))


def profile_program(program: Program, cache: str | None = None, probe_rounds: int = PROBE_ROUNDS) -> Profile:
    """Build `program` as `tune` builds its default configuration (every file of a program of several, linked),
    run it once under the OMPT tool with OMP_NUM_THREADS = this machine's cores, read the profile, then run the
    probes' `probe_rounds` rounds; ProfileError (one line) when there is none."""
    from mirtune.measure.openmp import rewrite_for_runtime_schedule
    from mirtune.measure.program import build_include_dirs, headers_digest, prepare_program, program_spec, program_units

    program, files, notes = prepare_program(program)
    src = program.source
    texts = []
    for path in program.sources:
        source = path.read_text(errors="replace")
        text, _, failure = rewrite_for_runtime_schedule(source)
        # the rewrite only lets OMP_SCHEDULE reach loops; a profile of the source as written is as good
        texts.append(source if failure else text)
    several = bool(program.extra_sources or program.include_dirs)
    spec = program_spec(program, src.stem, texts[0], program_units(program, texts),
                        headers_digest(program) if several else "", True, build_include_dirs(program))
    prof = profile_build(spec, program.args, files, program.check, program.timeout_s, program.label, cache,
                         probe_rounds)
    prof.notes[:0] = notes
    return prof


def profile_build(spec, args: Sequence[str], files: dict[str, bytes], check, timeout_s: float, label: str,
                  cache: str | None = None, probe_rounds: int = PROBE_ROUNDS) -> Profile:
    """Build `spec` (a `mirtune.measure.build.BuildSpec`) and run it once under the OMPT tool with `args`, its input
    files and its answer check (`mirtune.measure.check.OutputCheck`), OMP_NUM_THREADS = this machine's cores, then
    `probe_rounds` rounds of the probes (`probe_runs`; none with 0); the profile, or ProfileError naming `label`."""
    from mirtune.measure.build import build
    from mirtune.measure.host import logical_cores
    from mirtune.paths import private_temp_dir

    lib = tool_library(cache)
    res = build(spec, cache)
    if res.status != "ok" or res.exe is None:
        raise ProfileError(f"the program does not build: {res.reason}", label)
    threads = logical_cores()
    notes: list[str] = []
    folder = private_temp_dir("mirtune-ompt-")
    try:
        out = folder / "profile.json"
        env = {"OMP_NUM_THREADS": threads, **tool_env(lib, out)}
        m = _run_once(res.exe, args, env, files, check, timeout_s, label, "the profiling run")
        if not out.is_file():
            if not _runtime_starts_tools(lib, cache):
                raise ProfileError("the OpenMP runtime never started the OMPT tool, not even for a probe program: "
                                   "this libomp has no OMPT support (LLVM's libomp >= 14 has it)", label)
            data = {"tool": "mirtune-ompt", "format": FORMAT, "finished": True, "runtime": ""}
            notes.append("the program ran no OpenMP construct (its OpenMP runtime never started)")
        else:
            try:
                data = json.loads(out.read_text())
            except (OSError, ValueError) as exc:
                raise ProfileError(f"the OMPT tool's file cannot be read: {exc}", label) from None
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    sites, more = read_profile(data, label)
    features = features_of(data, m.runtimes_s[0])
    runs = probe_runs(res.exe, args, files, check, timeout_s, label, threads, m.checksum, probe_rounds)
    if runs:
        features = replace(features, **probe_speedups(runs))
    return Profile(input=label, features=features, sites=sites, threads=threads, runtime=data.get("runtime", ""),
                   notes=notes + more, probe_s=runs)


def run_label(env: dict[str, str]) -> str:
    """What a probe's run ran, for people: "2 threads", "1 thread", "2 threads, guided,1"."""
    n = int(env["OMP_NUM_THREADS"])
    schedule = env.get("OMP_SCHEDULE")
    return f"{n} thread{'s' if n > 1 else ''}" + (f", {schedule}" if schedule else "")


def probe_runs(exe: Path, args: Sequence[str], files: dict[str, bytes], check, timeout_s: float, label: str,
               cores: int, reference: str | None, rounds: int = PROBE_ROUNDS) -> dict[str, list[float]]:
    """`rounds` rounds of plain runs (no tool), each one on all `cores` at the default configuration and one per
    probe (PROBES): every run's seconds by `run_label` ({} with one core or no rounds: nothing to compare);
    ProfileError when a run fails or answers otherwise. The answer the probes are checked against is made, as
    `tune` makes its reference, from every run of the default configuration so far (the profiled run's answer
    `reference`, then the plain ones): lines that change between them (a clock, a run time) are left out."""
    if cores <= 1 or rounds < 1:
        return {}
    default = {"OMP_NUM_THREADS": str(cores)}
    envs = {run_label(env): env for env in [default, *(p.env(cores) for p in PROBES)]}
    runs: dict[str, list[float]] = {what: [] for what in envs}
    answers = [reference] if reference is not None else []
    for _ in range(rounds):
        for what, env in envs.items():
            is_default = env is default
            ref = check.reference(answers) if answers and not is_default else None
            m = _run_once(exe, args, env, files, check, timeout_s, label, f"the probe's run on {what}", ref)
            if is_default and m.checksum is not None:
                answers.append(m.checksum)
                problem = check.stable_problem(answers)
                if problem:
                    raise ProfileError(f"the default configuration's runs disagree: {problem}", label)
            runs[what].append(m.runtimes_s[0])
    return runs


def probe_speedups(runs: dict[str, list[float]]) -> dict[str, float]:
    """Each probe's speedup over the default from `probe_runs`' seconds (the default's first, then PROBES in
    order): the ratio of their geometric means, by the probe's ProfileFeatures field."""
    base, *probed = (statistics.geometric_mean(t) for t in runs.values())
    return {p.feature: base / t for p, t in zip(PROBES, probed)}


def _run_once(exe: Path, args: Sequence[str], env: dict[str, Any], files: dict[str, bytes], check, timeout_s: float,
              label: str, what: str, reference: str | None = None):
    """One timed run of `exe` in the sandbox with its inputs and answer check (`mirtune.measure.measurement.measure`), its
    answer compared with `reference` when given; its Measurement, or ProfileError "`what` ended as ..."."""
    from mirtune.measure.measurement import measure
    from mirtune.measure.sandbox import RunLimits

    m = measure([exe, *args], env, repeats=1, warmup=0, limits=RunLimits(timeout_s=timeout_s), reference=reference,
                check=check, inputs=files)
    if m.status != "ok":
        raise ProfileError(f"{what} ended as {m.status}: {m.reason}", label)
    return m
