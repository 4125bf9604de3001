"""Names the command line offers as choices, declared where importing them costs nothing
(no numpy, pandas or scipy): ``reportgen --help`` builds its parser from these.

Every option with a fixed set of values is declared here once: the ``Literal`` types of
the library (:mod:`reportgen.stats.multiplicity` takes ``Correction`` from here,
:mod:`reportgen.stats.pairwise` ``Method``, ``Order``, ...), the config file's checks
(:mod:`reportgen.data._config`) and the command line's choices all come from it.
:data:`INPUT_FORMATS` names the built-in input adapters, which
``tests/test_cli.py`` checks against the registry.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = [
    "ALTERNATIVES",
    "CI_METHODS",
    "CORPUS_METRICS",
    "CORRECTIONS",
    "CORRECT_ACROSS",
    "EFFECT_LEVELS",
    "EXECUTORS",
    "GATES",
    "IF_EXISTS",
    "INPUT_FORMATS",
    "METHODS",
    "NAN_POLICIES",
    "NONFINITE_POLICIES",
    "ORDERS",
    "PAIRINGS",
    "Alternative",
    "CIMethod",
    "Correction",
    "CorrectAcross",
    "EffectLevel",
    "Executor",
    "CORRECTION_NAMES",
    "ESTIMANDS",
    "ESTIMAND_NAMES",
    "Estimand",
    "FamilyScope",
    "INTERVAL_KIND_NAMES",
    "INTERVAL_KINDS",
    "Gate",
    "IfExists",
    "IntervalKind",
    "Method",
    "NanPolicy",
    "NonfinitePolicy",
    "Order",
    "Pairing",
]

#: Multiple-comparison corrections (statsmodels' ``multipletests`` names).
Correction = Literal["holm-sidak", "holm", "bonferroni", "sidak", "fdr_bh", "fdr_by", "none"]
CORRECTIONS: tuple[str, ...] = get_args(Correction)

#: How the systems of a dataset × metric are compared (``--pairing``).
Pairing = Literal["auto", "paired", "unpaired"]
PAIRINGS: tuple[str, ...] = get_args(Pairing)
#: The test of each pair (``--method``; auto: by pairing and modality).
Method = Literal["auto", "permutation", "bootstrap", "sign"]
METHODS: tuple[str, ...] = get_args(Method)
#: Which pairs are compared (``--order``).
Order = Literal["all-pairs", "first-vs-rest", "successive"]
ORDERS: tuple[str, ...] = get_args(Order)
#: The alternative hypothesis of every test (``--alternative``).
Alternative = Literal["two-sided", "greater", "less"]
ALTERNATIVES: tuple[str, ...] = get_args(Alternative)
#: The family of a multiple-comparison correction (``--correct-across``).
CorrectAcross = Literal["sample-list", "all"]
CORRECT_ACROSS: tuple[str, ...] = get_args(CorrectAcross)
#: Cohen's levels of an effect size (``--effect-threshold``).
EffectLevel = Literal["small", "medium", "large"]
EFFECT_LEVELS: tuple[str, ...] = get_args(EffectLevel)
#: Intervals of a system's mean (``--ci-method``).
CIMethod = Literal["auto", "wilson", "clopper-pearson", "t", "percentile", "bca"]
CI_METHODS: tuple[str, ...] = get_args(CIMethod)
#: Corpus-level metrics computed from predictions and references (``--corpus-metric``).
CORPUS_METRICS: tuple[str, ...] = tuple(
    f"{m}-{a}" for m in ("f1", "precision", "recall") for a in ("macro", "micro", "binary")
) + ("accuracy", "mcc", "mean")
#: What happens to a NaN score (``--nan-policy``).
NanPolicy = Literal["drop", "raise"]
NAN_POLICIES: tuple[str, ...] = get_args(NanPolicy)
#: What an infinite or NaN per-item value in a harness's log does (``--nonfinite``).
NonfinitePolicy = Literal["drop", "error"]
NONFINITE_POLICIES: tuple[str, ...] = get_args(NonfinitePolicy)
#: Where the dataset × metric units run (``--executor``).
Executor = Literal["local", "dask"]
EXECUTORS: tuple[str, ...] = get_args(Executor)
#: What ``--out`` does when the folder exists (``--if-exists``).
IfExists = Literal["error", "replace", "replace-edited", "timestamp"]
IF_EXISTS: tuple[str, ...] = get_args(IfExists)
#: The release gates (``--gate``).
Gate = Literal["regression", "non-inferiority"]
GATES: tuple[str, ...] = get_args(Gate)

#: What an adjusted interval promises (docs/statistics.md): ``simultaneous`` (Bonferroni,
#: Šidák: all intervals of the family cover together with probability ≥ 1 − α),
#: ``step-down compatible`` (Holm, Holm-Šidák: Strassburger & Bretz 2008, a rejected
#: comparison gets only its sign unless all are rejected), ``FCR`` (BH, BY: Benjamini &
#: Yekutieli 2005, the expected share of non-covering intervals among those shown is ≤ α)
#: or ``unadjusted`` (no correction, or a family of one).
IntervalKind = Literal["simultaneous", "step-down compatible", "FCR", "unadjusted"]
INTERVAL_KINDS: tuple[str, ...] = get_args(IntervalKind)
#: What a metric's comparisons estimate (``[metrics.NAME] estimand``): the difference of
#: means, of 20% trimmed means (Yuen's paired test) or the Hodges-Lehmann shift (Wilcoxon).
Estimand = Literal["mean", "trimmed", "hodges-lehmann"]
ESTIMANDS: tuple[str, ...] = get_args(Estimand)
#: The comparisons corrected together: a release's units, the whole analysis, or each
#: dataset × metric alone.
FamilyScope = Literal["release", "analysis", "dataset × metric"]

#: Each correction as prose names it (the report, the e-mail, the console, the history).
CORRECTION_NAMES: dict[str, str] = {
    "holm-sidak": "Holm-Šidák",
    "holm": "Holm",
    "bonferroni": "Bonferroni",
    "sidak": "Šidák",
    "fdr_bh": "Benjamini-Hochberg",
    "fdr_by": "Benjamini-Yekutieli",
    "none": "no correction",
}
#: Each interval kind as a label names it ("95% simultaneous CI", "FCR-adjusted CI").
INTERVAL_KIND_NAMES: dict[str, str] = {
    "simultaneous": "simultaneous",
    "step-down compatible": "step-down compatible",
    "FCR": "FCR-adjusted",
    "unadjusted": "unadjusted",
}
#: Each estimand as a label names it.
ESTIMAND_NAMES: dict[str, str] = {
    "mean": "difference of means",
    "trimmed": "difference of 20% trimmed means",
    "hodges-lehmann": "Hodges-Lehmann shift",
}

#: The built-in input formats (``--format``), in about the order detection tries them.
INPUT_FORMATS: tuple[str, ...] = (
    "eval-arena",
    "mt-bench",
    "arena-battles",
    "alpaca-eval",
    "deepeval",
    "promptfoo",
    "evalplus",
    "lighteval",
    "opencompass",
    "lm-eval",
    "inspect",
    "helm",
    "every-eval-ever",
    "ragas",
    "long",
    "wide",
)
