"""Shared fixtures: one private Ray cluster per test session, and the public evaluation data; and the fast tier:
the tests listed in slow_tests.txt (those that took a second or more in a full run, `--durations=0`) are marked
`slow`, so that `make test-fast` (`pytest -m "not slow"`) runs the rest in under two minutes."""

from __future__ import annotations

from pathlib import Path

import pytest

from mirtune.paths import data_dir


SLOW_TESTS = frozenset((Path(__file__).parent / "slow_tests.txt").read_text().split())


def pytest_collection_modifyitems(config, items) -> None:
    """Mark the tests of slow_tests.txt `slow` (a listed id without parameters marks all of its cases)."""
    for item in items:
        if item.nodeid in SLOW_TESTS or item.nodeid.split("[")[0] in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def ray_cluster():
    """A loopback-only Ray cluster with 2 CPUs, started once for the whole session."""
    from mirtune.cluster import init_ray, shutdown_ray

    init_ray(num_cpus=2)
    yield
    shutdown_ray()


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The folder with devmap/ and thread-coarsening/ (MIRTUNE_DATA or ../shared/data); skip if absent."""
    found = data_dir(required=False)
    if found is None:
        pytest.skip("public evaluation data not found: set MIRTUNE_DATA or place shared/data beside the repo")
    return found


@pytest.fixture(scope="session")
def devmap_ir_dir(shared_data: Path) -> Path:
    """The 669 device-mapping kernels' IR (clang 9, typed pointers)."""
    return shared_data / "devmap" / "kernels_ir"
