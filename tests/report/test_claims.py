"""Claim sentences: wording by significance and direction, number formatting, styles."""

from __future__ import annotations

import pytest

from reportgen.format import p_value as format_p
from reportgen.report.render.claims import claim_sentence

BASE = {
    "system_a": "A",
    "system_b": "B",
    "dataset": "gsm8k",
    "metric": "acc",
    "direction": "higher",
    "modality": "binary",
    "diff": 0.031,
    "ci_low": 0.012,
    "ci_high": 0.050,
    "test": "exact McNemar",
    "p_value": 0.002,
    "p_adjusted": 0.010,
    "correction": "holm-sidak",
    "significant": True,
    "effect_size": 0.21,
    "effect_size_kind": "paired d",
    "confidence": 0.95,
    "n_a": 1319,
    "n_b": 1319,
    "paired": True,
}


def test_claim_sentence_of_an_older_row_labels_its_interval_unadjusted():
    # a results.json row of before the adjusted fields: its marginal interval stands
    # next to the raw p-value and says that it is unadjusted
    assert claim_sentence(BASE) == (
        "A beats B on gsm8k / acc: Δ = +3.1 pts, 95% CI (unadjusted) [1.2, 5.0], exact "
        "McNemar p = 0.002 (Holm-Šidák adjusted 0.010), d = 0.21, n = 1,319."
    )


LEDGER = {**BASE, "ci_adjusted_low": 0.006, "ci_adjusted_high": 0.056, "confidence_adjusted": 0.99}


def test_claim_sentence_shows_the_adjusted_interval_beside_the_decision():
    assert claim_sentence(LEDGER) == (
        "A beats B on gsm8k / acc: Δ = +3.1 pts, 99% CI (Holm-Šidák adjusted) [0.6, 5.6], "
        "exact McNemar p adj. = 0.010 (Holm-Šidák; unadjusted p = 0.002), d = 0.21, "
        "n = 1,319."
    )
    # not significant after the correction: the adjusted interval contains 0, so the
    # sentence never pairs "no significant difference" with an interval excluding 0
    ns = {
        **LEDGER,
        "diff": -0.091,
        "ci_low": -0.169,
        "ci_high": -0.016,
        "ci_adjusted_low": -0.182,
        "ci_adjusted_high": 0.001,
        "confidence_adjusted": 0.975,
        "p_value": 0.013,
        "p_adjusted": 0.054,
        "significant": False,
    }
    text = claim_sentence(ns)
    assert text.startswith("No significant difference between A and B")
    assert "97.5% CI (Holm-Šidák adjusted) [−18.2, 0.1]" in text
    assert "p adj. = 0.054" in text and "unadjusted p = 0.013" in text


def test_claim_sentence_verbs():
    worse = {**BASE, "diff": -0.031, "ci_low": -0.05, "ci_high": -0.012, "effect_size": -0.21}
    assert claim_sentence(worse).startswith("B beats A on gsm8k / acc: Δ = −3.1 pts")
    lower = {**worse, "direction": "lower"}  # lower is better: A's lower score wins
    assert claim_sentence(lower).startswith("A beats B")
    ns = {**BASE, "significant": False, "p_adjusted": 0.2}
    assert claim_sentence(ns).startswith("No significant difference between A and B")


def test_claim_sentence_styles_and_units():
    md = claim_sentence(BASE, style="markdown")
    assert md.startswith("**A** beats **B**")
    tex = claim_sentence({**BASE, "metric": "pass@1_rate"}, style="latex")
    assert "\\textbf{A}" in tex and "pass@1\\_rate" in tex and "95\\% CI" in tex
    assert "$\\Delta$ = +3.1 pts" in tex
    cont = {
        **BASE,
        "modality": "continuous",
        "diff": 0.01234,
        "ci_low": 0.0021,
        "ci_high": 0.0226,
        "paired": False,
        "n_a": 100,
        "n_b": 120,
    }
    text = claim_sentence(cont)
    assert "Δ = +0.012, 95% CI (unadjusted) [0.002, 0.023]" in text and "n = 100 vs 120" in text
    with pytest.raises(ValueError, match="style='html'"):
        claim_sentence(BASE, style="html")


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
    row = {
        "system_a": "A",
        "system_b": "B",
        "dataset": "d",
        "metric": "m",
        "difference": 0.0,
        "ci_low": -0.01,
        "ci_high": 0.01,
        "p_value": 1.0,
        "effect_size": 6.9e-18,
        "effect_size_kind": "paired d",
        "confidence": 0.95,
        "significant": False,
        "n_a": 100,
        "n_b": 100,
        "paired": True,
        "test": "sign-flip",
    }
    from reportgen.report.render.claims import claim_sentence

    text = claim_sentence(row)
    assert "|d| < 0.01" in text and "e-" not in text and "e−" not in text
    assert "$|d| < 0.01$" in claim_sentence(row, style="latex")
    assert "d = 0.35" in claim_sentence({**row, "effect_size": 0.349})
