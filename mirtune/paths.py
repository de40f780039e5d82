"""Where mirtune finds the public evaluation data and its shipped assets."""

from __future__ import annotations

import glob
import gzip
import json
import os
import re
import shutil
import stat
import tempfile
import uuid
from pathlib import Path
from typing import Any

from mirtune.errors import UsageError

PACKAGE_DIR = Path(__file__).resolve().parent
ASSETS_DIR = PACKAGE_DIR / "assets"
REPO_DIR = PACKAGE_DIR.parent


def cache_dir() -> Path:
    """mirtune's cache folder for things made on first use: $MIRTUNE_CACHE, else ~/.cache/mirtune."""
    return Path(os.environ.get("MIRTUNE_CACHE") or Path.home() / ".cache" / "mirtune")


def data_dir(explicit: str | os.PathLike | None = None, required: bool = True) -> Path | None:
    """The folder holding devmap/ and thread-coarsening/: --data-dir, else $MIRTUNE_DATA, else ../shared/data.
    A folder the user named (option or variable) that does not exist is an error, never silently passed over."""
    named = [(explicit, "data directory"), (os.environ.get("MIRTUNE_DATA"), "MIRTUNE_DATA")]
    for cand, what in named:
        if cand:
            if not Path(cand).is_dir():
                raise UsageError(f"{what} {cand} does not exist")
            return Path(cand)
    default = REPO_DIR.parent / "shared" / "data"
    if default.is_dir():
        return default
    if required:
        raise UsageError("no data directory: pass --data-dir or set MIRTUNE_DATA to the folder holding devmap/")
    return None


def devmap_kernel_files(data: Path | None = None) -> list[Path]:
    """The 669 device-mapping kernels' IR, with the patched copy where one exists (see PROVENANCE.md)."""
    root = (data or data_dir()) / "devmap"
    patched = root / "kernels_ir_patched"
    return [patched / f.name if (patched / f.name).exists() else f
            for f in sorted((root / "kernels_ir").glob("*.ll"))]


def write_atomic(path: str | os.PathLike, data: bytes | str, mode: int | None = None) -> Path:
    """Write a file whole or not at all (a temporary file beside it, named for this process and call, then a
    rename), creating its folder, with permissions `mode` when given: a reader never sees half a file, a killed
    writer leaves the old one, and two writers (processes or threads) never share a temporary file."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
    tmp.write_bytes(data.encode() if isinstance(data, str) else data)
    if mode is not None:
        os.chmod(tmp, mode)
    os.replace(tmp, path)
    return path


def gzip_json(value: Any, **dumps: Any) -> bytes:
    """`value` as gzipped JSON (`dumps` go to json.dumps) with no time in the gzip header: the same bytes for the
    same value, so a manifest kept in git changes only when what it records does."""
    return gzip.compress(json.dumps(value, **dumps).encode() + b"\n", 9, mtime=0)


def read_gzip_json(path: str | os.PathLike) -> Any:
    """What `gzip_json` wrote to `path`; OSError or ValueError when it cannot be read."""
    try:
        return json.loads(gzip.decompress(Path(path).read_bytes()))
    except EOFError as exc:  # a truncated gzip stream
        raise ValueError(f"truncated: {exc}") from None


def write_result(path: str | os.PathLike, value: Any) -> Path:
    """A result file of a benchmark or an evaluation: `value` as compact JSON (results are many, and the tracked
    tree must stay small enough to travel to the GPU machine), written whole (`write_atomic`); its parent made."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(path, json.dumps(value, separators=(",", ":"), default=json_default) + "\n")


def json_default(value: Any) -> Any:
    """json.dumps' `default=` for what mirtune writes: numpy (or torch) scalars and arrays as numbers and lists,
    anything else (a Path, ...) as its text."""
    if hasattr(value, "tolist"):
        return value.tolist()
    return str(value)


class DirLock:
    """An exclusive lock on a folder for a `with` block: an flock on its file `name`, released when the block
    ends or the process dies, however it dies; UsageError naming the folder when another `what` holds it."""

    def __init__(self, folder: str | os.PathLike, name: str, what: str) -> None:
        self.path, self.what = Path(folder) / name, what
        self.fd: int | None = None

    def __enter__(self) -> "DirLock":
        import fcntl

        self.fd = os.open(self.path, os.O_CREAT | os.O_RDWR | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            self.fd = None
            raise UsageError(f"another {self.what} is writing to this folder", str(self.path.parent)) from None
        return self

    def __exit__(self, *exc: object) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the only descriptor releases the flock
            self.fd = None


def check_output(path: str | os.PathLike, kind: str = "file", option: str = "-o") -> Path:
    """Check, before any work, that `path` can be written as a file (kind "file") or a folder (kind "dir");
    UsageError (one line naming the path) when it cannot. Nothing is created."""
    if kind not in ("file", "dir"):
        raise ValueError(f"kind must be 'file' or 'dir', not {kind!r}")
    path = Path(path)
    if path.is_dir():
        if kind == "file":
            raise UsageError(f"{option} names a folder; give a file name", str(path))
        target = path
    elif path.exists() or path.is_symlink():
        if kind == "dir":
            raise UsageError(f"{option} names a file, not a folder", str(path))
        target = path.parent
    else:
        target = path.parent
        while not (target.exists() or target.is_symlink()) and target != target.parent:
            target = target.parent
        if not target.is_dir():
            raise UsageError(f"{option} cannot be created: {target} is a file, not a folder", str(path))
    if not os.access(target, os.W_OK | os.X_OK):
        raise UsageError(f"{option}: no permission to write in {target}", str(path))
    if kind == "file" and path.exists() and not os.access(path, os.W_OK):
        raise UsageError(f"{option}: no permission to overwrite the file", str(path))
    return path


def _alive(pid: int) -> bool:
    """Whether a process with this pid exists (another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


_SWEPT: set[tuple[str, str]] = set()  # (folder, prefix) already cleared of stale folders by this process


def private_temp_dir(prefix: str, parent: str | os.PathLike | None = None) -> Path:
    """A fresh temporary folder (mode 0700) named <prefix><pid>-<random> under `parent` (default: the temporary
    directory). The first call of a process for a prefix removes this user's folders of that prefix whose process is
    gone (killed before it could remove its own, SIGKILL included)."""
    root = Path(parent) if parent is not None else Path(tempfile.gettempdir())
    if (str(root), prefix) not in _SWEPT:
        _SWEPT.add((str(root), prefix))
        pattern = re.compile(re.escape(prefix) + r"(\d+)-[A-Za-z0-9_]+")
        for d in root.glob(f"{glob.escape(prefix)}*"):
            m = pattern.fullmatch(d.name)
            try:
                st = os.lstat(d)
            except OSError:
                continue
            if m and stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not _alive(int(m.group(1))):
                shutil.rmtree(d, ignore_errors=True)
    return Path(tempfile.mkdtemp(prefix=f"{prefix}{os.getpid()}-", dir=root))
