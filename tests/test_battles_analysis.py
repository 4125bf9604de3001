"""Battles through the analysis and the report (analysis/battles.py,
report/sections/battles.py): each pair's claim is its test's, decided once; the family
is the analysis' (``correct_across``); results.json holds them under ``battles``,
validated by the schema; the report's key findings and Battles section render the
claims and decide nothing.

References: the sign tests and corrections of the stats layer recomputed from the
battles (scipy's binomtest, statsmodels' multipletests through adjust_pvalues), and the
results.json schema.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from reportgen.analysis import AnalysisOptions, analyze
from reportgen.data import load
from reportgen.report import sections as rs
from reportgen.report.folder.manifest import validate_results

pytestmark = pytest.mark.integration

REAL = Path(__file__).resolve().parent / "fixtures" / "real"
ARENA = REAL / "arena" / "genai-arena-20240220" / "clean_battle_20240220.json.gz"
SINGLE = REAL / "mt_bench" / "llama2-7b-variants" / "model_judgment" / "gpt-4_single.jsonl"
PAIR = REAL / "mt_bench" / "phi-3-dpo" / "model_judgment" / "gpt-4_pair.jsonl.gz"


@pytest.fixture(scope="module")
def arena():
    return analyze(load(ARENA), AnalysisOptions(seed=5, n_resamples=200))


def test_battle_claims_against_scipy_binomtest(arena) -> None:
    for result in arena.battles.results:
        counts = result.counts
        raw = []
        for claim in result.claims:
            a, b = result.systems.index(claim.system_a), result.systems.index(claim.system_b)
            # A is the higher-rated of the pair
            assert a < b and result.rating_of(claim.system_a) >= result.rating_of(claim.system_b)
            assert (claim.wins_a, claim.wins_b) == (counts.wins[a, b], counts.wins[b, a])
            n = claim.wins_a + claim.wins_b
            if n == 0:  # only ties between them: not testable, said why
                assert claim.reason and claim.p_value is None and not claim.significant
                continue
            # scipy: binomtest(wins_a, decisive, 0.5)
            assert claim.p_value == pytest.approx(stats.binomtest(claim.wins_a, n).pvalue)
            raw.append(claim.p_value)
            excludes = claim.ci_adjusted_low > 0.5 or claim.ci_adjusted_high < 0.5
            assert excludes == claim.significant
            assert claim.interval_kind == "step-down compatible"
        # statsmodels: multipletests(method="holm-sidak") within the dataset
        reject, adjusted, _, _ = multipletests(raw, alpha=0.05, method="holm-sidak")
        tested = [c for c in result.claims if c.reason is None]
        np.testing.assert_allclose([c.p_adjusted for c in tested], adjusted)
        assert [c.significant for c in tested] == list(reject)


def test_groups_that_never_met_are_rated_apart(arena) -> None:
    names = [r.dataset for r in arena.battles.results]
    assert names == [
        "clean_battle_20240220 (group 1 of 2)",
        "clean_battle_20240220 (group 2 of 2)",
    ]
    for result in arena.battles.results:
        assert abs(np.mean(result.ratings.rating) - 1000) < 1e-6
        kinds = {s.rsplit("_", 1)[1] for s in result.systems}
        assert len(kinds) == 1  # editing and generation apart
    assert any("never met" in n for n in arena.notes)


def test_correct_across_all_puts_scores_and_battles_in_one_family() -> None:
    table = load([SINGLE, PAIR])
    analysis = analyze(table, AnalysisOptions(seed=2, n_resamples=199, correct_across="all"))
    unit_p = np.concatenate([u.comparisons.p_value for u in analysis.compared])
    battle_p = np.array([c.p_value for c in analysis.battles.claims])
    raw = np.concatenate([unit_p, battle_p])
    _, adjusted, _, _ = multipletests(raw, method="holm-sidak")
    np.testing.assert_allclose(
        [c.p_adjusted for c in analysis.battles.claims], adjusted[len(unit_p) :]
    )
    np.testing.assert_allclose(
        np.concatenate([u.comparisons.p_adjusted for u in analysis.compared]),
        adjusted[: len(unit_p)],
    )
    assert analysis.battles.family == "analysis"
    document = analysis.to_results()
    validate_results(document)
    (pair,) = document["battles"]["datasets"][0]["pairs"]
    assert pair["system_a"] == analysis.battles.results[0].leader
    assert pair["interval_kind"] == "step-down compatible"


def test_results_json_battles_validate_against_the_schema(arena) -> None:
    document = arena.to_results()
    validate_results(document)
    entry = document["battles"]["datasets"][1]
    assert entry["n_battles"] == arena.battles.results[1].n_battles
    matrix = entry["win_rate_matrix"]
    assert matrix["systems"] == list(arena.battles.results[1].systems)
    assert matrix["decisive_share"][0][0] is None  # a system never battles itself
    assert document["data"]["datasets"] == []


@pytest.fixture(scope="module")
def battle_report(tmp_path_factory):
    folder = tmp_path_factory.mktemp("battles")
    return rs.prepare(
        [str(ARENA), str(PAIR)],
        analysis_options={"seed": 4, "n_resamples": 199},
        output_dir=str(folder / "out"),
        title="Battles",
    )


def test_key_findings_and_battles_section_read_the_claims(battle_report) -> None:
    analysis = battle_report.analysis.battles
    # the words between the tags (names are set in bold)
    summary = re.sub(r"<[^>]+>", "", rs.summary(battle_report).html)
    generation = analysis.results[1]
    runner = generation.systems[1]
    claim = generation.claim(generation.leader, runner)
    assert f"{generation.leader} leads the Bradley-Terry ratings" in summary
    verb = "is better than" if claim.significant else "is not distinguishable from"
    assert f"{generation.leader} {verb} {runner}" in summary
    assert f"won {claim.wins_a} of their {claim.wins_a + claim.wins_b} decisive battles" in summary
    assert "0 datasets" not in summary  # battles only: the note counts battles
    section = rs.battles(battle_report).html
    assert section.count("<h3") == len(analysis.results)
    assert 'class="rg-chart' in section  # with a phone's variant beside it
    decided = sum(c.significant for c in generation.claims)
    assert section.count(">significant<") >= decided
    assert rs.results_matrix(battle_report) is None  # no scores


def test_analyze_and_inspect_print_the_battles(tmp_path: Path, capsys) -> None:
    from reportgen.cli import main

    assert main(["analyze", str(PAIR), "--out", str(tmp_path / "out"), "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "battles: mt_bench: 73 battles, phi-3-dpo leads" in out
    assert "0 of 1 pair differ significantly" in out  # the verb agrees with the 0
    assert main(["inspect", str(PAIR)]) == 0
    shown = capsys.readouterr().out
    assert "Battles (1 dataset)" in shown and "Datasets (0)" not in shown


def test_systems_option_keeps_the_battles_among_them() -> None:
    table = load(ARENA)
    chosen = ("imagenhub_SDXL_generation", "imagenhub_LCM_generation", "imagenhub_PNP_edition")
    analysis = analyze(table, AnalysisOptions(seed=1, n_resamples=99, systems=chosen))
    (result,) = analysis.battles.results  # the editing model met neither of the others
    assert set(result.systems) == set(chosen[:2])
    frame = table.battles.frame
    between = frame[frame["model_a"].isin(chosen[:2]) & frame["model_b"].isin(chosen[:2])]
    assert result.n_battles == len(between)
