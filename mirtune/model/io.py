"""Save and load MIREncoder weights: safetensors + JSON only, so loading never unpickles anything.

A model directory holds
    config.json        the EncoderConfig
    model.safetensors  encoder weights under `encoder.`, pre-training heads (optional) under `heads.`
    tokenizer.json     the IRTokenizer the model was trained with
    provenance.json    preset, tokenizer sha256, corpus, steps, held-out metrics, command, code version, and
                       `weights_sha256` ({"model.safetensors": <hex>}), checked on every load

Every failure to read one of them (missing, truncated, corrupt, changed since saved, wrong shapes, non-finite
values) is one MirtuneError line.

Importing this module does not import torch (torch loads inside the functions that build or save torch modules), so
the numpy inference engine (mirtune.model.numpy_encoder) reads model folders with the same checks and messages.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mirtune.errors import MirtuneError
from mirtune.model.config import EncoderConfig
from mirtune.paths import json_default, write_atomic

if TYPE_CHECKING:
    import numpy as np
    import torch
    from torch import nn

CONFIG_FILE = "config.json"
WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILE = "tokenizer.json"
PROVENANCE_FILE = "provenance.json"
FORMAT = "mirtune-mirencoder-1"


WEIGHTS_SHA_KEY = "weights_sha256"


class WeightsMismatch(MirtuneError):
    """Readable weights that belong to a different architecture (names or shapes differ)."""


class WeightsCorrupt(MirtuneError):
    """Weights whose bytes differ from the sha256 recorded beside them, or that hold NaN/inf values."""


def sha256_file(path: str | os.PathLike) -> str:
    """The sha256 (hex) of a file's bytes, read in 1 MB blocks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def record_weights_sha256(directory: str | os.PathLike, provenance: dict[str, Any]) -> dict[str, Any]:
    """`provenance` with the sha256 of the weight file of `directory` under `weights_sha256` ({file: hex})."""
    return {**provenance, WEIGHTS_SHA_KEY: {WEIGHTS_FILE: sha256_file(Path(directory) / WEIGHTS_FILE)}}


def verify_weights(directory: str | os.PathLike, provenance: dict[str, Any]) -> str:
    """"verified" when every weight file matches the sha256 its provenance records; WeightsCorrupt naming the file
    otherwise, or naming the folder when its provenance records none (weights that cannot be checked are refused,
    as a predictor's are)."""
    recorded = provenance.get(WEIGHTS_SHA_KEY) if isinstance(provenance, dict) else None
    directory = Path(directory)
    if not recorded:
        raise WeightsCorrupt(f"{PROVENANCE_FILE} records no sha256 of the weights ({WEIGHTS_SHA_KEY}), so they "
                             "cannot be checked: refusing them; re-save or re-train the model", str(directory))
    if not isinstance(recorded, dict):
        raise WeightsCorrupt(f"{WEIGHTS_SHA_KEY} in {PROVENANCE_FILE} is not a mapping of file names to sha256",
                             str(directory / PROVENANCE_FILE))
    for name, expected in sorted(recorded.items()):
        path = directory / Path(str(name)).name
        if not path.is_file():
            raise MirtuneError("weights file not found", str(path))
        if sha256_file(path) != expected:
            raise WeightsCorrupt(f"weights do not match the sha256 recorded in {PROVENANCE_FILE} (corrupt or "
                                 "changed since they were saved); restore the file or re-train", str(path))
    return "verified"


def check_finite(tensors: dict[str, torch.Tensor] | dict[str, np.ndarray], source: str) -> None:
    """WeightsCorrupt naming `source` and the first tensor (torch or numpy) holding NaN or inf."""
    import numpy as np

    for name, t in tensors.items():
        if hasattr(t, "is_floating_point"):  # a torch tensor (torch is loaded when one exists)
            import torch

            bad = t.is_floating_point() and not bool(torch.isfinite(t).all())
        else:
            t = np.asarray(t)
            bad = np.issubdtype(t.dtype, np.floating) and not bool(np.isfinite(t).all())
        if bad:
            raise WeightsCorrupt(f"weights hold non-finite values (NaN or inf) in {name}", source)


# ------------------------------------------------------------------------------------ raw tensors
def canonical_state(module: nn.Module, prefix: str = "") -> dict[str, torch.Tensor]:
    """The module's state dict with tied (aliased) tensors kept once, contiguous, on the CPU."""
    seen: set[tuple[int, int]] = set()
    out = {}
    for name, t in module.state_dict().items():
        key = (t.untyped_storage().data_ptr(), t.storage_offset()) if t.numel() else (id(t), 0)
        if key in seen:
            continue
        seen.add(key)
        out[prefix + name] = t.detach().to("cpu").contiguous()
    return out


def save_tensors(path: str | os.PathLike, tensors: dict[str, torch.Tensor],
                 metadata: dict[str, str] | None = None) -> None:
    """Write tensors with safetensors, atomically (temp file, then rename)."""
    from safetensors.torch import save_file

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    save_file({k: v.detach().to("cpu").contiguous() for k, v in tensors.items()}, str(tmp),
              metadata={"format": FORMAT, **(metadata or {})})
    os.replace(tmp, path)


def load_tensors(path: str | os.PathLike, framework: str = "pt") -> dict[str, torch.Tensor]:
    """Read a safetensors file as torch tensors ("pt") or numpy arrays ("np", no torch import); MirtuneError
    (one line) when it is missing, truncated or corrupt."""
    path = Path(path)
    if not path.is_file():
        raise MirtuneError("weights file not found", str(path))
    try:
        if framework == "np":
            from safetensors.numpy import load_file as load_numpy

            return load_numpy(str(path))
        from safetensors.torch import load_file

        return load_file(str(path), device="cpu")
    except Exception as exc:  # safetensors raises SafetensorError / OSError / ValueError for bad files
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise MirtuneError(f"corrupt or truncated weights file ({reason})", str(path)) from None


def check_names_and_shapes(expected: dict[str, tuple[int, ...]], tensors: dict[str, Any], prefix: str,
                           source: str) -> dict[str, Any]:
    """The `prefix`-ed tensors, checked to be exactly the names and shapes `expected` (torch or numpy arrays);
    WeightsMismatch (one line) otherwise."""
    given = {k: v for k, v in tensors.items() if k.startswith(prefix)}
    missing = sorted(set(expected) - set(given))
    unexpected = sorted(set(given) - set(expected))
    if missing or unexpected:
        detail = (f"missing {', '.join(missing[:3])}" if missing else "") + \
                 ("; " if missing and unexpected else "") + \
                 (f"unexpected {', '.join(unexpected[:3])}" if unexpected else "")
        raise WeightsMismatch(f"weights do not match the model config: {detail}", source)
    for k, v in given.items():
        if tuple(v.shape) != tuple(expected[k]):
            raise WeightsMismatch(f"weights do not match the model config: {k} has shape {tuple(v.shape)}, "
                                  f"expected {tuple(expected[k])}", source)
    return given


def load_into(module: nn.Module, tensors: dict[str, torch.Tensor], prefix: str, source: str) -> None:
    """Load `prefix`-ed tensors into a module, checking names and shapes exactly."""
    expected = canonical_state(module, prefix)
    given = check_names_and_shapes({k: tuple(v.shape) for k, v in expected.items()}, tensors, prefix, source)
    state = {k[len(prefix):]: v for k, v in given.items()}
    module.load_state_dict(state, strict=False)  # aliases of tied tensors are absent by design


def read_json(path: str | os.PathLike, what: str) -> Any:
    """Parse a JSON file; MirtuneError naming `what` when it is missing or not valid JSON."""
    path = Path(path)
    if not path.is_file():
        raise MirtuneError(f"{what} not found", str(path))
    try:
        return json.loads(path.read_text())
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise MirtuneError(f"corrupt {what}: {str(exc).splitlines()[0]}", str(path)) from None


def write_json(path: str | os.PathLike, data: Any) -> None:
    """`data` as indented JSON with sorted keys, written whole or not at all (mirtune.paths.write_atomic)."""
    write_atomic(path, json.dumps(data, indent=2, sort_keys=True, default=json_default) + "\n")


# ----------------------------------------------------------------------------------- provenance
def code_version() -> dict[str, Any]:
    """mirtune's version and, when run from a git checkout, the commit and whether the tree is dirty."""
    from mirtune import __version__
    from mirtune.paths import REPO_DIR

    import torch

    info: dict[str, Any] = {"mirtune": __version__, "torch": torch.__version__}
    try:
        commit = subprocess.run(["git", "-C", str(REPO_DIR), "rev-parse", "HEAD"], capture_output=True,
                                text=True, timeout=10)
        if commit.returncode == 0:
            info["git_commit"] = commit.stdout.strip()
            dirty = subprocess.run(["git", "-C", str(REPO_DIR), "status", "--porcelain", "--untracked-files=no"],
                                   capture_output=True, text=True, timeout=10)
            info["git_dirty"] = bool(dirty.stdout.strip()) if dirty.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired):
        pass
    return info


def make_provenance(config: EncoderConfig, tokenizer: Any = None, corpus: Any = None, steps: int | None = None,
                    heldout: dict[str, float] | None = None, command: str | list[str] | None = None,
                    **extra: Any) -> dict[str, Any]:
    """The provenance record saved beside the weights."""
    if isinstance(command, list):
        import shlex

        command = shlex.join(command)
    return {
        "format": FORMAT,
        "preset": config.preset,
        "tokenizer_sha256": tokenizer.sha256 if tokenizer is not None else None,
        "corpus": corpus,
        "steps": steps,
        "heldout_metrics": heldout or {},
        "command": command,
        "code": code_version(),
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        **extra,
    }


# --------------------------------------------------------------------------------- model folders
@dataclass
class LoadedModel:
    encoder: Any              # MIREncoder, in eval mode
    config: EncoderConfig
    tokenizer: Any            # IRTokenizer or None when the folder has none
    provenance: dict[str, Any]
    heads: Any = None         # PretrainingHeads when asked for and present
    directory: str | None = None
    weights_check: str = "not recorded"   # "verified" when the weights matched their recorded sha256


def save_model(directory: str | os.PathLike, encoder: nn.Module, config: EncoderConfig, tokenizer: Any = None,
               provenance: dict[str, Any] | None = None, heads: nn.Module | None = None) -> Path:
    """Write config.json, model.safetensors, tokenizer.json (if given) and provenance.json."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    tensors = canonical_state(encoder, "encoder.")
    if heads is not None:
        tensors.update(canonical_state(heads, "heads."))
    save_tensors(directory / WEIGHTS_FILE, tensors, {"preset": config.preset})
    write_json(directory / CONFIG_FILE, config.to_dict())
    if tokenizer is not None:
        if isinstance(tokenizer, (str, os.PathLike)):
            if Path(tokenizer).resolve() != (directory / TOKENIZER_FILE).resolve():
                shutil.copyfile(tokenizer, directory / TOKENIZER_FILE)
        else:
            tokenizer.save(directory / TOKENIZER_FILE)
    provenance = provenance if provenance is not None else make_provenance(config)
    write_json(directory / PROVENANCE_FILE, record_weights_sha256(directory, provenance))
    return directory


def load_config(directory: str | os.PathLike) -> EncoderConfig:
    path = Path(directory) / CONFIG_FILE
    return EncoderConfig.from_dict(read_json(path, "model config"), str(path))


def read_provenance(directory: str | os.PathLike) -> dict[str, Any]:
    """provenance.json of a model folder ({} when it has none)."""
    prov_path = Path(directory) / PROVENANCE_FILE
    return read_json(prov_path, "provenance") if prov_path.exists() else {}


def load_model_tokenizer(directory: str | os.PathLike, config: EncoderConfig, required: bool = True) -> Any:
    """The IRTokenizer of a model folder, checked against its config's vocabulary; None when the folder has none
    and it is not `required`."""
    directory = Path(directory)
    tok_path = directory / TOKENIZER_FILE
    if tok_path.is_file():
        from mirtune.ir.tokenizer import IRTokenizer

        tokenizer = IRTokenizer.load(tok_path, seq_len=config.seq_len)
        if tokenizer.vocab_size != config.vocab_size:
            raise MirtuneError(f"tokenizer vocabulary {tokenizer.vocab_size} does not match the model's "
                               f"{config.vocab_size}", str(tok_path))
        return tokenizer
    if required:
        raise MirtuneError("model directory has no tokenizer.json", str(directory))
    return None


def read_model_folder(directory: str | os.PathLike, framework: str = "pt"
                      ) -> tuple[Path, EncoderConfig, dict[str, Any], dict[str, Any], str]:
    """(folder, config, provenance, tensors, weights check) of a model folder, read as every loader reads it (torch's
    and the numpy engine's): one-line MirtuneErrors for a missing folder, config, provenance or weights, or weights
    that do not match their recorded sha256."""
    directory = Path(directory)
    if not directory.is_dir():
        raise MirtuneError("model directory not found", str(directory))
    config = load_config(directory)
    provenance = read_provenance(directory)
    tensors = load_tensors(directory / WEIGHTS_FILE, framework=framework)
    return directory, config, provenance, tensors, verify_weights(directory, provenance)


def load_model(directory: str | os.PathLike, with_heads: bool = False, device: str | torch.device = "cpu",
               require_tokenizer: bool = True) -> LoadedModel:
    """Build the encoder from config.json and load model.safetensors into it (eval mode)."""
    from mirtune.model.encoder import MIREncoder

    directory, config, provenance, tensors, weights_check = read_model_folder(directory)
    check_finite(tensors, str(directory / WEIGHTS_FILE))
    encoder = MIREncoder(config)
    load_into(encoder, tensors, "encoder.", str(directory / WEIGHTS_FILE))
    heads = None
    if with_heads and any(k.startswith("heads.") for k in tensors):
        from mirtune.model.objectives import PretrainingHeads

        heads = PretrainingHeads(config)
        load_into(heads, tensors, "heads.", str(directory / WEIGHTS_FILE))
        heads.to(device)
    tokenizer = load_model_tokenizer(directory, config, require_tokenizer)
    encoder.to(device).eval()
    return LoadedModel(encoder, config, tokenizer, provenance, heads, str(directory), weights_check)
