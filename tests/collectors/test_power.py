"""collectors.power: limits are restored on every exit path (fake powercap tree, stand-in NVML)."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from collectors.power import (NvmlPower, PowerError, RaplPower, available, default_state_file, power_limit,
                              recover)

REPO = Path(__file__).resolve().parents[2]


def _zone(root: Path, name: str, label: str, limit_w: float, max_w: float | None = 200.0) -> Path:
    z = root / name
    z.mkdir(parents=True)
    (z / "name").write_text(label + "\n")
    (z / "constraint_0_power_limit_uw").write_text(f"{int(limit_w * 1e6)}\n")
    if max_w is not None:
        (z / "constraint_0_max_power_uw").write_text(f"{int(max_w * 1e6)}\n")
    return z


@pytest.fixture
def tree(tmp_path) -> Path:
    """A powercap tree with two packages (150 W and 140 W) and a core sub-zone that is not a domain."""
    root = tmp_path / "powercap"
    _zone(root, "intel-rapl:0", "package-0", 150)
    _zone(root, "intel-rapl:1", "package-1", 140)
    _zone(root, "intel-rapl:0:0", "core", 90)
    return root


@pytest.fixture
def state(tmp_path) -> Path:
    return tmp_path / "power-state.json"


def _limits(root: Path) -> dict[str, int]:
    return {z: int((root / z / "constraint_0_power_limit_uw").read_text())
            for z in ("intel-rapl:0", "intel-rapl:1")}


ORIGINAL = {"intel-rapl:0": 150_000_000, "intel-rapl:1": 140_000_000}


def test_domains_and_read(tree):
    rapl = RaplPower(tree)
    assert rapl.domains() == ["rapl:intel-rapl:0", "rapl:intel-rapl:1"]
    assert rapl.read() == {"rapl:intel-rapl:0": 150.0, "rapl:intel-rapl:1": 140.0}
    assert rapl.bounds("rapl:intel-rapl:0") == (None, 200.0)
    assert available("cpu", rapl_root=tree).domains == ("rapl:intel-rapl:0", "rapl:intel-rapl:1")


def test_restored_after_success(tree, state):
    with power_limit(100, RaplPower(tree), state_file=state) as originals:
        assert _limits(tree) == {"intel-rapl:0": 100_000_000, "intel-rapl:1": 100_000_000}
        assert originals == {"rapl:intel-rapl:0": 150.0, "rapl:intel-rapl:1": 140.0}
        assert state.exists()  # the originals wait on disk while the limit is changed
    assert _limits(tree) == ORIGINAL and not state.exists()


def test_restored_after_the_benchmark_raises(tree, state):
    with pytest.raises(RuntimeError, match="benchmark crashed"):
        with power_limit(75, RaplPower(tree), state_file=state):
            assert _limits(tree)["intel-rapl:0"] == 75_000_000
            raise RuntimeError("benchmark crashed")
    assert _limits(tree) == ORIGINAL and not state.exists()


def test_restored_after_keyboard_interrupt(tree, state):
    with pytest.raises(KeyboardInterrupt):
        with power_limit(120, RaplPower(tree), state_file=state):
            raise KeyboardInterrupt
    assert _limits(tree) == ORIGINAL and not state.exists()


@pytest.fixture
def default_sigterm():
    """SIGTERM at its default disposition for the test (Ray's driver installs its own handler)."""
    before = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    yield
    signal.signal(signal.SIGTERM, before)


def test_restored_after_sigterm(tree, state, default_sigterm):
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit) as exc:
        with power_limit(120, RaplPower(tree), state_file=state):
            assert _limits(tree)["intel-rapl:1"] == 120_000_000
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(100):  # the handler runs at the next bytecode boundary
                pass
    assert exc.value.code == 128 + signal.SIGTERM
    assert _limits(tree) == ORIGINAL and not state.exists()
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_killed_process_is_repaired_by_the_next_one(tree, state):
    code = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(REPO)!r})
        from collectors.power import RaplPower, power_limit
        with power_limit(90, RaplPower({str(tree)!r}), state_file={str(state)!r}):
            os.kill(os.getpid(), 9)
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == -9, proc.stderr
    assert _limits(tree)["intel-rapl:0"] == 90_000_000 and state.exists()  # SIGKILL cannot be caught...
    assert recover(RaplPower(tree), state) == {"rapl:intel-rapl:0": 150.0, "rapl:intel-rapl:1": 140.0}
    assert _limits(tree) == ORIGINAL and not state.exists()  # ...but the next power_limit repairs it first


def test_out_of_range_changes_nothing(tree, state):
    with pytest.raises(PowerError, match="outside"):
        with power_limit(250, RaplPower(tree), state_file=state):
            pytest.fail("the body must not run")
    assert _limits(tree) == ORIGINAL and not state.exists()


def test_none_means_full_power(tree, state):
    with power_limit(None, RaplPower(tree), state_file=state) as originals:
        assert originals == {} and _limits(tree) == ORIGINAL


class BrokenNvml:
    def nvmlInit(self):
        raise RuntimeError("NVML Shared Library Not Found")


def test_unavailable_says_why(tmp_path):
    none = available("cpu", rapl_root=tmp_path / "missing")
    assert not none and none.domains == () and "no RAPL powercap tree" in none.reason
    gpu = available("gpu", nvml=BrokenNvml())
    assert not gpu and "NVML Shared Library Not Found" in gpu.reason
    both = available("any", rapl_root=tmp_path / "missing", nvml=BrokenNvml())
    assert "RAPL" in both.reason and "NVML" in both.reason
    with pytest.raises(PowerError, match="cannot set a power limit"):
        with power_limit(100, RaplPower(tmp_path / "missing")):
            pass
    assert default_state_file().name.startswith("mirtune-power-state")  # in the private $TMPDIR/mirtune-<uid>


def test_this_machine_reports_a_reason():
    here = available("any")
    assert here.domains or here.reason  # never silently empty


class FakeNvml:
    """A stand-in for pynvml's power-limit calls: two GPUs, limits in milliwatts, 100-300 W allowed."""

    def __init__(self, writable: bool = True) -> None:
        self.limits = {0: 250_000, 1: 300_000}
        self.writable = writable
        self.sets: list[tuple[int, int]] = []

    def nvmlInit(self):
        pass

    def nvmlDeviceGetCount(self):
        return len(self.limits)

    def nvmlDeviceGetHandleByIndex(self, i):
        return i

    def nvmlDeviceGetPowerManagementLimit(self, h):
        return self.limits[h]

    def nvmlDeviceGetPowerManagementLimitConstraints(self, h):
        return 100_000, 300_000

    def nvmlDeviceSetPowerManagementLimit(self, h, mw):
        if not self.writable:
            raise PermissionError("NVML_ERROR_NO_PERMISSION")
        self.sets.append((h, mw))
        self.limits[h] = mw


def test_nvml_limits_set_and_restored(state):
    fake = FakeNvml()
    gpu = NvmlPower(fake)
    assert gpu.domains() == ["nvml:0", "nvml:1"] and gpu.writable() == (True, None)
    assert available("gpu", nvml=fake).domains == ("nvml:0", "nvml:1")
    with power_limit(150, gpu, state_file=state):
        assert fake.limits == {0: 150_000, 1: 150_000}
    assert fake.limits == {0: 250_000, 1: 300_000}
    with pytest.raises(ValueError):
        with power_limit(200, gpu, domains=["nvml:1"], state_file=state):
            assert fake.limits == {0: 250_000, 1: 200_000}
            raise ValueError("kernel failed")
    assert fake.limits == {0: 250_000, 1: 300_000} and not state.exists()
    with pytest.raises(PowerError, match="outside"):
        with power_limit(350, gpu, state_file=state):
            pass


def test_nvml_without_permission_is_not_writable(state):
    fake = FakeNvml(writable=False)
    ok, why = NvmlPower(fake).writable()
    assert not ok and "NO_PERMISSION" in why
    with pytest.raises(PowerError):
        with power_limit(150, NvmlPower(fake), state_file=state):
            pass
    assert fake.limits == {0: 250_000, 1: 300_000}


def test_sigterm_is_passed_on_to_the_previous_handler(tree, state, default_sigterm):
    seen = []

    def previous(signum, frame):
        seen.append(signum)
        raise SystemExit(99)

    signal.signal(signal.SIGTERM, previous)
    with pytest.raises(SystemExit) as exc:
        with power_limit(120, RaplPower(tree), state_file=state):
            os.kill(os.getpid(), signal.SIGTERM)
            for _ in range(100):
                pass
    assert exc.value.code == 99 and seen == [signal.SIGTERM]
    assert _limits(tree) == ORIGINAL and signal.getsignal(signal.SIGTERM) is previous


# --------------------------------------------------------------------------------------------- planted state (issue 18)


def _state(path: Path, controller, originals: dict) -> Path:
    path.write_text(json.dumps({"controller": controller.ident(), "originals": originals}))
    return path


@pytest.mark.parametrize("originals, why", [
    ({"rapl:intel-rapl:0": 500.0}, "outside its range"),          # above constraint_0_max_power_uw (200 W)
    ({"rapl:intel-rapl:0": 0.5}, "outside its range"),            # below constraint_0_min_power_uw (5 W)
    ({"rapl:intel-rapl:0": -1}, "not a power limit in watts"),
    ({"rapl:intel-rapl:0": "nan"}, "not a power limit in watts"),
    ({"rapl:intel-rapl:7": 100.0}, "not a power domain here"),
])
def test_a_state_file_with_impossible_limits_is_refused(tree, state, originals, why):
    for zone in ("intel-rapl:0", "intel-rapl:1"):
        (tree / zone / "constraint_0_min_power_uw").write_text("5000000\n")
    rapl = RaplPower(tree)
    assert rapl.bounds("rapl:intel-rapl:0") == (5.0, 200.0)
    _state(state, rapl, originals)
    with pytest.raises(PowerError, match=why) as exc:
        recover(rapl, state)
    assert str(state) in str(exc.value) and "\n" not in exc.value.line()
    assert _limits(tree) == ORIGINAL and state.exists()  # nothing written, the file left for the user to inspect
    with pytest.raises(PowerError, match=why):  # power_limit repairs first: it refuses before changing anything
        with power_limit(100, rapl, state_file=state):
            pytest.fail("the body must not run")
    assert _limits(tree) == ORIGINAL


def test_a_nvml_state_file_outside_the_constraints_is_refused(state):
    fake = FakeNvml()
    gpu = NvmlPower(fake)
    _state(state, gpu, {"nvml:0": 50.0, "nvml:1": 300.0})  # NVML allows 100-300 W
    with pytest.raises(PowerError, match=r"nvml:0 = 50 W is outside its range \[100, 300\] W"):
        recover(gpu, state)
    assert fake.sets == [] and fake.limits == {0: 250_000, 1: 300_000}
    _state(state, gpu, {"nvml:0": 120.0})
    assert recover(gpu, state) == {"nvml:0": 120.0} and fake.limits[0] == 120_000 and not state.exists()


@pytest.mark.parametrize("setup", ["file_others_can_write", "folder_others_can_write", "symlink", "another_owner"])
def test_a_planted_state_file_is_not_applied(tree, tmp_path, setup):
    folder = tmp_path / "state"
    folder.mkdir(mode=0o700)
    rapl = RaplPower(tree)
    planted = _state(folder / "power-state.json", rapl, {"rapl:intel-rapl:0": 10.0})  # within range, but not ours
    if setup == "file_others_can_write":
        planted.chmod(0o666)
    elif setup == "folder_others_can_write":
        folder.chmod(0o777)
    elif setup == "symlink":
        real = _state(tmp_path / "elsewhere.json", rapl, {"rapl:intel-rapl:0": 10.0})
        planted.unlink()
        planted.symlink_to(real)
    else:
        if os.getuid() != 0:
            pytest.skip("needs root to give the file to another user")
        os.chown(planted, 65534, 65534)
    with pytest.raises(PowerError, match="refusing") as exc:
        recover(rapl, planted)
    assert "\n" not in exc.value.line()
    assert _limits(tree) == ORIGINAL


@pytest.fixture
def private_tmp(tmp_path, monkeypatch) -> Path:
    """$TMPDIR pointed at a fresh folder for the test (tempfile reads it again)."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    monkeypatch.setenv("TMPDIR", str(tmpdir))
    monkeypatch.setattr(tempfile, "tempdir", None)
    return tmpdir


def test_the_default_state_file_lives_in_a_private_folder(tree, private_tmp):
    rapl = RaplPower(tree)
    path = default_state_file(rapl)
    folder = private_tmp / f"mirtune-{os.getuid()}"
    assert path.parent == folder and folder.stat().st_uid == os.getuid()
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    with power_limit(100, rapl) as originals:
        assert path.exists() and originals["rapl:intel-rapl:0"] == 150.0
    assert _limits(tree) == ORIGINAL and not path.exists()


def test_a_default_folder_open_to_others_is_refused(tree, private_tmp):
    folder = private_tmp / f"mirtune-{os.getuid()}"
    folder.mkdir()
    folder.chmod(0o777)
    _state(folder / "mirtune-power-state-planted.json", RaplPower(tree), {"rapl:intel-rapl:0": 10.0})
    with pytest.raises(PowerError, match="refusing .* lets other users"):
        default_state_file(RaplPower(tree))
    with pytest.raises(PowerError, match="refusing"):
        with power_limit(100, RaplPower(tree)):
            pytest.fail("the body must not run")
    assert _limits(tree) == ORIGINAL
