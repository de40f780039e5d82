"""The loop vectorization task: the vectorization factor (VF) and interleave count (IF) of a loop.

Data: the `vectorize` collector's rows (datasets/vectorize: 48 of the 354 generated kernels, on an Intel Xeon VM),
one group per loop kernel, LLVM's own choice (the kernel with no pragma) as the default configuration. Protocol: leave-one-template-out: a kernel's siblings
generated from the same template (other element types, trip counts) are held out with it, so a predictor is
never scored on a near copy of what it trained on. Programs made from GCC's vectorizer tests
(collectors/gccvect_build.py) are grouped by the test's source-file family instead (`source_family`), so that
`vect-reduc-*` or `pr*` never straddle train and test. No context features besides the embedding.
"""

from __future__ import annotations

import re
from typing import Any

from mirtune.errors import UsageError
from mirtune.tasks.base import MEASURED, Task, TaskSpec

NAME = "vectorize"
DATASETS = ("vectorize-epyc",)  # the default data: all 354 kernels on the AMD EPYC host (datasets/README.md)
PARAMETERS = ("vf", "if")
CONTEXT: tuple[str, ...] = ()


def _label(cfg: dict[str, Any]) -> str:
    return f"vf={cfg['vf']},if={cfg['if']}"


# GCC's test folders (under gcc/testsuite/) besides gcc.dg/vect/ whose tests become programs, and the prefix of
# their programs' names and families (collectors/gccvect_build.py)
FOLDER_PREFIXES = {"gcc.c-torture/execute": "torture-", "gcc.dg/torture": "dg-torture-",
                   "gcc.dg/tree-ssa": "tree-ssa-", "gcc.dg": "dg-"}


def origin_folder(path: str) -> str | None:
    """The GCC test folder of a file's path (under gcc/testsuite/, or longer): `gcc.dg/vect` with its sub-folders,
    or one of FOLDER_PREFIXES for the files directly in it; None for a path in neither."""
    folder = "/" + path.rpartition("/")[0]
    if "/gcc.dg/vect/" in folder + "/":
        return "gcc.dg/vect"
    return next((f for f in FOLDER_PREFIXES if folder.endswith("/" + f)), None)


def source_family(name: str) -> str:
    """A GCC test's source-file family, from its file name's stem: the '-'/'_'-separated words before the first
    word that holds a digit, plus that word's letters before its first digit (`vect-reduc-2char.c` ->
    `vect-reduc`, `pr45752.c` -> `pr`, `slp-perm-3.c` -> `slp-perm`, `vect-tsvc-s000.c` -> `vect-tsvc-s`,
    `O3-pr39675-2.c` -> `O`). Tests of one family are variants of one idea (other types, sizes, bug reports of
    one kind), so they must stay on one side of a train/test split. A test of another folder than gcc.dg/vect/
    (a path through one of FOLDER_PREFIXES) has its folder's prefix (`gcc.c-torture/execute/pr23135.c` ->
    `torture-pr`): the other folders' `pr*` are other bugs than the vectorizer's."""
    folder = origin_folder(name)
    if folder in FOLDER_PREFIXES:
        return FOLDER_PREFIXES[folder] + source_family(name.rsplit("/", 1)[-1])
    stem = name.rsplit("/", 1)[-1]
    stem = stem[:-2] if stem.endswith(".c") else stem
    words: list[str] = []
    for word in re.split(r"[-_.]", stem):
        letters = re.match(r"[A-Za-z]*", word).group(0)  # type: ignore[union-attr]
        if letters:
            words.append(letters)
        if letters != word:
            break
    return "-".join(words) or stem


def application(row: dict[str, Any]) -> str:
    """The group a row's program belongs to: a GCC test's family (by its `origin` path), a generated kernel's
    template, else the program itself."""
    origin, template = row.get("origin"), row.get("template")
    if isinstance(origin, str) and origin:
        return "gcc:" + source_family(origin.split()[-1])
    return template if isinstance(template, str) and template else str(row["program"])


SPEC = TaskSpec(name=NAME, sweep="vectorize", config_columns=("vf", "if"), app_of=application, label=_label)


_LABEL_RE = re.compile(r'label %("[^"]*"|[-\w.$]+)')


def has_loop(module: Any) -> bool:
    """Whether any defined function of an `IRModule` has a loop: a cycle among its blocks' branch targets."""
    for fn in module.functions:
        if fn.is_declaration:
            continue
        succ: dict[str | None, list[str]] = {}
        start = 0
        for label, count in fn.blocks:
            succ[label] = [t for ins in fn.instructions[start:start + count] for t in _LABEL_RE.findall(ins)]
            start += count
        state: dict[str | None, int] = {}  # 1: on the current path, 2: done
        for root in succ:
            if root in state:
                continue
            state[root] = 1
            stack = [(root, iter(succ[root]))]
            while stack:
                node, targets = stack[-1]
                nxt = next(targets, None)
                if nxt is None:
                    state[node] = 2
                    stack.pop()
                elif state.get(nxt) == 1:
                    return True
                elif nxt not in state and nxt in succ:
                    state[nxt] = 1
                    stack.append((nxt, iter(succ[nxt])))
    return False


def pragma(vf: int, interleave: int) -> str:
    """The clang loop pragma that forces one configuration."""
    from mirtune.source.loops import loop_pragma

    return loop_pragma(vf, interleave)


LIMITS = {"vf": 64, "if": 16}  # the largest factors `mirtune apply` accepts


def parse_vectorize_config(text: str) -> dict[str, int]:
    """`vf=8,if=2` -> {"vf": 8, "if": 2}: powers of two, VF up to 64 and IF up to 16, both required."""
    out: dict[str, int] = {}
    for item in (i.strip() for i in text.split(",")):
        if "=" not in item:
            raise UsageError(f"bad --config item {item!r}: expected vf=N or if=N")
        key, value = (part.strip().lower() for part in item.split("=", 1))
        if key not in ("vf", "if"):
            raise UsageError(f"unknown config key {key!r} for --task vectorize; use vf, if")
        if key in out:
            raise UsageError(f"config key {key!r} given twice")
        try:
            n = int(value)
        except ValueError:
            raise UsageError(f"{key} must be a power of two, got {value!r}") from None
        if n < 1 or n & (n - 1) or n > LIMITS[key]:
            raise UsageError(f"{key} must be a power of two from 1 to {LIMITS[key]}, got {value}")
        out[key] = n
    if set(out) != {"vf", "if"}:
        raise UsageError("--task vectorize needs both vf=N and if=N")
    return out


class VectorizeTask(Task):
    name, kind, spec, datasets = NAME, MEASURED, SPEC, DATASETS
    parameter_names, context_names = PARAMETERS, CONTEXT
    links_programs = applies = takes_line = replays_tuning = data_efficiency = tunes = True
    apply_help = "vf=1|2|4..64, if=1|2|4..16"

    def nothing_to_tune(self, module, context, is_ir):
        return None if has_loop(module) else "no loop in this program: nothing for the vectorize task to tune"

    def how_to_apply(self, params, is_default, source=None, context=None):
        if is_default:
            return ["keep LLVM's own choice: no loop pragma"]
        return [f"put before the loop: {pragma(params['vf'], params['if'])}",
                f"or: mirtune apply {source or 'kernel.c'} --task {self.name} --config "
                f"vf={params['vf']},if={params['if']} --line N -o kernel.tuned.c"]

    def parse_config(self, text):
        return parse_vectorize_config(text)

    def apply(self, text, config, line):
        from mirtune.source.loops import apply_loop_pragma

        new_text, loops = apply_loop_pragma(text, config["vf"], config["if"], line)
        return new_text, (f"vectorize_width({config['vf']}) interleave_count({config['if']}) on {loops} "
                          f"loop{'s' if loops != 1 else ''}"), [], []

    def tune_dimensions(self):
        from mirtune.measure.vectorize import DIMENSIONS

        return dict(DIMENSIONS)

    def tune_sources(self, sources, texts, line, label):
        """The loop pragma goes into the first file (`line` counts its lines); the others are built as they are.
        UsageError when there is no loop to tune."""
        self.build_text(texts[0], {"vf": 1, "if": 1}, line)
        return list(texts), {}, ""

    def build_text(self, text, config, line):
        from mirtune.source.loops import apply_loop_pragma

        return text if config is None else apply_loop_pragma(text, int(config["vf"]), int(config["if"]), line)[0]

    def tune_columns(self):
        from mirtune.measure.vectorize import COLUMNS

        return dict(COLUMNS)

    def tune_row(self, config, cores):
        if config is None:
            return {"vf": None, "if": None}, {"pragma": None}
        return dict(config), {"pragma": pragma(int(config["vf"]), int(config["if"]))}


TASK = VectorizeTask()
