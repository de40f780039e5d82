"""Shared fixtures: one private Ray cluster per test session, and the public evaluation data; and the fast tier:
the tests listed in slow_tests.txt (those that took a second or more in a full run, `--durations=0`) are marked
`slow`, so that `make test-fast` (`pytest -m "not slow"`) runs the rest in under two minutes."""

from __future__ import annotations

from pathlib import Path

import pytest

from mirtune.paths import data_dir


SLOW_TESTS = frozenset((Path(__file__).parent / "slow_tests.txt").read_text().split())


def pytest_collection_modifyitems(config, items) -> None:
    """Mark the tests of slow_tests.txt `slow` (a listed id without parameters marks all of its cases)."""
    for item in items:
        if item.nodeid in SLOW_TESTS or item.nodeid.split("[")[0] in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def ray_cluster():
    """A loopback-only Ray cluster with 2 CPUs, started once for the whole session."""
    from mirtune.cluster import init_ray, shutdown_ray

    init_ray(num_cpus=2)
    yield
    shutdown_ray()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The folder with devmap/ and thread-coarsening/ (MIRTUNE_DATA or ../shared/data); skip if absent."""
    found = data_dir(required=False)
    if found is None:
        pytest.skip("public evaluation data not found: set MIRTUNE_DATA or place shared/data beside the repo")
    return found


@pytest.fixture(scope="session")
def devmap_ir_dir(shared_data: Path) -> Path:
    """The 669 device-mapping kernels' IR (clang 9, typed pointers)."""
    return shared_data / "devmap" / "kernels_ir"


TYPES = ("int", "float", "double", "long")
OPS = ("+", "-", "*")


def _program(i: int) -> str:
    """A small C program, different for every i (types, operators, bounds), for a pre-training corpus."""
    ty, op = TYPES[i % 4], OPS[i % 3]
    code = (f"{ty} k{i}({ty} *a, {ty} *b, int n) {{ {ty} s = 0;\n"
            f"  for (int i = {i % 3}; i < n - {i % 2}; i++) {{ if (a[i] > {i}) s = s {op} a[i] * b[i];"
            f" else b[i] = a[i] {op} {i + 1}; }}\n  return s; }}\n")
    if i % 2:
        code += f"void w{i}({ty} *x, int n) {{ for (int j = 0; j < n; j++) x[j] = k{i}(x, x, j) {op} 2; }}\n"
    return code


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A tiny pre-training corpus: 10 programs at -O0 and -O2, 16 modules to train on and 4 held out."""
    from mirtune.ir.frontend import compile_to_ir
    from mirtune.ir.module import IRModule
    from mirtune.pretrain.samples import write_corpus

    d = tmp_path_factory.mktemp("corpus")
    modules = []
    for i in range(10):
        (d / f"p{i}.c").write_text(_program(i))
        for opt in (0, 2):
            modules.append(IRModule.from_text(compile_to_ir(d / f"p{i}.c", opt=opt), f"p{i}-O{opt}"))
    write_corpus(d / "corpus", {"train": modules[:16], "heldout": modules[16:]}, vocab_size=400, rows_per_shard=4)
    return d / "corpus"


# A program of three files, as real programs are (issue 34): main.c reads its size from its argument, solver.c holds
# the one worksharing loop, util.c a helper declared in include/util.h. solver.c checks which thread ran each
# iteration and aborts unless the iterations went as OMP_SCHEDULE says (static: chunk after chunk round the
# threads; unset: one block per thread): every run that passes proves the schedule reached the loop of the second
# file, where only the schedule(runtime) rewrite lets it reach.
THREE_FILES = {
    "main.c": r"""
#include <stdio.h>
#include <stdlib.h>
#include "util.h"

double solve(const double *a, long n);

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: %s N\n", argv[0]); return 2; }
    long n = atol(argv[1]);
    if (n < 2) { fprintf(stderr, "N must be at least 2\n"); return 2; }
    double *a = make_data(n);
    printf("n = %ld\nsum = %.6e\n", n, solve(a, n));
    free(a);
    return 0;
}
""",
    "solver.c": r"""
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include "util.h"

static void check_schedule(const int *owner, long n, int threads) {
    const char *asked = getenv("OMP_SCHEDULE");
    omp_sched_t kind;
    int chunk;
    omp_get_schedule(&kind, &chunk);
    for (long i = 1; i < n; i++) {
        int as_asked = 1;
        if (!asked)
            as_asked = owner[i] >= owner[i - 1];
        else if (kind == omp_sched_static && chunk > 0)
            as_asked = owner[i] == (int)((i / chunk) % threads);
        if (!as_asked) {
            fprintf(stderr, "iteration %ld ran on thread %d: OMP_SCHEDULE=%s did not reach the loop\n", i,
                    owner[i], asked ? asked : "(unset)");
            abort();
        }
    }
}

double solve(const double *a, long n) {
    int *owner = malloc(sizeof(int) * n);
    int threads = 1;
    double s = 0;
    #pragma omp parallel for reduction(+:s)
    for (long i = 0; i < n; i++) {
        if (i == 0) threads = omp_get_num_threads();
        owner[i] = omp_get_thread_num();
        s += weight(a[i]);
    }
    check_schedule(owner, n, threads);
    free(owner);
    return s;
}
""",
    "util.c": r"""
#include <stdlib.h>
#include "util.h"

double weight(double x) { return 0.5 * x + 1.0; }

double *make_data(long n) {
    double *a = malloc(sizeof(double) * n);
    for (long i = 0; i < n; i++) a[i] = (double)(i % 7);
    return a;
}
""",
    "include/util.h": r"""
#ifndef UTIL_H
#define UTIL_H
double weight(double x);
double *make_data(long n);
#endif
""",
}


@pytest.fixture()
def three_files(tmp_path) -> dict[str, Path]:
    """THREE_FILES written under tmp_path/prog: {"main.c": path, "solver.c": ..., "util.c": ..., "include": folder}."""
    root = tmp_path / "prog"
    out = {}
    for name, text in THREE_FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.lstrip())
        out[name] = path
    out["include"] = root / "include"
    return out
