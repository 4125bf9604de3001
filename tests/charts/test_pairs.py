"""Pairwise charts (heatmap table, PWPP): specs (to_dict) and vl-convert smoke tests."""

from __future__ import annotations

import math

import numpy as np
import pytest
import vl_convert as vlc
from scipy.stats import norm

from reportgen.analysis.ledger import UnitClaims
from reportgen.charts.pairs import emmeans_p_scale, pvalue_heatmap, pwpp_chart
from reportgen.errors import InputError
from reportgen.stats.pairwise import compare_paired


def claims(rows):
    """The ledger's claims of comparison rows (the charts draw decided claims)."""
    return list(UnitClaims.from_rows([dict(r) for r in rows], family_size=len(rows)))


def result_claims(res, **unit):
    """The claims of a PairwiseResult, as the ledger builds them."""
    return claims(
        [
            {**r, "dataset": "d", "metric": "m", "direction": "higher", **unit}
            for r in res.to_records()
        ]
    )


def _values(spec, layer):
    return (layer.get("data") or spec["data"])["values"]


def _render(chart, tmp_path=None, name="chart"):
    svg = vlc.vegalite_to_svg(chart.to_json())
    png = vlc.vegalite_to_png(chart.to_json(), scale=2)
    assert svg.startswith("<svg") and png[:8] == b"\x89PNG\r\n\x1a\n"
    if tmp_path is not None:
        (tmp_path / f"{name}.png").write_bytes(png)
    return svg


def _row(a, b, metric, p, diff, direction="higher", dataset="d"):
    return {
        "system_a": a,
        "system_b": b,
        "metric": metric,
        "dataset": dataset,
        "diff": diff,
        "direction": direction,
        "p_adjusted": p,
        "significant": p <= 0.05,
        "alpha": 0.05,
    }


ROWS = [
    _row("A", "B", "acc", 0.001, 0.2),
    _row("A", "B", "loss", 0.04, 0.3, "lower"),
    _row("A", "C", "acc", 0.20, 0.1),
    _row("A", "C", "loss", 0.5, -0.1, "lower"),
    _row("B", "C", "acc", 1e-6, -0.4),
    _row("C", "B", "loss", 0.01, -0.2, "lower"),
]


# ============================================================================ transform


def test_emmeans_p_scale_closed_form():
    p = np.array([1e-9, 5e-5, 1e-4, 0.001, 0.01, 0.05, 0.1, 0.5, 1.0])
    expected = norm.cdf((np.log(np.clip(p, 5e-5, 1)) + 2.5) / 3) / norm.cdf(2.5 / 3)
    np.testing.assert_allclose(emmeans_p_scale(p), expected, rtol=1e-12)
    assert emmeans_p_scale(1.0) == pytest.approx(1.0)
    assert emmeans_p_scale(1e-12) == emmeans_p_scale(5e-5)  # clipped
    assert isinstance(emmeans_p_scale(0.05), float)
    assert np.all(np.diff(emmeans_p_scale(np.logspace(-4, 0, 50))) > 0)
    assert math.isnan(emmeans_p_scale(float("nan")))


# ============================================================================ heatmap


def test_heatmap_blanks_colours_and_order():
    chart = pvalue_heatmap(claims(ROWS))
    spec = chart.to_dict()
    rect, text = spec["layer"]
    assert rect["mark"]["type"] == "rect" and text["mark"]["type"] == "text"
    cells = _values(spec, rect)
    assert len(cells) == 6
    for c in cells:
        sig = c["p_adjusted"] <= 0.05
        assert c["significant"] is sig
        assert (c["strength"] is None) is (not sig) and (c["label"] is None) is (not sig)
    # blanks are made by filtering out non-significant cells in both layers
    assert spec.get("transform") == [{"filter": "datum.significant"}] or all(
        lay["transform"] == [{"filter": "datum.significant"}] for lay in (rect, text)
    )
    # rows by sum of -log10 p: B–C (6 + 2), A–B (3 + 1.4), A–C
    y = rect["encoding"]["y"]
    assert y["field"] == "pair"
    assert y["scale"]["domain"] == ["B  vs  C", "A  vs  B", "A  vs  C"]
    assert rect["encoding"]["x"]["scale"]["domain"] == ["acc", "loss"]
    by = {(c["pair"], c["column"]): c for c in cells}
    # acc (higher): A–B diff > 0 -> A better (red, +); B–C diff < 0 -> C better (blue, -)
    assert by[("A  vs  B", "acc")]["better"] == "A"
    assert by[("A  vs  B", "acc")]["strength"] == pytest.approx(3.0)
    assert by[("B  vs  C", "acc")]["better"] == "C"
    assert by[("B  vs  C", "acc")]["strength"] == pytest.approx(-6.0)
    # loss (lower is better): A–B diff > 0 -> B better: conflict with acc in the same row
    assert by[("A  vs  B", "loss")]["better"] == "B"
    assert by[("A  vs  B", "loss")]["strength"] < 0
    # (C, B) row is flipped onto the pair (B, C): diff -0.2 of C−B, lower better -> C better
    assert by[("B  vs  C", "loss")]["diff"] == pytest.approx(0.2)
    assert by[("B  vs  C", "loss")]["better"] == "C"
    assert by[("B  vs  C", "loss")]["side"] == "second system better"
    colour = rect["encoding"]["color"]
    assert colour["field"] == "strength" and colour["scale"]["scheme"] == "redblue"
    assert text["encoding"]["text"]["field"] == "label"
    assert by[("A  vs  B", "acc")]["label"] == "0.001"
    _render(chart)


def test_heatmap_columns_decisions_and_max_pairs():
    by_dataset = [dict(r, dataset=r["metric"], metric="m") for r in ROWS]
    spec = pvalue_heatmap(claims(by_dataset), columns="dataset").to_dict()
    assert spec["layer"][0]["encoding"]["x"]["scale"]["domain"] == ["acc", "loss"]
    # the cells follow the claims' decisions, whatever their p (never p against α here)
    strict = [dict(r, significant=r["p_adjusted"] <= 0.005) for r in ROWS]
    drawn = pvalue_heatmap(claims(strict)).to_dict()
    sig = {(c["pair"], c["column"]) for c in _values(drawn, drawn["layer"][0]) if c["significant"]}
    assert sig == {("A  vs  B", "acc"), ("B  vs  C", "acc")}
    top = pvalue_heatmap(claims(ROWS), max_pairs=1).to_dict()
    assert top["layer"][0]["encoding"]["y"]["scale"]["domain"] == ["B  vs  C"]
    assert "1 most significant of 3" in top["title"]["subtitle"][-1]
    with pytest.raises(InputError):
        pvalue_heatmap(claims([dict(r, metric="same") for r in ROWS]))  # two cells per pair
    both = pvalue_heatmap(claims(by_dataset), columns="both").to_dict()
    assert both["layer"][0]["encoding"]["x"]["scale"]["domain"] == ["acc / m", "loss / m"]
    with pytest.raises(InputError):
        pvalue_heatmap(claims(ROWS), columns="system")
    with pytest.raises(InputError):
        pvalue_heatmap([])


# ============================================================================ PWPP


def test_pwpp_spec_from_rows():
    rows = [
        _row("A", "B", "acc", 0.001, 0.2),
        _row("A", "C", "acc", 0.2, -0.1),
        _row("B", "C", "acc", 1e-7, -0.3),
    ]
    means = {"A": 0.5, "B": 0.3, "C": 0.6}
    for r in rows:
        r["mean_a"], r["mean_b"] = means[r["system_a"]], means[r["system_b"]]
    chart = pwpp_chart(claims(rows))
    spec = chart.to_dict()
    lines, dots, alpha_rule = spec["layer"]
    assert [lay["mark"]["type"] for lay in spec["layer"]] == ["rule", "point", "rule"]
    segs = _values(spec, lines)
    for s, r in zip(segs, rows):
        assert s["x"] == pytest.approx(emmeans_p_scale(r["p_adjusted"]))
        assert (s["system_a"], s["system_b"]) == (r["system_a"], r["system_b"])
    enc = lines["encoding"]
    assert enc["y"]["field"] == "system_a" and enc["y2"]["field"] == "system_b"
    assert enc["y"]["scale"]["domain"] == ["C", "A", "B"]  # by mean, best first
    assert enc["x"]["scale"]["domain"] == [0, 1]
    axis = enc["x"]["axis"]
    assert axis["values"] == pytest.approx(
        list(emmeans_p_scale([0.0001, 0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0]))
    )
    assert "'0.05'" in axis["labelExpr"] and "'1e-4'" in axis["labelExpr"]
    assert len(_values(spec, dots)) == 6
    (a,) = _values(spec, alpha_rule)
    assert a["x"] == pytest.approx(emmeans_p_scale(0.05))
    assert [s["significant"] for s in segs] == [True, False, True]
    lower = pwpp_chart(claims([dict(r, direction="lower") for r in rows])).to_dict()
    assert lower["layer"][0]["encoding"]["y"]["scale"]["domain"] == ["B", "A", "C"]
    _render(chart)


def test_pwpp_from_result_and_bad_rows():
    rng = np.random.default_rng(0)
    X = (rng.random((200, 4)) < [0.3, 0.5, 0.6, 0.8]).astype(float)
    res = compare_paired(X, systems=["w", "x", "y", "z"])
    spec = pwpp_chart(result_claims(res)).to_dict()
    segs = _values(spec, spec["layer"][0])
    np.testing.assert_allclose([s["x"] for s in segs], emmeans_p_scale(res.p_adjusted))
    assert [s["significant"] for s in segs] == list(res.significant())
    assert spec["layer"][0]["encoding"]["y"]["scale"]["domain"] == ["z", "y", "x", "w"]
    with pytest.raises(InputError):
        pwpp_chart(claims(ROWS))  # claims of two sample lists would mix metrics
    with pytest.raises(InputError):
        pwpp_chart([])


# ============================================================================ 59 systems


@pytest.fixture(scope="module")
def mbpp_pairs(shared_data):
    from reportgen.data import load

    view = load(shared_data / "eval-arena" / "mbpp+.jsonl").paired("mbpp+", "pass1")
    assert len(view.systems) == 59
    return view, compare_paired(view.scores, systems=view.systems)


def test_mbpp_pwpp_renders(mbpp_pairs, tmp_path):
    view, res = mbpp_pairs
    chart = pwpp_chart(result_claims(res))
    spec = chart.to_dict()
    order = spec["layer"][0]["encoding"]["y"]["scale"]["domain"]
    means = view.scores.mean(axis=0)
    assert order == [view.systems[j] for j in np.argsort(-means, kind="stable")]
    assert len(_values(spec, spec["layer"][0])) == res.n_pairs == 1711
    svg = _render(chart, tmp_path, "pwpp59")
    assert "gpt-4-1106-preview" in svg


def test_mbpp_heatmap_renders(mbpp_pairs, tmp_path):
    _, res = mbpp_pairs
    rows = result_claims(res, dataset="mbpp+", metric="pass1")
    full = pvalue_heatmap(rows).to_dict()
    cells = _values(full, full["layer"][0])
    assert len(cells) == 1711
    assert sum(c["significant"] for c in cells) == int(res.significant().sum())
    chart = pvalue_heatmap(rows, max_pairs=60)
    _render(chart, tmp_path, "heat59")
    assert vlc.vegalite_to_svg(pvalue_heatmap(rows).to_json()).startswith("<svg")
