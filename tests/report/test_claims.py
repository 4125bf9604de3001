"""Claims as the ledger words them (reportgen.analysis.ledger.Claim): the better system
first, Δ in that order, the interval the decision is read off with its kind, the family,
number formatting and styles. Expected sentences are the row's numbers converted by hand
(proportions to points, one decimal)."""

from __future__ import annotations

import pytest

from reportgen.analysis.ledger import Claim, Interval, UnitClaims
from reportgen.format import p_value as format_p

BASE = {
    "system_a": "A",
    "system_b": "B",
    "dataset": "gsm8k",
    "metric": "acc",
    "direction": "higher",
    "modality": "binary",
    "proportion": True,
    "diff": 0.031,
    "ci_low": 0.012,
    "ci_high": 0.050,
    "test": "exact McNemar",
    "p_value": 0.002,
    "p_adjusted": 0.010,
    "correction": "holm-sidak",
    "alpha": 0.05,
    "significant": True,
    "effect_size": 0.21,
    "effect_size_kind": "paired d",
    "confidence": 0.95,
    "n_a": 1319,
    "n_b": 1319,
    "paired": True,
    "ci_adjusted_low": 0.006,
    "ci_adjusted_high": 0.056,
    "confidence_adjusted": 0.99,
}


def claim(row: dict, family: int = 3) -> Claim:
    """The claim the ledger reads from a results.json row, in a family of ``family``."""
    return UnitClaims.from_rows([row], family_size=family)[0]


def test_sentence_shows_both_intervals_with_their_kinds_and_the_family():
    assert claim(BASE).sentence().plain() == (
        "A is better than B on gsm8k / acc: Δ = +3.1 pts, 95% CI [+1.2, +5.0]; 95% "
        "step-down compatible CI (Holm-Šidák) [+0.6, +5.6]; exact McNemar p adj. = 0.010 "
        "(unadjusted p = 0.002; Holm-Šidák over 3 comparisons); d = 0.21; n = 1,319."
    )


@pytest.mark.parametrize(
    "correction,kind,label",
    [
        ("bonferroni", "simultaneous", "95% simultaneous CI (Bonferroni)"),
        ("sidak", "simultaneous", "95% simultaneous CI (Šidák)"),
        ("holm", "step-down compatible", "95% step-down compatible CI (Holm)"),
        ("fdr_bh", "FCR", "FCR-adjusted CI (Benjamini-Hochberg, FCR ≤ 5%)"),
        ("fdr_by", "FCR", "FCR-adjusted CI (Benjamini-Yekutieli, FCR ≤ 5%)"),
        ("none", "unadjusted", "99% CI"),
    ],
)
def test_the_label_says_the_kind_of_each_correction(correction, kind, label):
    c = claim({**BASE, "correction": correction})
    assert c.adjusted.kind == kind
    assert c.interval_label() == label
    # the kind the analysis recorded wins over the one a correction implies
    recorded = claim({**BASE, "correction": correction, "ci_adjusted_kind": "unadjusted"})
    assert recorded.adjusted.kind == "unadjusted"


def test_a_family_of_one_says_no_adjustment():
    text = claim(BASE, family=1).sentence().plain()
    assert "exact McNemar p = 0.002 (a family of one: no adjustment)" in text
    assert "step-down" not in text and "p adj." not in text


def test_not_significant_keeps_the_order_and_the_interval_that_contains_zero():
    ns = {
        **BASE,
        "diff": -0.091,
        "ci_low": -0.169,
        "ci_high": -0.016,
        "ci_adjusted_low": -0.182,
        "ci_adjusted_high": 0.001,
        "p_value": 0.013,
        "p_adjusted": 0.054,
        "significant": False,
    }
    text = claim(ns).sentence().plain()
    assert text.startswith("No significant difference between A and B on gsm8k / acc: Δ = −9.1")
    assert "95% step-down compatible CI (Holm-Šidák) [−18.2, +0.1]" in text
    assert "p adj. = 0.054" in text and "unadjusted p = 0.013" in text


def test_the_better_system_comes_first_and_never_beside_a_negative_delta_unless_lower_wins():
    worse = {
        **BASE,
        "diff": -0.031,
        "ci_low": -0.05,
        "ci_high": -0.012,
        "ci_adjusted_low": -0.056,
        "ci_adjusted_high": -0.006,
        "effect_size": -0.21,
    }
    # B is better: the claim is turned round (B − A = +3.1 pts, intervals negated)
    assert (
        claim(worse)
        .sentence()
        .plain()
        .startswith(
            "B is better than A on gsm8k / acc: Δ = +3.1 pts, 95% CI [+1.2, +5.0]; 95% "
            "step-down compatible CI (Holm-Šidák) [+0.6, +5.6]"
        )
    )
    lower = {**worse, "direction": "lower"}  # lower is better: A's lower score wins
    assert (
        claim(lower)
        .sentence()
        .plain()
        .startswith("A is better than B on gsm8k / acc (lower is better): Δ = −3.1 pts")
    )


def test_oriented_negates_every_difference_and_interval():
    c = claim(BASE)
    b = c.oriented("B")
    assert (b.system_a, b.system_b, b.diff) == ("B", "A", -0.031)
    assert (b.marginal.low, b.marginal.high) == (-0.050, -0.012)
    assert (b.adjusted.low, b.adjusted.high) == (-0.056, -0.006)
    assert b.effect_size == -0.21 and b.better == "A" == c.better
    assert b.oriented("A") == c
    with pytest.raises(KeyError):
        c.oriented("C")


def test_a_one_sided_interval_is_printed_as_a_bound():
    c = claim({**BASE, "ci_adjusted_high": None})
    assert c.adjusted.one_sided
    assert c.adjusted.text(proportion=True) == "≥ +0.6"
    assert Interval(None, -0.02, 0.975).text(proportion=True) == "≤ −2.0"
    assert Interval(0.013, None, 0.975).label() == "one-sided 97.5% bound"


def test_an_approximate_claim_is_no_decision():
    c = claim({**BASE, "approximate": True, "significant": False, "skewed": True})
    assert c.outcome() == "approximate (skewed)"
    assert (
        c.sentence()
        .plain()
        .startswith("No decision between A and B on gsm8k / acc (heavily skewed differences")
    )


def test_styles_and_units():
    md = claim(BASE).sentence().markdown()
    assert md.startswith("**A** is better than **B**")
    tex = claim({**BASE, "metric": "pass@1_rate"}).sentence().latex()
    assert "\\textbf{A}" in tex and "pass@1\\_rate" in tex and "95\\% CI" in tex
    html = claim({**BASE, "system_a": "<b>A</b>"}).sentence().html()
    assert html.startswith("<strong>&lt;b&gt;A&lt;/b&gt;</strong> is better than")
    cont = {
        **BASE,
        "modality": "continuous",
        "proportion": False,
        "diff": 0.01234,
        "ci_low": 0.0021,
        "ci_high": 0.0226,
        "paired": False,
        "n_a": 100,
        "n_b": 120,
    }
    text = claim(cont).sentence().plain()
    assert "Δ = +0.0123, 95% CI [+0.00210, +0.0226]" in text and "n = 100 vs 120" in text
    with pytest.raises(ValueError, match="style='tex'"):
        claim(BASE).sentence().styled("tex")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "p,text",
    [
        (0.0004, "< 0.001"),
        (0.002, "0.002"),
        (0.0123, "0.012"),
        (0.049, "0.049"),
        (0.2, "0.20"),
        (0.999, "1.00"),
        (None, "n/a"),
    ],
)
def test_format_p(p, text):
    assert format_p(p) == text


def test_a_vanishing_effect_size_is_never_in_e_notation():
    # issue 34: "6.9e−18 paired d" read as a number; a bound says what it means
    row = {**BASE, "effect_size": 6.9e-18, "significant": False, "p_value": 1.0}
    text = claim(row).sentence().plain()
    assert "|d| < 0.01" in text and "e-" not in text and "e−" not in text
    assert "d = 0.35" in claim({**row, "effect_size": 0.349}).sentence().plain()
