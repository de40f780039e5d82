"""A pre-training run's checkpoints: folders of safetensors and JSON (never pickle), one per reported step.

    model.safetensors      encoder.* and heads.* weights
    optimizer.safetensors  AdamW moments, with optimizer.json (hyper-parameters)
    trainer_state.json     step, samples seen, the position in the data, the metrics history and held-out
                           evaluations

Ray Train writes them under `<storage>/pretrain/step-NNNNNNNN`; this module builds the model they hold, writes and
reads them, finds the newest one that loads, and sets broken ones aside (never deleting them).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from mirtune.errors import MirtuneError

RUN_NAME = "pretrain"


def make_model(enc_cfg: Any) -> Any:
    """What a checkpoint holds: the encoder and its pre-training heads, one module whose forward is the loss."""
    import torch
    from torch import nn

    from mirtune.model.encoder import MIREncoder
    from mirtune.model.objectives import PretrainingHeads

    class PretrainModel(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = MIREncoder(enc_cfg)
            self.heads = PretrainingHeads(enc_cfg)

        def forward(self, batch, generator: torch.Generator):
            res = self.heads.losses(self.encoder, batch, generator)
            return res.loss, res.metrics

    return PretrainModel()


def save_checkpoint(directory: Path, model: Any, optimizer: Any, state: dict[str, Any]) -> None:
    """model.safetensors, optimizer.safetensors + optimizer.json, trainer_state.json."""
    import torch

    from mirtune.model.io import canonical_state, save_tensors, write_json

    tensors = canonical_state(model.encoder, "encoder.")
    tensors.update(canonical_state(model.heads, "heads."))
    save_tensors(directory / "model.safetensors", tensors)
    opt_state = optimizer.state_dict()
    opt_tensors, opt_scalars = {}, {}
    for idx, slots in opt_state["state"].items():
        for name, value in slots.items():
            if isinstance(value, torch.Tensor):
                opt_tensors[f"state.{idx}.{name}"] = value
            else:
                opt_scalars[f"{idx}.{name}"] = value
    save_tensors(directory / "optimizer.safetensors", opt_tensors)
    write_json(directory / "optimizer.json", {"param_groups": opt_state["param_groups"], "scalars": opt_scalars})
    write_json(directory / "trainer_state.json", state)


def load_checkpoint(directory: Path, model: Any, optimizer: Any | None) -> dict[str, Any]:
    """Load what save_checkpoint wrote into `model` (and `optimizer`); returns trainer_state."""
    from mirtune.model.io import load_into, load_tensors, read_json

    tensors = load_tensors(directory / "model.safetensors")
    load_into(model.encoder, tensors, "encoder.", str(directory))
    load_into(model.heads, tensors, "heads.", str(directory))
    if optimizer is not None:
        opt_tensors = load_tensors(directory / "optimizer.safetensors")
        meta = read_json(directory / "optimizer.json", "optimizer state")
        state: dict[int, dict[str, Any]] = {}
        for key, value in opt_tensors.items():
            _, idx, name = key.split(".", 2)
            state.setdefault(int(idx), {})[name] = value
        for key, value in meta.get("scalars", {}).items():
            idx, name = key.split(".", 1)
            state.setdefault(int(idx), {})[name] = value
        groups = meta["param_groups"]
        for g in groups:
            if "betas" in g:
                g["betas"] = tuple(g["betas"])
        optimizer.load_state_dict({"state": state, "param_groups": groups})
    return read_json(directory / "trainer_state.json", "trainer state")


def checkpoint_dirs(storage: Path) -> list[Path]:
    """Every step-NNNNNNNN folder of the run in `storage`, newest first (complete or not)."""
    run = storage / RUN_NAME
    found = [p for p in run.glob("step-*") if p.is_dir()] if run.is_dir() else []
    return sorted(found, key=checkpoint_step, reverse=True)


def usable_checkpoint(storage: Path, enc_cfg: Any) -> tuple[Path | None, list[tuple[Path, str]]]:
    """The newest checkpoint that loads whole (weights, optimizer, trainer state), and (folder, reason) for each
    newer one that does not. A checkpoint of another architecture (WeightsMismatch) stops the run."""
    import torch

    from mirtune.model.io import WeightsMismatch

    bad: list[tuple[Path, str]] = []
    for ckpt in checkpoint_dirs(storage):
        net = make_model(enc_cfg)
        try:
            load_checkpoint(ckpt, net, torch.optim.AdamW(net.parameters()))
            return ckpt, bad
        except WeightsMismatch:
            raise
        except MirtuneError as exc:
            bad.append((ckpt, exc.line()))
        except (ValueError, KeyError, TypeError, RuntimeError) as exc:  # optimizer state of the wrong shape
            bad.append((ckpt, f"{ckpt}: unreadable optimizer state ({type(exc).__name__}: {exc})"))
    return None, bad


def set_aside(paths: list[Path], storage: Path, label: str) -> Path:
    """Move `paths` into a new folder `<storage>/<label>-<UTC time>` (never deleting anything); return it."""
    import shutil

    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    dest = storage / f"{label}-{stamp}"
    n = 1
    while dest.exists():
        n += 1
        dest = storage / f"{label}-{stamp}-{n}"
    dest.mkdir(parents=True)
    for path in paths:
        if path.exists():
            shutil.move(str(path), str(dest / path.name))
    return dest


def latest_checkpoint_dir(storage: Path) -> Path | None:
    """The newest step-NNNNNNNN checkpoint folder of the run in `storage`, if any (complete ones only)."""
    run = storage / RUN_NAME
    if not run.is_dir():
        return None
    done = [p for p in run.glob("step-*") if (p / "trainer_state.json").is_file()]
    return max(done, key=checkpoint_step) if done else None


def checkpoint_step(path: str | Path) -> int:
    """The step a step-NNNNNNNN folder was written at (-1 for another name)."""
    try:
        return int(Path(str(path)).name.split("-")[1])
    except (IndexError, ValueError):
        return -1


def restore(reported: Any, storage: Path, net: Any, optimizer: Any) -> dict[str, Any] | None:
    """Load the newest readable checkpoint: the one Ray hands over, or a newer complete one in storage.

    Ray registers a checkpoint when its controller next polls the workers; a worker killed before that
    poll leaves a checkpoint in storage that Ray does not know about, so storage is checked too. A
    checkpoint that fails to load (cut short by the failure) is skipped for the one before it; one
    of another architecture (WeightsMismatch) stops the run rather than silently starting over.
    """
    from mirtune.model.io import WeightsMismatch
    from mirtune.progress import note

    candidates: list[tuple[int, Any]] = [(checkpoint_step(reported.path), reported)] if reported is not None else []
    candidates += [(checkpoint_step(p), p) for p in checkpoint_dirs(storage)]
    for step, cand in sorted(candidates, key=lambda c: c[0], reverse=True):
        try:
            if isinstance(cand, Path):
                return load_checkpoint(cand, net, optimizer)
            with cand.as_directory() as d:
                return load_checkpoint(Path(d), net, optimizer)
        except WeightsMismatch:
            raise
        except MirtuneError as exc:
            note(f"mirtune pretrain: skipping checkpoint at step {step}: {exc.line()}")
    return None
