"""Release verdicts: candidate − baseline per dataset × metric."""

from __future__ import annotations

import pytest

from reportgen.errors import InputError
from reportgen.report.release import release_verdicts, resolve_release_systems


def _row(a, b, *, diff, low, high, significant, direction="higher", metric="acc"):
    return {"dataset": "d", "metric": metric, "system_a": a, "system_b": b,
            "direction": direction, "diff": diff, "ci_low": low, "ci_high": high,
            "significant": significant, "mean_a": 0.5 + diff, "mean_b": 0.5,
            "n_a": 100, "n_b": 100, "p_value": 0.01, "p_adjusted": 0.02,
            "effect_size": 0.3, "effect_size_kind": "d", "test": "t",
            "correction": "holm", "confidence": 0.95}


POWER = [{"dataset": "d", "metric": "acc", "mde": 0.04},
         {"dataset": "d", "metric": "loss", "mde": -0.07}]


def test_release_verdicts_sign_and_interval_against_hand_computed():
    # baseline listed first: diff = baseline − candidate, so candidate − baseline flips
    # the sign and the interval's ends: [−high, −low].
    rows = release_verdicts([_row("old", "new", diff=-0.05, low=-0.08, high=-0.02,
                                  significant=True)], POWER,
                            baseline="old", candidate="new")
    (v,) = rows
    assert v["diff"] == pytest.approx(0.05)
    assert (v["ci_low"], v["ci_high"]) == (pytest.approx(0.02), pytest.approx(0.08))
    assert v["mean_candidate"] == 0.5 and v["mean_baseline"] == pytest.approx(0.45)
    assert v["verdict"] == "improved"
    assert v["mde"] == 0.04


@pytest.mark.parametrize("diff,significant,direction,expected", [
    (0.05, True, "higher", "regressed"),     # baseline − candidate > 0: candidate lower
    (-0.05, True, "higher", "improved"),
    (0.05, True, "lower", "improved"),       # lower is better: candidate lower = better
    (-0.05, True, "lower", "regressed"),
    (0.05, False, "higher", "no detectable difference"),
    (-0.05, False, "lower", "no detectable difference"),
])
def test_release_verdicts_direction_edge_cases(diff, significant, direction, expected):
    metric = "acc" if direction == "higher" else "loss"
    rows = release_verdicts([_row("old", "new", diff=diff, low=diff - 0.01,
                                  high=diff + 0.01, significant=significant,
                                  direction=direction, metric=metric)], POWER,
                            baseline="old", candidate="new")
    assert rows[0]["verdict"] == expected
    assert rows[0]["mde"] == pytest.approx(0.04 if metric == "acc" else 0.07)


def test_release_verdicts_candidate_first_and_other_pairs_ignored():
    comparisons = [_row("new", "old", diff=0.03, low=0.01, high=0.05, significant=True),
                   _row("x", "old", diff=0.5, low=0.4, high=0.6, significant=True)]
    rows = release_verdicts(comparisons, POWER, baseline="old", candidate="new")
    assert len(rows) == 1
    assert rows[0]["diff"] == 0.03 and rows[0]["ci_low"] == 0.01
    assert rows[0]["verdict"] == "improved"


def test_resolve_release_systems_defaults_and_input_validation():
    assert resolve_release_systems(["a", "b"], baseline="a", candidate=None) == ("a", "b")
    assert resolve_release_systems(["a", "b"], baseline=None, candidate="a") == ("b", "a")
    assert resolve_release_systems(["a", "b", "v2"], baseline="a", candidate=None,
                                   release="v2") == ("a", "v2")
    with pytest.raises(InputError, match=r"needs the baseline and the candidate"):
        resolve_release_systems(["a", "b", "c"], baseline="a", candidate=None)
    with pytest.raises(InputError, match=r"--candidate 'z' is not a system of the data"):
        resolve_release_systems(["a", "b"], baseline="a", candidate="z")
    with pytest.raises(InputError, match=r"the same system"):
        resolve_release_systems(["a", "b"], baseline="a", candidate="a")
