"""Claim sentences: one comparison row in words, as markdown, LaTeX or plain text.

>>> row = {"system_a": "A", "system_b": "B", "dataset": "gsm8k", "metric": "acc",
...        "direction": "higher", "modality": "binary", "diff": 0.031, "ci_low": 0.012,
...        "ci_high": 0.050, "ci_adjusted_low": 0.006, "ci_adjusted_high": 0.056,
...        "confidence_adjusted": 0.99, "test": "exact McNemar", "p_value": 0.002,
...        "p_adjusted": 0.010, "correction": "holm-sidak", "significant": True,
...        "effect_size": 0.21, "effect_size_kind": "paired d", "confidence": 0.95,
...        "n_a": 1319, "n_b": 1319, "paired": True}
>>> print(claim_sentence(row, style="plain"))
A beats B on gsm8k / acc: Δ = +3.1 pts, 99% CI (Holm-Šidák adjusted) [0.6, 5.6], exact
McNemar p adj. = 0.010 (Holm-Šidák; unadjusted p = 0.002), d = 0.21, n = 1,319.

The interval beside the decision is the adjusted one: it excludes 0 exactly when the
comparison is significant. A row without adjusted fields (a results.json written before
they existed) shows its marginal interval labelled "unadjusted" next to the raw p.

Rounding happens here only; the results keep full precision.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Literal

from reportgen import format as fmt

__all__ = ["CORRECTION_NAMES", "claim_sentence"]

Style = Literal["plain", "markdown", "latex"]

CORRECTION_NAMES = {
    "holm-sidak": "Holm-Šidák",
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "sidak": "Šidák",
    "fdr_bh": "Benjamini-Hochberg",
    "fdr_by": "Benjamini-Yekutieli",
    "none": "",
}
_EFFECT_SYMBOL = {"paired d": "d", "Cohen's d": "d", "Cohen's h": "h"}


def claim_sentence(row: Mapping[str, Any], *, style: Style = "plain") -> str:
    """One comparison (a results.json ``comparisons`` row) as a sentence.

    The verb follows the adjusted p-value and the metric's direction: "A beats B" when
    significant in A's favour, "B beats A" when significant the other way, "no
    significant difference between A and B" otherwise; the interval beside it is the
    adjusted one, which agrees with that verdict. Differences of proportions are in
    percentage points.
    """
    if style not in ("plain", "markdown", "latex"):
        raise ValueError(f"style={style!r}; use 'plain', 'markdown' or 'latex'")
    a, b = str(row["system_a"]), str(row["system_b"])
    diff = row.get("diff")
    lower_better = row.get("direction") == "lower"
    binary = row.get("modality") == "binary"
    where = f"{row['dataset']} / {row['metric']}" if row.get("dataset") else str(row["metric"])
    significant = bool(row.get("significant"))
    a_better = diff is not None and ((diff > 0) != lower_better) and diff != 0
    if significant and a_better:
        head = f"{_name(a, style)} beats {_name(b, style)} on {_text(where, style)}"
    elif significant and diff is not None and diff != 0:
        head = f"{_name(b, style)} beats {_name(a, style)} on {_text(where, style)}"
    else:
        head = (
            f"No significant difference between {_name(a, style)} and {_name(b, style)} "
            f"on {_text(where, style)}"
        )
    proportion = bool(row.get("proportion", binary))
    scale, unit = (100.0, " pts") if proportion else (1.0, "")
    latex = style == "latex"
    adjusted_ci = "ci_adjusted_low" in row
    if adjusted_ci:
        lo, hi = row.get("ci_adjusted_low"), row.get("ci_adjusted_high")
        level = row.get("confidence_adjusted")
    else:
        lo, hi = row.get("ci_low"), row.get("ci_high")
        level = row.get("confidence", 0.95)
    m_lo, m_hi = row.get("ci_low"), row.get("ci_high")
    digits = fmt.decimals_for(
        (m_hi - m_lo) / 2 if m_lo is not None and m_hi is not None else None, scale
    )
    delta = "$\\Delta$" if style == "latex" else "Δ"
    parts = []
    if diff is not None:
        sign = "+" if diff > 0 else ("−" if diff < 0 and style != "latex" else "")
        value = fmt.fixed(abs(diff), scale, digits)
        if style == "latex" and diff < 0:
            value = "-" + value
        parts.append(f"{delta} = {sign}{value}{unit}")
    pct = "\\%" if style == "latex" else "%"
    correction = CORRECTION_NAMES.get(str(row.get("correction")), str(row.get("correction")))
    adjusted = row.get("p_adjusted")
    if lo is not None or hi is not None:
        conf = "" if level is None else f"{100 * float(level):.3g}{pct} "
        label = (
            f"CI ({_text(correction, style)} adjusted) "
            if adjusted_ci and correction
            else ("CI " if adjusted_ci else "CI (unadjusted) ")
        )
        low = "−∞" if lo is None else fmt.fixed(lo, scale, digits, latex=latex)
        high = "∞" if hi is None else fmt.fixed(hi, scale, digits, latex=latex)
        parts.append(f"{conf}{label}[{low}, {high}]")
    test = _text(str(row.get("test", "")), style)
    if adjusted_ci and correction and adjusted is not None:
        p_part = (
            f"{test} {fmt.p_equals(adjusted, 'p adj.')} ({_text(correction, style)}; "
            f"unadjusted {fmt.p_equals(row.get('p_value'))})"
        )
    else:
        p_part = f"{test} {fmt.p_equals(row.get('p_value'))}"
        if correction and adjusted is not None:
            p_part += f" ({_text(correction, style)} adjusted {fmt.p_value(adjusted)})"
    parts.append(p_part)
    effect = row.get("effect_size")
    if effect is not None and math.isfinite(effect):
        symbol = _EFFECT_SYMBOL.get(str(row.get("effect_size_kind")), "effect")
        symbol = f"${symbol}$" if style == "latex" else symbol
        shown = fmt.effect(effect)  # "< 0.01", never e-notation
        if shown[0] in "<>":
            parts.append(f"|{symbol}| < 0.01" if style != "latex" else f"$|{symbol[1:-1]}| < 0.01$")
        else:
            parts.append(f"{symbol} = {fmt.fixed(effect, 1.0, 2, latex=latex)}")
    n_a, n_b = row.get("n_a"), row.get("n_b")
    if n_a is not None:
        n_text = f"{n_a:,}" if row.get("paired") or n_a == n_b else f"{n_a:,} vs {n_b:,}"
        n_sym = "$n$" if style == "latex" else "n"
        parts.append(f"{n_sym} = {n_text}")
    return f"{head}: {', '.join(parts)}."


def _name(name: str, style: Style) -> str:
    if style == "markdown":
        return f"**{name}**"
    if style == "latex":
        return f"\\textbf{{{_latex_escape(name)}}}"
    return name


def _text(text: str, style: Style) -> str:
    return _latex_escape(text) if style == "latex" else text


def _latex_escape(text: str) -> str:
    out = []
    for ch in text:
        if ch in "&%$#_{}":
            out.append("\\" + ch)
        elif ch == "\\":
            out.append("\\textbackslash{}")
        elif ch == "~":
            out.append("\\textasciitilde{}")
        elif ch == "^":
            out.append("\\textasciicircum{}")
        else:
            out.append(ch)
    return "".join(out)
