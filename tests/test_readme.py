"""The README is for users (issue 32): at most 250 lines; results and experiment logs live in docs/."""

from __future__ import annotations

from mirtune.paths import REPO_DIR


def test_the_readme_stays_short():
    lines = (REPO_DIR / "README.md").read_text().splitlines()
    assert 50 < len(lines) <= 250, f"README.md has {len(lines)} lines; move results and long tables to docs/"
