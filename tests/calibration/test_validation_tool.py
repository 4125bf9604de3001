"""The machinery of tools/validation.py: Monte Carlo bounds, the verdict of a row
(inside, confirmed, explained, unexplained), the markdown, the CLI, and the state of
docs/validation.md."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import validation as V  # noqa: E402


def _fake(
    key: str, values: list[float], nominal: float = 0.05, kind: V.Kind = "two-sided"
) -> V.Scenario:
    """A scenario returning the given rates in turn (first run, then confirmation)."""
    calls = iter(values)

    def simulate(reps: int, rng: np.random.Generator) -> V.Estimate:
        return V.Estimate(next(calls), reps)

    return V.Scenario(
        key, key.split("/")[0], "group", "routine()", "setting", nominal, kind, 1000, simulate
    )


@pytest.mark.parametrize("reps, nominal", [(2000, 0.05), (4000, 0.95), (400, 0.5)])
def test_mc_bounds_against_binomial_enumeration(reps, nominal):
    # brute force: the smallest k with P(X <= k) >= 0.005 and the smallest k with
    # P(X <= k) >= 0.995 of Binomial(reps, nominal), from the cumulated pmf
    cdf = np.cumsum(stats.binom.pmf(np.arange(reps + 1), reps, nominal))
    low = np.argmax(cdf >= 0.005) / reps
    high = np.argmax(cdf >= 0.995 - 1e-12) / reps
    assert V.mc_bounds(nominal, reps, "two-sided") == pytest.approx((low, high))
    assert V.mc_bounds(nominal, reps, "at-most") == pytest.approx((0.0, high))
    assert V.mc_bounds(nominal, reps, "at-least") == pytest.approx((low, 1.0))


def test_mc_bounds_with_standard_error_is_normal_interval():
    low, high = V.mc_bounds(0.025, 10000, "two-sided", se=0.001)
    assert low == pytest.approx(0.025 - 2.5758293 * 0.001)
    assert high == pytest.approx(0.025 + 2.5758293 * 0.001)


def test_evaluate_flags_a_miscalibrated_scenario():
    row = V.evaluate(_fake("size/made-up/test", [0.2, 0.21]), reps=1000)
    assert row.status == "OUTSIDE" and not row.ok and row.side == "above"
    assert row.confirmation is not None and row.confirmation.estimate.reps == 2000


def test_evaluate_confirmation_rescues_a_chance_outlier():
    row = V.evaluate(_fake("size/made-up/test", [0.075, 0.05]), reps=1000)
    assert row.status == "inside (confirmed)" and row.ok


def test_evaluate_uses_documented_explanations_only_on_their_side():
    key = "size/unpaired-continuous/permutation/behrens/n=30"
    above = V.evaluate(_fake(key, [0.15]), reps=1000)
    assert above.status == "outside, explained" and above.confirmation is None
    below = V.evaluate(_fake(key, [0.001, 0.001]), reps=1000)
    assert below.status == "OUTSIDE"


def test_evaluate_one_sided_kinds():
    assert V.evaluate(_fake("fwer/x", [0.001], kind="at-most"), reps=1000).inside
    assert not V.evaluate(_fake("fwer/x", [0.08, 0.08], kind="at-most"), reps=1000).ok
    assert V.evaluate(_fake("coverage/x", [1.0], 0.95, "at-least"), reps=1000).inside


def test_scenario_keys_are_unique_and_families_known():
    keys = [s.key for s in V.scenarios()]
    assert len(keys) == len(set(keys))
    assert {s.family for s in V.scenarios()} == set(V.FAMILIES)
    assert all(s.key.startswith(s.family + "/") for s in V.scenarios())


def test_every_explanation_matches_a_scenario():
    keys = [s.key for s in V.scenarios()]
    for e in V.EXPLANATIONS:
        assert any(e.matches(k) for k in keys), f"stale explanation {e.pattern!r}"
        assert e.direction in ("above", "below", "either")


def test_render_markdown_tables_notes_and_unexplained():
    rows = (
        V.evaluate(_fake("size/a/inside", [0.05]), reps=1000),
        V.evaluate(_fake("size/unpaired-continuous/permutation/behrens/n=10", [0.16]), reps=1000),
        V.evaluate(_fake("size/b/broken", [0.3, 0.3]), reps=1000),
    )
    table = V.PowerTable(
        "t", "s", (0.0, 0.5), "d", ("x", "y"), np.array([[0.05, 0.6], [0.04, 0.5]]), 100
    )
    report = V.Report(rows, (table,), 1, False, "today", "abc", 60.0)
    md = V.render_markdown(report)
    assert "tools/validation.py --out docs/validation.md" in md
    assert "**unexplained: 1**" in md
    assert "| setting | 1000 | 0.050 | 0.050 | 0.033 – 0.069 | inside | `size/a/inside` |" in md
    assert "see note 1" in md and "behrens/n=*" in md
    assert "## Unexplained rows" in md and "`size/b/broken`" in md
    assert "| x | 0.050 | 0.600 |" in md


def test_cli_writes_markdown_for_selected_rows(tmp_path, capsys):
    out = tmp_path / "v.md"
    code = V.main(
        ["--only", "fdr/fdr_bh/independent/m1=0", "--quick", "--out", str(out), "--no-power-table"]
    )
    assert code == 0
    md = out.read_text(encoding="utf-8")
    assert "Rows: 1;" in md and "Benjamini-Hochberg" in md
    assert "1 rows, 0 unexplained" in capsys.readouterr().err


def test_validation_doc_is_current():
    # docs/validation.md is regenerated whenever scenarios change: same number of rows,
    # every row inside its bounds or explained, a full (not quick) run
    doc = (ROOT / "docs" / "validation.md").read_text(encoding="utf-8")
    assert ".venv/bin/python tools/validation.py --out docs/validation.md" in doc
    match = re.search(r"- Rows: (\d+);", doc)
    assert match and int(match.group(1)) == len(V.scenarios())
    assert "**unexplained: 0**" in doc
    assert "mode full" in doc
