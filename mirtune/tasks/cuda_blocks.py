"""The CUDA thread-block task: the block shape (BLOCKX, BLOCKY) a kernel is launched with, per matrix size.

Data: the `lscat` collector's rows (`mirtune collect lscat` on GPU nodes), one group per (kernel, matrix size),
block (16,16) as the default configuration (the collector's reference), judged by the kernel's own time per
launch (`reported_median`, CUDA events) rather than the process time, which creating the CUDA context dominates.
Protocol: leave one application out, where a kernel's application is the first part of its name below the folder
swept: its source repository in an LS-CAT checkout (`<Repo>/<underdirectory>`), its family for the generated
kernels (`map/cg_map_0041`, collectors/cudagen.py), the kernel itself for a flat folder (the 26 shipped kernels). The predictor reads the kernel's device IR (the kernel file of an LS-CAT kernel
directory compiled by clang's CUDA front end, `mirtune.predict.predictor.program_ir`) and one context feature, the
matrix size, which is the group's and not the IR's: `group_context` gives it for training rows, the user gives it
to `recommend` (`--matrix`).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

if TYPE_CHECKING:
    import numpy as np

from mirtune.errors import UsageError
from mirtune.paths import REPO_DIR
from mirtune.tasks.base import MEASURED, Task, TaskSpec

NAME = "cuda_blocks"
PARAMETERS = ("block_x", "block_y", "block_size")
CONTEXT = ("log2_matrix",)
DEFAULT_BLOCK = (16, 16)
DATASETS = ("lscat-h100",)  # the default data: the 26 shipped kernels on an NVIDIA H100 (datasets/README.md)


def _label(cfg: dict[str, Any]) -> str:
    return f"{cfg['block_x']}x{cfg['block_y']}"


def kernel_file(folder: str | os.PathLike) -> Path:
    """The kernel source of an LS-CAT kernel directory: its one .cu file besides main.cu (the host program), else
    main.cu; UsageError when the folder holds no main.cu."""
    folder = Path(folder)
    if not (folder / "main.cu").is_file():
        raise UsageError("not a CUDA kernel directory (no main.cu)", str(folder))
    kernels = sorted(p for p in folder.glob("*.cu") if p.name != "main.cu")
    return kernels[0] if len(kernels) == 1 else folder / "main.cu"


def locate(program_path: str, sha256: str, search: Sequence[str | os.PathLike] = ()) -> Path:
    """The kernel file of a measured kernel directory: the recorded one, else a directory of the same name in
    `search` (or `<family>/<name>` there, as collectors/cudagen.py writes them) or at the same place under this
    repository. Directories are matched by name: their recorded hash
    covers headers up to the folder the sweep was given, which a checkout elsewhere need not reproduce."""
    recorded = Path(program_path)
    candidates = [recorded] + [Path(d) / sub for d in search
                               for sub in (recorded.name, Path(recorded.parent.name) / recorded.name)]
    parts = recorded.parts
    if "collectors" in parts:
        candidates.append(REPO_DIR.joinpath(*parts[parts.index("collectors"):]))
    for c in candidates:
        if (c / "main.cu").is_file():
            return kernel_file(c)
    raise UsageError(f"cannot find the kernel directory {recorded.name} (holding main.cu); pass the folder "
                     "holding it with --programs")


def application(program: str) -> str:
    """The application a kernel belongs to (see the module doc): the first part of its name."""
    return program.split("/", 1)[0]


SPEC = TaskSpec(name=NAME, sweep="lscat", config_columns=("block_x", "block_y"),
                app_of=lambda row: application(str(row["program"])), label=_label, default_label=_label(
                    {"block_x": DEFAULT_BLOCK[0], "block_y": DEFAULT_BLOCK[1]}),
                time_column="reported_median", locate=locate)


def matrix_context(matrix: float) -> "np.ndarray":
    """The context of one launch over an N x N matrix; UsageError unless N is positive."""
    import numpy as np

    if matrix is None or not math.isfinite(float(matrix)) or float(matrix) < 1:
        raise UsageError("--task cuda_blocks needs the launch's matrix size: --matrix N (XSIZE = YSIZE, N >= 1)")
    return np.array([math.log2(float(matrix))])


def group_context(table) -> "np.ndarray":
    """The context of every group of a gain table: its matrix size (the collector's input size)."""
    import numpy as np

    return np.stack([matrix_context(float(s.split("/")[0])) for s in table.sizes])


class CudaBlocksTask(Task):
    name, kind, spec, datasets = NAME, MEASURED, SPEC, DATASETS
    parameter_names, context_names = PARAMETERS, CONTEXT
    launch_options = {"matrix": "the launch's matrix size (XSIZE = YSIZE)"}
    device = "gpu"
    data_efficiency = True

    def parameters(self, config, trained_cores=None, host_cores=None):
        """The default (empty) configuration is block (16,16)."""
        bx, by = config.get("block_x") or DEFAULT_BLOCK[0], config.get("block_y") or DEFAULT_BLOCK[1]
        return {"block_x": int(bx), "block_y": int(by), "block_size": int(bx) * int(by)}

    def context_features(self, module, launch=None):
        """None from the IR: the matrix size comes with the group (`group_context`) or from the user."""
        return matrix_context((launch or {}).get("matrix"))

    def group_context(self, table):
        return group_context(table)

    def how_to_apply(self, params, is_default, source=None, context=None):
        launch = (f"launch with dim3 block({params['block_x']}, {params['block_y']}) ({params['block_size']} "
                  "threads) and a grid that covers the matrix")
        return [("keep the default: " if is_default else "") + launch]

    def no_predictor(self, folder):
        return ("no cuda_blocks predictor ships: on held-out kernels none beat the default block 16x16 (26 kernels "
                "on an NVIDIA H100; 1,016 generated kernels on an NVIDIA H200, family held out: docs/results.md); "
                "keep 16x16, or time your GPU with `mirtune collect lscat` and fit one with `mirtune fit --task "
                "cuda_blocks --data DIR`")

    def program_file(self, path: Path) -> Path:
        return kernel_file(path) if path.is_dir() else path

    def inputs(self, paths):
        return kernel_inputs(paths)


def kernel_inputs(paths: Sequence[str | os.PathLike]):
    """The task's inputs: (kernel, None) for every kernel file or LS-CAT kernel directory (holding main.cu) named
    or found below a folder, main.cu standing for its directory; (path, reason) for a path that yields none."""
    from mirtune.ir.inputs import expand_inputs

    for raw in paths:
        path = Path(raw)
        if path.is_dir() and not (path / "main.cu").is_file():
            dirs = sorted({m.parent for m in path.rglob("main.cu")})
            if dirs:
                yield from ((d, None) for d in dirs)
                continue
        if path.is_dir() or path.name == "main.cu":
            yield (path if path.is_dir() else path.parent), None
            continue
        yield from expand_inputs([path])


TASK = CudaBlocksTask()
