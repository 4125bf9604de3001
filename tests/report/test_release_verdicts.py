"""Release verdicts: candidate − baseline per dataset × metric, and the coverage of a
release (every dataset × metric where the baseline or the candidate is missing)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import mcnemar

from reportgen.analysis import AnalysisOptions, Ledger, analyze_release
from reportgen.analysis.release import (
    NotCompared,
    not_compared,
    resolve_release_systems,
    verdict_of,
)
from reportgen.data import load
from reportgen.errors import InputError

ARENA = Path(__file__).resolve().parents[3] / "shared" / "data" / "eval-arena"


@pytest.fixture(scope="module")
def arena():
    return load([ARENA / "humaneval+.jsonl", ARENA / "mbpp+.jsonl", ARENA / "lcb_codegen.jsonl"])


def _two(table):
    """Two systems scored on humaneval+ and mbpp+ but not on lcb_codegen, and one
    system of lcb_codegen."""
    he = set(table.systems_of("humaneval+", "pass1"))
    mb = set(table.systems_of("mbpp+", "pass1"))
    lcb = set(table.systems_of("lcb_codegen", "pass1"))
    both = sorted((he & mb) - lcb)
    return both[0], both[1]


def test_release_orientation_against_statsmodels_mcnemar(arena):
    baseline, candidate = _two(arena)
    analysis = analyze_release(
        arena,
        AnalysisOptions(seed=1, correct_across="all"),
        baseline=baseline,
        candidate=candidate,
        release="v2",
    )
    release = analysis.release
    assert release is not None and {v.dataset for v in release.verdicts} == {"humaneval+", "mbpp+"}
    for v in release.verdicts:
        view = arena.paired(v.dataset, "pass1", [candidate, baseline])
        c, b = view.scores[:, 0], view.scores[:, 1]
        # oracle: the means and candidate − baseline by hand, exact McNemar by statsmodels
        assert v.mean_candidate == pytest.approx(c.mean())
        assert v.mean_baseline == pytest.approx(b.mean())
        assert v.diff == pytest.approx(c.mean() - b.mean())
        assert v.ci_low <= v.diff <= v.ci_high
        table = [
            [np.sum((c == 1) & (b == 1)), np.sum((c == 1) & (b == 0))],
            [np.sum((c == 0) & (b == 1)), np.sum((c == 0) & (b == 0))],
        ]
        assert v.p_value == pytest.approx(mcnemar(table, exact=True).pvalue)
        assert v.effect_size is None or np.sign(v.effect_size) == np.sign(v.diff)
    # every comparison row is candidate − baseline
    for row in analysis.comparisons():
        assert (row["system_a"], row["system_b"]) == (candidate, baseline)


def test_release_coverage_names_every_uncompared_unit(arena):
    baseline, candidate = _two(arena)
    analysis = analyze_release(
        arena, AnalysisOptions(seed=1), baseline=baseline, candidate=candidate
    )
    release = analysis.release
    assert release is not None
    (missing,) = release.not_compared
    assert (missing.dataset, missing.metric) == ("lcb_codegen", "pass1")
    assert set(missing.missing) == {"baseline", "candidate"}
    assert not release.complete
    results = analysis.to_results()
    assert results["verdict"]["not_compared"][0]["dataset"] == "lcb_codegen"
    assert results["verdict"]["orientation"] == "candidate - baseline"
    assert release.decision in ("regressed", "incomplete")


def test_not_compared_suggests_close_names():
    (entry,) = not_compared(
        [("d", "m", ["model-v2.1", "model-v2.0"]), ("e", "m", ["model-v2.1-rc", "model-v2.0"])],
        baseline="model-v2.0",
        candidate="model-v2.1",
    )
    assert isinstance(entry, NotCompared) and entry.dataset == "e"
    assert entry.missing == ("candidate",) and entry.closest == ("model-v2.1-rc",)
    assert "the candidate 'model-v2.1' has no score here" in entry.reason


@pytest.mark.parametrize(
    "diff,significant,direction,expected",
    [
        (0.05, True, "higher", "improved"),
        (-0.05, True, "higher", "regressed"),
        (0.05, True, "lower", "regressed"),
        (-0.05, True, "lower", "improved"),
        (0.05, False, "higher", "no detectable difference"),
        (0.0, True, "higher", "no detectable difference"),
        (None, True, "higher", "no detectable difference"),
        (float("nan"), True, "higher", "no detectable difference"),
    ],
)
def test_verdict_of_direction_edge_cases(diff, significant, direction, expected):
    assert verdict_of(diff=diff, significant=significant, direction=direction) == expected


def test_resolve_release_systems_defaults_and_input_validation():
    assert resolve_release_systems(["a", "b"], baseline="a", candidate=None) == ("a", "b")
    assert resolve_release_systems(["a", "b"], baseline=None, candidate="a") == ("b", "a")
    assert resolve_release_systems(
        ["a", "b", "v2"], baseline="a", candidate=None, release="v2"
    ) == ("a", "v2")
    with pytest.raises(InputError, match="needs the baseline and the candidate"):
        resolve_release_systems(["a", "b", "c"], baseline="a", candidate=None)
    with pytest.raises(InputError, match="--candidate 'z' is not a system"):
        resolve_release_systems(["a", "b"], baseline="a", candidate="z")
    with pytest.raises(InputError, match="same system"):
        resolve_release_systems(["a", "b"], baseline="a", candidate="a")
    with pytest.raises(InputError, match="is not a system") as exc:
        resolve_release_systems(
            ["model-v2.0", "model-v2.1"], baseline="model-v2.0", candidate="model-v21"
        )
    assert "did you mean model-v2.1" in exc.value.hint


# ------------------------------------------------------------------ the decision line


def _opus_haiku(table_paths):
    table = load(table_paths)
    return table, analyze_release(
        table,
        AnalysisOptions(seed=1, correct_across="all"),
        baseline="claude-3-opus-20240229",
        candidate="claude-3-haiku-20240307",
        release="haiku",
    )


def test_release_decision_names_regressions_in_points_against_hand_means():
    from reportgen.analysis.ledger.words import release_decision, release_headline

    table, analysis = _opus_haiku([ARENA / "humaneval+.jsonl", ARENA / "mbpp+.jsonl"])
    release = analysis.release
    assert release is not None and release.decision == "regressed"
    text = release_decision(release).plain()
    assert text.startswith(
        "claude-3-haiku-20240307 is not better than claude-3-opus-20240229: regressed on "
    )
    verdict = {v.dataset: v.verdict for v in release.verdicts}
    # humaneval+ regresses at the family's single-step Šidák level; mbpp+ (adjusted
    # p between 0.0253 and 0.05) does not (Holm-Šidák's step-down would call it)
    assert verdict == {"humaneval+": "regressed", "mbpp+": "no detectable difference"}
    lows = {v.dataset: v.ci_adjusted_low for v in release.verdicts}
    for dataset in ("humaneval+", "mbpp+"):
        view = table.paired(dataset, "pass1", ["claude-3-haiku-20240307", "claude-3-opus-20240229"])
        c, b = view.scores[:, 0].mean(), view.scores[:, 1].mean()
        # oracle: the means by hand, in percent, and their gap in points
        if verdict[dataset] == "regressed":
            assert f"{dataset} by {100 * (b - c):.1f} pts ({100 * b:.1f}% → {100 * c:.1f}%)" in text
        else:
            # words from the interval the verdict is read off, never "could have
            # missed" (post-hoc power): the loss its lower end leaves open
            assert f"{dataset} (−{100 * (b - c):.1f} pts; a loss of up to " in text
            assert f"a loss of up to {-100 * lows[dataset]:.1f} pts" in text
            assert "could have missed" not in text
    assert release_headline(release).startswith("not better: regressed on humaneval+ by ")


def test_release_intervals_agree_with_the_verdicts_against_the_sidak_level():
    # oracle: Šidák's per-comparison level 1 − (1 − α)^(1/m) in closed form; every
    # interval excludes 0 exactly when the adjusted p is at most α
    _, analysis = _opus_haiku(
        [ARENA / "humaneval+.jsonl", ARENA / "mbpp+.jsonl", ARENA / "cruxeval_output.jsonl"]
    )
    release = analysis.release
    assert release is not None and release.interval_correction == "sidak"
    m = len(release.verdicts)
    for v in release.verdicts:
        assert v.confidence_adjusted == pytest.approx((1 - 0.05) ** (1 / m))
        assert v.correction == "sidak"
        excludes_zero = v.ci_adjusted_low > 0 or v.ci_adjusted_high < 0
        assert excludes_zero == (v.p_adjusted <= 0.05)
        assert (v.verdict != "no detectable difference") == excludes_zero
        # the marginal interval goes with the raw p-value, at the stated confidence
        assert v.confidence == 0.95
        assert (v.ci_low > 0 or v.ci_high < 0) == (v.p_value <= 0.05)


def test_release_pair_reads_the_same_in_every_section():
    # one family per question: the per-dataset comparison of the baseline and the
    # candidate is the release's verdict (same test, p-values, interval, decision)
    _, analysis = _opus_haiku([ARENA / "humaneval+.jsonl", ARENA / "mbpp+.jsonl"])
    release = analysis.release
    assert release is not None
    rows = {r["dataset"]: r for r in analysis.comparisons()}
    for v in release.verdicts:
        row = rows[v.dataset]
        assert row["system_a"] == v.candidate  # candidate − baseline everywhere
        for field in ("p_value", "p_adjusted", "correction", "test", "diff"):
            assert row[field] == v.to_dict()[field], field
        assert (row["ci_adjusted_low"], row["ci_adjusted_high"]) == (
            v.ci_adjusted_low,
            v.ci_adjusted_high,
        )
        assert (row["ci_low"], row["ci_high"]) == (v.ci_low, v.ci_high)
        assert row["significant"] == (v.verdict in ("improved", "regressed"))
    family = analysis.ledger.family
    assert family.scope == "release" and family.sizes == (len(release.verdicts),)
    assert "Šidák over the release's 2 dataset × metric comparisons" in family.describe()


#: On humaneval+ and mbpp+, not on lcb_codegen, and not significantly different.
PARTIAL = {"baseline": "code-llama-multi-13b", "candidate": "code-llama-multi-34b"}


def test_release_decision_is_never_silent_about_what_was_not_compared(arena):
    from reportgen.analysis.ledger.words import (
        not_compared_lines,
        release_decision,
        release_headline,
    )

    release = analyze_release(arena, AnalysisOptions(seed=1), **PARTIAL).release
    assert release is not None and release.not_compared and not release.regressions
    text = release_decision(release).plain()
    assert "not compared on lcb_codegen" in text
    assert text.startswith(
        "code-llama-multi-34b was compared with code-llama-multi-13b "
        "on only 2 of 3 dataset × metrics: "
    )
    assert "1 of 3 not compared" in release_headline(release)
    (line,) = not_compared_lines(release)
    assert line.plain().startswith("lcb_codegen / pass1: the baseline")


def test_release_comparison_round_trips_through_results_json(arena):
    from reportgen.analysis.release import ReleaseComparison

    baseline, candidate = _two(arena)
    release = analyze_release(
        arena, AnalysisOptions(seed=1), baseline=baseline, candidate=candidate, release="v2"
    ).release
    assert release is not None
    again = ReleaseComparison.from_dict(release.to_dict())
    assert again == release
    assert all(v.proportion for v in again.verdicts)  # pass@1 is a proportion


@pytest.mark.parametrize(
    "case,gate,allow,status,said",
    [
        ("regressed", "regression", False, 1, "gate regression: regressed on humaneval+"),
        ("regressed", None, False, 0, None),
        ("partial", "regression", False, 1, "lcb_codegen / pass1 was not compared"),
        ("partial", "regression", True, 0, None),
        ("partial", None, False, 0, None),
        ("margin 0.1", "non-inferiority", False, 0, None),
        ("margin 0.1", "regression", False, 0, None),
        (
            "margin 0.02",
            "non-inferiority",
            False,
            1,
            "mbpp+ / pass1: a loss larger than the margin (0.02) is not ruled out",
        ),
        ("no margin", "non-inferiority", False, 1, "has no margin, so non-inferiority cannot"),
    ],
)
def test_release_gate_exit_status(arena, capsys, case, gate, allow, status, said):
    from reportgen.cli import _release_gate

    if case == "regressed":
        _, analysis = _opus_haiku([ARENA / "humaneval+.jsonl", ARENA / "mbpp+.jsonl"])
    elif case == "partial":
        analysis = analyze_release(arena, AnalysisOptions(seed=1), **PARTIAL)
    else:  # the two code-llama sizes on the two benchmarks both have
        margins = None if case == "no margin" else {"*": float(case.split()[1])}
        analysis = analyze_release(
            load([ARENA / "humaneval+.jsonl", ARENA / "mbpp+.jsonl"]),
            AnalysisOptions(seed=1, margins=margins),
            **PARTIAL,
        )
    # the gate reads the release back from results.json, as `reportgen run` does
    verdict = Ledger.from_results(analysis.to_results()).release
    assert verdict is not None
    assert _release_gate(verdict, gate=gate, allow_partial=allow) == status
    out, err = capsys.readouterr()
    assert out.startswith("decision: ")
    if case == "partial":  # named on stderr whatever the gate says
        assert "not compared: lcb_codegen / pass1: the baseline" in err
    if said:
        assert said in err


# ------------------------------------------------------------------ margins and flips


def test_release_with_margin_verdicts_flips_and_wiring():
    import numpy as np
    import pandas as pd

    from reportgen.stats.margins import margin_paired

    table = load([ARENA / "humaneval+.jsonl", ARENA / "mbpp+.jsonl"])
    release = analyze_release(
        table, AnalysisOptions(seed=1, margins={"*": 0.1, "pass1": 0.02}), **PARTIAL
    ).release
    assert release is not None and release.has_margin
    for v in release.verdicts:
        assert v.margin == 0.02  # the metric's own margin wins over "*"
        view = table.paired(v.dataset, "pass1", [PARTIAL["baseline"], PARTIAL["candidate"]])
        base, cand = view.scores[:, 0], view.scores[:, 1]
        # oracle: McNemar's discordant cells by hand (pandas.crosstab)
        cells = pd.crosstab(base, cand)
        assert (v.n_lost, v.n_gained) == (cells.loc[1.0, 0.0], cells.loc[0.0, 1.0])
        # wiring: the raw p of the stats layer on the same two columns
        direct = margin_paired(np.column_stack([base, cand]), margin=0.02)
        assert v.p_noninferiority == pytest.approx(float(direct.p_noninferiority[0]))
        assert v.p_equivalence == pytest.approx(float(direct.p_equivalence[0]))
        # the verdict is read off the interval shown beside it
        assert (v.verdict in ("improved", "non-inferior")) == (v.ci_low > -0.02)
        assert v.equivalent == (v.ci_low > -0.02 and v.ci_high < 0.02)
        assert (v.p_noninferiority_adjusted <= 0.025) == (v.ci_low > -0.02)
    flips = {f.dataset: f for f in release.flips}
    assert {f.n_lost for f in flips.values()} == {v.n_lost for v in release.verdicts}
    rows = flips["mbpp+"].to_records()
    assert all(r["change"] == r["candidate_score"] - r["baseline_score"] != 0 for r in rows)
    assert [r["change"] < 0 for r in rows] == sorted(
        (r["change"] < 0 for r in rows), reverse=True
    )  # losses first


def test_release_margin_from_the_config_and_a_bad_margin(tmp_path):
    from reportgen.errors import InputError

    config = tmp_path / "rg.toml"
    config.write_text("[metrics.pass1]\nmargin = 0.1\n")
    table = load([ARENA / "humaneval+.jsonl"], config=config)
    assert table.metrics["pass1"].margin == 0.1
    release = analyze_release(table, AnalysisOptions(seed=1), **PARTIAL).release
    assert release is not None and [v.margin for v in release.verdicts] == [0.1]
    # a proportion's margin of 1.5 cannot be: named with its dataset × metric
    with pytest.raises(InputError, match=r"humaneval\+ / pass1: .*margin"):
        analyze_release(table, AnalysisOptions(seed=1, margins={"*": 1.5}), **PARTIAL)
    with pytest.raises(InputError, match="must be a positive number"):
        AnalysisOptions(margins={"pass1": -0.1})


def test_items_line_names_the_largest_losses_when_there_are_many_units():
    """Reference: the release's own lost/gained counts (checked against pandas
    crosstabs above), sorted by hand. With more units than the decision box names (the
    example's 13 made a paragraph of it), the line names those where the candidate lost
    the largest share of items, and says that the verdict table has all of them."""
    import re

    from reportgen.analysis.ledger.words import MAX_DECISION_ITEMS, flips_line

    root = Path(__file__).resolve().parents[2] / "examples"
    table = load([root / "data"], config=str(root / "reportgen.toml"))
    release = analyze_release(
        table,
        AnalysisOptions(seed=1, n_resamples=199),
        baseline="starcoder2-15b|fim|4k",
        candidate="starcoder2-15b|fim|8k",
    ).release
    assert release is not None and len(release.flips) > MAX_DECISION_ITEMS
    sentence = flips_line(release)
    assert sentence is not None
    line = sentence.plain()
    assert f"has all {len(release.flips)} dataset × metrics" in line
    named = re.findall(r"lost (\d+), gained (\d+) of (\d+)", line)
    assert len(named) == MAX_DECISION_ITEMS
    shares = sorted((f.n_lost / f.n_items for f in release.flips), reverse=True)
    got = sorted((int(lost) / int(n) for lost, _, n in named), reverse=True)
    assert got == pytest.approx(shares[:MAX_DECISION_ITEMS])


def test_release_console_names_few_flipped_units_and_sums_many(capsys):
    # the console says the items lost and gained: one line per dataset × metric for up
    # to three, else one line of sums (every item is in tables/flips.csv)
    from dataclasses import replace

    from reportgen.cli import _release_gate

    _, analysis = _opus_haiku([ARENA / "humaneval+.jsonl", ARENA / "mbpp+.jsonl"])
    release = Ledger.from_results(analysis.to_results()).release
    assert release is not None
    flips = release.flips
    assert len(flips) == 2
    _release_gate(release, gate=None, allow_partial=False)
    out = capsys.readouterr().out
    for f in flips:
        line = f"items: {f.dataset} / {f.metric}: lost {f.n_lost}, gained {f.n_gained}"
        assert line in out
    many = replace(
        release,
        flips=tuple(replace(f, dataset=f"{f.dataset}-{k}") for k in range(3) for f in flips),
    )
    _release_gate(many, gate=None, allow_partial=False)
    out = capsys.readouterr().out
    lost = 3 * sum(f.n_lost for f in flips)
    gained = 3 * sum(f.n_gained for f in flips)
    assert f"items: lost {lost:,}, gained {gained:,} over 6 dataset × metrics" in out
    assert out.count("items:") == 1


def test_margin_is_shown_as_the_one_sided_bound_it_is():
    """Issue 42: a one-sided non-inferiority margin was shown as "±2.0 pts". It is the
    largest loss accepted: −2.0 pts where higher is better (+δ where lower is), in the
    verdict table and the verdict sentence."""
    from reportgen.report.sections.release import _verdict_row, verdict_sentence

    table = load([ARENA / "humaneval+.jsonl", ARENA / "mbpp+.jsonl"])
    release = analyze_release(table, AnalysisOptions(seed=1, margins={"pass1": 0.02}), **PARTIAL)
    assert release.release is not None
    for v in release.release.verdicts:
        row = _verdict_row(v, one_metric=True)
        assert row["margin"].startswith("−2.0 pts") and "±" not in row["margin"]
        assert "margin −2.0 pts" in verdict_sentence(v)
