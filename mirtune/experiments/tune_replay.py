"""Tuning runs replayed on the collected datasets: how many real runs each search strategy spends before it finds
(nearly) the best configuration of a program it has never seen, with and without mirtune's predictor.

Every configuration of a dataset was really measured, so the dataset says what each run of a tuner would cost
and show: a run is one distinct configuration measured, and its result is the measured speedup over the default
(0 where the configuration crashed, hung or answered wrongly). The protocol is leave-one-application-out: for
each application, the predictor's head is chosen by inner cross-validation over the OTHER applications and fitted
on them (`select.select_configs`, `select.outer_gains`), then every group (program, input size) of the held-out
application is tuned by each strategy:

- `predictor top-1`: the default, then the predictor's best non-default configuration (2 runs, nothing more);
- `predictor-seeded optuna`: `mirtune tune` itself: the default, then its seeds from the predictor's ranking
  (`tune.seed_configs`: the best at each thread count, then the top-K), then its search;
- `optuna`: the default, then tune's search with no seeds;
- `random`: the default, then distinct configurations uniformly at random;
- `grid`: the default, then the configurations in the task's space order;
- `code-free top-1`, `code-free-seeded optuna`: the two predictor strategies with the predictor replaced by the
  ranking that reads no code: the configurations' mean log speedup over the training applications (what a gain
  head falls back to with no program features). The control that says whether the program helps.

The searches are `mirtune tune`'s own (`mirtune.predict.search.make_searcher`: Ray Tune's OptunaSearch behind
tune's known-points searcher), driven in this process (`mirtune.predict.search.search`) over a `RecordedMeasurer`
that looks each configuration up in the group's row of the table, where `mirtune tune` drives them from a Ray Tune
`Tuner` over real runs. The default always runs first: a real tuner measures it as the reference answer. A suggestion already
measured costs no run (the search is told the known value again), one the table lacks costs a run and scores 0.
After k runs, the share of the oracle is the best speedup found so far over the group's best speedup. Curves are
geometric means over groups and seeds; the headline is the median number of runs to reach 0.95 of the oracle over
(group, seed) pairs, over applications (the median of each application's (group, seed) pairs), and over the
(group, seed) pairs whose default is short of 0.95 (the groups that need tuning at all); groups that never reach
it count as budget + 1, and are counted.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from mirtune.errors import UsageError

STRATEGIES = ("predictor top-1", "predictor-seeded optuna", "code-free top-1", "code-free-seeded optuna", "optuna",
              "random", "grid")
STOCHASTIC = ("predictor-seeded optuna", "code-free-seeded optuna", "optuna", "random")
TARGET = 0.95          # share of the oracle a tuning run has to reach
TARGET_RUNS = 3        # issue 16: predictor-seeded tuning reaches TARGET in at most this many runs (median)
MILESTONES = (1, 2, 3, 5, 10, 20)


@dataclass(frozen=True)
class Space:
    """A tuner's search space over a gain table's configurations: one categorical per parameter that varies."""

    names: tuple[str, ...]
    choices: tuple[tuple[Any, ...], ...]
    column: dict[tuple[Any, ...], int]   # parameter values -> the table column that measured them

    @property
    def size(self) -> int:
        """The number of parameter combinations."""
        return math.prod(len(c) for c in self.choices)

    def distributions(self) -> dict[str, Any]:
        """Optuna's distributions of the parameters."""
        from optuna.distributions import CategoricalDistribution

        return {n: CategoricalDistribution(c) for n, c in zip(self.names, self.choices)}

    def key(self, params: dict[str, Any]) -> tuple[Any, ...]:
        """A combination's parameter values in the space's order."""
        return tuple(params[n] for n in self.names)

    def keys(self, columns: Sequence[int]) -> list[tuple[Any, ...]]:
        """The combinations measured by table columns (a column of no combination left out)."""
        of = {c: k for k, c in self.column.items()}
        return [of[int(c)] for c in columns if int(c) in of]

    def as_dict(self) -> dict[str, tuple[Any, ...]]:
        """Parameter -> its values: the space as `mirtune tune`'s search takes it."""
        return dict(zip(self.names, self.choices))


def _order(v: Any) -> tuple:
    return (0, v, "") if isinstance(v, (int, float)) else (2, 0, "") if v is None else (1, 0, str(v))


def search_space(configs: Sequence[dict[str, Any]]) -> Space:
    """The space of the non-default configurations (configs[0] is the default): the values each parameter takes,
    parameters that never vary (a power limit never swept) left out."""
    rest = list(configs[1:])
    names, choices = [], []
    for name in dict.fromkeys(k for c in rest for k in c):
        values = sorted({c.get(name) for c in rest}, key=_order)
        if len(values) > 1:
            names.append(name)
            choices.append(tuple(values))
    column = {tuple(c.get(n) for n in names): i + 1 for i, c in enumerate(rest)}
    return Space(tuple(names), tuple(choices), column)


def run_value(row: np.ndarray, column: int | None) -> float:
    """What measuring a configuration shows: its speedup over the default, 0 when it failed or does not exist."""
    if column is None or not np.isfinite(row[column]):
        return 0.0
    return float(row[column])


def fixed_runs(row: np.ndarray, order: Sequence[int], budget: int) -> list[float]:
    """The values of a tuning run that measures the default, then the columns of `order`, `budget` runs at most."""
    return [run_value(row, int(c)) for c in [0, *order][:budget]]


def optuna_runs(row: np.ndarray, space: Space, budget: int, seed: int, first: Sequence[int] = ()) -> list[float]:
    """The values of a tuning run by `mirtune tune`'s own search (`mirtune.predict.search.search`: OptunaSearch behind
    tune's known-points wrapper, the columns `first` its first points) over the recorded row: the default first."""
    from mirtune.measure.measurer import Record, RecordedMeasurer
    from mirtune.predict.search import search

    measurer = RecordedMeasurer(space.names, {k: Record(run_value(row, c), "ok" if run_value(row, c) else "failed")
                                              for k, c in space.column.items()})
    seeds = [dict(zip(space.names, key)) for key in space.keys(first)]
    return [rec.score for _, rec in search(measurer, space.as_dict(), budget, seeds, seed)]


def tune_seeds(ranking: Sequence[int], space: Space, top_k: int) -> list[int]:
    """The columns `mirtune tune` measures first given a predictor's ranking of columns (best first): its own
    `seed_configs` (the best at each thread count, then the top-k)."""
    from mirtune.predict.search import seed_configs

    configs = [dict(zip(space.names, key)) for key in space.keys(ranking)]
    return [space.column[space.key(c)] for c in seed_configs(configs, space.as_dict(), top_k)]


def shares(runs: Sequence[float], oracle: float, budget: int) -> np.ndarray:
    """Best speedup found after k = 1..budget runs over the oracle's (a run that ended early keeps its best)."""
    best = np.maximum.accumulate(np.asarray(runs, dtype=np.float64))
    return np.concatenate([best, np.full(budget - len(best), best[-1])])[:budget] / oracle


def runs_to(curve: np.ndarray, target: float = TARGET) -> int:
    """The number of runs after which `curve` first reaches `target` (len(curve) + 1 if it never does)."""
    hit = np.flatnonzero(curve >= target - 1e-12)
    return int(hit[0]) + 1 if len(hit) else len(curve) + 1


def rankings(gains: np.ndarray) -> np.ndarray:
    """The non-default columns of each row, the highest predicted gain first: [n_rows, n_configs - 1]."""
    return np.argsort(-np.asarray(gains)[:, 1:], axis=1, kind="stable") + 1


def group_seed(seed: int, group: int) -> int:
    """A sampler seed for one (seed, group), so that groups do not share one random order."""
    return int(np.random.SeedSequence([seed, group]).generate_state(1)[0])


def code_free_gains(table) -> np.ndarray:
    """Each group's ranking scores read from no code: the mean training gain of every configuration over the
    other applications' groups, [n_groups, n_configs]."""
    from mirtune.tasks.measured import leave_one_app_out

    gains = table.train_gains()
    out = np.zeros_like(gains)
    for train, test, _ in leave_one_app_out(table.apps):
        out[test] = gains[train].mean(axis=0)
    return out


def replay_group(row: np.ndarray, ranking: Sequence[int], space: Space, budget: int, seeds: Sequence[int],
                 top_k: int, group: int = 0, code_free: Sequence[int] = ()) -> dict[str, list[list[float]]]:
    """Every strategy's tuning runs on one group (`ranking`: the predictor's, `code_free`: the control's): the
    values of its runs, one list per seed (one for the deterministic strategies)."""
    rest = np.arange(1, len(row))
    per = {s: group_seed(s, group) for s in seeds}
    first, free_first = tune_seeds(ranking, space, top_k), tune_seeds(code_free, space, top_k)
    return {
        "predictor top-1": [fixed_runs(row, ranking[:1], budget)],
        "predictor-seeded optuna": [optuna_runs(row, space, budget, per[s], first) for s in seeds],
        "code-free top-1": [fixed_runs(row, code_free[:1], budget)],
        "code-free-seeded optuna": [optuna_runs(row, space, budget, per[s], free_first) for s in seeds],
        "optuna": [optuna_runs(row, space, budget, per[s]) for s in seeds],
        "random": [fixed_runs(row, np.random.default_rng(per[s]).permutation(rest), budget) for s in seeds],
        "grid": [fixed_runs(row, rest, budget)],
    }


def summarise(curves: np.ndarray, apps: Sequence[str], budget: int) -> dict[str, Any]:
    """Figures of one strategy from its share curves [n_groups, n_seeds, budget]."""
    runs = np.array([[runs_to(c) for c in group] for group in curves])
    needs_tuning = curves[:, 0, 0] < TARGET - 1e-12  # the default (run 1) is short of the target
    apps = np.asarray(apps)
    per_app = [float(np.median(runs[apps == a])) for a in dict.fromkeys(apps.tolist())]
    curve = np.exp(np.log(np.maximum(curves, 1e-3)).mean(axis=(0, 1)))
    return {
        "curve": [round(float(v), 4) for v in curve],
        "reached_by": [round(float(v), 4) for v in (curves >= TARGET - 1e-12).mean(axis=(0, 1))],
        "share_at": {str(k): round(float(curve[k - 1]), 4) for k in MILESTONES if k <= budget},
        "median_runs_to_target": float(np.median(runs)),
        "median_runs_to_target_apps": float(np.median(per_app)),
        "median_runs_to_target_needing_tuning": float(np.median(runs[needs_tuning])) if needs_tuning.any() else 1.0,
        "groups_needing_tuning": int(needs_tuning.sum()),
        "never_reach": int((runs > budget).sum()), "runs_counted": int(runs.size),
        "runs_to_target": runs.tolist(),
    }


def check_settings(budget: int, seeds: Sequence[int], top_k: int) -> None:
    """UsageError unless the budget holds the default and one more run, and top-k and the seeds are not empty."""
    if budget < 2:
        raise UsageError(f"a tuning budget must be at least 2 runs (the default and one more); got {budget}")
    if top_k < 1 or not len(seeds):
        raise UsageError("--top-k and --seeds must be at least 1")


def replay(table, gains: np.ndarray, budget: int = 20, seeds: Sequence[int] = range(5), top_k: int = 3,
           note: Callable[[str], None] | None = None, progress: Callable | None = None) -> dict[str, Any]:
    """Replay every strategy on every group of `table`, ranking configurations by `gains` (each row predicted
    without its application); returns the figures (see the module doc)."""
    from mirtune.predict.search import REPEAT_ASKS
    from mirtune.tasks.measured import leave_one_app_out

    seeds = list(seeds)
    check_settings(budget, seeds, top_k)
    speedups = table.speedups
    space = search_space(table.configs)
    ranks, free_ranks = rankings(gains), rankings(code_free_gains(table))
    oracle = np.nanmax(speedups, axis=1)
    curves = {s: np.zeros((len(table), len(seeds) if s in STOCHASTIC else 1, budget)) for s in STRATEGIES}
    folds = leave_one_app_out(table.apps)
    t0 = time.monotonic()
    steps = progress(folds, total=len(folds), desc="replay") if progress else folds
    for i, (_, rows, app) in enumerate(steps):
        for g in rows:
            for name, runs in replay_group(speedups[g], ranks[g], space, budget, seeds, top_k, int(g),
                                           free_ranks[g]).items():
                curves[name][g] = [shares(r, oracle[g], budget) for r in runs]
        if note:
            note(f"replayed {i + 1}/{len(folds)} applications ({app}: {len(rows)} groups), "
                 f"{time.monotonic() - t0:.0f} s")
    figures = {name: summarise(c, table.apps, budget) for name, c in curves.items()}
    return {
        "strategies": figures,
        "target": target_check(figures),
        "space": {n: list(c) for n, c in zip(space.names, space.choices)},
        "settings": {"budget": budget, "seeds": seeds, "top_k": top_k, "target_share": TARGET,
                     "search": "mirtune tune's: Ray Tune OptunaSearch (TPE) behind its known-points searcher, "
                               "seeded by its seed_configs; sampler seed per (seed, group)",
                     "max_free_asks": REPEAT_ASKS},
        "groups": [{"program": table.programs[g], "size": table.sizes[g], "app": table.apps[g],
                    "oracle_speedup": round(float(oracle[g]), 4),
                    "oracle_config": table.labels[int(np.nanargmax(speedups[g]))],
                    "predicted_top": [table.labels[int(c)] for c in ranks[g][:top_k]],
                    "code_free_top": [table.labels[int(c)] for c in free_ranks[g][:top_k]],
                    "runs_to_target": {n: figures[n]["runs_to_target"][g] for n in STRATEGIES}}
                   for g in range(len(table))],
        "replay_s": round(time.monotonic() - t0, 1),
    }


def target_check(figures: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Issue 16's target: predictor-seeded tuning reaches TARGET in at most TARGET_RUNS runs (median over
    applications), fewer than plain Optuna."""
    seeded = figures["predictor-seeded optuna"]["median_runs_to_target_apps"]
    plain = figures["optuna"]["median_runs_to_target_apps"]
    return {"seeded_median_runs_apps": seeded, "optuna_median_runs_apps": plain, "at_most": TARGET_RUNS,
            "met": bool(seeded <= TARGET_RUNS and seeded < plain)}


def run(task: str, data_paths: Sequence[str], embedder, heads: Sequence[str] = ("gain", "knn"), budget: int = 20,
        seeds: Sequence[int] = range(5), top_k: int = 3, program_dirs: Sequence[str] = (), use_ray: bool = True,
        n_configs: int | None = None, n_inner: int = 5, note: Callable[[str], None] = print,
        progress: Callable | None = None) -> dict[str, Any]:
    """The whole evaluation: embed, choose and fit the predictor per held-out application, replay; JSON-ready."""
    from mirtune.predict.held_out import held_out_problem
    from mirtune.predict.predictor import candidate_configs, gain_problem, table_matrix
    from mirtune.predict.select import outer_gains, select_configs

    check_settings(budget, list(seeds), top_k)
    t0 = time.monotonic()
    definition, table, folds, outer = held_out_problem(task, data_paths, program_dirs)
    note(f"{task}: {len(table)} groups of {len(folds)} applications x {len(table.labels)} configurations; "
         f"leave-one-application-out replay, budget {budget} runs")
    X = table_matrix(table, task, embedder, note=note)
    problem = gain_problem(embedder.name, table, X, outer, len(definition.context_names))
    t_embed = time.monotonic() - t0
    configs = candidate_configs(heads, n_configs)
    note(f"{task}: choosing the predictor's head among {len(configs)} configurations by inner {n_inner}-fold CV, "
         f"then fitting it for each of the {len(outer)} held-out applications")
    t1 = time.monotonic()
    chosen = select_configs([problem], configs, n_inner=n_inner, use_ray=use_ray, note=None)
    gains = outer_gains([problem], chosen, use_ray=use_ray, progress=progress)[problem.name]
    t_fit = time.monotonic() - t1
    note(f"{task}: replaying {len(STRATEGIES)} strategies x {len(list(seeds))} seeds on {len(table)} groups")
    result = {"task": task, "data": [str(p) for p in data_paths], "protocol": "leave-one-application-out",
              "applications": len(folds), "group_count": len(table), "configurations": table.labels,
              "embedding": embedder.name, "heads": list(heads), "candidates": len(configs), "inner_folds": n_inner,
              "chosen_heads": [dict(chosen[(problem.name, k)], app=folds[k][2]) for k in range(len(outer))]}
    result.update(replay(table, gains, budget, seeds, top_k, note=note, progress=progress))
    result.update(hosts=table.hosts, dropped=table.dropped,
                  timing_s={"embed": round(t_embed, 1), "select_and_fit": round(t_fit, 1),
                            "replay": result.pop("replay_s"), "total": round(time.monotonic() - t0, 1)})
    return result


def table(result: dict[str, Any]) -> str:
    """The result as a text table, one line per strategy, and the target's verdict."""
    from mirtune.tables import format_table

    budget = result["settings"]["budget"]
    ks = [k for k in MILESTONES if k <= budget]
    at = min(TARGET_RUNS, budget)
    header = ["strategy"] + [f"share@{k}" for k in ks] + [f">={TARGET} after {at}", "median runs (group x seed)",
                                                         "(apps)", "(default < 0.95)", "never reach"]
    rows = [[name] + [f"{f['share_at'][str(k)]:.3f}" for k in ks]
            + [f"{f['reached_by'][at - 1]:.0%}", f"{f['median_runs_to_target']:g}",
               f"{f['median_runs_to_target_apps']:g}", f"{f['median_runs_to_target_needing_tuning']:g}",
               f"{f['never_reach']}/{f['runs_counted']}"]
            for name, f in result["strategies"].items()]
    t = result["target"]
    head = (f"{result['task']}: tuning replayed on {result['group_count']} groups of {result['applications']} "
            f"applications ({len(result['configurations'])} configurations), {result['protocol']}, budget {budget} "
            f"runs, {len(result['settings']['seeds'])} seeds, top-k {result['settings']['top_k']}; share of the "
            f"oracle after k runs (geometric mean); runs to reach {TARGET} of it (the default is run 1)")
    verdict = (f"target (predictor-seeded reaches {TARGET} of the oracle in <= {t['at_most']} runs, median over "
               f"applications, fewer than optuna): {'met' if t['met'] else 'NOT met'} "
               f"({t['seeded_median_runs_apps']:g} vs {t['optuna_median_runs_apps']:g} runs)")
    return head + "\n" + format_table(header, rows) + "\n" + verdict


def plot(result: dict[str, Any], out: Path) -> None:
    """Two panels against the number of runs: the geometric-mean share of the oracle, and the fraction of
    (group, seed) tuning runs that have reached 0.95 of it."""
    from mirtune.figures import pyplot, save

    plt = pyplot()

    budget = result["settings"]["budget"]
    k = np.arange(1, budget + 1)
    fig, axes = plt.subplots(1, 2, figsize=(12, 4.4))
    for name, f in result["strategies"].items():
        label = f"{name} ({f['median_runs_to_target_apps']:g})"
        axes[0].plot(k, f["curve"], marker="o", ms=3, label=label)
        axes[1].plot(k, f["reached_by"], marker="o", ms=3, label=label)
    axes[0].axhline(TARGET, color="grey", lw=0.6, ls="--")
    axes[0].set_ylabel("share of the oracle (geometric mean)")
    axes[1].axhline(0.5, color="grey", lw=0.6, ls="--")
    axes[1].set_ylabel(f"fraction of tuning runs at >= {TARGET} of the oracle")
    for ax in axes:
        ax.set_xlabel("runs (distinct configurations measured; run 1 = the default)")
        ax.set_xticks(k[::2] if budget > 12 else k)
        ax.grid(alpha=0.3)
    axes[1].legend(fontsize=8, loc="lower right", title=f"median runs to {TARGET} (applications)",
                   title_fontsize=8)
    fig.suptitle(f"{result['task']}: tuning replayed on {result['group_count']} groups, "
                 f"{result['protocol']} ({len(result['settings']['seeds'])} seeds)", fontsize=10)
    fig.tight_layout()
    save(fig, out, dpi=130)
