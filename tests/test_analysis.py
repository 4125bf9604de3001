"""analyze(): every sample list, direction-aware alternatives, correction families,
per-system intervals, seeds, and the results.json contract."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from reportgen.analysis import AnalysisOptions, analyze, unit_rng
from reportgen.data import AdapterResult, MetricSpec, TableConfig, build_score_table, load
from reportgen.errors import InputError, OneSidedWarning

# several layers together (data, analysis, sections): tests/conftest.py's tiers
pytestmark = pytest.mark.integration

REQUIRED = {
    "dataset",
    "metric",
    "system_a",
    "system_b",
    "test",
    "alternative",
    "statistic",
    "p_value",
    "p_adjusted",
    "correction",
    "effect_size",
    "effect_size_kind",
    "mean_a",
    "mean_b",
    "diff",
    "ci_low",
    "ci_high",
    "confidence",
    "n_a",
    "n_b",
    "significant",
}


@pytest.fixture(scope="module")
def example():
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "examples"
    return load(root / "data", config=root / "reportgen.toml")


@pytest.fixture(scope="module")
def example_seed_1(example):
    """The example analysed with the default options and seed 1, read by three tests."""
    return analyze(example, AnalysisOptions(seed=1))


def test_results_json_contract(example):
    analysis = analyze(example, AnalysisOptions(seed=3))
    results = analysis.to_results()
    text = json.dumps(results, allow_nan=False)  # NaN would raise
    assert json.loads(text)["seed"] == 3
    assert {
        "reportgen_version",
        "created",
        "seed",
        "config",
        "data",
        "systems",
        "comparisons",
    } <= set(results)
    assert len(results["comparisons"]) == 12 * 66 + 66
    for row in results["comparisons"]:
        assert set(row) >= REQUIRED
    assert {"mean", "ci_low", "ci_high", "ci_method", "confidence", "n", "runs"} <= set(
        results["systems"][0]
    )
    assert results["config"]["metrics"]["edit_distance"]["direction"] == "lower"
    assert results["data"]["items"]["python"] == 520


def test_paired_t_per_sample_list_against_scipy(example, example_seed_1):
    analysis = example_seed_1
    sl = analysis.unit("java", "edit_similarity")
    view = example.paired("java", "edit_similarity")
    raw = []
    for row in sl.comparison_records():
        i, j = view.systems.index(row["system_a"]), view.systems.index(row["system_b"])
        # scipy: ttest_rel on the two columns
        raw.append(stats.ttest_rel(view.scores[:, i], view.scores[:, j]).pvalue)
    np.testing.assert_allclose([r["p_value"] for r in sl.comparison_records()], raw, rtol=1e-10)
    # statsmodels: Holm-Šidák within the sample list
    np.testing.assert_allclose(
        [r["p_adjusted"] for r in sl.comparison_records()],
        multipletests(raw, method="holm-sidak")[1],
        rtol=1e-10,
    )


def test_correct_across_all_uses_one_family(example, example_seed_1):
    local = example_seed_1
    every = analyze(example, AnalysisOptions(seed=1, correct_across="all"))
    raw = [r["p_value"] for r in local.comparisons()]
    # statsmodels: one Holm-Šidák family over all comparisons
    np.testing.assert_allclose(
        [r["p_adjusted"] for r in every.comparisons()],
        multipletests(raw, method="holm-sidak")[1],
        rtol=1e-10,
    )
    assert sum(r["significant"] for r in every.comparisons()) <= sum(
        r["significant"] for r in local.comparisons()
    )


def test_runs_are_averaged_per_item(example, example_seed_1):
    analysis = example_seed_1
    sl = analysis.unit("unittests", "pass")
    assert sl.n_runs == 5 and sl.test == "paired t"
    view = example.paired("unittests", "pass")
    means = view.scores.mean(axis=2)
    row = sl.comparison_records()[0]
    i, j = view.systems.index(row["system_a"]), view.systems.index(row["system_b"])
    assert row["p_value"] == pytest.approx(stats.ttest_rel(means[:, i], means[:, j]).pvalue)


def _table(direction):
    rng = np.random.default_rng(0)
    n = 50
    frame = pd.DataFrame(
        {
            "system": np.repeat(["A", "B"], n),
            "dataset": "d",
            "metric": "loss",
            "item": np.tile(np.arange(n).astype(str), 2),
            "score": np.r_[rng.normal(0, 1, n), rng.normal(0.8, 1, n)],
        }
    )
    return build_score_table(
        AdapterResult(frame), TableConfig({"loss": MetricSpec(direction=direction)})
    )


def test_greater_means_better_for_lower_is_better_metrics():
    # A has the lower loss. With "lower is better", "greater" (A better) must be significant
    with pytest.warns(OneSidedWarning, match=r"'greater' \(system A better than B\)"):
        lower = analyze(_table("lower"), AnalysisOptions(alternative="greater", seed=0))
    with pytest.warns(OneSidedWarning):
        higher = analyze(_table("higher"), AnalysisOptions(alternative="greater", seed=0))
    (row_l,), (row_h,) = lower.comparisons(), higher.comparisons()
    assert row_l["diff"] < 0 and row_l["p_value"] < 0.01 and row_l["alternative"] == "greater"
    assert row_h["p_value"] > 0.99


def test_system_rows_against_statsmodels_wilson(shared_data):
    table = load(shared_data / "eval-arena" / "humaneval+.jsonl")
    analysis = analyze(table, AnalysisOptions(seed=0))
    view = table.paired("humaneval+", "pass1")
    row = analysis.to_results()["systems"][0]
    k = int(view.scores[:, view.systems.index(row["system"])].sum())
    # statsmodels: proportion_confint(k, n, method="wilson")
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        proportion_confint(k, 164, method="wilson"), rel=1e-12
    )
    assert row["ci_method"] == "Wilson" and row["n"] == 164


def test_same_seed_same_results_and_unit_seeds_independent(example):
    opts = AnalysisOptions(method="bootstrap", n_resamples=500, seed=11)
    a = analyze(example, opts).comparisons()
    b = analyze(example, opts).comparisons()
    assert [r["p_value"] for r in a] == [r["p_value"] for r in b]
    # a unit's generator depends only on (seed, dataset, metric)
    x = unit_rng(11, "java", "edit_similarity").random(3)
    y = unit_rng(11, "java", "edit_similarity").random(3)
    z = unit_rng(11, "python", "edit_similarity").random(3)
    assert (x == y).all() and not (x == z).all()


def test_seed_drawn_and_recorded_when_missing(example):
    analysis = analyze(
        example, AnalysisOptions(systems=("codegemma-7b|fim|2k", "granite-3b|fim|4k"))
    )
    assert isinstance(analysis.seed, int) and analysis.to_results()["seed"] == analysis.seed
    assert {r["system_a"] for r in analysis.comparisons()} == {"codegemma-7b|fim|2k"}


def test_forced_unpaired_uses_welch(example):
    analysis = analyze(example, AnalysisOptions(pairing="unpaired", seed=0))
    sl = analysis.unit("csharp", "identifier_f1")
    assert sl.pairing == "unpaired" and sl.test == "Welch t"


def test_analysis_options_validation(example):
    with pytest.raises(InputError, match=r"(?s)pairing='maybe' is not valid"):
        AnalysisOptions(pairing="maybe")
    with pytest.raises(InputError, match="seed=-1 must be a non-negative integer"):
        AnalysisOptions(seed=-1)
    with pytest.raises(InputError, match=r"(?s)unknown system 'nope'"):
        analyze(example, AnalysisOptions(baseline="nope"))


def test_ci_method_override(shared_data, example):
    table = load(shared_data / "eval-arena" / "humaneval+.jsonl")
    analysis = analyze(table, AnalysisOptions(seed=0, ci_method="clopper-pearson"))
    row = analysis.to_results()["systems"][3]
    view = table.paired("humaneval+", "pass1")
    k = int(view.scores[:, view.systems.index(row["system"])].sum())
    # statsmodels: proportion_confint(k, n, method="beta")
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        proportion_confint(k, 164, method="beta"), rel=1e-10
    )
    # a binary method on continuous scores falls back to BCa, and says so
    mixed = analyze(
        example,
        AnalysisOptions(
            seed=0, ci_method="wilson", systems=("codegemma-7b|fim|2k", "granite-3b|fim|4k")
        ),
    )
    rows = {(r["dataset"], r["metric"]): r["ci_method"] for r in mixed.to_results()["systems"]}
    assert rows[("csharp", "edit_similarity")] == "bootstrap BCa"
    assert rows[("unittests", "pass")] == "bootstrap BCa (item means over runs)"
    assert any("replaced by the bootstrap BCa" in n for n in mixed.notes)


def test_system_rows_t_against_statsmodels(example):
    from statsmodels.stats.weightstats import DescrStatsW

    analysis = analyze(example, AnalysisOptions(seed=0, ci_method="t"))
    row = next(
        r
        for r in analysis.to_results()["systems"]
        if r["dataset"] == "java" and r["metric"] == "edit_similarity"
    )
    x = example.unpaired("java", "edit_similarity", [row["system"]]).scores[0]
    # statsmodels: DescrStatsW(x).tconfint_mean()
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        DescrStatsW(x).tconfint_mean(), rel=1e-12
    )


def test_noise_section_reproduces_published_p5(shared_data):
    # seed 002 / issue 4: humaneval+ p5_min = 11 items (6.71%), p5_max = 16 items (9.76%)
    table = load(shared_data / "eval-arena" / "humaneval+.jsonl")
    (entry,) = analyze(table, AnalysisOptions(seed=0)).to_results()["noise"]
    assert (entry["p5_min_items"], entry["p5_max_items"]) == (11, 16)
    assert round(100 * entry["p5_min"], 2) == 6.71 and round(100 * entry["p5_max"], 2) == 9.76
    assert entry["null_sd"] == pytest.approx(entry["p5_min"] / (np.sqrt(2) * 1.96))


def test_noise_section_splits_prediction_noise_on_terminal_bench(shared_data):
    table = load(shared_data / "eval-arena" / "terminal-bench-2.0.jsonl")
    with pytest.warns(Warning):
        (entry,) = analyze(table, AnalysisOptions(seed=0)).to_results()["noise"]
    split = [s for s in entry["prediction_noise"]["systems"] if s["samples"] == 5]
    assert split and all(s["prediction_var"] is not None for s in split)
    for s in split:  # the two parts add up to the variance of the mean
        assert s["data_var"] + s["prediction_var"] == pytest.approx(s["total_var"])


def test_noise_skipped_for_unbounded_metrics(example):
    noise = analyze(example, AnalysisOptions(seed=0, n_resamples=200)).to_results()["noise"]
    assert {(e["dataset"], e["metric"]) for e in noise} == {
        (d, "identifier_f1") for d in ("csharp", "java", "python", "typescript")
    } | {("unittests", "pass")}


def test_corpus_metrics_from_predictions(tmp_path):
    rng = np.random.default_rng(0)
    labels = np.array(["a", "b", "c"])
    reference = labels[rng.integers(0, 3, 120)]
    rows = []
    for system, skill in (("A", 0.8), ("B", 0.6)):
        right = rng.random(120) < skill
        guess = labels[rng.integers(0, 3, 120)]
        for i in range(120):
            rows.append(
                {
                    "system": system,
                    "dataset": "cls",
                    "item": str(i),
                    "prediction": reference[i] if right[i] else guess[i],
                    "reference": reference[i],
                }
            )
    path = tmp_path / "cls.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    table = load(path)
    analysis = analyze(
        table, AnalysisOptions(seed=0, n_resamples=2000, corpus_metrics=("f1-macro", "accuracy"))
    )
    results = analysis.to_results()
    f1_rows = {r["system"]: r for r in results["systems"] if r["metric"] == "f1-macro"}

    def macro_f1(pred, ref):  # the textbook definition, class by class
        scores = []
        for c in labels:
            tp = np.sum((pred == c) & (ref == c))
            fp = np.sum((pred == c) & (ref != c))
            fn = np.sum((pred != c) & (ref == c))
            scores.append(2 * tp / (2 * tp + fp + fn) if tp + fp + fn else 0.0)
        return np.mean(scores)

    frame = pd.DataFrame(rows)
    for system in ("A", "B"):
        sub = frame[frame.system == system]
        expected = macro_f1(sub.prediction.to_numpy(), sub.reference.to_numpy())
        assert f1_rows[system]["mean"] == pytest.approx(expected, rel=1e-12)
        assert f1_rows[system]["ci_low"] < expected < f1_rows[system]["ci_high"]
    comparison = next(r for r in results["comparisons"] if r["metric"] == "f1-macro")
    assert comparison["test"].startswith("approximate randomization")
    assert comparison["derived_from"] == "accuracy" and comparison["runs"] == 1
    # the corpus accuracy equals the per-item accuracy metric's mean
    acc = {
        r["system"]: r["mean"]
        for r in results["systems"]
        if r["metric"] == "accuracy" and r.get("derived_from") is None
    }
    corpus_acc = {
        r["system"]: r["mean"]
        for r in results["systems"]
        if r["metric"] == "accuracy" and r.get("derived_from") == "accuracy"
    }
    assert corpus_acc == pytest.approx(acc)
    with pytest.raises(InputError, match="unknown corpus metric|f1-macro"):
        AnalysisOptions(corpus_metrics=("f2",))


def test_runs_section_against_statsmodels(example):
    from statsmodels.api import OLS
    from statsmodels.stats.contingency_tables import cochrans_q

    analysis = analyze(example, AnalysisOptions(seed=0, n_resamples=500))
    (entry,) = analysis.to_results()["runs"]
    assert (entry["dataset"], entry["n_runs"], entry["n_items"]) == ("unittests", 5, 200)
    view = example.paired("unittests", "pass")
    j = 3
    name = view.systems[j]
    x = view.scores[:, j, :]
    # statsmodels: OLS(y, 1).fit(cov_type="cluster", groups=item) on the item × run scores
    fit = OLS(x.ravel(), np.ones(x.size)).fit(
        cov_type="cluster", cov_kwds={"groups": np.repeat(np.arange(200), 5)}, use_t=True
    )
    row = next(r for r in entry["clustered_se"] if r["system"] == name)
    assert row["se"] == pytest.approx(float(fit.bse[0]), rel=1e-10)
    # statsmodels: cochrans_q on the items × runs 0/1 matrix
    q = next(r for r in entry["runs_differ"] if r["system"] == name)
    assert q["p_value"] == pytest.approx(cochrans_q(x).pvalue, rel=1e-10)
    assert len(entry["ci_width_by_runs"]) == 12 * 5 and len(entry["per_run"]) == 12 * 5
    assert len(entry["paired_variance_components"]) == 66
    for row in entry["variance_components"]:
        assert row["se_data"] ** 2 + row["se_prediction"] ** 2 == pytest.approx(
            row["se_total"] ** 2
        )


def test_power_section_against_statsmodels(shared_data):
    from statsmodels.stats.power import TTestPower

    table = load(shared_data / "ibm-rag")
    analysis = analyze(table, AnalysisOptions(seed=0, n_resamples=200, detect_delta=0.05))
    entry = next(e for e in analysis.to_results()["power"] if e["metric"] == "sbert")
    view = table.paired("ibm-rag", "sbert")
    ia, ib = np.triu_indices(6, k=1)
    sd = np.median((view.scores[:, ia] - view.scores[:, ib]).std(axis=0, ddof=1))
    assert entry["design"] == "paired-continuous" and entry["sd"] == pytest.approx(sd)
    # the MDE is a property of the design at the level the decisions use: the
    # per-comparison level of the family's single-step correction, Šidák's
    # 1 - (1 - 0.05)^(1/15) for the 15 pairs of 6 systems under Holm-Šidák
    level = 1 - 0.95 ** (1 / 15)
    assert entry["alpha"] == pytest.approx(level, rel=1e-12)
    # statsmodels: TTestPower().solve_power(nobs=140, power=0.8) gives the MDE in SD units
    d = TTestPower().solve_power(nobs=140, alpha=level, power=0.8)
    assert entry["mde"] == pytest.approx(d * sd, rel=1e-4)
    n_needed = TTestPower().solve_power(effect_size=0.05 / sd, alpha=level, power=0.8)
    # issue 41: items needed are whole items, the root rounded up
    assert entry["n_required"] == math.ceil(n_needed - 1e-9)


def test_clusters_section(example):
    from statsmodels.api import OLS

    analysis = analyze(example, AnalysisOptions(seed=0, n_resamples=200, cluster_by="difficulty"))
    entry = next(
        e
        for e in analysis.to_results()["clusters"]
        if (e["dataset"], e["metric"]) == ("java", "edit_similarity")
    )
    row = entry["systems"][0]
    uview = example.unpaired("java", "edit_similarity", [row["system"]])
    labels = example.item_metadata.loc[[("java", i) for i in uview.items[0]], "difficulty"]
    # statsmodels: OLS cluster-robust SE with the difficulty groups
    fit = OLS(uview.scores[0], np.ones(len(labels))).fit(
        cov_type="cluster", cov_kwds={"groups": pd.factorize(labels)[0]}, use_t=True
    )
    assert row["se"] == pytest.approx(float(fit.bse[0]), rel=1e-10)
    bad = analyze(example, AnalysisOptions(seed=0, n_resamples=100, cluster_by="nope"))
    assert bad.to_results()["clusters"] == []
    assert any("cluster_by='nope' is not an item-metadata column" in n for n in bad.notes)


def test_signal_to_noise_from_config_families(shared_data, tmp_path):
    config = tmp_path / "families.toml"
    config.write_text(
        '[systems."code-llama-multi-7b"]\nfamily = "code-llama-multi"\n'
        'size = 7\n[systems."code-llama-multi-34b"]\n'
        'family = "code-llama-multi"\nsize = 34\n'
    )
    table = load(shared_data / "eval-arena" / "mbpp+.jsonl", config=config)
    (entry,) = analyze(table, AnalysisOptions(seed=0, n_resamples=100)).to_results()["noise"]
    (pair,) = entry["signal_to_noise"]["pairs"]
    # closed form (seed 002): (acc(A) - acc(B)) / SE(A - B) / log2(size_A / size_B), with
    # SE(A - B) = sqrt(b + c - (b - c)^2 / n) / n from the discordant counts
    view = table.paired("mbpp+", "pass1")
    a = view.scores[:, view.systems.index("code-llama-multi-34b")]
    b = view.scores[:, view.systems.index("code-llama-multi-7b")]
    n = len(a)
    n10, n01 = np.sum((a == 1) & (b == 0)), np.sum((a == 0) & (b == 1))
    se = np.sqrt(n10 + n01 - (n10 - n01) ** 2 / n) / n
    expected = (a.mean() - b.mean()) / se / np.log2(34 / 7)
    assert pair["snr"] == pytest.approx(expected, rel=1e-10)


def test_rankings_and_items_sections(shared_data):
    from reportgen.stats.leaderboard import bradley_terry

    table = load(shared_data / "eval-arena" / "humaneval+.jsonl")
    results = analyze(table, AnalysisOptions(seed=5, n_resamples=300)).to_results()
    (items,) = results["items"]
    view = table.paired("humaneval+", "pass1")
    # independent count: items no model solves (issue 5: 7 on humaneval+)
    assert items["n_unsolved"] == int((view.scores.sum(axis=1) == 0).sum()) == 7
    assert items["n_solved_by_one"] == int((view.scores.sum(axis=1) == 1).sum())
    (board,) = [e for e in results["rankings"] if e["kind"] == "leaderboard"]
    ratings = {r["system"]: r["rating"] for r in board["bradley_terry"]["systems"]}
    direct = bradley_terry(view.scores, systems=view.systems, n_resamples=10)
    for name, rating in zip(direct.systems, direct.rating):
        assert ratings[name] == pytest.approx(rating, rel=1e-9)


def test_ordered_ranking_on_the_example(example):
    results = analyze(example, AnalysisOptions(seed=2, n_resamples=1000)).to_results()
    ordered = results["rankings"][0]
    assert ordered["kind"] == "ordered" and len(ordered["lists"]) == 5
    scores = [s["score"] for s in ordered["systems"]]
    assert scores == sorted(scores, reverse=True)
    # cliques are consistent with the adjusted p-values: every pair inside a clique is
    # not significant (the property the issue checks)
    significant = {
        frozenset((p["system_a"], p["system_b"])) for p in ordered["pairs"] if p["significant"]
    }
    for clique in ordered["graph"]["cliques"]:
        for a in clique:
            for b in clique:
                assert a == b or frozenset((a, b)) not in significant
    # the generator's near-tie pair (examples/README.md) shares a clique
    near_tie = {"starcoder2-15b|l2r|4k", "codellama-13b|fim|4k"}
    assert any(near_tie <= set(c) for c in ordered["graph"]["cliques"])
    assert {a["dataset"] for a in results["aggregates"]} == {
        "csharp",
        "java",
        "python",
        "typescript",
        "unittests",
    }
    assert ordered["across_lists"]["friedman_nemenyi"]["test"] == "Friedman"


def test_rank_intervals_contain_observed_ranks(shared_data):
    # the eval-arena benchmarks taken as unpaired datasets: one ordered ranking across
    # them, and per benchmark rank intervals that contain the observed rank
    tables = [shared_data / "eval-arena" / n for n in ("humaneval+.jsonl", "mbpp+.jsonl")]
    table = load(tables)
    results = analyze(table, AnalysisOptions(seed=3, n_resamples=500)).to_results()
    ordered = results["rankings"][0]
    assert ordered["kind"] == "ordered" and "harmonic-mean p" in ordered["method"]
    common = set(load(tables[0]).systems) & set(load(tables[1]).systems)
    assert {s["system"] for s in ordered["systems"]} == common
    for entry in (e for e in results["rankings"] if e["kind"] == "ranks"):
        for row in entry["simultaneous"]["systems"]:
            assert row["rank_ci_low"] <= row["rank"] <= row["rank_ci_high"]


def test_ordered_ranking_first_vs_rest_is_right_tailed_and_flagged(example):
    analysis = analyze(example, AnalysisOptions(seed=2, n_resamples=300, order="first-vs-rest"))
    ordered = analysis.to_results()["rankings"][0]
    assert ordered["alternative"] == "greater" and len(ordered["pairs"]) == 11
    best = ordered["systems"][0]["system"]
    assert all(p["system_a"] == best for p in ordered["pairs"])
    assert any("optimistic" in n for n in analysis.notes)


def _write(tmp_path, rows, name="scores.csv"):
    import pandas as pd

    path = tmp_path / name
    pd.DataFrame(rows, columns=["system", "dataset", "metric", "item", "score"]).to_csv(
        path, index=False
    )
    return path


def test_ordered_ranking_with_identical_systems_on_every_list(tmp_path):
    """Two systems with the same scores: no effect size for their pair (its SD is 0),
    p = 1 (identical samples), and the analysis goes on."""
    rng = np.random.default_rng(1)
    rows = []
    for dataset in ("a", "b"):
        base = rng.normal(size=40)
        for i in range(40):
            rows += [
                ("x", dataset, "m", f"{dataset}{i}", base[i]),
                ("y", dataset, "m", f"{dataset}{i}", base[i]),
                ("z", dataset, "m", f"{dataset}{i}", base[i] + 0.5 + rng.normal()),
            ]
    analysis = analyze(load(_write(tmp_path, rows)), AnalysisOptions(seed=1, n_resamples=199))
    # the units say it (issue 30: a degenerate unit is a result with its reason)
    for dataset in ("a", "b"):
        reason = analysis.unit(dataset, "m").degenerate_reason
        assert reason is not None and "identical scores on all 40 items" in reason
    ordered = next(r for r in analysis.to_results()["rankings"] if r["kind"] == "ordered")
    pair = next(p for p in ordered["pairs"] if {p["system_a"], p["system_b"]} == {"x", "y"})
    assert pair["effect_size"] is None and pair["p_adjusted"] == 1.0
    assert ordered["systems"][0]["system"] == "z"


def test_ordered_ranking_unpaired_with_a_one_item_system(tmp_path):
    """Unpaired lists where one system has a single item: its SD is undefined and its
    weight n - 1 = 0 in the pooled SD. Reference: the standardized means of seed 000
    §6.3 computed here with numpy on the centred lists, pooled SD = sqrt(sum (n-1) s^2 /
    (sum n - B)), divided by sqrt(sum 1/n)."""
    rng = np.random.default_rng(2)
    rows, sizes = [], {"x": 30, "y": 25, "z": 1}
    for dataset, shift in (("a", 0.0), ("b", 1.0)):
        for system, n in sizes.items():
            for i in range(n):
                rows.append(
                    (
                        system,
                        dataset,
                        "m",
                        f"{dataset}-{system}{i}",
                        rng.normal(shift + 0.3 * (system == "y")),
                    )
                )
    table = load(_write(tmp_path, rows))
    analysis = analyze(table, AnalysisOptions(seed=1, n_resamples=199))
    ordered = next(r for r in analysis.to_results()["rankings"] if r["kind"] == "ordered")
    expected = {}
    for dataset in ("a", "b"):
        groups = {s: np.array([r[4] for r in rows if r[0] == s and r[1] == dataset]) for s in sizes}
        ss = sum((len(g) - 1) * g.var(ddof=1) for g in groups.values() if len(g) > 1)
        pooled = np.sqrt(ss / (sum(len(g) for g in groups.values()) - len(groups)))
        denom = pooled * np.sqrt(sum(1 / len(g) for g in groups.values()))
        grand = np.concatenate(list(groups.values())).mean()  # lists are centred first
        for s, g in groups.items():
            expected[s] = expected.get(s, 0.0) + 0.5 * (g.mean() - grand) / denom
    got = {s["system"]: s["score"] for s in ordered["systems"]}
    assert got == pytest.approx(expected, rel=1e-9)
    assert any("could not be tested" in n for n in analysis.notes)
    untested = [p for p in ordered["pairs"] if "z" in (p["system_a"], p["system_b"])]
    assert untested and all(not p["significant"] for p in untested)


@pytest.mark.parametrize("across", ["sample-list", "all"])
def test_unit_graph_edges_are_the_non_significant_pairs_by_enumeration(example, across):
    # reference: enumeration of every compared pair of the unit's final comparisons (after
    # the correction across all units when asked): an edge iff p adj. > alpha
    analysis = analyze(example, AnalysisOptions(seed=2, n_resamples=199, correct_across=across))
    for unit in analysis.compared:
        result = unit.comparisons
        assert unit.graph is not None
        expected = set()
        for k, (i, j) in enumerate(zip(result.index_a, result.index_b)):
            if not result.p_adjusted[k] <= result.alpha:
                expected.add(frozenset((result.systems[i], result.systems[j])))
        assert {frozenset(e[:2]) for e in unit.graph.edges} == expected
        # ordered best first on the metric's direction
        means = dict(zip(unit.systems, unit.means))
        ordered = [means[s] for s in unit.graph.systems]
        assert ordered == sorted(ordered, reverse=unit.direction == "higher")
