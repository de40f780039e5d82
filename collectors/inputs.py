"""Generated program inputs: made on first use from the folder's generator scripts, checked by hash.

A program folder whose input files are written by generator scripts (gen_<program>.py: standard library, fixed
seed) keeps them out of git and lists them instead in `inputs.json` beside its manifest:

    {"generators": [{"script": "gen_sssp.py", "args": ["."],
                     "outputs": [{"file": "sssp_roads.gr", "sha256": "9c0e...", "size": 1249253}]}]}

`ensure_inputs(folder)` runs, for every generator with an output missing or not matching its sha256, the
script with the current Python in a private temporary folder (holding a copy of the script, and its working
folder, so that scripts writing beside themselves, into the working folder or into the folder or file named by
their arguments all write there), checks the sha256 of every file it was meant to write and only then moves each
into place whole (`mirtune.paths.write_atomic`). A failing generator or a different byte is one UsageError line:
a program is never measured on an input other than the one listed. `read_manifest` calls it, so the inputs appear
the first time anything reads the manifest; `python -m collectors.inputs FOLDER...` makes them by hand.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from mirtune.errors import UsageError
from mirtune.paths import write_atomic

LISTING = "inputs.json"
GENERATOR_TIMEOUT_S = 600


@dataclass(frozen=True)
class Output:
    """One file a generator writes: its name in the program folder, its sha256 and its size in bytes."""

    file: str
    sha256: str
    size: int


@dataclass(frozen=True)
class Generator:
    """One generator script of a program folder, the arguments it is run with and the files it writes."""

    script: str
    args: tuple[str, ...]
    outputs: tuple[Output, ...]


def _plain_name(value: object, what: str, path: Path) -> str:
    if not isinstance(value, str) or not value or Path(value).name != value or value in (".", ".."):
        raise UsageError(f"{LISTING}: {what} must be a plain file name in the folder, not {value!r}", str(path))
    return value


def read_listing(folder: str | os.PathLike) -> list[Generator]:
    """The generators listed in `folder`/inputs.json ([] when the folder has none); UsageError (one line) for a
    malformed listing."""
    path = Path(folder) / LISTING
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return []
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise UsageError(f"{LISTING}: not readable JSON ({type(exc).__name__})", str(path)) from None
    entries = data.get("generators") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise UsageError(f"{LISTING}: expected an object with a \"generators\" list", str(path))
    generators = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise UsageError(f"{LISTING}: generator {i + 1} is not an object", str(path))
        script = _plain_name(entry.get("script"), f"generator {i + 1}'s \"script\"", path)
        args = entry.get("args", [])
        outputs = entry.get("outputs")
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise UsageError(f"{LISTING}: {script}'s \"args\" must be a list of strings", str(path))
        if not isinstance(outputs, list) or not outputs:
            raise UsageError(f"{LISTING}: {script}'s \"outputs\" must be a non-empty list", str(path))
        outs = []
        for out in outputs:
            if not (isinstance(out, dict) and isinstance(out.get("sha256"), str) and len(out["sha256"]) == 64
                    and isinstance(out.get("size"), int)):
                raise UsageError(f"{LISTING}: each of {script}'s outputs needs \"file\", \"sha256\" (64 hex digits) "
                                 "and \"size\"", str(path))
            outs.append(Output(_plain_name(out.get("file"), f"an output of {script}", path), out["sha256"].lower(),
                               out["size"]))
        generators.append(Generator(script, tuple(args), tuple(outs)))
    return generators


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _is_current(folder: Path, out: Output) -> bool:
    path = folder / out.file
    return path.is_file() and path.stat().st_size == out.size and _sha256(path) == out.sha256


def _generate(folder: Path, gen: Generator) -> None:
    """Run one generator in a private folder, check every output's hash, then move each into `folder`."""
    script = folder / gen.script
    if not script.is_file():
        raise UsageError("input generator not found", str(script))
    with tempfile.TemporaryDirectory(prefix="mirtune-inputs-") as tmp:
        work = Path(tmp)
        shutil.copyfile(script, work / gen.script)
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        try:
            proc = subprocess.run([sys.executable, gen.script, *gen.args], cwd=work, env=env, capture_output=True,
                                  text=True, timeout=GENERATOR_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise UsageError(f"input generator ran past {GENERATOR_TIMEOUT_S} s", str(script)) from None
        if proc.returncode != 0:
            last = (proc.stderr.strip().splitlines() or ["no message"])[-1]
            raise UsageError(f"input generator failed (exit {proc.returncode}): {last}", str(script))
        data = {}
        for out in gen.outputs:
            made = work / out.file
            if not made.is_file():
                raise UsageError(f"input generator did not write {out.file}", str(script))
            data[out.file] = made.read_bytes()
            got = hashlib.sha256(data[out.file]).hexdigest()
            if got != out.sha256:
                raise UsageError(f"input generator wrote {out.file} with sha256 {got[:12]}, {LISTING} lists "
                                 f"{out.sha256[:12]}: it no longer reproduces the listed input", str(script))
    for name, content in data.items():
        write_atomic(folder / name, content)


def ensure_inputs(folder: str | os.PathLike) -> None:
    """Make every input listed in `folder`/inputs.json that is missing or differs from its sha256, by running its
    generator; nothing to do for a folder without a listing. UsageError (one line) when a generator fails or
    writes other bytes than listed."""
    folder = Path(folder)
    for gen in read_listing(folder):
        if not all(_is_current(folder, out) for out in gen.outputs):
            _generate(folder, gen)


def main(argv: list[str] | None = None) -> int:
    """`python -m collectors.inputs FOLDER...`: make the generated inputs of each program folder."""
    folders = sys.argv[1:] if argv is None else argv
    if not folders:
        print("usage: python -m collectors.inputs FOLDER...", file=sys.stderr)
        return 2
    for folder in folders:
        try:
            ensure_inputs(folder)
        except UsageError as exc:
            print(exc.line(), file=sys.stderr)
            return exc.exit_code
    return 0


if __name__ == "__main__":
    sys.exit(main())
