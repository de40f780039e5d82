"""Recommend a configuration for a program without running it: `mirtune.recommend(path, task=...)`.

    rec = mirtune.recommend("app.c", task="openmp")
    rec.best["threads"], rec.best["schedule"], rec.predicted_speedup, rec.apply

The program (a source, compiled first with -fopenmp when it uses OpenMP, or a .ll/.bc; or the files of one program,
each compiled and all linked into one module, `program_ir_linked`) is embedded with the frozen encoder, its task context features are read from its IR, and the task's predictor (the shipped one in
mirtune/assets/heads/TASK, or --heads DIR / $MIRTUNE_HEADS) predicts the speedup of every configuration over the
default. A predictor fitted on another encoder is refused; one fitted on measurements of another kind of host
is used with a note that says so.
"""

from __future__ import annotations

import os
import sys
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator, Sequence

from mirtune.errors import MirtuneError, UsageError
from mirtune.measure.program import program_label
from mirtune.paths import ASSETS_DIR
from mirtune.tasks import registry

HEADS_DIR = ASSETS_DIR / "heads"

if TYPE_CHECKING:  # numpy is imported where it is used: `mirtune --help` registers this command's options
    import numpy as np


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


def head_dir(task: str, heads: str | os.PathLike | None = None, profiled: bool = False) -> Path:
    """Where the task's predictor lives: `heads`/TASK (or `heads` itself when it is a predictor folder), else
    $MIRTUNE_HEADS/TASK, else the shipped mirtune/assets/heads/TASK. `profiled`: the predictor that also reads a
    profiled run, TASK-profile beside TASK, where there is one (else TASK's)."""
    root = heads or os.environ.get("MIRTUNE_HEADS")
    if root:
        root = Path(root)
        if not root.is_dir():
            raise UsageError("heads folder not found", str(root))
        if (root / "predictor.json").is_file():
            return root
    base = root if root else HEADS_DIR
    if profiled and (base / f"{task}-profile" / "predictor.json").is_file():
        return base / f"{task}-profile"
    return base / task


_fingerprints: dict[tuple[str, float], str] = {}
_predictors: dict[tuple[str, str, float], Any] = {}


def _fingerprint(model_dir: Path) -> str:
    from mirtune.embedding_cache import model_fingerprint

    key = (str(model_dir.resolve()), max(f.stat().st_mtime for f in model_dir.iterdir()))
    if key not in _fingerprints:
        _fingerprints[key] = model_fingerprint(model_dir)
    return _fingerprints[key]


def load_task_predictor(task: str, heads: str | os.PathLike | None = None, model_dir: str | os.PathLike | None = None,
                        platform: str | None = None, profiled: bool = False):
    """The task's predictor (for devmap and coarsening, the platform's; `profiled`: the one that also reads a
    profiled run, where there is one), checked against the encoder it will read embeddings from (cached per
    process); (predictor, encoder directory)."""
    from mirtune.embedding import default_model_dir
    from mirtune.predict.predictor import PREDICTOR_FILE, load_predictor

    t = registry.get(task)
    folder = head_dir(task, heads, profiled)
    if t.platforms:
        platforms = sorted(p.name for p in folder.iterdir() if (p / PREDICTOR_FILE).is_file()) \
            if folder.is_dir() else []
        if platform is None or platform not in platforms:
            raise UsageError(f"--task {task} needs --platform, one of: {', '.join(platforms) or '(none fitted)'}"
                             + ("" if platform is None else f" (not {platform!r})"))
        folder = folder / platform
    elif platform is not None:
        raise UsageError(f"--platform applies to {' and '.join(registry.names(kind=registry.PUBLISHED))}, not {task}")
    if not (folder / PREDICTOR_FILE).is_file():
        raise MirtuneError(t.no_predictor(folder))
    resolved = default_model_dir(model_dir)
    fp = _fingerprint(resolved)
    key = (str(folder.resolve()), fp, (folder / PREDICTOR_FILE).stat().st_mtime)
    if key not in _predictors:
        _predictors[key] = load_predictor(folder, fingerprint=fp)
    predictor = _predictors[key]
    if predictor.task != task:
        raise MirtuneError(f"the predictor at {folder} is for task {predictor.task!r}, not {task!r}")
    return predictor, resolved


def _embedding(ir_path: Path, model_dir: Path | None) -> tuple[np.ndarray, Any]:
    """(embedding, parsed module) of one IR file; with no `model_dir` (a predictor fitted on the context features
    alone), an empty embedding. Embeddings are cached on disk by the encoder's fingerprint and
    the IR file's content, in the cache `mirtune evaluate` uses; a program not seen before is embedded by the numpy
    engine (mirtune.model.numpy_encoder: torch's vectors to float32 rounding), so answering never imports torch,
    unless $MIRTUNE_PRECISION asks for bf16, which only torch computes, or torch is loaded already."""
    import numpy as np

    from mirtune.ir.module import IRModule
    from mirtune.embedding_cache import file_hash, load_cached, mirencoder_key, store_cached

    module = IRModule.from_file(ir_path)
    if model_dir is None:
        return np.zeros(0), module
    key, digest = mirencoder_key(_fingerprint(model_dir)), file_hash(ir_path)
    emb = load_cached(key, digest)
    if emb is None:
        from mirtune.embedding import embed_modules, resolve_precision

        # numpy answers a new process without importing torch (about 1 s); where torch is loaded already (a
        # long-running process that trains or evaluates), its encoder embeds a file faster (benchmarks/bench_recommend.py)
        engine = "torch" if resolve_precision() != "fp32" or "torch" in sys.modules else "numpy"
        emb = embed_modules([module], model_dir=model_dir, engine=engine)[0]
        if np.isfinite(emb).all():
            store_cached(key, digest, emb)
    emb = np.asarray(emb, dtype=np.float64)
    if not np.isfinite(emb).all():
        raise MirtuneError("the encoder produced non-finite values for this program (corrupt weights?)", str(ir_path))
    return emb, module


LEVEL = 0.01  # a lead over the baselines on programs never seen smaller than this is within the timing noise


def _host_notes(task, trained_on: dict[str, Any]) -> tuple[list[str], int | None, int | None]:
    """Notes on how this host differs from the ones the predictor's measurements describe; the training hosts'
    core count (when they agree) and this host's."""
    from mirtune.host import cpu_model

    notes = []
    trained_cores = trained_on.get("logical_cores")
    here = os.cpu_count()
    models = sorted({h.get("cpu_model") for h in trained_on.get("hosts") or [] if h.get("cpu_model")})
    described = " / ".join(models) or "unrecorded CPUs"
    if task.scales_with_cores and trained_cores and here and trained_cores != here:
        notes.append(f"the {task.name} predictor was trained on measurements of {trained_cores}-core hosts ({described}); "
                     f"this host has {here} cores, so 'all cores' there is read as {here} threads here: check the "
                     "answer with real runs")
    elif task.device == "gpu":
        gpus = sorted({h.get("gpu_model") for h in trained_on.get("hosts") or [] if h.get("gpu_model")})
        notes.append(f"the {task.name} predictor describes measurements on: {' / '.join(gpus) or 'unrecorded GPUs'}; "
                     "block shapes that suit one GPU may not suit another")
    elif models and cpu_model() not in models:
        notes.append(f"the {task.name} predictor describes measurements on: {described}; this host is: {cpu_model()}")
    held = trained_on.get("held_out")
    if held:  # the figures of `mirtune fit --evaluate`: applications left out of training
        score, default, fixed = (held[k]["share_of_oracle"] for k in ("predictor", "default", "best fixed"))
        what = f"on {held['applications']} held-out applications"
    else:  # the head search's own cross-validation (optimistic: the best of many candidates)
        score, default, fixed = (trained_on.get(k) for k in ("inner_score", "inner_default", "inner_best_fixed"))
        what = "in cross-validation over its training applications"
    if None not in (score, default, fixed) and score <= max(default, fixed):
        notes.append(f"{what} this predictor's choices reached {score:.3f} of the best time, the default "
                     f"{default:.3f} and the one configuration best on average ({trained_on.get('best_fixed')}) "
                     f"{fixed:.3f}: it does not beat them; measure before trusting it")
    unseen = trained_on.get("never_seen")  # benchmarks/recommend_unseen.py --record: measured on new programs
    if unseen and unseen["recommended"] < max(unseen["default"], unseen["best_fixed"]) + LEVEL:
        beaten = unseen["recommended"] > max(unseen["default"], unseen["best_fixed"])
        notes.append(f"on {unseen['programs']} programs never seen in its training, timed on {unseen['measured']}, "
                     f"this predictor's choices reached {unseen['recommended']:.3f} of the best time, the default "
                     f"{unseen['default']:.3f} and the one configuration best on average "
                     f"({trained_on.get('best_fixed')}) {unseen['best_fixed']:.3f}: "
                     + ("level with them within the timing noise" if beaten else "it does not beat them there")
                     + "; check it with real runs (`mirtune tune`)")
    return notes, trained_cores, here


def recommend(path: str | os.PathLike | Sequence[str | os.PathLike], task: str = registry.DEFAULT, top: int = 5,
              heads: str | os.PathLike | None = None, model_dir: str | os.PathLike | None = None,
              platform: str | None = None, context: dict[str, float] | None = None,
              include_dirs: Sequence[str | os.PathLike] = (), profile: dict[str, Any] | None = None,
              cflags: Sequence[str] = ()) -> Recommendation:
    """The recommendation for one program (see the module doc); MirtuneError with one line when it cannot.
    devmap and coarsening need the `platform` (a GPU of the published data); devmap also `context`
    {"transfer_bytes": N, "wgsize": N}; cuda_blocks {"matrix": N} (and takes an LS-CAT kernel directory too).
    `path` may be a list: the C/C++ files (or .ll/.bc) of one program, linked into one module; `include_dirs` are
    searched for the headers of its sources (clang's -I). Its `input` is then the files joined by ' + '.
    `cflags`: the program's build flags; those that decide what its source means (-D, -I, -std=, ...) are used
    when its IR is compiled.
    `profile`: the features of one profiled run of the program (`mirtune.profile.ompt.ProfileFeatures` as a dict),
    read by the task's profile predictor (TASK-profile) where there is one."""
    import numpy as np

    from mirtune.ir.frontend import source_flags
    from mirtune.predict.heads import decision_gains
    from mirtune.predict.predictor import program_ir, program_ir_linked

    t = registry.get(task)
    if top < 1:
        raise UsageError("--top must be >= 1")
    files = [Path(p) for p in path] if isinstance(path, (list, tuple)) else [Path(path)]
    if not files:
        raise UsageError("no source file given")
    linked = len(files) > 1 or bool(include_dirs) or bool(source_flags(list(cflags)))
    if linked and not t.links_programs:
        raise UsageError(f"the files of one program (several files, --include, or --cflags with -D/-I) are for "
                         f"--task {' or '.join(registry.names(links_programs=True))}, not {task}")
    for d in include_dirs:
        if not Path(d).is_dir():
            raise UsageError("--include: no such folder", str(d))
    predictor, resolved = load_task_predictor(task, heads, model_dir, platform, profiled=profile is not None)
    reads_profile = bool(predictor.features.get("profile"))
    if reads_profile and profile is None:
        raise UsageError(f"this {task} predictor reads a profiled run of the program beside its IR: add --profile "
                         f"(and the program's arguments after --)")
    if t.launch_options:  # the launch facts are checked before the program compiles
        t.context_features(None, context)
    path = t.program_file(files[0])
    ir = program_ir_linked(files, include_dirs, cflags=cflags) if linked else program_ir(path)
    label = program_label(files) if linked else str(path)
    emb, module = _embedding(ir, None if predictor.features.get("embedding") == "none" else resolved)
    context_x = t.context_features(module, context)
    reason = t.nothing_to_tune(module, context_x, path.suffix in (".ll", ".bc"))
    if reason:
        raise MirtuneError(reason, label)
    parts = [emb, context_x]
    if reads_profile:
        from mirtune.profile.features import profile_row

        parts.append(profile_row(predictor.features["profile"], profile, module))
    x = np.concatenate(parts)[None, :]
    log_gains = predictor.predict_log_gains(x)[0]
    decision = decision_gains(log_gains[None, :], float(predictor.head_config.get("margin", 0.0)),
                              predictor.head.anchor_index(), predictor.head.penalty())[0]
    order = np.argsort(-decision, kind="stable")  # the head's own rule: its anchor needs beating by the margin, each
    # choice losing its risk times its downside first
    speedups = np.exp(log_gains)
    notes, trained_cores, here = _host_notes(t, predictor.trained_on)
    if profile is not None:
        notes.append("answered from the IR and the profiled run" if reads_profile else
                     "this predictor reads the IR alone: the profile below does not change the answer")

    def params(i: int) -> dict[str, Any]:
        return t.parameters(predictor.configs[i], trained_cores, here)

    best = int(order[0])
    is_default = best == 0
    source = t.source_file(files) if len(files) > 1 else str(path) if path.suffix not in (".ll", ".bc") else None
    apply = t.how_to_apply(params(best), is_default, source, context_x)
    ranking = [{"rank": r + 1, "label": predictor.labels[i], **params(int(i)),
                "predicted_speedup": round(float(speedups[i]), 4)} for r, i in enumerate(order[:top])]
    return Recommendation(
        input=label, task=task, best=params(best), label=predictor.labels[best],
        predicted_speedup=round(float(speedups[best]), 4), is_default=is_default, apply=apply, top=ranking,
        notes=notes, predictor={"head": predictor.head_config, "platform": platform, "profile": reads_profile,
                                "trained_on": {
            k: predictor.trained_on.get(k) for k in ("groups", "applications", "logical_cores", "date")}})


def recommend_many(paths: Sequence[str | os.PathLike], task: str = registry.DEFAULT, top: int = 5,
                   heads: str | os.PathLike | None = None, model_dir: str | os.PathLike | None = None,
                   platform: str | None = None, context: dict[str, float] | None = None, together: bool = False,
                   include_dirs: Sequence[str | os.PathLike] = (), profile: dict[str, Any] | None = None,
                   cflags: Sequence[str] = ()) -> Iterator[tuple[Path, Recommendation | None, str | None]]:
    """(path, recommendation, None) or (path, None, one-line reason) for every program under `paths`; a problem
    with the task itself (unknown, no predictor, missing options) is raised once, before any input.
    `together`: `paths` are the files of one program (one answer, linked; see `recommend`); `include_dirs` are
    searched for the headers of every source; `profile`, `cflags`: see `recommend`."""
    t = registry.get(task)
    load_task_predictor(task, heads, model_dir, platform, profiled=profile is not None)
    if t.launch_options:
        t.context_features(None, context)
    if together:
        try:
            yield Path(paths[0]), recommend(list(paths), task, top, heads, model_dir, platform, context,
                                            include_dirs, profile, cflags), None
        except MirtuneError as exc:
            yield Path(paths[0]), None, exc.line()
        return
    for path, reason in t.inputs(paths):
        if reason is not None:
            yield path, None, f"{path}: {reason}"
            continue
        try:
            yield path, recommend(path, task, top, heads, model_dir, platform, context, include_dirs, profile,
                                  cflags), None
        except MirtuneError as exc:
            yield path, None, exc.line()
