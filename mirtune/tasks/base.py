"""What a task is, as one interface: `Task`. Each task module (openmp.py, vectorize.py, cuda_blocks.py, devmap.py,
coarsening.py) defines one `TASK = SomeTask(...)`, and mirtune.tasks.registry lists them, one line each; the
commands (recommend, fit, apply, evaluate) and the predictors read a task only through this interface, so that no
task name appears outside mirtune/tasks/.

A task says:
- who it is: `name`, `kind` (MEASURED: learnt from mirtune's own collector data, `spec` says how its rows read and
  `datasets` are its default data; PUBLISHED: the paper's public data, one predictor per `platforms` entry);
- its configurations: `parameter_names`, `label(config)` (the name a predictor and a gain table give it),
  `parameters(config, trained_cores, host_cores)` (named values for this host), the default is the empty
  configuration `{}` (the reference every gain is measured against);
- its context features besides the embedding: `context_names`, `context_features(module, launch)` (from the IR
  module and, where the task has them, the launch facts the user gives: `launch_options`), `group_context(table)`
  for the rows of a gain table;
- how to use an answer: `nothing_to_tune(module, context, is_ir)`, `how_to_apply(params, is_default, source,
  context)` (the lines `mirtune recommend` prints), and, where `applies`, `parse_config(text)` and
  `apply(text, config, line)` (`mirtune apply`: the configuration written into a copy of the source);
- what it takes part in: `links_programs` (several files of one program), `profiles` (`recommend --profile`),
  `replays_tuning` (`evaluate tuning`), `data_efficiency` (`evaluate data-efficiency`), `default_embedding`
  (`fit`), `evaluate_embeddings` (`evaluate measured`), `tunes` (`mirtune tune`);
- where it `tunes`, how `mirtune tune` measures it with real runs: `tune_dimensions()`, `cores_values(cores)` and
  `tune_space(cores, space)` (the search space on a node of `cores`), `tune_sources(sources, texts, line, label)`
  (the texts to build),
  `build_text(text, config, line)` and `builds_openmp` (a configuration's build), `run_env(config, cores)` (its
  environment), `tune_columns()` and `tune_row(config, cores)` (its dataset row), and `tuned_apply(params,
  is_default, source, rewritten)` (the lines `mirtune tune` answers with).

Nothing here imports numpy or pandas at import time: `mirtune --help` reads the registry.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from mirtune.errors import UsageError

if TYPE_CHECKING:
    import numpy as np

MEASURED = "measured"    # learnt from mirtune's own collector measurements (datasets/)
PUBLISHED = "published"  # the paper's public data (devmap/, thread-coarsening/), one predictor per platform
KINDS = (MEASURED, PUBLISHED)


@dataclass(frozen=True)
class TaskSpec:
    """What distinguishes one measured task: the sweep name in the rows, the configuration columns, how to name
    a configuration and which application a row belongs to."""

    name: str
    sweep: str
    config_columns: tuple[str, ...]
    app_of: Callable[[dict[str, Any]], str]
    label: Callable[[dict[str, Any]], str]
    default_label: str = "default"
    time_column: str = "median_s"  # the time a configuration is judged by (cuda_blocks: the kernel's own time)
    # (recorded program_path, program_sha256, search folders) -> the source the predictor reads
    locate: Callable[[str, str, Sequence[str | os.PathLike]], Path] | None = None


class Task:
    """One task (see the module doc). Subclasses set the class attributes and override what differs; every
    method has one signature for every task."""

    name: str = ""
    kind: str = MEASURED
    spec: TaskSpec | None = None              # MEASURED: how its collector rows read
    datasets: tuple[str, ...] = ()            # MEASURED: the default data, folders under datasets/
    platforms: tuple[str, ...] = ()           # PUBLISHED: one predictor per platform
    data_folder: str = ""                     # PUBLISHED: its folder in the published data directory
    parameter_names: tuple[str, ...] = ()     # names in recommendations and --json
    context_names: tuple[str, ...] = ()       # the trailing feature columns besides the embedding
    launch_options: Mapping[str, str] = {}    # launch facts the user gives `recommend` (key -> help)
    device: str = "cpu"                       # where the configurations run: cpu or gpu
    scales_with_cores: bool = False           # a configuration names a thread count ("all cores" travels)
    links_programs: bool = False              # several files of one program are linked into one module
    profiles: bool = False                    # `recommend --profile` can run it under the OMPT tool
    applies: bool = False                     # `mirtune apply` writes its configurations into a source
    takes_line: bool = False                  # `mirtune apply --line N`: the one loop it tunes
    replays_tuning: bool = False              # `evaluate tuning` replays its tuning runs on the collected data
    data_efficiency: bool = False             # `evaluate data-efficiency` runs on it
    default_embedding: str = "mirencoder"     # `fit`'s program features by default
    evaluate_embeddings: tuple[str, ...] = ("mirencoder", "ir2vec")  # `evaluate measured` by default
    tunes: bool = False                       # `mirtune tune` measures its configurations with real runs
    builds_openmp: bool = False               # `mirtune tune` builds its programs with OpenMP (-fopenmp)
    apply_help: str = ""                      # `mirtune apply --help`: the keys of --config

    # ------------------------------------------------------------------------------------ configurations

    def label(self, config: Mapping[str, Any]) -> str:
        """A configuration's name (the default, `{}`, is the spec's default label)."""
        if not config:
            return self.spec.default_label if self.spec else "default"
        return self.spec.label(dict(config)) if self.spec else ",".join(f"{k}={v}" for k, v in config.items())

    def parameters(self, config: Mapping[str, Any], trained_cores: int | None = None,
                   host_cores: int | None = None) -> dict[str, Any]:
        """A configuration as named parameters for this host (None where it keeps the default)."""
        return {k: config.get(k) for k in self.parameter_names}

    # ------------------------------------------------------------------------------------ context

    def context_features(self, module: Any, launch: Mapping[str, Any] | None = None) -> np.ndarray:
        """The `context_names` features of one program: from its IR module (an `IRModule`; may be None for a task
        whose context is all launch facts) and the launch facts (`launch_options`) the user gives."""
        import numpy as np

        return np.zeros(0, dtype=np.float64)

    def group_context(self, table: Any) -> np.ndarray | None:
        """The per-group context of a gain table's rows that is not in the IR (None: the IR holds it all)."""
        return None

    # ------------------------------------------------------------------------------------ answers

    def nothing_to_tune(self, module: Any, context: np.ndarray, is_ir: bool) -> str | None:
        """Why this program has nothing for the task to tune (one line), or None."""
        return None

    def how_to_apply(self, params: Mapping[str, Any], is_default: bool, source: str | None = None,
                     context: np.ndarray | None = None) -> list[str]:
        """Lines telling a user how to use `params` (`source`: the file to name in commands, when there is one)."""
        raise NotImplementedError

    def no_predictor(self, folder: Path) -> str:
        """The line `recommend` gives when no predictor for this task is found at `folder`."""
        return f"no {self.name} predictor at {folder}; fit one with `mirtune fit --task {self.name}`"

    def parse_config(self, text: str) -> dict[str, Any]:
        """`mirtune apply --config TEXT` as a configuration; UsageError when it is not one."""
        raise UsageError(f"unknown task {self.name!r} for apply; supported: {', '.join(applying())}")

    def apply(self, text: str, config: Mapping[str, Any], line: int | None) -> tuple[str, list[str]]:
        """`text` (a C/C++ source) with `config` written into it, and the lines that say what changed (the first
        says where; `line`: where the loop to tune starts, for a task that tunes one loop)."""
        raise UsageError(f"unknown task {self.name!r} for apply; supported: {', '.join(applying())}")

    # ------------------------------------------------------------------------------------ tuning (`mirtune tune`)

    def tune_dimensions(self) -> dict[str, Any]:
        """The dimensions `mirtune tune` searches (name -> mirtune.measure.space.Dimension)."""
        raise NotImplementedError

    @property
    def tune_keys(self) -> str:
        """The names of the tuned dimensions, for help text ("a, b")."""
        return ", ".join(self.tune_dimensions())

    def cores_values(self, cores: int) -> dict[str, tuple[Any, ...]]:
        """The dimensions whose values follow a node's `cores` (unless `--space` names them), and their values."""
        return {}

    def tune_space(self, cores: int, space: Sequence[str] | str | None = None) -> dict[str, tuple[Any, ...]]:
        """Parameter -> values: the tuned dimensions on a node with `cores`, narrowed by `--space key=v1,v2` items
        (UsageError for an unknown parameter or value)."""
        from mirtune.measure.space import parse_space, resolve

        dims = self.tune_dimensions()
        restrict = parse_space(space, dims)
        values = dict(resolve(dims, restrict))
        values.update({k: v for k, v in self.cores_values(cores).items() if k not in restrict})
        return values

    def tune_sources(self, sources: Sequence[Path], texts: Sequence[str], line: int | None,
                     label: str) -> tuple[list[str], dict[str, Any], str]:
        """(the texts to build, one per file of `sources`; the build's row columns; the file whose loops the answer
        names, "" for the first) from the files' `texts`; MirtuneError (naming `label`, the program) or UsageError
        when there is nothing to tune."""
        return list(texts), {}, ""

    def build_text(self, text: str, config: Mapping[str, Any] | None, line: int | None) -> str:
        """The first file's text to build for a configuration (None: the default)."""
        return text

    def run_env(self, config: Mapping[str, Any] | None, cores: int) -> dict[str, Any]:
        """The environment a configuration runs in on a node of `cores` (None: the default)."""
        return {}

    def tune_columns(self) -> dict[str, Any]:
        """The sweep's Parquet columns (name -> pyarrow type) of a tuning's rows."""
        raise NotImplementedError

    def tune_row(self, config: Mapping[str, Any] | None, cores: int) -> tuple[dict[str, Any], dict[str, Any]]:
        """(the configuration's row parameters, the sweep's own columns) of a tuned configuration (None: the
        default) on a node of `cores`."""
        raise NotImplementedError

    def tuned_apply(self, params: Mapping[str, Any], is_default: bool, source: str,
                    rewritten: bool) -> list[str]:
        """The lines `mirtune tune` answers with for `params` (`rewritten`: the build text differed from the
        user's file, so the configuration needs a rewrite to reach the program)."""
        return self.how_to_apply(params, is_default, source, None)

    # ------------------------------------------------------------------------------------ inputs and data

    def inputs(self, paths: Sequence[str | os.PathLike]):
        """(program, None) for every program under `paths`, (path, one-line reason) for a path that has none."""
        from mirtune.ir.inputs import expand_inputs

        return expand_inputs(list(paths))

    def source_file(self, files: Sequence[Path]) -> str | None:
        """The source of a program of several files that `how_to_apply` names: the first file, unless it is IR."""
        return str(files[0]) if files[0].suffix not in (".ll", ".bc") else None

    def program_file(self, path: Path) -> Path:
        """The file the predictor reads for an input (a kernel directory's kernel file)."""
        return path

    def gain_table(self, data: Sequence[str | os.PathLike], program_dirs: Sequence[str | os.PathLike] = (),
                   platform: str | None = None) -> Any:
        """The task's gain table (`mirtune.tasks.measured.GainTable`): MEASURED, from the collector Parquet under
        `data`; PUBLISHED, from the published data folder `data[0]` for `platform`."""
        from mirtune.tasks.measured import load_gain_table

        return load_gain_table(data, self.spec, program_dirs)

    def __repr__(self) -> str:
        return f"<task {self.name} ({self.kind})>"


def applying() -> list[str]:
    """The tasks `mirtune apply` takes."""
    from mirtune.tasks.registry import names

    return names(applies=True)
