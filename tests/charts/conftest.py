"""Shared by the chart tests: release verdicts as the analysis makes them (the release
charts draw typed verdicts)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from reportgen.analysis import ReleaseVerdict


def _verdict(
    dataset: str, metric: str, diff: float, low: float, high: float, name: str, **extra: Any
) -> ReleaseVerdict:
    fields: dict[str, Any] = dict(
        dataset=dataset,
        metric=metric,
        direction="higher",
        modality="continuous",
        baseline="base",
        candidate="cand",
        mean_baseline=0.5,
        mean_candidate=0.5 + diff,
        diff=diff,
        ci_low=low / 2,
        ci_high=high / 2,
        confidence=0.95,
        test="paired t",
        p_value=0.01,
        p_adjusted=0.02,
        correction="sidak",
        effect_size=None,
        effect_size_kind=None,
        n_baseline=100,
        n_candidate=100,
        mde=None,
        verdict=name,
        ci_adjusted_low=low,
        ci_adjusted_high=high,
        confidence_adjusted=0.9875,
        ci_adjusted_kind="simultaneous",
        alpha=0.05,
    )
    fields.update(extra)
    return ReleaseVerdict(**fields)


@pytest.fixture(scope="session")
def release_verdict() -> Callable[..., ReleaseVerdict]:
    """``release_verdict(dataset, metric, diff, low, high, verdict, **fields)``: a
    verdict of a paired t test at a Šidák-corrected level, read off the simultaneous
    interval ``[low, high]``; its marginal interval is ``[low / 2, high / 2]`` (so that a
    chart drawing the wrong one is caught); ``fields`` override any other field."""
    return _verdict
