"""Chart titles and subtitles are never cut mid-sentence (issue 34): a line longer than
:data:`~reportgen.charts.render.MAX_TITLE` characters wraps into several lines of the
Vega-Lite title (a list of strings), and every word the chart's builder wrote is drawn.
The reference is the builder's own text (``chart.to_dict()``, before the themed spec)."""

from __future__ import annotations

import html
import re

import pytest

from reportgen.charts.release import forest_plot
from reportgen.charts.render import MAX_LABEL, MAX_TITLE, chart_spec, cut_labels, to_svg


@pytest.fixture(scope="module")
def rows(release_verdict):
    return [
        release_verdict(
            "gsm8k",
            "acc",
            0.031,
            0.012,
            0.05,
            "non-inferior",
            proportion=True,
            margin=0.02,
            ni_bound=0.015,
            ni_level=0.975,
        ),
        release_verdict(
            "python",
            "edit_distance",
            2.5,
            1.1,
            3.9,
            "regressed",
            direction="lower",
            margin=0.5,
            ni_bound=3.5,
            ni_level=0.975,
        ),
    ]


def _svg_texts(svg: str) -> list[str]:
    """The text of every ``<text>`` and of each line (``<tspan>``) of a multi-line one."""
    return [html.unescape(t) for t in re.findall(r"<(?:text|tspan)\b[^>]*>([^<]+)<", svg)]


def test_forest_plot_subtitle_wraps_whole_against_the_builders_text(rows):
    chart = forest_plot(rows)
    written = chart.to_dict()["title"]["subtitle"]
    assert len(written) > MAX_TITLE  # the sentence the issue saw cut ("…e largest loss")
    lines = chart_spec(chart)["title"]["subtitle"]
    assert isinstance(lines, list) and len(lines) >= 2
    assert all(len(line) <= MAX_TITLE for line in lines)
    assert " ".join(lines) == " ".join(written.split())
    assert not any("…" in line for line in lines)
    drawn = _svg_texts(to_svg(chart))
    assert all(line in drawn for line in lines)
    assert " ".join(lines).endswith("tick: the largest loss the margin accepts")


def test_subtitle_lists_wrap_each_long_line_and_keep_short_ones():
    # a p-value heatmap's subtitle is a list: each line wraps on its own
    long = "red = first system better, blue = second better (direction-aware); " * 3
    spec = cut_labels({"title": {"text": "Pairwise", "subtitle": [long.strip(), "short"]}})
    lines = spec["title"]["subtitle"]
    assert lines[-1] == "short" and len(lines) >= 3
    assert " ".join(lines[:-1]) == " ".join(long.split())
    assert all(len(line) <= MAX_TITLE for line in lines)


def test_title_wrap_edge_cases():
    # a short title is left exactly as written (spaces and all); a very long single word
    # (a 10,000-character system name) is cut in the middle like a name, not wrapped
    # into a hundred lines
    assert cut_labels({"title": "  two  spaces "})["title"] == "  two  spaces "
    name = "model-" + "x" * 10_000
    spec = cut_labels({"title": f"{name} against the baseline, {'word ' * 30}"})
    lines = spec["title"]
    assert isinstance(lines, list) and len(lines) <= 3
    assert lines[0].startswith("model-x") and "…" in lines[0]
    assert all(len(line) <= MAX_TITLE for line in lines)
    # data labels are still cut to MAX_LABEL, never wrapped
    rows = cut_labels({"datasets": {"d": [{"system": name}]}})["datasets"]["d"]
    assert len(rows[0]["system"]) <= MAX_LABEL
