"""The release view: a candidate system against its baseline, one verdict per dataset ×
metric.

A verdict is read off the comparison of the two systems (tests and corrections as in
:func:`reportgen.analysis.analyze`):

* **improved**: the adjusted p-value is at most α and the candidate is better (in the
  metric's direction);
* **regressed**: the adjusted p-value is at most α and the candidate is worse;
* **no detectable difference**: otherwise. The minimum detectable effect (MDE) at the
  analysis' target power is given with it, so "no difference" says how large a
  difference could have gone unnoticed.

Differences are ``candidate − baseline`` on the metric's own scale, with the confidence
interval of the comparison.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reportgen.errors import InputError

__all__ = ["VERDICTS", "release_verdicts", "resolve_release_systems"]

VERDICTS = ("improved", "regressed", "no detectable difference")


def resolve_release_systems(systems: Sequence[str], *, baseline: str | None,
                            candidate: str | None, release: str | None = None
                            ) -> tuple[str, str]:
    """The (baseline, candidate) pair of a release report.

    ``candidate`` defaults to ``release`` when that names a system, else to the only
    system other than the baseline; ``baseline`` defaults to the only system other than
    the candidate.

    Raises
    ------
    InputError
        A name that is not a system, the same system twice, or a choice that is
        ambiguous (several other systems).
    """
    names = list(systems)
    for label, name in (("--baseline", baseline), ("--candidate", candidate)):
        if name is not None and name not in names:
            raise InputError(f"{label} {name!r} is not a system of the data",
                             hint=f"systems: {', '.join(names)}")
    if candidate is None and release is not None and release in names \
            and release != baseline:
        candidate = release
    if candidate is None and baseline is not None and len(names) == 2:
        candidate = next(s for s in names if s != baseline)
    if baseline is None and candidate is not None and len(names) == 2:
        baseline = next(s for s in names if s != candidate)
    if baseline is None or candidate is None:
        raise InputError("a release report needs the baseline and the candidate system",
                         hint="pass --baseline SYSTEM and --candidate SYSTEM (systems: "
                              f"{', '.join(names)})")
    if baseline == candidate:
        raise InputError(f"the baseline and the candidate are the same system "
                         f"({baseline!r})", hint="pass two different systems")
    return baseline, candidate


def release_verdicts(comparisons: Sequence[Mapping[str, Any]],
                     power: Sequence[Mapping[str, Any]], *, baseline: str,
                     candidate: str) -> list[dict[str, Any]]:
    """One verdict row per dataset × metric where the two systems were compared.

    Parameters
    ----------
    comparisons
        Comparison rows (results.json ``comparisons``).
    power
        Power rows (results.json ``power``): their ``mde`` is attached to each verdict.
    baseline, candidate
        The two systems.

    Returns
    -------
    list of dict
        ``dataset``, ``metric``, ``direction``, ``baseline``, ``candidate``,
        ``mean_baseline``, ``mean_candidate``, ``diff`` (candidate − baseline),
        ``ci_low``, ``ci_high``, ``confidence``, ``test``, ``p_value``, ``p_adjusted``,
        ``correction``, ``effect_size``, ``effect_size_kind``, ``n_baseline``,
        ``n_candidate``, ``mde`` (same units as ``diff``, non-negative, or None),
        ``verdict``.
    """
    mde = {(p["dataset"], p["metric"]): p.get("mde") for p in power}
    rows = []
    for row in comparisons:
        pair = (row["system_a"], row["system_b"])
        if pair == (baseline, candidate):
            sign = -1.0
        elif pair == (candidate, baseline):
            sign = 1.0
        else:
            continue
        diff = _scaled(row.get("diff"), sign)
        low, high = _scaled(row.get("ci_low"), sign), _scaled(row.get("ci_high"), sign)
        if sign < 0:
            low, high = high, low
        direction = row.get("direction", "higher")
        better = None if diff is None else (diff > 0 if direction == "higher" else diff < 0)
        significant = bool(row.get("significant"))
        if significant and better is True:
            verdict = "improved"
        elif significant and better is False:
            verdict = "regressed"
        else:
            verdict = "no detectable difference"
        m = mde.get((row["dataset"], row["metric"]))
        effect = _scaled(row.get("effect_size"), sign)
        rows.append({
            "dataset": row["dataset"], "metric": row["metric"], "direction": direction,
            "baseline": baseline, "candidate": candidate,
            "mean_baseline": row["mean_a"] if sign < 0 else row["mean_b"],
            "mean_candidate": row["mean_b"] if sign < 0 else row["mean_a"],
            "diff": diff, "ci_low": low, "ci_high": high,
            "confidence": row.get("confidence"), "test": row.get("test"),
            "p_value": row.get("p_value"), "p_adjusted": row.get("p_adjusted"),
            "correction": row.get("correction"), "effect_size": effect,
            "effect_size_kind": row.get("effect_size_kind"),
            "n_baseline": row["n_a"] if sign < 0 else row["n_b"],
            "n_candidate": row["n_b"] if sign < 0 else row["n_a"],
            "mde": None if m is None else abs(float(m)), "verdict": verdict})
    return rows


def _scaled(value: Any, sign: float) -> float | None:
    if value is None:
        return None
    return sign * float(value)
