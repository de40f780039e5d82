"""Shared fixtures: one private Ray cluster per test session, and the public evaluation data."""

from __future__ import annotations

from pathlib import Path

import pytest

from mirtune.paths import data_dir


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
