"""Power: reportgen's predicted power against simulation of the engine's tests, and the
tests against each other on the same simulated effects (issue 10, calibration suite).

Oracles: simulation of the default test of each design (``compare_paired`` /
``compare_unpaired``) judged against binomial 99% bounds around ``power_at``'s
prediction; for the comparison table, Monte Carlo standard errors.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import validation as V  # noqa: E402


def _describe(row: V.Row) -> str:
    return (
        f"{row.scenario.key}: simulated {row.estimate.value:.4f} with "
        f"{row.estimate.reps} reps, predicted {row.scenario.nominal:.4f}, bounds "
        f"[{row.low:.4f}, {row.high:.4f}], {row.status}"
    )


@pytest.mark.parametrize("key", [s.key for s in V.scenarios(["power"])])
def test_power_at_against_simulated_rejection_rate(key):
    # simulation of the engine's default test at the effect power_at predicts for
    row = V.evaluate(V.scenario(key), reps=2000)
    assert row.status.startswith("inside"), _describe(row)


def test_power_table_backs_auto_choices():
    # simulation with 300 replications per cell (SE <= 0.029), the builders of the
    # document's power table on a reduced grid
    rng = np.random.default_rng(7)
    normal = V._power_curves_paired("normal", 30, (0.0, 0.4, 0.6), 300, rng)
    paired = V._power_curves_paired_binary(100, (0.0, 0.15), 300, rng)
    for t in (normal, paired):
        # at effect 0 every test is near (or below) its size at n = 30 / 100; the
        # bootstrap's closed-form size at n = 30 is 0.064
        assert np.all(t.power[:, 0] <= 0.064 + 4 * np.sqrt(0.064 * 0.936 / t.reps)), t.title
        assert np.all(t.power[:, -1] > t.power[:, 0] + 0.2), t.title  # power grows
    t_test, sign = normal.power[0], normal.power[3]
    # the paired t beats the sign test on normal differences (asymptotic relative
    # efficiency 2/pi = 0.64), visibly at d = 0.4 and 0.6
    assert np.all(t_test[1:] - sign[1:] > 0.08)
    # ignoring the pairing (two-proportion z on paired data) loses power
    assert paired.power[0, 1] > paired.power[2, 1]
