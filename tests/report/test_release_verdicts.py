"""Release verdicts: candidate − baseline per dataset × metric, and the coverage of a
release (every dataset × metric where the baseline or the candidate is missing)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.contingency_tables import mcnemar

from reportgen.analysis import AnalysisOptions, analyze_release
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
    return load([ARENA / "humaneval+.jsonl", ARENA / "mbpp+.jsonl",
                 ARENA / "lcb_codegen.jsonl"])


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
    analysis = analyze_release(arena, AnalysisOptions(seed=1, correct_across="all"),
                               baseline=baseline, candidate=candidate, release="v2")
    release = analysis.release
    assert release is not None and {v.dataset for v in release.verdicts} == \
        {"humaneval+", "mbpp+"}
    for v in release.verdicts:
        view = arena.paired(v.dataset, "pass1", [candidate, baseline])
        c, b = view.scores[:, 0], view.scores[:, 1]
        # oracle: the means and candidate − baseline by hand, exact McNemar by statsmodels
        assert v.mean_candidate == pytest.approx(c.mean())
        assert v.mean_baseline == pytest.approx(b.mean())
        assert v.diff == pytest.approx(c.mean() - b.mean())
        assert v.ci_low <= v.diff <= v.ci_high
        table = [[np.sum((c == 1) & (b == 1)), np.sum((c == 1) & (b == 0))],
                 [np.sum((c == 0) & (b == 1)), np.sum((c == 0) & (b == 0))]]
        assert v.p_value == pytest.approx(mcnemar(table, exact=True).pvalue)
        assert v.effect_size is None or np.sign(v.effect_size) == np.sign(v.diff)
    # every comparison row is candidate − baseline
    for row in analysis.comparisons():
        assert (row["system_a"], row["system_b"]) == (candidate, baseline)


def test_release_coverage_names_every_uncompared_unit(arena):
    baseline, candidate = _two(arena)
    analysis = analyze_release(arena, AnalysisOptions(seed=1),
                               baseline=baseline, candidate=candidate)
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
    (entry,) = not_compared([("d", "m", ["model-v2.1", "model-v2.0"]),
                             ("e", "m", ["model-v2.1-rc", "model-v2.0"])],
                            baseline="model-v2.0", candidate="model-v2.1")
    assert isinstance(entry, NotCompared) and entry.dataset == "e"
    assert entry.missing == ("candidate",) and entry.closest == ("model-v2.1-rc",)
    assert "the candidate 'model-v2.1' has no score here" in entry.reason


@pytest.mark.parametrize("diff,significant,direction,expected", [
    (0.05, True, "higher", "improved"), (-0.05, True, "higher", "regressed"),
    (0.05, True, "lower", "regressed"), (-0.05, True, "lower", "improved"),
    (0.05, False, "higher", "no detectable difference"),
    (0.0, True, "higher", "no detectable difference"),
    (None, True, "higher", "no detectable difference"),
    (float("nan"), True, "higher", "no detectable difference")])
def test_verdict_of_direction_edge_cases(diff, significant, direction, expected):
    assert verdict_of(diff=diff, significant=significant, direction=direction) == expected


def test_resolve_release_systems_defaults_and_input_validation():
    assert resolve_release_systems(["a", "b"], baseline="a", candidate=None) == ("a", "b")
    assert resolve_release_systems(["a", "b"], baseline=None, candidate="a") == ("b", "a")
    assert resolve_release_systems(["a", "b", "v2"], baseline="a", candidate=None,
                                   release="v2") == ("a", "v2")
    with pytest.raises(InputError, match="needs the baseline and the candidate"):
        resolve_release_systems(["a", "b", "c"], baseline="a", candidate=None)
    with pytest.raises(InputError, match="--candidate 'z' is not a system"):
        resolve_release_systems(["a", "b"], baseline="a", candidate="z")
    with pytest.raises(InputError, match="same system"):
        resolve_release_systems(["a", "b"], baseline="a", candidate="a")
    with pytest.raises(InputError, match="is not a system") as exc:
        resolve_release_systems(["model-v2.0", "model-v2.1"], baseline="model-v2.0",
                                candidate="model-v21")
    assert "did you mean model-v2.1" in exc.value.hint


# ------------------------------------------------------------------ the decision line

def _opus_haiku(table_paths):
    table = load(table_paths)
    return table, analyze_release(table, AnalysisOptions(seed=1, correct_across="all"),
                                  baseline="claude-3-opus-20240229",
                                  candidate="claude-3-haiku-20240307", release="haiku")


def test_release_decision_names_regressions_in_points_against_hand_means():
    from reportgen.report.findings import plain, release_decision, release_headline

    table, analysis = _opus_haiku([ARENA / "humaneval+.jsonl", ARENA / "mbpp+.jsonl"])
    release = analysis.release
    assert release is not None and release.decision == "regressed"
    text = plain(release_decision(release))
    assert text.startswith("claude-3-haiku-20240307 is not better than "
                           "claude-3-opus-20240229: regressed on ")
    for dataset in ("humaneval+", "mbpp+"):
        view = table.paired(dataset, "pass1", ["claude-3-haiku-20240307",
                                               "claude-3-opus-20240229"])
        c, b = view.scores[:, 0].mean(), view.scores[:, 1].mean()
        # oracle: the means by hand, in percent, and their gap in points
        assert f"{dataset} by {100 * (b - c):.1f} pts ({100 * b:.1f}% → {100 * c:.1f}%)" \
            in text
    assert release_headline(release).startswith("not better: regressed on humaneval+ by ")


#: On humaneval+ and mbpp+, not on lcb_codegen, and not significantly different.
PARTIAL = {"baseline": "code-llama-multi-13b", "candidate": "code-llama-multi-34b"}


def test_release_decision_is_never_silent_about_what_was_not_compared(arena):
    from reportgen.report.findings import (
        not_compared_lines,
        plain,
        release_decision,
        release_headline,
    )

    release = analyze_release(arena, AnalysisOptions(seed=1), **PARTIAL).release
    assert release is not None and release.not_compared and not release.regressions
    text = plain(release_decision(release))
    assert "not compared on lcb_codegen" in text
    assert text.startswith("code-llama-multi-34b was compared with code-llama-multi-13b "
                           "on only 2 of 3 dataset × metrics: ")
    assert "1 of 3 not compared" in release_headline(release)
    (line,) = not_compared_lines(release)
    assert plain(line).startswith("lcb_codegen / pass1: the baseline")


def test_release_comparison_round_trips_through_results_json(arena):
    from reportgen.analysis.release import ReleaseComparison

    baseline, candidate = _two(arena)
    release = analyze_release(arena, AnalysisOptions(seed=1), baseline=baseline,
                              candidate=candidate, release="v2").release
    assert release is not None
    again = ReleaseComparison.from_dict(release.to_dict())
    assert again == release
    assert all(v.proportion for v in again.verdicts)  # pass@1 is a proportion


@pytest.mark.parametrize("case,fail,allow,status,said", [
    ("regressed", True, False, 1, "significant regression"),
    ("regressed", False, False, 0, None),
    ("partial", True, False, 1, "were not compared, so the gate cannot pass"),
    ("partial", True, True, 0, None),
    ("partial", False, False, 0, None),
])
def test_release_gate_exit_status(arena, capsys, case, fail, allow, status, said):
    from reportgen.cli import _release_gate

    if case == "regressed":
        _, analysis = _opus_haiku([ARENA / "humaneval+.jsonl", ARENA / "mbpp+.jsonl"])
    else:
        analysis = analyze_release(arena, AnalysisOptions(seed=1), **PARTIAL)
    verdict = analysis.to_results()["verdict"]
    assert _release_gate(verdict, fail_on_regression=fail, allow_partial=allow) == status
    out, err = capsys.readouterr()
    assert out.startswith("decision: ")
    if case == "partial":  # named on stderr whatever the gate says
        assert "not compared: lcb_codegen / pass1: the baseline" in err
    if said:
        assert said in err
