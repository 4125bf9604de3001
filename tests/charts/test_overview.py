"""The overview chart: small multiples of means with intervals."""

from __future__ import annotations

import pytest

from reportgen.charts import means_overview_chart, to_svg
from reportgen.errors import InputError


def _rows():
    rows = []
    for panel, values in (("a / acc (%)", (80.0, 60.0, 55.0)), ("b / loss", (1.2, 0.9, 2.0))):
        best = max(values) if "%" in panel else min(values)
        for system, v in zip(("s1", "s2", "s3"), values):
            rows.append(
                {
                    "panel": panel,
                    "system": system,
                    "mean": v,
                    "ci_low": v - 2,
                    "ci_high": v + 2,
                    "best": v == best,
                }
            )
    return rows


def test_overview_chart_spec_panels_order_and_values():
    chart = means_overview_chart(_rows(), ["s2", "s1"], columns=2)
    spec = chart.to_dict()  # validated against the Vega-Lite schema
    values = spec["data"]["values"]
    assert {v["system"] for v in values} == {"s1", "s2"}  # s3 is not in the order
    assert spec["facet"]["sort"] == ["a / acc (%)", "b / loss"]
    assert spec["columns"] == 2 and spec["resolve"]["scale"]["x"] == "independent"
    y = spec["spec"]["layer"][0]["encoding"]["y"]
    assert y["sort"] == ["s2", "s1"]
    best = {(v["panel"], v["system"]) for v in values if v["marker"] == "best of the panel"}
    assert best == {("a / acc (%)", "s1"), ("b / loss", "s2")}
    assert "<svg" in to_svg(chart)


def test_overview_chart_rejects_bad_rows():
    with pytest.raises(InputError):
        means_overview_chart([], ["s1"])
    with pytest.raises(InputError, match="lack"):
        means_overview_chart([{"panel": "p", "system": "s1"}], ["s1"])
