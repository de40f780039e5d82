"""Folders and files that only this user can change: where the collectors keep what they later trust.

The launcher binary (mirtune/measure/sandbox.py) is executed and the power-limit state file (collectors/power.py) is
written back to the hardware, so neither may come from a place another user can write to. A name under /tmp
is predictable: another user can create it first. `private_dir` creates a folder with mode 0700, or accepts
an existing one only when it is a real directory (not a symbolic link) owned by this user that no one else can
write to (a folder of ours that others could only read, as earlier versions created it, is tightened to 0700);
anything else raises `UnsafePath` with one line. `check_private_file` checks a file and its folder (this
user's, writable by no one else), `check_own_folder` a folder, without changing them.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from mirtune.errors import MirtuneError

_OTHERS = 0o077  # any group or other permission bit
_OTHERS_WRITE = 0o022


class UnsafePath(MirtuneError):
    """A folder or file that another user owns or can write to, where only this user's may be."""


def private_dir(path: str | os.PathLike, hint: str = "or set TMPDIR to a folder of your own") -> Path:
    """`path` as a folder only this user can use: created with mode 0700, or checked (and tightened) if it exists;
    `hint` ends the message of a refusal (what else the user can do)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError as exc:
        raise UnsafePath(f"cannot create the private folder {path}: {exc.strerror}") from None
    try:
        st = os.lstat(path)
    except OSError as exc:
        raise UnsafePath(f"cannot check the private folder {path}: {exc.strerror}") from None
    if stat.S_ISLNK(st.st_mode):
        raise UnsafePath(f"refusing {path}: it is a symbolic link, not a private folder (remove it)")
    if not stat.S_ISDIR(st.st_mode):
        raise UnsafePath(f"refusing {path}: it is not a folder (remove it)")
    if st.st_uid != os.getuid():
        raise UnsafePath(f"refusing {path}: it is owned by uid {st.st_uid}, not by you (uid {os.getuid()}) "
                         f"(remove it, {hint})")
    mode = stat.S_IMODE(st.st_mode)
    if mode & _OTHERS_WRITE:
        raise UnsafePath(f"refusing {path}: mode {mode:o} lets other users put files in it (remove it, {hint})")
    if mode & _OTHERS:  # ours, and only readable by others (as earlier versions created it): make it private
        os.chmod(path, 0o700)
    return path


def is_private_dir(path: str | os.PathLike) -> bool:
    """True when `path` is a real folder owned by this user with no group or other permission bits."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid()
            and not stat.S_IMODE(st.st_mode) & _OTHERS)


def _check(path: Path, target: Path, kind: str) -> None:
    try:
        st = os.lstat(target)
    except OSError as exc:
        raise UnsafePath(f"cannot check {target}: {exc.strerror}") from None
    what = "it" if target == path else f"its folder {target}"
    if not (stat.S_ISREG(st.st_mode) if kind == "file" else stat.S_ISDIR(st.st_mode)):
        raise UnsafePath(f"refusing {path}: {what} is a link or not a {kind}")
    if st.st_uid != os.getuid():
        raise UnsafePath(f"refusing {path}: {what} is owned by uid {st.st_uid}, not by you (uid {os.getuid()})")
    mode = stat.S_IMODE(st.st_mode)
    if mode & _OTHERS_WRITE:
        raise UnsafePath(f"refusing {path}: mode {mode:o} lets other users change {what}")


def check_own_folder(path: str | os.PathLike) -> None:
    """Raise `UnsafePath` unless `path` is a folder (not a link) of this user's that no one else can write to."""
    _check(Path(path), Path(path), "folder")


def check_private_file(path: str | os.PathLike) -> None:
    """Raise `UnsafePath` unless `path` is a regular file of this user's, in a folder of this user's, neither
    of which anyone else can write to (and neither a symbolic link)."""
    path = Path(path)
    _check(path, path.parent, "folder")
    _check(path, path, "file")
