"""Methods from the ledger, the glossary and the references."""

from __future__ import annotations

from collections.abc import Sequence

from reportgen.report.render.html import (
    HTMLBlock,
    escape,
    h3,
    section,
)
from reportgen.report.sections._base import (
    Report,
)

#: The papers the report's methods come from, cited as (authors, year).
REFERENCES = (
    (
        "Ackerman et al. (2025)",
        "Statistical multi-metric evaluation and ranking of "
        "LLM-based systems: the test choice, the metric aggregation, the ordered ranking "
        "with its graph of indistinguishable systems.",
    ),
    ("Al Mohamad, Goeman & van Zwet (2022)", "Simultaneous confidence intervals for ranks."),
    (
        "Bradley & Terry (1952)",
        "Rank analysis of incomplete block designs: the method of paired comparisons.",
    ),
    (
        "Demšar (2006)",
        "Statistical comparisons of classifiers over multiple data sets "
        "(Friedman test, Nemenyi critical difference).",
    ),
    (
        "Dror, Baumer, Shlomov & Reichart (2018)",
        "The hitchhiker's guide to testing "
        "statistical significance in natural language processing.",
    ),
    ("Efron & Tibshirani (1993)", "An introduction to the bootstrap."),
    ("Holm (1979)", "A simple sequentially rejective multiple test procedure."),
    (
        "McNemar (1947)",
        "Note on the sampling error of the difference between correlated "
        "proportions or percentages.",
    ),
    (
        "Miller (2024)",
        "Adding error bars to evals: a statistical approach to language "
        "model evaluations (clustered and repeated-run intervals).",
    ),
    (
        "Piepho (2004)",
        "An algorithm for a letter-based representation of all-pairwise "
        "comparisons (tie-group letters).",
    ),
    ("Wang et al. (2024)", "Eval-Arena: noise and errors on LLM evaluations."),
    (
        "Wilson (1927)",
        "Probable inference, the law of succession, and statistical "
        "inference (the interval of a proportion).",
    ),
    ("Wilson (2019)", "The harmonic mean p-value for combining dependent tests."),
    (
        "Šidák (1967)",
        "Rectangular confidence regions for the means of multivariate normal distributions.",
    ),
    (
        "Strassburger & Bretz (2008)",
        "Compatible simultaneous lower confidence bounds for the Holm procedure and other "
        "Bonferroni-based closed tests.",
    ),
    (
        "Schuirmann (1987)",
        "A comparison of the two one-sided tests procedure and the power approach for "
        "assessing the equivalence of average bioavailability.",
    ),
    (
        "Miettinen (1976)",
        "Estimability and estimation in case-referent studies (test-based confidence limits).",
    ),
    ("Dunn (1961)", "Multiple comparisons among means (the Bonferroni correction)."),
    (
        "Berger (1982)",
        "Multiparameter hypothesis testing and acceptance sampling (the intersection-union test).",
    ),
    (
        "Benjamini & Hochberg (1995)",
        "Controlling the false discovery rate: a practical and powerful approach to "
        "multiple testing.",
    ),
    (
        "Benjamini & Yekutieli (2001)",
        "The control of the false discovery rate in multiple testing under dependency.",
    ),
    (
        "Benjamini & Yekutieli (2005)",
        "False discovery rate-adjusted multiple confidence intervals for selected parameters.",
    ),
    (
        "Tango (1998)",
        "Equivalence test and confidence interval for the difference in proportions for "
        "the paired-sample design.",
    ),
    ("Newcombe (1998)", "Interval estimation for the difference between independent proportions."),
    (
        "Welch (1947)",
        "The generalization of 'Student's' problem when several different population "
        "variances are involved.",
    ),
    ("Student (1908)", "The probable error of a mean."),
)

#: Words in a test's or an interval's name -> the reference the Methods cite for it.
_METHOD_REFERENCES = (
    ("mcnemar", "McNemar (1947)"),
    ("tango", "Tango (1998)"),
    ("newcombe", "Newcombe (1998)"),
    ("welch", "Welch (1947)"),
    ("paired t", "Student (1908)"),
    ("wilson", "Wilson (1927)"),
    ("bootstrap", "Efron & Tibshirani (1993)"),
    ("bca", "Efron & Tibshirani (1993)"),
    ("test-based", "Miettinen (1976)"),
)

#: The words of the report a reader may not know.
GLOSSARY = (
    (
        "interval",
        "a range that holds the true mean (or difference) with the stated "
        "confidence, e.g. 95%: the narrower, the more precise.",
    ),
    ("pts", "percentage points: the difference of two percentages (63.8% → 54.8% is −9.0 pts)."),
    (
        "p adj.",
        "the p-value adjusted for the number of comparisons made (multiple "
        "comparisons); a difference is significant when it is at most α.",
    ),
    (
        "tie group",
        "systems sharing a tie group (a letter, or a number where a list has more "
        "than 8 groups) are not significantly different from each other (compact "
        "letter display).",
    ),
    (
        "MDE",
        "minimum detectable effect: the smallest true difference one comparison detects "
        "with the stated power at the family's per-comparison level; a property of the "
        "design, never evidence that an observed difference is small.",
    ),
    (
        "adjusted interval",
        "the interval beside an adjusted p-value: it excludes 0 exactly when the "
        "comparison is significant after the multiple-comparison correction.",
    ),
    (
        "paired",
        "every system was scored on the same items, so each comparison uses the "
        "per-item differences (more sensitive than comparing means).",
    ),
)


def methods(report: Report) -> HTMLBlock | None:
    """How the numbers were made, from the ledger (:attr:`Analysis.ledger`): exactly the
    tests, corrections, intervals, margins and family the claims used, each with its
    reference, and nothing about analyses the report does not show; a glossary. Which
    test where, the inputs with hashes and the versions are in :func:`provenance`."""
    from reportgen import __version__

    analysis = report.analysis
    ledger = analysis.ledger
    opts = analysis.options
    family = ledger.family
    cited: list[str] = []

    def cite(key: str) -> str:
        if key not in cited:
            cited.append(key)
        return key

    def listed(kind: str) -> str:
        parts = []
        for m in (m for m in ledger.methods if m.kind == kind):
            for word, key in _METHOD_REFERENCES:
                if word in m.name.lower():
                    cite(key)
            n = len(m.units)
            where = f" ({n} dataset × metric{'s' if n != 1 else ''})" if n else ""
            parts.append(f"{m.name}{where}")
        return "; ".join(parts) or "none"

    text: list[str] = []
    release = analysis.release
    if release is not None:
        text.append(
            f"The candidate {release.candidate} is compared with the baseline "
            f"{release.baseline} on every dataset × metric both were scored on, as "
            f"candidate − baseline, with {listed('test')}."
        )
        text.append(
            f"The release is one family: {family.describe()}. Every verdict is read off "
            f"the simultaneous interval at that family's level, which inverts the "
            f"comparison's own test: improved or regressed when it excludes 0 "
            f"({cite('Šidák (1967)')}; single-step because a step-down correction has no "
            f"intervals that agree with its decisions, {cite('Strassburger & Bretz (2008)')})."
        )
        bound = next((b for v in release.verdicts if (b := v.ni_interval()) is not None), None)
        if release.has_margin and bound is not None:
            text.append(
                f"Margins ({listed('margin')}): non-inferior when the {bound.label()} "
                "lies above −δ (below δ when lower is better), unadjusted, since "
                "“every dataset × metric is non-inferior” is an intersection-union test "
                f"of size α/2 ({cite('Berger (1982)')}); equivalent when the interval "
                f"lies within ±δ, two one-sided tests ({cite('Schuirmann (1987)')})."
            )
    else:
        text.append(
            "Every pair of systems is compared per dataset × metric with the test the "
            f"design and the kind of score call for ({cite('Ackerman et al. (2025)')}, "
            f"{cite('Dror, Baumer, Shlomov & Reichart (2018)')}): {listed('test')}."
        )
        for key in _correction_keys(family.correction):
            cite(key)
        text.append(
            f"Multiplicity: {family.describe()}; the interval beside each decision is "
            f"{family.intervals_text()}."
        )
    text.append(
        f"Intervals: {opts.confidence:.0%} for each system's mean; {listed('interval')} for "
        "the differences."
    )
    if ledger.noise:
        level = max(n.level for n in ledger.noise)
        text.append(
            f"MDEs are at {opts.power:.0%} power and the family's per-comparison level "
            f"(α′ ≤ {level:.3g})."
        )
    if release is None and analysis.ranking is not None:
        text.append(
            "Systems are ranked across datasets by an aggregate of standardised means "
            f"with the harmonic-mean p of {cite('Wilson (2019)')} and the critical "
            f"difference of {cite('Demšar (2006)')}; tie groups follow "
            f"{cite('Piepho (2004)')}."
        )
    if release is None and any(u.noise is not None for u in analysis.units):
        text.append(f"Benchmark noise follows {cite('Wang et al. (2024)')}.")
    if any(u.runs is not None for u in analysis.units):
        text.append(f"Repeated runs follow {cite('Miller (2024)')}.")
    text.append(
        f"reportgen {__version__}, seed {analysis.seed}: the same data, options and seed "
        "give the same numbers."
    )
    body = [f"<p>{escape(' '.join(text))}</p>"]
    body += _glossary_and_references(cited)
    return section("Methods", body, sid="methods")


def _glossary_and_references(cited: Sequence[str]) -> list[str]:
    """The glossary, and the references of ``cited`` (the works the text names)."""
    body: list[str] = []
    body.append(h3("Glossary", "glossary"))
    body.append(
        '<dl class="rg-glossary">'
        + "".join(f"<dt>{escape(term)}</dt><dd>{escape(text)}</dd>" for term, text in GLOSSARY)
        + "</dl>"
    )
    body.append(h3("References", "references"))
    references = dict(REFERENCES)
    body.append(
        '<ul class="rg-references">'
        + "".join(
            f"<li>{escape(who)}. {escape(references[who])}</li>"
            for who in sorted(cited)
            if who in references
        )
        + "</ul>"
    )
    return body


def _correction_keys(correction: str) -> tuple[str, ...]:
    """The references of a correction and of its adjusted intervals, as the References
    list names them."""
    return {
        "holm": ("Holm (1979)", "Strassburger & Bretz (2008)"),
        "holm-sidak": ("Holm (1979)", "Šidák (1967)", "Strassburger & Bretz (2008)"),
        "sidak": ("Šidák (1967)",),
        "bonferroni": ("Dunn (1961)",),
        "fdr_bh": ("Benjamini & Hochberg (1995)", "Benjamini & Yekutieli (2005)"),
        "fdr_by": ("Benjamini & Yekutieli (2001)", "Benjamini & Yekutieli (2005)"),
    }.get(correction, ())
