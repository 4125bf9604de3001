"""Shared fixtures: where the real data of ../shared/data are."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.fail(
            f"the real data folder {SHARED_DATA} is missing: CI and developers have "
            "../shared beside the repository"
        )
    return SHARED_DATA
