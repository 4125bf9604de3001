"""Shared fixtures: where the real data of ../shared/data are; the test tiers (markers
e2e, integration, unit: pyproject.toml)."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"

#: Fixtures that make a report end to end (tests/report/conftest.py and the report tests'
#: module fixtures): a test using one of them, directly or through another fixture, is e2e.
E2E_FIXTURES = frozenset({"example_release_runs", "example_report", "rag_report", "hostile_report"})
TIERS = ("e2e", "integration", "unit")


@pytest.hookimpl(tryfirst=True)  # before `-m` selects on the markers
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if E2E_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.e2e)
        if not any(item.get_closest_marker(tier) for tier in TIERS):
            item.add_marker(pytest.mark.unit)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.fail(
            f"the real data folder {SHARED_DATA} is missing: CI and developers have "
            "../shared beside the repository"
        )
    return SHARED_DATA
