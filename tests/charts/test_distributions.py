"""Distribution charts: specs (to_dict) and a few vl-convert rendering smoke tests."""

from __future__ import annotations

import numpy as np
import pytest
import vl_convert as vlc

from reportgen.charts.distributions import (
    distribution_chart,
    distribution_summary,
    rank_distribution_chart,
)
from reportgen.errors import InputError
from reportgen.stats.ranking import rank_distributions


def _layers(chart):
    spec = chart.to_dict()
    return spec, spec["layer"]


def _values(spec, layer):
    """Inline rows of a layer (altair hoists data shared by all layers to the top)."""
    return (layer.get("data") or spec["data"])["values"]


def _render(chart, tmp_path=None, name="chart"):
    svg = vlc.vegalite_to_svg(chart.to_json())
    png = vlc.vegalite_to_png(chart.to_json(), scale=2)
    assert svg.startswith("<svg") and png[:8] == b"\x89PNG\r\n\x1a\n"
    if tmp_path is not None:
        (tmp_path / f"{name}.png").write_bytes(png)
    return svg


VALUES = {
    "long-system-name-alpha": [0.1, 0.2, 0.3, 0.4, 0.5],
    "beta": [0.9, 0.8, 0.7, 0.6, 1.0],
    "gamma": [0.5, 0.5, 0.6, np.nan, 0.4],
}


def test_distribution_summary_quantiles_and_order():
    rows = distribution_summary(VALUES)
    assert [r["system"] for r in rows] == ["beta", "gamma", "long-system-name-alpha"]
    beta = rows[0]
    q = np.quantile([0.9, 0.8, 0.7, 0.6, 1.0], [0, 0.25, 0.5, 0.75, 1])
    assert [beta[k] for k in ("min", "q1", "median", "q3", "max")] == pytest.approx(q)
    assert beta["mean"] == pytest.approx(0.8)
    assert rows[1]["n"] == 4  # NaN dropped
    assert [r["order"] for r in rows] == [0, 1, 2]
    low = distribution_summary(VALUES, direction="lower")
    assert [r["system"] for r in low] == ["long-system-name-alpha", "gamma", "beta"]


def test_distribution_chart_spec():
    chart = distribution_chart(VALUES, metric="edit similarity")
    spec, layers = _layers(chart)
    assert [lay["mark"]["type"] for lay in layers] == ["rule", "bar", "tick", "point"]
    rows = _values(spec, layers[0])
    assert len(rows) == 3 and "values" not in rows[0]  # summaries, not raw items
    assert set(rows[0]) >= {"system", "min", "q1", "median", "q3", "max", "mean"}
    enc = [lay["encoding"] for lay in layers]
    assert enc[0]["x"]["field"] == "min" and enc[0]["x2"]["field"] == "max"
    assert enc[0]["x"]["title"] == "edit similarity"
    assert enc[1]["x"]["field"] == "q1" and enc[1]["x2"]["field"] == "q3"
    assert enc[2]["x"]["field"] == "median" and enc[3]["x"]["field"] == "mean"
    for e in enc:
        assert e["y"]["field"] == "system"
        assert e["y"]["scale"]["domain"] == ["beta", "gamma", "long-system-name-alpha"]
    assert enc[1]["color"] == {"value": "#4c78a8"}
    assert "Item scores" in spec["title"]["text"]
    _render(chart)


def test_distribution_chart_group_colour_and_lower():
    chart = distribution_chart(
        VALUES, metric="loss", direction="lower", group={"beta": "big", "gamma": "small"}
    )
    spec, layers = _layers(chart)
    rows = _values(spec, layers[0])
    assert {r["system"]: r["group"] for r in rows} == {
        "beta": "big",
        "gamma": "small",
        "long-system-name-alpha": "(no group)",
    }
    assert layers[1]["encoding"]["color"]["field"] == "group"
    assert layers[0]["encoding"]["y"]["scale"]["domain"][0] == "long-system-name-alpha"
    _render(chart)


def test_distribution_chart_bad_inputs():
    with pytest.raises(InputError):
        distribution_chart({}, metric="m")
    with pytest.raises(InputError):
        distribution_chart({"a": [np.nan]}, metric="m")
    with pytest.raises(InputError):
        distribution_chart(VALUES, metric="m", direction="up")


def test_rank_distribution_chart_spec():
    X = np.array([[1, 0, 0], [1, 1, 0], [1, 1, 0], [1, 0, 1], [0, 1, 1]], dtype=float)
    res = rank_distributions(X, paired=True, systems=["a", "b", "c"], n_resamples=400, rng=3)
    chart = rank_distribution_chart(res)
    spec, layers = _layers(chart)
    assert [lay["mark"]["type"] for lay in layers] == ["rect", "rule", "tick", "point"]
    cells = _values(spec, layers[0])
    probs = res.probabilities()
    assert len(cells) == int((probs > 0).sum())
    for c in cells:
        i = res.systems.index(c["system"])
        assert c["probability"] == pytest.approx(probs[i, c["rank"] - 1])
        assert (c["rank_start"], c["rank_end"]) == (c["rank"] - 0.5, c["rank"] + 0.5)
    summary = {r["system"]: r for r in _values(spec, layers[1])}
    for i, s in enumerate(res.systems):
        assert (summary[s]["ci_low"], summary[s]["ci_high"]) == (res.ci_low[i], res.ci_high[i])
        assert summary[s]["median_rank"] == res.median_rank[i]
    assert layers[1]["encoding"]["x"]["field"] == "ci_low"
    assert layers[1]["encoding"]["x2"]["field"] == "ci_high"
    assert layers[2]["encoding"]["x"]["field"] == "median_rank"
    assert layers[0]["encoding"]["y"]["scale"]["domain"] == list(res.order())
    _render(chart)


def test_mbpp_distribution_and_rank_charts_render(arena59, tmp_path):
    view = arena59
    values = {s: view.scores[:, j] for j, s in enumerate(view.systems)}
    chart = distribution_chart(
        values, metric="pass1", group={s: s.split("-")[0] for s in view.systems}
    )
    spec = chart.to_dict()
    rows = _values(spec, spec["layer"][0])
    assert len(rows) == 59
    means = [r["mean"] for r in rows]
    assert means == sorted(means, reverse=True)
    _render(chart, tmp_path, "dist59")
    res = rank_distributions(view.scores, paired=True, systems=view.systems, n_resamples=300, rng=0)
    svg = _render(rank_distribution_chart(res), tmp_path, "rank59")
    assert "gpt-4-1106-preview" in svg


@pytest.fixture(scope="module")
def arena59(shared_data):
    from reportgen.data import load

    view = load(shared_data / "eval-arena" / "mbpp+.jsonl").paired("mbpp+", "pass1")
    assert len(view.systems) == 59
    return view


def test_bootstrap_mean_chart_against_the_replicates():
    import numpy as np
    from scipy import stats

    from reportgen.charts.distributions import bootstrap_mean_chart
    from reportgen.charts.render import to_png, to_svg
    from reportgen.stats.means import bootstrap_means

    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3)) + np.array([0.0, 0.5, 0.2])
    boot = bootstrap_means(X, systems=["A", "B", "C"], n_resamples=4000, rng=1)
    # scipy: bootstrap((x,), np.mean, method="percentile") gives the same interval within
    # Monte Carlo error; the observed mean is the plain mean
    ref = stats.bootstrap(
        (X[:, 1],), np.mean, method="percentile", n_resamples=4000, rng=np.random.default_rng(2)
    ).confidence_interval
    se = X[:, 1].std(ddof=1) / np.sqrt(80)
    assert abs(boot.ci_low[1] - ref.low) < 0.1 * se
    assert abs(boot.ci_high[1] - ref.high) < 0.1 * se
    np.testing.assert_allclose(boot.mean, X.mean(axis=0))
    spec = bootstrap_mean_chart(boot, metric="score").to_dict()
    ci_layer = spec["layer"][-1]
    rows = {r["system"]: r for r in ci_layer["data"]["values"]}
    assert rows["B"]["ci_low"] == boot.ci_low[1] and rows["B"]["ci_high"] == boot.ci_high[1]
    assert ci_layer["encoding"]["y"]["scale"]["domain"] == ["B", "C", "A"]  # best first
    chart = bootstrap_mean_chart(boot, metric="score")
    assert to_svg(chart).startswith("<svg") and to_png(chart)[:4] == b"\x89PNG"
