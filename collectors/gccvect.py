"""GCC's run tests as VF/IF programs: which tests can run under clang (and why the others cannot), and the
rewrite that turns one into a program the vectorize collector sweeps.

The tests come from the folders of `collectors.gccsrc.FOLDERS`: the vectorizer's own (gcc.dg/vect/), the C
torture run tests (gcc.c-torture/execute/, only the files directly in it: builtins/ and ieee/ need drivers of
their own) and the run tests of gcc.dg/torture/, gcc.dg/tree-ssa/ and gcc.dg/. `classify(rel, text)` reads a
test's DejaGnu directives and code and returns None for a test that is a run test (`dg-do run`, or no dg-do in
gcc.dg/vect/ and gcc.c-torture/execute/, whose drivers run such a test) with a main() that checks its
answers with abort(), else the reason it is skipped (`Skip`: a category for the table and the detail). Skipped,
in this order: tests of the other folders with an option that is not an optimisation's (`STEERING`) nor one
that leaves the code's meaning under clang's build as it is (`KEPT_MEANING`: -std=c99/c11 and their GNU forms,
which clang's default gnu17 covers; -g; -fno-common, clang's default...): -fno-strict-aliasing, -ffast-math,
-std=gnu89, -fwrapv... may change what the code means (options under `{ target run_expensive_tests }` are left
out, as GCC's default run does); costmodel tests of another target (x86_64's and i386's run here);
compile-only tests; run tests restricted to another target; no main(); no abort() check;
dg-additional-sources; target intrinsics or headers (arm_neon.h, immintrin.h, __builtin_ia32_...); an effective
target of another architecture (arm_*, powerpc*, vsx*, ...) or a CPU feature checked at run time (avx2_runtime...);
an option that changes the language's semantics (-fwrapv, -ftrapv, also implied by vect.exp's wrapv-/trapv- file
names). Other options (`--param`, -O3, -ffast-math, -fno-tree-*, -mavx under a target selector...) only steer or
permit GCC's optimisations: they are dropped, since the sweep builds every program with clang -O2 -march=native.
Effective targets that only say what GCC's vectorizer can do (vect_int, vect_float...) do not restrict running.

`prepare(rel, text, lookup)` writes the program: local includes inlined (GCC's tree-vect.h replaced by our own
`TREE_VECT`), the test's main renamed `mirtune_test_main`, and a new main that runs it MIRTUNE_REPS times (or
argv[1] times) through a volatile pointer (so no repetition is merged into another) and prints
`checksum: passed` at the end (a test of the other folders, which often ends main with `exit (0)` as C89 code
did, has its exit(0) return to that loop through longjmp: `EXIT_TO_LOOP`): the test's own abort() decides whether an answer is right, a failing check is a
crash row. `mark_loop` puts the vectorize collector's MIRTUNE_LOOP_PRAGMA marker before the chosen loop with
`mirtune apply`'s own insertion (collectors/gccvect_build.py chooses the loop and the repeat count).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Callable

from collectors.gccsrc import FOLDERS, RUN_BY_DEFAULT, VECT
from mirtune.source.loops import insert_before_loop
from mirtune.errors import UsageError
from mirtune.tasks.vectorize import origin_folder

MARKER = "MIRTUNE_LOOP_PRAGMA"
TEST_MAIN = "mirtune_test_main"
CHECKSUM = "checksum: passed"

# Our stand-in for GCC's tree-vect.h (not a copy): the tests include it for check_vect(), which in GCC exits
# early when the CPU lacks the vector unit the test was compiled for; ours does nothing, since the programs are
# built with -march=native and run where they were built. It declares abort/exit as GCC's does (many tests call
# them without a header) and defines VECTOR_BITS, which some tests size their arrays by, as GCC does on x86.
TREE_VECT = """\
/* mirtune: stands in for GCC's tree-vect.h */
#ifndef MIRTUNE_TREE_VECT
#define MIRTUNE_TREE_VECT
extern void abort (void);
extern void exit (int);
static void check_vect (void) {}
#define VECTOR_BITS 128
#undef OFFSET
#endif
"""

OTHER_ARCH = re.compile(r"^(arm|aarch64|powerpc|ppc|vsx|altivec|p\d+vector|sve|mips|msa|s390|sparc|riscv|nvptx|"
                        r"amdgcn|section_anchors|vect_sizes_32B_16B)|_neon", re.I)
OTHER_TRIPLE = re.compile(r"\b(arm|aarch64|powerpc|rs6000|sparc|mips|s390|riscv|nvptx|amdgcn|ia64|alpha|spu)[\w*]*"
                          r"-\*?-", re.I)
TARGET_HEADER = re.compile(r"#\s*include\s*<((arm|arm_sve|arm_neon|arm_acle|altivec|\w*intrin|mmintrin|"
                           r"[a-z]*mmintrin|cpuid|msa|vecintrin)\.h)>")
TARGET_BUILTIN = re.compile(r"\b__builtin_(ia32|aarch64|arm|neon|altivec|vsx|vec_|s390|mips|riscv)\w*")
SEMANTIC_OPTIONS = ("-fwrapv", "-ftrapv")
# What the tests of the other folders may ask for and still be built as the sweep builds them: options that steer or
# permit GCC's optimisations, dumps and warnings. Any other but KEPT_MEANING's (-ffast-math, -std=gnu89, -fwrapv...)
# skips the test: it may change what the code means.
STEERING = re.compile(r"-O\w*$|-fdump-|-fopt-info|-W(?![la],)|-w$|--param|-m(avx|sse|tune|arch|prefer)|"
                      r"-f(no-)?(tree|ipa|inline|early-inlining|unroll|peel|vect|ssa|gcse|predictive|split|prefetch|"
                      r"guess-branch|code-hoisting|thread-jumps|loop|graphite|ivopts|sched|move-loop|version-loops|"
                      r"tracer|optimize-sibling|partial-inlining|cse|crossjumping|reorder|dce|dse|forwprop|pre$|"
                      r"sink|sra|vrp|copy-prop|dominator|isolate|store-merging|finite-loops|expensive-optimizations|"
                      r"if-conversion|rerun|web|hoist|lim|unswitch|distribute|cunroll|align|omit-frame|pic|PIC|pie|"
                      r"PIE|stack-protector|profile|branch-probabilities)")
# Options that a test of the other folders may ask for without changing what its code means when clang builds it
# as the sweep does: a C99/C11 language level (clang's default, gnu17, accepts their code with the same meaning:
# C99 inline semantics, no GNU89 rules), debug info and saved temporaries, pedantic diagnostics, -fno-common (clang's
# default since 11), what C already says (-fstrict-aliasing, -fstrict-overflow, -fdelete-null-pointer-checks),
# control-flow and stack hardening, and GCC-only optimisation and tuning switches (-fmodulo-sched,
# -fno-forward-propagate, -fwhole-program, -mbranch-cost=, -mcx16 which -march=native implies on x86-64).
# The test's own check still decides.
KEPT_MEANING = re.compile(r"-std=(c99|gnu99|c9x|gnu9x|iso9899:1999|c11|gnu11|c1x|gnu1x|iso9899:2011)$|-g\d?$|"
                          r"-save-temps$|-pedantic(-errors)?$|-fno-common$|-fstrict-aliasing$|-fstrict-overflow$|"
                          r"-fdelete-null-pointer-checks$|-fcf-protection|-fstack-clash-protection$|-fmodulo-sched|"
                          r"-fno-forward-propagate$|-fwhole-program$|-mbranch-cost=\d+$|-mcx16$")
# GCC's default test run leaves out the options of a directive under this selector (the tests' "expensive" variant).
NOT_DEFAULT_RUN = re.compile(r"^\{\s*target\s+run_expensive_tests\s*\}$")
NAME_OPTIONS = {"wrapv-": "-fwrapv", "trapv-": "-ftrapv"}  # vect.exp builds these file names with the option
LOCAL_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"]+)"[^\n]*$', re.M)
MAIN_DEF = re.compile(r"^[ \t]*(?:(?:int|void|signed)[ \t\n]+)?main[ \t\n]*\(([^)]*)\)[ \t\n]*\{", re.M)
ABORT = re.compile(r"\b(__builtin_)?abort[ \t]*\(")


@dataclass(frozen=True)
class Skip:
    """Why a test is not turned into a program: a category (a row of the skip table) and the detail."""

    category: str
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.category}: {self.detail}" if self.detail else self.category


def directives(text: str) -> list[tuple[str, str]]:
    """The DejaGnu directives `{ dg-NAME ARGS }` of a test, in order, as (NAME, ARGS) (nested braces kept)."""
    out = []
    for m in re.finditer(r"\{\s*dg-([\w-]+)", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        out.append((m.group(1), text[m.end():i - 1].strip()))
    return out


def _options(args: str) -> tuple[list[str], str]:
    """The options of a dg-options / dg-additional-options directive and its target selector ("" when none)."""
    m = re.match(r'\s*"([^"]*)"\s*(.*)', args, re.S)
    return (m.group(1).split(), m.group(2).strip()) if m else (args.split(), "")


def classify(rel: str, text: str, lookup: Callable[[str], str | None]) -> Skip | None:
    """None when the test at `rel` (its path under gcc/testsuite/) is a self-checking run test clang may build;
    else why it is skipped (see the module's docstring for the rules and their order). Its directives are read
    from its own text, its code with its includes inlined (`lookup` as for `inline_includes`)."""
    folder = suite_folder(rel)
    parts = PurePosixPath(rel[len(folder) + 1:]).parts
    found = directives(text)
    if folder != VECT:
        for name, args in found:
            options, selector = _options(args)
            if name in ("options", "additional-options") and not NOT_DEFAULT_RUN.match(selector):
                other = [o for o in options if o.startswith("-") and not STEERING.match(o) and not KEPT_MEANING.match(o)]
                if other:
                    return Skip("option that is not an optimisation's", other[0])
    if folder == VECT and parts[0] == "costmodel" and len(parts) > 2 and parts[1] not in ("x86_64", "i386"):
        return Skip("costmodel test of another target", parts[1])
    runs = [args for name, args in found if name == "do"]
    kind = runs[0].split()[0] if runs and runs[0].split() else "run" if folder in RUN_BY_DEFAULT else "compile"
    if kind != "run":
        return Skip("compile-only test", f"dg-do {kind}")
    if runs and OTHER_TRIPLE.search(runs[0]) and not re.search(r"x86_64|i\?86|\*-\*-linux", runs[0]):
        return Skip("runs only on another target", runs[0])
    try:
        code = inline_includes(rel, text, lookup)
    except UsageError as exc:
        return Skip(f"includes a file outside {folder}/", str(exc).rpartition(": ")[2])
    if not MAIN_DEF.search(code):
        return Skip("no main()")
    if not ABORT.search(code.replace(TREE_VECT, "")):
        return Skip("no abort() check")
    if any(name == "additional-sources" for name, _ in found):
        return Skip("needs other sources (dg-additional-sources)")
    m = TARGET_HEADER.search(code) or TARGET_BUILTIN.search(code)
    if m:
        return Skip("target intrinsics", m.group(1) if m.re is TARGET_HEADER else m.group(0))
    for name, args in found:
        if name != "require-effective-target" or not args.split():
            continue
        target = args.split()[0]
        if OTHER_ARCH.search(target):
            return Skip("effective target of another architecture", target)
        if target.endswith("_runtime") and target != "sse2_runtime":
            return Skip("CPU feature checked at run time", target)
    stem = PurePosixPath(rel).name
    for prefix, option in NAME_OPTIONS.items():
        if folder == VECT and stem.startswith(prefix):
            return Skip("option that changes the language's semantics", f"{option} (vect.exp, {prefix}* files)")
    for name, args in found:
        if name in ("options", "additional-options"):
            options, selector = _options(args)
            for option in options:
                if option in SEMANTIC_OPTIONS and not OTHER_TRIPLE.search(selector):
                    return Skip("option that changes the language's semantics", option)
    return None


def suite_folder(rel: str) -> str:
    """The folder of FOLDERS that holds the test at `rel` (its path under gcc/testsuite/); UsageError for none."""
    folder = origin_folder(rel)
    if folder is None:
        raise UsageError(f"not a test of {', '.join(FOLDERS)}", rel)
    return folder


def inline_includes(rel: str, text: str, lookup: Callable[[str], str | None]) -> str:
    """`text` with each `#include "X"` replaced by X's text (recursively; GCC's tree-vect.h by `TREE_VECT`),
    found beside the including file or at the top of the test's own folder (`suite_folder`), never outside it.
    `lookup(path)` returns the text of a path under gcc/testsuite/ or None; UsageError for one not found."""
    top = suite_folder(rel)

    def resolve(folder: PurePosixPath, match: re.Match, depth: int) -> str:
        name = match.group(1)
        if PurePosixPath(name).name == "tree-vect.h":
            return TREE_VECT
        for base in (folder, PurePosixPath(top)):
            path = _normal(base / name)
            found = lookup(path) if path is not None and path.startswith(top + "/") else None
            if found is not None:
                if depth > 8:
                    raise UsageError(f"includes nest deeper than 8 at {name}")
                body = LOCAL_INCLUDE.sub(lambda m: resolve(PurePosixPath(path).parent, m, depth + 1), found)
                return f"/* mirtune: inlined \"{name}\" */\n{body}\n"
        raise UsageError(f"included file not in {top}/: {name}")

    return LOCAL_INCLUDE.sub(lambda m: resolve(PurePosixPath(rel).parent, m, 0), text)


def _normal(path: PurePosixPath) -> str | None:
    """`a/../b` -> `b`; None for a path that leaves the folder."""
    out: list[str] = []
    for part in path.parts:
        if part == "..":
            if not out:
                return None
            out.pop()
        elif part != ".":
            out.append(part)
    return "/".join(out)


EXIT_TO_LOOP = """\
/* mirtune: the test's exit (0) ends one run of its main, as its return would */
#include <setjmp.h>
extern void exit (int);
static jmp_buf mirtune_exit_jmp;
static void mirtune_exit (int status) __attribute__ ((noreturn));
static void mirtune_exit (int status)
{
  if (status == 0)
    longjmp (mirtune_exit_jmp, 1);
  exit (status);
}
#define exit mirtune_exit
"""


def prepare(rel: str, text: str, lookup: Callable[[str], str | None], header: str = "", reps: int = 1) -> str:
    """The program made of the test at `rel`: includes inlined, main renamed, a repeating main appended (`reps`
    times by default), the marker's empty default defined, `header` (a comment) first; another folder's exit (0)
    returns to the repeating main (`EXIT_TO_LOOP`). UsageError when it has no main to call."""
    other_folder = suite_folder(rel) != VECT
    body = inline_includes(rel, text, lookup)
    m = MAIN_DEF.search(body)
    if m is None:
        raise UsageError("no main() definition")
    params = m.group(1).strip()
    if params in ("", "void"):
        pointer, call = "int (*volatile test_main) (void)", "test_main ()"
    else:
        pointer, call = "int (*volatile test_main) (int, char **)", "test_main (1, test_argv)"
    top = (f"{header}#ifndef {MARKER}\n#define {MARKER}\n#endif\n#ifndef MIRTUNE_REPS\n#define MIRTUNE_REPS {reps}\n"
           f"#endif\n{EXIT_TO_LOOP if other_folder else ''}#define main {TEST_MAIN}\n")
    run = (f"if (!setjmp (mirtune_exit_jmp))\n      (void) {call};" if other_folder else f"(void) {call};")
    bottom = f"""
/* mirtune: run the test's main MIRTUNE_REPS times (or argv[1] times); its abort() checks every run. */
#undef main
int
main (int argc, char **argv)
{{
  long reps = MIRTUNE_REPS;
  char *test_argv[] = {{argv[0], 0}};
  if (argc > 1)
    {{
      reps = 0;
      for (const char *p = argv[1]; *p >= '0' && *p <= '9'; p++)
        reps = reps * 10 + (*p - '0');
    }}
  {pointer} = {TEST_MAIN};
  for (long r = 0; r < reps; r++)
    {run}
  (void) test_argv;
  __builtin_printf ("{CHECKSUM}\\n");
  return 0;
}}
"""
    return top + body + ("" if body.endswith("\n") else "\n") + bottom


def mark_loop(text: str, line: int, column: int) -> str:
    """`text` with the marker on its own line before the loop whose keyword is at `line`:`column` (1-based);
    a loop that does not start its line (`for (...) for (...)`) is first moved onto a line of its own.
    UsageError when no for/while/do starts there (a loop written inside a macro)."""
    lines = text.splitlines(keepends=True)
    if not 1 <= line <= len(lines):
        raise UsageError(f"line {line} is outside the program")
    target = lines[line - 1]
    at = target[column - 1:]
    if not re.match(r"(for|while|do)\b", at):
        raise UsageError(f"no loop keyword at {line}:{column} (a loop written inside a macro?)")
    if target[:column - 1].strip():
        indent = target[:len(target) - len(target.lstrip())]
        lines[line - 1:line] = [target[:column - 1].rstrip() + "\n", indent + "  " + at]
        line += 1
    return insert_before_loop("".join(lines), line, MARKER)
