"""Recommend a configuration for a program without running it: `mirtune.recommend(path, task=...)`.

    rec = mirtune.recommend("app.c", task="openmp")
    rec.best["threads"], rec.best["schedule"], rec.predicted_speedup, rec.apply

The program (a source, compiled first with -fopenmp when it uses OpenMP, or a .ll/.bc) is embedded with the frozen
encoder, its task context features are read from its IR, and the task's predictor (the shipped one in
mirtune/assets/heads/TASK, or --heads DIR / $MIRTUNE_HEADS) predicts the speedup of every configuration over the
default. A predictor fitted on another encoder is refused; one fitted on measurements of another kind of host
is used with a note that says so.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np

from mirtune.errors import MirtuneError, UsageError
from mirtune.paths import ASSETS_DIR

TASKS = ("openmp", "vectorize", "devmap", "coarsening", "cuda_blocks")
MEASURED = ("openmp", "vectorize")
HEADS_DIR = ASSETS_DIR / "heads"


@dataclass
class Recommendation:
    """The answer for one program: the best configuration, how to apply it, and the top-K ranking."""

    input: str
    task: str
    best: dict[str, Any]
    label: str
    predicted_speedup: float
    is_default: bool
    apply: list[str]
    top: list[dict[str, Any]]
    notes: list[str] = field(default_factory=list)
    predictor: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def head_dir(task: str, heads: str | os.PathLike | None = None) -> Path:
    """Where the task's predictor lives: `heads`/TASK (or `heads` itself when it is a predictor folder), else
    $MIRTUNE_HEADS/TASK, else the shipped mirtune/assets/heads/TASK."""
    root = heads or os.environ.get("MIRTUNE_HEADS")
    if root:
        root = Path(root)
        if not root.is_dir():
            raise UsageError("heads folder not found", str(root))
        return root if (root / "predictor.json").is_file() else root / task
    return HEADS_DIR / task


_fingerprints: dict[tuple[str, float], str] = {}
_predictors: dict[tuple[str, str, float], Any] = {}


def _fingerprint(model_dir: Path) -> str:
    from mirtune.tasks.embedders import model_fingerprint

    key = (str(model_dir.resolve()), max(f.stat().st_mtime for f in model_dir.iterdir()))
    if key not in _fingerprints:
        _fingerprints[key] = model_fingerprint(model_dir)
    return _fingerprints[key]


def load_task_predictor(task: str, heads: str | os.PathLike | None = None, model_dir: str | os.PathLike | None = None):
    """The task's predictor, checked against the encoder it will read embeddings from (cached per process)."""
    from mirtune.embedding import default_model_dir
    from mirtune.predict.predictor import PREDICTOR_FILE, load_predictor

    if task not in TASKS:
        raise UsageError(f"unknown task {task!r}; choose from {', '.join(TASKS)}")
    folder = head_dir(task, heads)
    if not (folder / PREDICTOR_FILE).is_file():
        if task == "cuda_blocks":
            raise MirtuneError("no cuda_blocks predictor ships: it needs LS-CAT timings from a GPU, which the machine "
                               "that built this release did not have; collect them with `mirtune collect lscat` on a "
                               "GPU node and fit one with `mirtune fit --task cuda_blocks`")
        raise MirtuneError(f"no {task} predictor at {folder}; fit one with `mirtune fit --task {task}`")
    resolved = default_model_dir(model_dir)
    fp = _fingerprint(resolved)
    key = (str(folder.resolve()), fp, (folder / PREDICTOR_FILE).stat().st_mtime)
    if key not in _predictors:
        _predictors[key] = load_predictor(folder, fingerprint=fp)
    predictor = _predictors[key]
    if predictor.task != task:
        raise MirtuneError(f"the predictor at {folder} is for task {predictor.task!r}, not {task!r}")
    return predictor, resolved


def _features(ir_path: Path, task: str, model_dir: Path) -> tuple[np.ndarray, np.ndarray, Any]:
    """(embedding, context features, module) of one IR file. Embeddings are cached on disk by the encoder's
    fingerprint and the IR file's content, in the cache `mirtune evaluate` uses, so a program seen before
    needs no torch at all."""
    from mirtune.ir.module import IRModule
    from mirtune.predict.predictor import task_module
    from mirtune.tasks.embedders import cache_dir, file_hash

    module = IRModule.from_file(ir_path)
    context = task_module(task).context_features(module)
    cached = cache_dir() / f"mirencoder-{_fingerprint(model_dir)}" / f"{file_hash(ir_path)}.npy"
    emb = None
    if cached.is_file():
        try:
            emb = np.load(cached).astype(np.float64)
        except (OSError, ValueError):
            emb = None  # a torn write: embed again
    if emb is None:
        from mirtune.embedding import embed_modules

        emb = embed_modules([module], model_dir=model_dir)[0].astype(np.float64)
        if np.isfinite(emb).all():
            cached.parent.mkdir(parents=True, exist_ok=True)
            tmp = cached.with_name(f".{cached.stem}.{os.getpid()}.tmp.npy")
            np.save(tmp, emb)
            os.replace(tmp, cached)
    if not np.isfinite(emb).all():
        raise MirtuneError("the encoder produced non-finite values for this program (corrupt weights?)", str(ir_path))
    return emb, context, module


def _host_notes(task: str, trained_on: dict[str, Any]) -> tuple[list[str], int | None, int | None]:
    from mirtune.host import cpu_model

    notes = []
    trained_cores = trained_on.get("logical_cores")
    here = os.cpu_count()
    hosts = trained_on.get("hosts") or []
    model = hosts[0].get("cpu_model") if hosts else None
    if task == "openmp" and trained_cores and here and trained_cores != here:
        notes.append(f"the {task} predictor was trained on measurements of a {trained_cores}-core host"
                     + (f" ({model})" if model else "") + f"; this host has {here} cores, so 'all cores' there is "
                     f"read as {here} threads here: check with `mirtune tune`")
    elif model and cpu_model() not in (None, model):
        notes.append(f"the {task} predictor describes measurements on: {model}; this host is: {cpu_model()}")
    return notes, trained_cores, here


def recommend(path: str | os.PathLike, task: str = "openmp", top: int = 5, heads: str | os.PathLike | None = None,
              model_dir: str | os.PathLike | None = None) -> Recommendation:
    """The recommendation for one program (see the module doc); MirtuneError with one line when it cannot."""
    from mirtune.predict.predictor import program_ir, task_module

    if task not in MEASURED:
        if task in TASKS:
            load_task_predictor(task, heads, model_dir)  # the one-line reason when none ships
            raise MirtuneError(f"`mirtune recommend --task {task}` is not available in this release; "
                               f"see `mirtune evaluate {task}`")
        raise UsageError(f"unknown task {task!r}; choose from {', '.join(TASKS)}")
    if top < 1:
        raise UsageError("--top must be >= 1")
    predictor, resolved = load_task_predictor(task, heads, model_dir)
    path = Path(path)
    ir = program_ir(path)
    emb, context, _ = _features(ir, task, resolved)
    mod = task_module(task)
    if task == "openmp" and not mod.has_worksharing(context):
        raise MirtuneError("no OpenMP worksharing loop (omp for / parallel for) in this program: nothing for the "
                           "openmp task to tune" + ("" if path.suffix in (".ll", ".bc") else
                                                    " (compiled with -fopenmp when the source mentions OpenMP)"),
                           str(path))
    x = np.concatenate([emb, context])[None, :]
    speedups = predictor.predict_speedups(x)[0]
    order = np.argsort(-speedups, kind="stable")
    notes, trained_cores, here = _host_notes(task, predictor.trained_on)

    def params(i: int) -> dict[str, Any]:
        cfg = predictor.configs[i]
        return mod.parameters(cfg, trained_cores, here) if task == "openmp" else mod.parameters(cfg)

    best = int(order[0])
    is_default = best == 0
    source = str(path) if path.suffix not in (".ll", ".bc") else None
    if task == "openmp":
        reachable = bool(context[1] >= 1.0)
        apply = mod.how_to_apply(params(best), is_default, reachable, source)
    else:
        apply = mod.how_to_apply(params(best), is_default, source)
    ranking = [{"rank": r + 1, "label": predictor.labels[i], **params(int(i)),
                "predicted_speedup": round(float(speedups[i]), 4)} for r, i in enumerate(order[:top])]
    return Recommendation(
        input=str(path), task=task, best=params(best), label=predictor.labels[best],
        predicted_speedup=round(float(speedups[best]), 4), is_default=is_default, apply=apply, top=ranking,
        notes=notes, predictor={"head": predictor.head_config, "trained_on": {
            k: predictor.trained_on.get(k) for k in ("groups", "applications", "logical_cores", "date")}})


def recommend_many(paths: Sequence[str | os.PathLike], task: str = "openmp", top: int = 5,
                   heads: str | os.PathLike | None = None, model_dir: str | os.PathLike | None = None
                   ) -> Iterator[tuple[Path, Recommendation | None, str | None]]:
    """(path, recommendation, None) or (path, None, one-line reason) for every program under `paths`."""
    from mirtune.ir.inputs import expand_inputs

    load_task_predictor(task, heads, model_dir) if task in MEASURED else None
    for path, reason in expand_inputs(list(paths)):
        if reason is not None:
            yield path, None, f"{path}: {reason}"
            continue
        try:
            yield path, recommend(path, task, top, heads, model_dir), None
        except MirtuneError as exc:
            yield path, None, exc.line()
