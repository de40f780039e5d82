"""Shared fixtures of the experiments' tests: the openmp dataset's leave-one-application-out problem."""

from __future__ import annotations

from typing import Any

import pytest


@pytest.fixture()
def openmp_problem() -> tuple[list[str], Any]:
    """(the data folders, `held_out_problem("openmp", them)`) of the shipped openmp dataset."""
    from mirtune.paths import REPO_DIR
    from mirtune.predict.held_out import held_out_problem

    data = [str(REPO_DIR / "datasets" / "openmp")]
    return data, held_out_problem("openmp", data)
