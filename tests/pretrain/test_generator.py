"""The random program generator: deterministic, varied, and every program compiles (C, OpenCL, CUDA)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from mirtune.errors import MirtuneError
from mirtune.ir.frontend import compile_to_ir
from mirtune.pretrain.generator import LANGS, GeneratedProgram, generate, generate_one


def test_same_seed_same_programs_and_prefix_stable():
    a = generate(12, seed=5)
    assert a == generate(12, seed=5)
    assert generate(4, seed=5) == a[:4]  # program i does not depend on n
    assert generate(3, seed=5, start=4) == a[4:7]
    assert [p.source for p in generate(12, seed=6)] != [p.source for p in a]
    assert len({p.name for p in a}) == 12 and len({p.source for p in a}) == 12


def test_languages_take_turns_and_names_say_where_a_program_came_from():
    progs = generate(9, seed=1)
    assert [p.lang for p in progs] == list(LANGS) * 3
    assert progs[4].name == "gen-s1-000004-opencl" and progs[4].filename.endswith(".cl")
    assert [p.lang for p in generate(4, seed=1, langs=("cuda",))] == ["cuda"] * 4
    assert generate_one(1, 4, "opencl") == progs[4]
    assert not any(p.openmp for p in progs if p.lang != "c")
    with pytest.raises(ValueError):
        generate(1, seed=0, langs=("fortran",))


def test_the_shapes_the_corpus_needs_all_occur():
    text = {lang: "\n".join(p.source for p in generate(600, seed=11) if p.lang == lang) for lang in LANGS}
    c, cl, cu = text["c"], text["opencl"], text["cuda"]
    for needle in ("#pragma omp parallel for", "collapse(", "reduction(+:", "reduction(max:", "schedule(dynamic",
                   "schedule(static, ", "nowait", "#pragma omp atomic", "#pragma omp simd", "malloc(",
                   "while (p < end)", "typedef struct", "switch (", "double", "int *"):
        assert needle in c, needle
    for needle in ("__kernel", "get_global_id(1)", "__local", "barrier(CLK_LOCAL_MEM_FENCE)", "atomic_add(",
                   "__constant", "get_global_size(0)", "cl_khr_fp64"):
        assert needle in cl, needle
    for needle in ("__global__", "blockIdx.y * blockDim.y + threadIdx.y", "__shared__", "__syncthreads()",
                   "__device__", "atomicAdd(", "gridDim.x", "__launch_bounds__"):
        assert needle in cu, needle
    # Kernels call the generated helpers: a helper's name appears at its definition and at a call.
    helpers = ("combine", "weight", "clampv", "lerp", "fma3", "blendv", "saturate", "mixv", "curve", "poly",
               "damp", "ramp", "squash", "score", "cost", "gain")
    progs = generate(60, seed=11)
    assert sum(1 for p in progs if any(p.source.count(f" {h}(") + p.source.count(f"({h}(") >= 2
                                       for h in helpers)) > 10


def _compile(prog: GeneratedProgram, folder: Path, opt: int) -> str | None:
    src = folder / prog.filename
    src.write_text(prog.source)
    try:
        compile_to_ir(src, opt=opt, openmp=prog.openmp)
    except MirtuneError as exc:
        return f"{prog.name}: {exc.line()}"
    return None


def test_every_generated_program_compiles(tmp_path):
    """60 programs (20 per language) at -O0 and a third of them again at -O2: no failure."""
    progs = generate(60, seed=2024)
    jobs = [(p, 0) for p in progs] + [(p, 2) for p in progs[::3]]
    with ThreadPoolExecutor(2) as pool:
        failures = [f for f in pool.map(lambda job: _compile(job[0], tmp_path, job[1]), jobs) if f]
    assert failures == []
