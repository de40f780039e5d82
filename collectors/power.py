"""Read, set and always restore power limits: Intel RAPL powercap for CPUs, NVML for GPUs.

A controller (`RaplPower`, `NvmlPower`) names its domains, reads their limits in watts, writes them, and says
whether it can write at all. `power_limit(watts, controller)` is the only way the collectors change a limit:

- it first repairs a limit left behind by a process that died holding one (SIGKILL cannot be caught): before
  changing anything it writes the originals to a small state file, deleted once they are restored, and a
  state file found on entry is restored first. The file lives in a private folder ($TMPDIR/mirtune-<uid>,
  mode 0700, see mirtune.private), and `recover` writes nothing back from a file another user owns or can
  change, nor a value outside its domain's range (the powercap min/max, NVML's constraints): one line says why;
- the originals are restored when the body returns, raises, or is interrupted (KeyboardInterrupt), and on
  SIGTERM when it runs in the main thread (the handler restores, then defers to the previous handler, or
  exits with status 143 when that was the default action).

`available()` says which domains are writable here; where none is (no powercap tree, no permission, no NVML),
its reason goes into every row of a sweep that drops the power dimension. Both controllers take their
environment as arguments, so tests use a fake powercap tree in a temporary directory and a stand-in NVML
object; nothing global is patched.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import signal
import tempfile
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Protocol

from mirtune.errors import MirtuneError
from mirtune.measure.host import NvmlStatus, load_nvml
from mirtune.paths import write_atomic
from mirtune.private import UnsafePath, check_own_folder, check_private_file, private_dir

DEFAULT_POWERCAP_ROOT = "/sys/class/powercap"
_PACKAGE_ZONE = re.compile(r"^intel-rapl:\d+$")


class PowerError(MirtuneError):
    """A power limit could not be read, set or restored."""


class PowerController(Protocol):
    """What `power_limit` needs from a power-limit mechanism."""

    def ident(self) -> str:
        """A stable name for the mechanism and its location (matches state files to controllers)."""

    def domains(self) -> list[str]:
        """The domains it controls, e.g. ['rapl:intel-rapl:0'] or ['nvml:0']."""

    def writable(self) -> tuple[bool, str | None]:
        """(True, None) when every domain can be set, else (False, why)."""

    def read(self) -> dict[str, float]:
        """Each domain's current limit in watts."""

    def write(self, limits: dict[str, float]) -> None:
        """Set the given domains' limits in watts."""

    def bounds(self, domain: str) -> tuple[float | None, float | None]:
        """(min, max) watts for a domain, None where unknown."""


class RaplPower:
    """Intel RAPL through the powercap sysfs tree: one domain per package zone (`intel-rapl:N`).

    `root` is /sys/class/powercap on a real machine and a fake tree in tests; `constraint` 0 is the
    long-term limit (constraint_0_power_limit_uw, microwatts).
    """

    def __init__(self, root: str | os.PathLike = DEFAULT_POWERCAP_ROOT, constraint: int = 0) -> None:
        self.root = Path(root)
        self.constraint = constraint

    def ident(self) -> str:
        return f"rapl:{self.root.resolve()}:{self.constraint}"

    def _zones(self) -> dict[str, Path]:
        if not self.root.is_dir():
            return {}
        zones = {}
        for d in sorted(self.root.iterdir()):
            if not _PACKAGE_ZONE.match(d.name):
                continue
            try:
                name = (d / "name").read_text().strip()
            except OSError:
                name = ""
            if name.startswith("package") or not name:
                zones[f"rapl:{d.name}"] = d
        return zones

    def _limit_file(self, zone: Path) -> Path:
        return zone / f"constraint_{self.constraint}_power_limit_uw"

    def domains(self) -> list[str]:
        return list(self._zones())

    def writable(self) -> tuple[bool, str | None]:
        zones = self._zones()
        if not self.root.is_dir():
            return False, f"no RAPL powercap tree at {self.root}"
        if not zones:
            return False, f"no RAPL package zones under {self.root}"
        for dom, zone in zones.items():
            f = self._limit_file(zone)
            if not f.exists():
                return False, f"{f} does not exist"
            if not os.access(f, os.W_OK):
                return False, f"{f} is not writable (setting RAPL limits needs root)"
        return True, None

    def read(self) -> dict[str, float]:
        out = {}
        for dom, zone in self._zones().items():
            try:
                out[dom] = int(self._limit_file(zone).read_text().strip()) / 1e6
            except (OSError, ValueError) as exc:
                raise PowerError(f"cannot read the RAPL limit of {dom}: {exc}") from None
        return out

    def write(self, limits: dict[str, float]) -> None:
        zones = self._zones()
        for dom, watts in limits.items():
            if dom not in zones:
                raise PowerError(f"no RAPL domain {dom}")
            try:
                self._limit_file(zones[dom]).write_text(str(int(round(watts * 1e6))))
            except OSError as exc:
                raise PowerError(f"cannot set the RAPL limit of {dom} to {watts:g} W: {exc}") from None

    def bounds(self, domain: str) -> tuple[float | None, float | None]:
        zone = self._zones().get(domain)
        if zone is None:
            return None, None
        found: list[float | None] = []
        for end in ("min", "max"):
            try:
                uw = int((zone / f"constraint_{self.constraint}_{end}_power_uw").read_text().strip())
            except (OSError, ValueError):
                uw = 0
            found.append(uw / 1e6 if uw > 0 else None)
        return found[0], found[1]


class NvmlPower:
    """GPU power limits through NVML: one domain per device (`nvml:<index>`), limits in watts.

    `nvml` is an `NvmlStatus` or a module-like object (the real `pynvml`, or a stand-in in tests) offering
    nvmlInit, nvmlDeviceGetCount, nvmlDeviceGetHandleByIndex, nvmlDeviceGetPowerManagementLimit,
    nvmlDeviceSetPowerManagementLimit and optionally nvmlDeviceGetPowerManagementLimitConstraints (milliwatts).
    """

    def __init__(self, nvml: Any | None = None, indices: list[int] | None = None) -> None:
        status = nvml if isinstance(nvml, NvmlStatus) else load_nvml(nvml)
        self.nvml, self.reason = status.nvml, status.reason
        self._indices = indices

    def ident(self) -> str:
        return "nvml"

    def _handles(self) -> dict[str, Any]:
        if self.nvml is None:
            return {}
        try:
            idx = self._indices if self._indices is not None else range(int(self.nvml.nvmlDeviceGetCount()))
            return {f"nvml:{i}": self.nvml.nvmlDeviceGetHandleByIndex(i) for i in idx}
        except Exception as exc:
            raise PowerError(f"NVML: {type(exc).__name__}: {exc}") from None

    def domains(self) -> list[str]:
        return list(self._handles()) if self.nvml is not None else []

    def writable(self) -> tuple[bool, str | None]:
        if self.nvml is None:
            return False, self.reason
        try:
            handles = self._handles()
        except PowerError as exc:
            return False, str(exc)
        if not handles:
            return False, "NVML reports no GPU"
        for dom, h in handles.items():  # setting the current limit again changes nothing but needs permission
            try:
                self.nvml.nvmlDeviceSetPowerManagementLimit(h, self.nvml.nvmlDeviceGetPowerManagementLimit(h))
            except Exception as exc:
                return False, f"cannot set the power limit of {dom}: {type(exc).__name__}: {exc}"
        return True, None

    def read(self) -> dict[str, float]:
        try:
            return {dom: self.nvml.nvmlDeviceGetPowerManagementLimit(h) / 1000.0
                    for dom, h in self._handles().items()}
        except PowerError:
            raise
        except Exception as exc:
            raise PowerError(f"NVML: cannot read the power limit: {type(exc).__name__}: {exc}") from None

    def write(self, limits: dict[str, float]) -> None:
        handles = self._handles()
        for dom, watts in limits.items():
            if dom not in handles:
                raise PowerError(f"no NVML domain {dom}")
            try:
                self.nvml.nvmlDeviceSetPowerManagementLimit(handles[dom], int(round(watts * 1000)))
            except Exception as exc:
                raise PowerError(f"NVML: cannot set {dom} to {watts:g} W: {type(exc).__name__}: {exc}") from None

    def bounds(self, domain: str) -> tuple[float | None, float | None]:
        h = self._handles().get(domain)
        fn = getattr(self.nvml, "nvmlDeviceGetPowerManagementLimitConstraints", None)
        if h is None or fn is None:
            return None, None
        try:
            lo, hi = fn(h)
            return lo / 1000.0, hi / 1000.0
        except Exception:
            return None, None


@dataclass(frozen=True)
class PowerAvailability:
    """Which power domains can be set here; when none, why not."""

    domains: tuple[str, ...]
    reason: str | None

    def __bool__(self) -> bool:
        return bool(self.domains)


def available(kind: str = "cpu", *, rapl_root: str | os.PathLike = DEFAULT_POWERCAP_ROOT,
              nvml: Any | None = None) -> PowerAvailability:
    """Writable domains of `kind` ('cpu' = RAPL, 'gpu' = NVML, 'any' = both) and, if none, the reason."""
    controllers: list[PowerController] = []
    if kind in ("cpu", "any"):
        controllers.append(RaplPower(rapl_root))
    if kind in ("gpu", "any"):
        controllers.append(NvmlPower(nvml))
    if not controllers:
        raise ValueError(f"unknown power kind {kind!r}")
    domains: list[str] = []
    reasons: list[str] = []
    for c in controllers:
        ok, why = c.writable()
        if ok:
            domains += c.domains()
        else:
            reasons.append(why or "not writable")
    return PowerAvailability(tuple(domains), None if domains else "; ".join(reasons))


def controller_for(kind: str = "cpu", *, rapl_root: str | os.PathLike = DEFAULT_POWERCAP_ROOT,
                   nvml: Any | None = None) -> PowerController:
    """The controller for 'cpu' (RAPL) or 'gpu' (NVML) power limits."""
    if kind == "cpu":
        return RaplPower(rapl_root)
    if kind == "gpu":
        return NvmlPower(nvml)
    raise ValueError(f"unknown power kind {kind!r}")


def default_state_file(controller: PowerController | None = None) -> Path:
    """Where the originals wait while a limit is changed: one file per user, node and controller, in the private
    folder $TMPDIR/mirtune-<uid> (mode 0700, see mirtune.private); PowerError when that folder is not private."""
    import hashlib

    tag = hashlib.sha256(controller.ident().encode()).hexdigest()[:12] if controller is not None else "any"
    try:
        folder = private_dir(Path(tempfile.gettempdir()) / f"mirtune-{os.getuid()}")
    except UnsafePath as exc:
        raise PowerError(f"{exc.line()}; the power-limit state file needs a private folder") from None
    return folder / f"mirtune-power-state-{tag}.json"


def _state_path(controller: PowerController, state_file: str | os.PathLike | None) -> Path:
    """The state file to use; an explicit one must sit in a folder of this user's that no one else can write."""
    if not state_file:
        return default_state_file(controller)
    path = Path(state_file)
    try:
        check_own_folder(path.parent)
    except UnsafePath as exc:
        raise PowerError(exc.line()) from None
    return path


def _checked_originals(path: Path, state: Any, controller: PowerController) -> dict[str, float]:
    """The limits a state file asks to restore, each a number of watts within its domain's range (the
    powercap / NVML constraints); PowerError naming the file and the first bad value otherwise."""
    tail = "; nothing was restored (check the limits, then remove the file)"
    originals = state.get("originals") if isinstance(state, dict) else None
    if not isinstance(originals, dict) or not originals:
        raise PowerError(f"refusing {path}: it names no original limits{tail}")
    domains = set(controller.domains())
    checked: dict[str, float] = {}
    for dom, value in originals.items():
        if dom not in domains:
            raise PowerError(f"refusing {path}: {dom!r} is not a power domain here{tail}")
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
            raise PowerError(f"refusing {path}: {dom} = {value!r} is not a power limit in watts{tail}")
        lo, hi = controller.bounds(dom)
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise PowerError(f"refusing {path}: {dom} = {value:g} W is outside its range "
                             f"[{'?' if lo is None else f'{lo:g}'}, {'?' if hi is None else f'{hi:g}'}] W{tail}")
        checked[dom] = float(value)
    return checked


def recover(controller: PowerController, state_file: str | os.PathLike | None = None) -> dict[str, float]:
    """Restore limits left changed by a process that died inside `power_limit`; return what was restored.

    The state file must be this user's, in a folder of this user's, neither writable by anyone else, and every
    limit in it within its domain's range; otherwise PowerError (one line) and nothing is written.
    """
    path = _state_path(controller, state_file)
    if not os.path.lexists(path):
        return {}
    try:
        check_private_file(path)
        state = json.loads(path.read_text())
    except UnsafePath as exc:
        raise PowerError(f"{exc.line()}; nothing was restored") from None
    except (OSError, ValueError) as exc:
        raise PowerError(f"refusing {path}: not a readable state file ({exc}); nothing was restored") from None
    if not isinstance(state, dict) or state.get("controller") != controller.ident():
        return {}
    originals = _checked_originals(path, state, controller)
    controller.write(originals)
    path.unlink(missing_ok=True)
    return originals


@contextlib.contextmanager
def power_limit(watts: float | None, controller: PowerController | None = None, *,
                domains: list[str] | None = None, state_file: str | os.PathLike | None = None,
                handle_sigterm: bool = True) -> Iterator[dict[str, float]]:
    """Set every domain (or `domains`) of `controller` to `watts` for the body; always restore.

    `watts=None` changes nothing (the default configuration: full power). Yields the original limits.
    Raises PowerError, before changing anything, when a domain is not writable or `watts` is out of its range.
    """
    if watts is None:
        yield {}
        return
    controller = controller or RaplPower()
    ok, why = controller.writable()
    if not ok:
        raise PowerError(f"cannot set a power limit: {why}")
    state = _state_path(controller, state_file)
    recover(controller, state)
    targets = domains or controller.domains()
    if not targets:
        raise PowerError("no power domain to set")
    for dom in targets:
        lo, hi = controller.bounds(dom)
        if (lo is not None and watts < lo) or (hi is not None and watts > hi):
            raise PowerError(f"{watts:g} W is outside {dom}'s range "
                             f"[{'?' if lo is None else f'{lo:g}'}, {'?' if hi is None else f'{hi:g}'}] W")
    current = controller.read()
    originals = {d: current[d] for d in targets}
    restored = threading.Event()
    lock = threading.Lock()

    def restore() -> None:
        with lock:
            if restored.is_set():
                return
            controller.write(originals)
            state.unlink(missing_ok=True)
            restored.set()

    previous: Any = None
    install = handle_sigterm and threading.current_thread() is threading.main_thread()
    if install:
        def on_sigterm(signum: int, frame: Any) -> None:
            try:
                restore()
            finally:
                signal.signal(signal.SIGTERM, previous)
            if callable(previous):
                previous(signum, frame)
            elif previous != signal.SIG_IGN:
                raise SystemExit(128 + signum)

        previous = signal.signal(signal.SIGTERM, on_sigterm)
        if previous is None:  # a handler installed outside Python: the closest we can put back is the default
            previous = signal.SIG_DFL
    try:
        write_atomic(state, json.dumps({"controller": controller.ident(), "originals": originals}))
        controller.write({d: watts for d in targets})
        yield dict(originals)
    except BaseException:
        try:
            restore()
        except Exception as exc:
            warnings.warn(f"could not restore the original power limits {originals}: {exc}; "
                          f"{state} keeps them for the next run", stacklevel=2)
        raise
    else:
        restore()
    finally:
        if install and signal.getsignal(signal.SIGTERM) is not previous:
            signal.signal(signal.SIGTERM, previous)
