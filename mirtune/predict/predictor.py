"""A fitted task predictor: the frozen embedding plus the task's context features in, the predicted speedup of
every configuration over the default out.

    table = load_gain_table(["datasets/openmp"], openmp.SPEC)
    X = program_matrix(table.sources, "openmp", embedder)          # [n_groups, dim + context]
    predictor = fit_predictor("openmp", table, X, embedder)        # head chosen by Ray Tune inner CV
    predictor.save("heads/openmp");  predictor = load_predictor("heads/openmp", embedder)
    predictor.predict_speedups(X[:1])                              # [1, n_configs]

Heads are gain heads (`mirtune.predict.heads`: ridge regression or nearest neighbours of every configuration's
log speedup), because a recommendation needs a predicted speedup for each configuration, not only a winner.
Which one, and how strongly it is regularised towards the one configuration best on average, is chosen by
inner cross-validation over applications (`group_kfold`) with Ray Tune (`select_configs`).

On disk (no pickle): `predictor.json` (task, configurations, head kind and hyper-parameters, feature names,
the encoder's fingerprint, what it was trained on, the sha256 of the weights) and `head.safetensors` (the
head's arrays). A predictor fitted on another encoder, or whose weights do not match their recorded digest,
is refused with one line.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from mirtune.errors import MirtuneError, UsageError
from mirtune.paths import json_default, write_atomic

FORMAT = "mirtune-predictor-1"
PREDICTOR_FILE = "predictor.json"
WEIGHTS_FILE = "head.safetensors"
FIT_HEADS = ("gain", "knn", "forest")  # heads whose predictions are speedups and whose state is plain arrays
N_INNER = 5
MARGINS = (0.0, 0.03, 0.1)  # log-speedup a configuration must be predicted to gain over the anchor to be chosen
# what a head keeps without evidence: the one configuration best on average over its training data, the code-free
# baseline it has to beat (docs/recommend.md: anchored on the default, predictors lost to it on programs never seen)
ANCHORS = ("best",)


def check_embedding(task: str, embedding: str) -> None:
    """UsageError when `embedding` "none" (the context features alone) is asked of a task that has none."""
    from mirtune.tasks import registry

    if embedding == "none" and not registry.get(task).context_names:
        raise UsageError(f"{task} has no context features: --embedding none would leave a predictor nothing")


# ------------------------------------------------------------------------------------------- features

def ir_cache_dir() -> Path:
    """Where sources compiled for prediction are kept: $MIRTUNE_IR_CACHE, else ~/.cache/mirtune/ir."""
    env = os.environ.get("MIRTUNE_IR_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "mirtune" / "ir"


def program_ir(path: str | os.PathLike, opt: int = 2) -> Path:
    """The LLVM IR file of a program: a .ll/.bc as it is; a source compiled with clang at -O`opt` (with -fopenmp
    when it uses OpenMP; a CUDA kernel for the device, with its folder and the one above searched after the system
    headers, as in the LS-CAT layout), cached by the source's content, the headers beside it, the flags and clang."""
    from mirtune.ir.frontend import SOURCE_SUFFIXES, compile_to_ir, cuda_header_flags, find_clang, mentions_openmp

    path = Path(path)
    if not path.exists():
        raise UsageError("no such file or directory", str(path))
    if not path.is_file():
        raise UsageError("not a regular file", str(path))
    if path.suffix not in SOURCE_SUFFIXES:
        return path
    data = path.read_bytes()
    openmp = mentions_openmp(data.decode("utf-8", "surrogateescape"))
    h = hashlib.sha256(data + f"|O{opt}|omp{int(openmp)}|{find_clang().path}|{path.suffix}".encode())
    extra: list[str] = []
    if path.suffix == ".cu":
        h.update(" ".join(cuda_header_flags()).encode())
        # -idirafter, not -I: some kernel folders hold their own cuda.h or stdlib.h, which must not hide the real ones
        for folder in dict.fromkeys((path.resolve().parent, path.resolve().parent.parent)):
            extra += ["-idirafter", str(folder)]
            for header in sorted(folder.glob("*.cuh")) + sorted(folder.glob("*.h")):
                h.update(header.name.encode() + b"\0" + header.read_bytes())
    out = ir_cache_dir() / f"{h.hexdigest()[:32]}.ll"
    if not out.is_file():
        write_atomic(out, compile_to_ir(path, opt=opt, openmp=openmp, extra=extra or None))
    return out


LINKABLE_SUFFIXES = (".c", ".cc", ".cpp", ".cxx", ".C", ".ll", ".bc")


def program_ir_linked(sources: Sequence[str | os.PathLike], include_dirs: Sequence[str | os.PathLike] = (),
                      opt: int = 2, cflags: Sequence[str] = ()) -> Path:
    """The LLVM IR of a program of several files (or of one whose headers are in `include_dirs`, or that needs its
    build's macros): each C/C++ file compiled as `program_ir` compiles one (-O`opt`, -fopenmp for every file when
    any uses OpenMP), with `include_dirs` on the include path (clang's -I, after the file's own folder) and the
    flags of `cflags` that decide what the source means (`mirtune.ir.frontend.source_flags`: -D, -I, -std=, ...);
    .ll/.bc files as they are; then all linked into one module with llvm-link (`mirtune.ir.frontend.link_ir`).
    Cached by every file's content, the headers it includes, the flags, clang and llvm-link.

    One linked module rather than per-file features combined: the encoder and the context features were fitted on
    programs read as one module each; linked, a call into another file is a call edge to its body in the program
    graph and the loop counts add up as in one file, where averaging per-file embeddings would be nothing the
    predictors were trained on. UsageError for a missing or unlinkable file (CUDA, OpenCL), CompileError (one
    line naming the file) for one that does not compile or files that do not link (a symbol defined twice)."""
    from mirtune.ir.frontend import (compile_to_ir, find_clang, find_llvm_link, link_ir, mentions_openmp,
                                     source_flags, user_headers)

    paths = [Path(p) for p in sources]
    for path in paths:
        if not path.exists():
            raise UsageError("no such file", str(path))
        if not path.is_file():
            raise UsageError("not a regular file", str(path))
        if path.suffix not in LINKABLE_SUFFIXES:
            raise UsageError(f"not a C/C++ source or LLVM IR file ({', '.join(LINKABLE_SUFFIXES)}): the files of "
                             "one program are linked into one module", str(path))
    texts = {p: p.read_bytes().decode("utf-8", "surrogateescape") for p in paths if p.suffix not in (".ll", ".bc")}
    openmp = any(mentions_openmp(t) for t in texts.values())
    flags = [f"-I{Path(d).resolve()}" for d in include_dirs] + source_flags(list(cflags))
    clang = find_clang().path
    modules: list[Path] = []
    for path in paths:
        if path.suffix in (".ll", ".bc"):
            modules.append(path)
            continue
        h = hashlib.sha256(texts[path].encode("utf-8", "surrogateescape")
                           + f"|O{opt}|omp{int(openmp)}|{clang}|{path.suffix}|{flags}".encode())
        for header in sorted(user_headers(path.resolve(), [f"-I{path.resolve().parent}", *flags]) or []):
            try:
                h.update(str(header).encode() + b"\0" + header.read_bytes())
            except OSError:
                pass
        out = ir_cache_dir() / f"{h.hexdigest()[:32]}.ll"
        if not out.is_file():
            write_atomic(out, compile_to_ir(path, opt=opt, openmp=openmp, extra=flags or None))
        modules.append(out)
    if len(modules) == 1:
        return modules[0]
    h = hashlib.sha256(f"linked|{find_llvm_link()}".encode())
    for m in modules:
        h.update(b"\0" + hashlib.sha256(m.read_bytes()).digest())
    out = ir_cache_dir() / f"{h.hexdigest()[:32]}.linked.ll"
    if not out.is_file():
        write_atomic(out, link_ir(modules, names=[str(p) for p in paths]))
    return out


def context_matrix(ir_paths: Sequence[str | os.PathLike], task: str) -> np.ndarray:
    """The task's context features of each IR file, [n, n_context]; each distinct file is read once."""
    from mirtune.ir.module import IRModule
    from mirtune.tasks import registry

    t = registry.get(task)
    rows = {p: t.context_features(IRModule.from_file(p)) for p in dict.fromkeys(Path(p) for p in ir_paths)}
    return np.stack([rows[Path(p)] for p in ir_paths]) if rows else np.zeros((0, len(t.context_names)))


def table_context(table, task: str, ir_paths: Sequence[str | os.PathLike]) -> np.ndarray:
    """The task's context of each group of a gain table: the group's own where the task has one that is not in the
    IR (`Task.group_context`), else that of its program's IR file (`ir_paths`, one per group)."""
    from mirtune.tasks import registry

    group = registry.get(task).group_context(table)
    return context_matrix(ir_paths, task) if group is None else group


def table_matrix(table, task: str, embedder, note: Callable[[str], None] | None = None) -> np.ndarray:
    """Features of each group of a gain table: its program's embedding ++ the task's context: the group's own where
    the task has one that is not in the IR (`Task.group_context`: a launch's matrix size, a kernel's transfer and
    work-group size), else the program's (`program_matrix`)."""
    from mirtune.tasks import registry

    group = registry.get(task).group_context(table)
    if group is None:
        return program_matrix(table.sources, task, embedder, note=note)
    return np.hstack([program_matrix(table.sources, task, embedder, note=note, context=False), group])


def program_matrix(paths: Sequence[str | os.PathLike], task: str, embedder, note: Callable[[str], None] | None = None,
                   context: bool = True) -> np.ndarray:
    """Features of each program: its embedding by `embedder` ++ the task's context features (with `context`)."""
    from mirtune.tasks.embedders import embed_files

    distinct = list(dict.fromkeys(Path(p) for p in paths))
    ir = {p: program_ir(p) for p in distinct}
    if note:
        note(f"{task}: {len(distinct)} programs compiled to IR; embedding them with {embedder.name}")
    E = embed_files(embedder, [ir[p] for p in distinct])
    C = context_matrix([ir[p] for p in distinct], task) if context else np.zeros((len(distinct), 0))
    rows = {p: np.concatenate([E[i], C[i]]) for i, p in enumerate(distinct)}
    return np.stack([rows[Path(p)] for p in paths])


def profile_columns(table, profiles) -> tuple[np.ndarray, np.ndarray]:
    """The FITTED_COLUMNS of each group of a gain table (mirtune.profile.features): its profile, from the datasets'
    profile table, its program's IR columns and its probes (from the table's untimed runs); with the mask of
    the groups that have a profile (zeros where none)."""
    from mirtune.ir.module import IRModule
    from mirtune.profile.features import group_profiles, ir_vector, probe_column, profile_matrix

    P, have = profile_matrix(group_profiles(profiles, table.programs, table.sizes))
    distinct = {p: ir_vector(IRModule.from_file(program_ir(p)))
                for p in dict.fromkeys(Path(s) for s in table.sources)}
    return np.hstack([P, np.stack([distinct[Path(s)] for s in table.sources]), probe_column(table)]), have


# ------------------------------------------------------------------------------------------- problems

def gain_problem(name: str, table, X: np.ndarray, outer: list[tuple[np.ndarray, np.ndarray]], n_context: int,
                 offsets: np.ndarray | None = None):
    """A `Problem` over a gain table: rows are groups, classes are configurations, the score is the geometric-mean
    share of the oracle, inner folds never split an application. `offsets`: log gains measured before predicting
    (`Problem.offsets`); the heads then learn the gains less them."""
    from mirtune.predict.select import Problem
    from mirtune.tasks.measured import geomean, group_kfold, share_of_oracle

    speedups = table.speedups
    apps = list(table.apps)

    def score(idx: np.ndarray, pred: np.ndarray) -> float:
        return geomean(share_of_oracle(speedups, pred, idx))

    def inner(train_idx: np.ndarray, n_inner: int, seed: int):
        return group_kfold(train_idx, apps, n_inner, seed)

    gains = table.train_gains()
    return Problem(name=name, X=X, y=table.labels_best(), n_classes=len(table.labels), outer=outer,
                   inner_splits=inner, score=score, keep_columns=n_context,
                   gains=gains if offsets is None else gains - offsets, offsets=offsets)


def candidate_configs(heads: Sequence[str], n_configs: int | None = None, margins: Sequence[float] = MARGINS,
                      anchors: Sequence[str] = ANCHORS, pca: Sequence[int] = (0,)) -> list[dict[str, Any]]:
    """The head configurations the inner-CV search tries for the given head kinds, each with every anchor and
    margin (what a configuration must be predicted to beat, and by how much, to replace it), knn heads with
    each way of combining the neighbours (mirtune.predict.heads.KNN_STATISTICS), and each with every embedding cut
    of `pca` (0: the whole embedding; K: its first K principal components, fitted on the training rows)."""
    from mirtune.predict.heads import KNN_STATISTICS
    from mirtune.predict.select import search_space

    out: list[dict[str, Any]] = []
    for h in heads:
        variants = [{"statistic": v} for v in KNN_STATISTICS] if h == "knn" else [{}]
        out += [dict(c, margin=float(m), anchor=a, **extra) for extra in variants for a in anchors for m in margins
                for c in search_space(n_configs or 16, head=h, pca=pca)]
    return out


# ------------------------------------------------------------------------------------------- the predictor

@dataclass
class Predictor:
    """A fitted head over one task's configurations (see the module doc)."""

    task: str
    labels: list[str]
    configs: list[dict[str, Any]]
    head_config: dict[str, Any]
    head: Any
    features: dict[str, Any]          # embedding name/key/fingerprint, context feature names, dimension
    trained_on: dict[str, Any] = field(default_factory=dict)

    def predict_log_gains(self, X: np.ndarray) -> np.ndarray:
        """Predicted log speedup over the default of every configuration, [n, n_configs]; a predictor fitted with
        the probes' offsets (`features["probe_offsets"]`) adds what the probes measured to what its head
        predicts."""
        X = np.atleast_2d(np.asarray(X, dtype=np.float64))
        if X.shape[1] != self.features["dim"]:
            raise MirtuneError(f"the {self.task} predictor reads {self.features['dim']} features, got {X.shape[1]}")
        gains = self.head.predict_gains(X)
        if self.features.get("probe_offsets"):
            from mirtune.profile.features import probe_offsets, probe_positions

            positions = probe_positions(self.features["profile"], self.features["dim"])
            gains = gains + probe_offsets(self.configs, X, positions)
        return gains

    def predict_speedups(self, X: np.ndarray) -> np.ndarray:
        """Predicted speedup over the default of every configuration, [n, n_configs]."""
        return np.exp(self.predict_log_gains(X))

    def save(self, out: str | os.PathLike) -> Path:
        """Write predictor.json and head.safetensors into `out` (created); returns the folder."""
        from safetensors.numpy import save

        out = Path(out)
        if out.exists() and not out.is_dir():
            raise UsageError("output exists and is not a folder", str(out))
        arrays = {k: np.ascontiguousarray(v, dtype=v.dtype if v.dtype in (np.float32, np.int32) else np.float64)
                  for k, v in head_arrays(self.head).items()}  # a forest's indices and leaves stay small
        weights = save(arrays, metadata={"format": FORMAT})
        digest = hashlib.sha256(weights).hexdigest()
        write_atomic(out / WEIGHTS_FILE, weights)
        meta = {"format": FORMAT, "task": self.task, "labels": self.labels, "configs": self.configs,
                "head": self.head_config, "features": self.features, "trained_on": self.trained_on,
                "weights_sha256": digest}
        write_atomic(out / PREDICTOR_FILE, json.dumps(meta, indent=1, default=json_default) + "\n")
        return out


def head_arrays(head) -> dict[str, np.ndarray]:
    """The arrays that make up a fitted gain, knn or forest head."""
    from mirtune.predict.heads import ForestGainHead, GainHead, KNNGainHead

    if isinstance(head, ForestGainHead):
        return {"gain_mean": head.mean_, "downside": head.downside_, **head.arrays()}
    base = {"scaler_mean": head.scaler.mean_, "scaler_std": head.scaler.std_, "gain_mean": head.mean_,
            "downside": head.downside_}
    if isinstance(head, GainHead):
        return {**base, "coef": head.coef_}
    if isinstance(head, KNNGainHead):
        return {**base, "rows": head.rows_, "gains": head.gains_}
    raise MirtuneError(f"a {type(head).__name__} cannot be saved as a predictor; use one of {', '.join(FIT_HEADS)}")


def head_from_arrays(n_classes: int, config: dict[str, Any], arrays: dict[str, np.ndarray], keep: int = 0):
    """Rebuild a fitted gain, knn or forest head from its configuration and arrays (`keep`: its context columns;
    a predictor saved before heads had a downside has none: its risk must be 0)."""
    from mirtune.predict.heads import make_head

    if config.get("risk") and "downside" not in arrays:
        raise KeyError("downside (the head's risk needs it)")
    head = make_head(n_classes, config, keep=keep)
    head.downside_ = arrays.get("downside", np.zeros(n_classes))
    if config["head"] == "forest":
        head.mean_ = arrays["gain_mean"]
        return head.set_arrays(arrays)
    head.scaler.mean_, head.scaler.std_, head.mean_ = arrays["scaler_mean"], arrays["scaler_std"], arrays["gain_mean"]
    if config["head"] == "gain":
        head.coef_ = arrays["coef"]
    else:
        head.rows_, head.gains_ = arrays["rows"], arrays["gains"]
    return head


def record_never_seen(folder: str | os.PathLike, record: dict[str, Any]) -> Path:
    """Write `record` (what benchmarks/recommend_unseen.py measured of this predictor on programs never seen in its
    training: shares of the oracle of its choices and of the code-free baselines) into the predictor's
    description as trained_on.never_seen, so that `mirtune recommend` can say it; a refit replaces it."""
    path = Path(folder) / PREDICTOR_FILE
    try:
        meta = json.loads(path.read_text())
        meta["trained_on"]["never_seen"] = record
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise MirtuneError(f"cannot record into the predictor description ({type(exc).__name__}: {exc})",
                           str(path)) from None
    write_atomic(path, json.dumps(meta, indent=1, default=json_default) + "\n")
    return path


def load_predictor(folder: str | os.PathLike, fingerprint: str | None = None) -> Predictor:
    """Read a saved predictor; one MirtuneError line when it is missing, corrupt, of another format, or fitted on
    another encoder than the one whose `fingerprint` is given."""
    from safetensors import SafetensorError
    from safetensors.numpy import load_file

    folder = Path(folder)
    meta_path, weights = folder / PREDICTOR_FILE, folder / WEIGHTS_FILE
    if not meta_path.is_file() or not weights.is_file():
        raise MirtuneError(f"not a predictor folder (needs {PREDICTOR_FILE} and {WEIGHTS_FILE})", str(folder))
    try:
        meta = json.loads(meta_path.read_text())
        task, labels, configs, head_cfg = meta["task"], meta["labels"], meta["configs"], meta["head"]
        features, digest = meta["features"], meta["weights_sha256"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise MirtuneError(f"unreadable predictor description ({type(exc).__name__}: {exc})", str(meta_path)) from None
    if meta.get("format") != FORMAT:
        raise MirtuneError(f"predictor format {meta.get('format')!r}, expected {FORMAT!r}", str(meta_path))
    data = weights.read_bytes()
    if hashlib.sha256(data).hexdigest() != digest:
        raise MirtuneError("predictor weights do not match the digest recorded in predictor.json (corrupt or "
                           "replaced); refit with `mirtune fit`", str(weights))
    if fingerprint is not None and features.get("fingerprint") not in (None, fingerprint):
        raise MirtuneError(f"this {task} predictor was fitted on encoder {features.get('fingerprint')} and this "
                           f"encoder is {fingerprint}; refit it with `mirtune fit --task {task}`", str(folder))
    try:
        arrays = load_file(str(weights))
        head = head_from_arrays(len(labels), head_cfg, arrays, keep=len(features.get("context", ())))
    except (SafetensorError, KeyError, ValueError, TypeError) as exc:
        raise MirtuneError(f"unreadable predictor weights ({type(exc).__name__}: {exc})", str(weights)) from None
    if not all(np.isfinite(a).all() for a in arrays.values()):
        raise MirtuneError("predictor weights hold non-finite values", str(weights))
    choices = int(np.shape(arrays["gain_mean"])[-1]) if np.ndim(arrays["gain_mean"]) else -1
    if not (isinstance(labels, list) and isinstance(configs, list) and len(labels) == len(configs) == choices):
        raise MirtuneError(f"{PREDICTOR_FILE} lists {len(labels)} labels and {len(configs)} configurations for a "
                           f"head of {choices} choices; refit with `mirtune fit`", str(meta_path))
    return Predictor(task=task, labels=labels, configs=configs, head_config=head_cfg, head=head,
                     features=features, trained_on=meta.get("trained_on", {}))


def code_free_scores(problem, n_inner: int) -> dict[str, float]:
    """Mean inner-CV score (share of the oracle) of the default and of the best-on-average configuration, on the
    same inner folds as the head search: what the chosen head has to beat to be worth using."""
    from mirtune.predict.select import INNER_SEED
    from mirtune.tasks.measured import best_fixed

    train = problem.outer[0][0]
    splits = problem.inner_splits(train, n_inner, INNER_SEED)
    s = problem.gains if problem.offsets is None else problem.gains + problem.offsets  # log gains
    speedups = np.exp(s)
    default = [problem.score(va, np.zeros(len(va), dtype=int)) for _, va in splits]
    fixed = [problem.score(va, np.full(len(va), best_fixed(speedups, tr))) for tr, va in splits]
    return {"default": float(np.mean(default)), "best_fixed": float(np.mean(fixed))}


def fit_predictor(task: str, table, X: np.ndarray, embedder, heads: Sequence[str] = FIT_HEADS,
                  n_inner: int = N_INNER, use_ray: bool = True, n_configs: int | None = None,
                  note: Callable[[str], None] | None = None, data_paths: Sequence[str] = (),
                  profile_columns: Sequence[str] = (), rule: str = "best", risk: float = 0.0) -> Predictor:
    """Choose the head by inner cross-validation over applications (Ray Tune; `rule`: how, see
    `select.SELECTION_RULES`) and fit it on every group; `risk`: how many times each configuration's downside
    (`heads.downside`) its predicted gain loses when the head decides (chosen on programs never seen, not by the
    inner cross-validation, which sees only the training distribution).
    `profile_columns`: the names of X's last columns when they come from a profiled run
    (`mirtune.profile.features`): the predictor then needs a profile to answer (`recommend --profile`)."""
    from mirtune.predict.heads import make_head
    from mirtune.predict.select import select_configs
    from mirtune.profile.features import probe_offsets, probe_positions
    from mirtune.tasks.measured import best_fixed

    bad = [h for h in heads if h not in FIT_HEADS]
    if bad:
        raise UsageError(f"a predictor's head must be one of {', '.join(FIT_HEADS)} (they predict speedups); "
                         f"got {bad[0]!r}")
    from mirtune.tasks import registry

    context_names = [*registry.get(task).context_names, *profile_columns]
    n_context = len(context_names)
    rows = np.arange(len(table))
    if len(set(table.apps)) < 3:
        raise UsageError(f"fitting a {task} predictor needs measurements of at least 3 applications; "
                         f"got {len(set(table.apps))}")
    positions = probe_positions(profile_columns, X.shape[1])
    # what the probes measured starts the gains of their configurations; the heads learn the rest
    offsets = probe_offsets(table.configs, X, positions) if positions else None
    problem = gain_problem(task, table, X, [(rows, np.array([], dtype=int))], n_context, offsets)
    configs = candidate_configs(heads, n_configs)
    chosen = select_configs([problem], configs, n_inner=min(n_inner, len(set(table.apps))), use_ray=use_ray,
                            note=note, rule=rule)[(task, 0)]
    head_cfg = {k: v for k, v in chosen.items() if k != "inner_score"}
    if risk:
        head_cfg["risk"] = float(risk)
    head = make_head(len(table.labels), head_cfg, keep=n_context).fit(X, problem.y, problem.gains)
    cores = sorted({h.get("logical_cores") for h in table.hosts if h.get("logical_cores")})
    fixed = best_fixed(table.speedups, rows)
    baselines = code_free_scores(problem, min(n_inner, len(set(table.apps))))
    trained_on = {
        "data": [str(p) for p in data_paths], "groups": len(table), "applications": len(set(table.apps)),
        "configurations": len(table.labels), "hosts": table.hosts, "logical_cores": cores[0] if len(cores) == 1 else None,
        "inner_score": chosen.get("inner_score"), "inner_folds": n_inner, "candidates": len(configs),
        "selection_rule": rule,
        "inner_default": baselines["default"], "inner_best_fixed": baselines["best_fixed"],
        "best_fixed": table.labels[fixed], "dropped": table.dropped,
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }
    features = {"embedding": embedder.name, "key": embedder.key, "fingerprint": embedder.meta.get("fingerprint"),
                "context": context_names, "dim": int(X.shape[1])}
    if profile_columns:
        features["profile"] = list(profile_columns)
    if offsets is not None:
        features["probe_offsets"] = True
    return Predictor(task=task, labels=list(table.labels), configs=list(table.configs), head_config=head_cfg,
                     head=head, features=features, trained_on=trained_on)
