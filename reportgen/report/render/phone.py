"""Charts on a phone: a chart wider than a phone's screen is laid out again to fit
(:func:`narrow_spec`) or, when it cannot fit, replaced there by the table of its numbers
(:func:`chart_table`). :func:`reportgen.report.render.html.render_figure` makes both
figures; the page's CSS shows one by the screen's width, the PDF the wide one only.

This module works on Vega-Lite specs as dicts and imports neither Altair nor
vl-convert, so a chart worker stays light.
"""

from __future__ import annotations

import copy
import math
import re
import textwrap
from collections.abc import Mapping
from typing import Any

from reportgen import format as fmt
from reportgen.plaintext import shown

__all__ = [
    "CHART_TABLE_ROWS",
    "NARROW_CSS",
    "PHONE_FIT",
    "PHONE_MIN_PLOT",
    "PHONE_WIDTH",
    "chart_table",
    "narrow_spec",
]

#: The widest chart a phone shows whole: a 375 px screen less the page's margins.
PHONE_WIDTH = 327
#: The widest a phone's chart is made (a little under the room, as a chart's width is
#: rounded up).
PHONE_FIT = 320
#: The narrowest plot a phone's chart may have; narrower, its table stands in.
PHONE_MIN_PLOT = 120
#: The classes of a phone's figure: shown on a narrow screen only, never printed.
NARROW_CSS = "rg-chart rg-screen-only rg-narrow-only"
#: Width of an average character of chart text, in ems (Liberation Sans).
_CHAR_EM = 0.6


def _escape(value: Any) -> str:
    import html

    return html.escape(shown(value, keep_lines=True), quote=True)


def narrow_spec(spec: dict[str, Any], width: int) -> dict[str, Any]:
    """``spec`` (a themed Vega-Lite spec, :func:`reportgen.charts.render.chart_spec`)
    laid out for a narrow screen, the text at its own size: every view at most
    ``width`` pixels wide, panels one above the other (a wrapped facet in one column,
    ``hconcat`` as ``vconcat``), legends below the plot in one column, titles wrapped to
    the width. A chart drawn
    from it may still be wider (long axis labels): the caller measures it.

    >>> s = narrow_spec({"hconcat": [{"width": 500}, {"width": 100}], "config": {}}, 200)
    >>> s["vconcat"], s["config"]["legend"]["orient"]
    ([{'width': 200}, {'width': 100}], 'bottom')
    >>> narrow_spec({"facet": {}, "columns": 4, "spec": {"width": 150}}, 120)["columns"]
    1
    """
    out = copy.deepcopy(spec)
    chars = max(20, int(width / (_CHAR_EM * 11)))
    # an axis's labels take at most this much beside a plot of the width asked for
    label_limit = max(80, int(0.6 * width))

    def title(node: Any) -> Any:
        text = node.get("text") if isinstance(node, dict) else node
        lines = [text] if isinstance(text, str) else text
        if not isinstance(lines, list):
            return node
        wrapped: list[Any] = []
        for line in lines:
            wrapped += (
                textwrap.wrap(line, chars, break_long_words=False) or [""]
                if isinstance(line, str)
                else [line]
            )
        if isinstance(node, dict):
            new = {**node, "text": wrapped}
            if "subtitle" in node:
                new["subtitle"] = title(node["subtitle"])
            return new
        return wrapped

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(x) for x in node]
        if not isinstance(node, dict):
            return node
        if "hconcat" in node:
            node["vconcat"] = node.pop("hconcat")
        if "facet" in node and "columns" in node:
            node["columns"] = 1
        if "concat" in node and "columns" in node:
            node["columns"] = 1
        w = node.get("width")
        if isinstance(w, (int, float)) and w > width:
            node["width"] = width
        facet = node.get("facet")
        if isinstance(facet, dict) and isinstance(facet.get("row"), dict):
            # a row's name above its panel, not beside it (no width taken)
            header = facet["row"].get("header") or {}
            facet["row"]["header"] = {
                **header,
                "labelOrient": "top",
                "labelAngle": 0,
                "labelAlign": "left",
                "labelAnchor": "start",
            }
        axis = node.get("axis")
        if isinstance(axis, dict) and axis.get("labelLimit", 0) > label_limit:
            node["axis"] = {**axis, "labelLimit": label_limit}
        legend = node.get("legend")
        if isinstance(legend, dict) and legend.get("orient", "right") in ("right", "left"):
            node["legend"] = {**legend, "orient": "bottom", "direction": "vertical"}
        for key, value in list(node.items()):
            if (
                key == "title"
                and isinstance(value, (str, list, dict))
                and "text" in (value if isinstance(value, dict) else {"text": 1})
            ):
                node[key] = title(value)
            elif key not in ("datasets", "data", "values"):
                node[key] = walk(value)
        return node

    out = walk(out)
    config = out.setdefault("config", {})
    config["axis"] = {**config.get("axis", {}), "labelLimit": label_limit}
    config["legend"] = {
        **config.get("legend", {}),
        "orient": "bottom",
        "direction": "vertical",
        "gradientDirection": "horizontal",
        "gradientLength": min(200, width),
        "labelLimit": width - 40,
    }
    return out


#: Rows of a chart's table on a phone; the rest are counted.
CHART_TABLE_ROWS = 30


def chart_table(spec: Mapping[str, Any], caption: str | None) -> str:
    """The table that stands in for a chart on a phone: the fields of a tooltip (what a
    reader points at to read a mark) for each mark of that view, the first
    :data:`CHART_TABLE_ROWS` of them; of the chart's views with a tooltip, the one with
    the most values (rows × fields). A figure of class ``rg-narrow-only``.

    >>> spec = {"datasets": {"d": [{"s": "a", "m": 0.51234}, {"s": "b", "m": 0.25}]},
    ...         "data": {"name": "d"}, "mark": "point",
    ...         "encoding": {"tooltip": [{"field": "s", "title": "system"},
    ...                                  {"field": "m", "type": "quantitative"}]}}
    >>> html = chart_table(spec, "Means.")
    >>> "<th>system</th>" in html and "<td>a</td>" in html and ">0.512<" in html
    True
    """
    datasets = spec.get("datasets") or {}
    views: list[tuple[list[Mapping[str, Any]], list[tuple[str, ...]]]] = []

    def walk(node: Any, data: Any) -> None:
        if isinstance(node, list):
            for x in node:
                walk(x, data)
            return
        if not isinstance(node, Mapping):
            return
        own = node.get("data")
        if isinstance(own, Mapping):
            values = own.get("values")
            data = values if isinstance(values, list) else datasets.get(own.get("name"), data)
        encoding = node.get("encoding")
        tips = encoding.get("tooltip") if isinstance(encoding, Mapping) else None
        if isinstance(tips, Mapping):
            tips = [tips]
        if isinstance(tips, list) and isinstance(data, list):
            fields = [t for t in tips if isinstance(t, Mapping) and "field" in t]
            views.append((fields, _rows(fields, data)))
        for key in ("layer", "hconcat", "vconcat", "concat", "spec"):
            if key in node:
                walk(node[key], data)

    walk(spec, None)
    cap = f"<figcaption>{caption}</figcaption>" if caption else ""
    views = [(tips, rows) for tips, rows in views if tips and rows]
    if not views:
        return (
            f'<figure class="{NARROW_CSS}"><p class="rg-note">The chart is drawn on a '
            f"wider screen.</p>{cap}</figure>"
        )
    tips, rows = max(views, key=lambda v: len(v[1]) * len(v[0]))
    head = "".join(f"<th>{_escape(t.get('title', t['field']))}</th>" for t in tips)
    body = "".join(
        "<tr>" + "".join(f"<td>{_escape(v)}</td>" for v in row) + "</tr>"
        for row in rows[:CHART_TABLE_ROWS]
    )
    more = len(rows) - CHART_TABLE_ROWS
    note_ = (
        f'<p class="rg-note">… and {more:,} more (the report\'s tables have them all).</p>'
        if more > 0
        else ""
    )
    return (
        f'<figure class="{NARROW_CSS} rg-chart-table"><div class="rg-table-wrap">'
        f'<table class="rg-table"><thead><tr>{head}</tr></thead><tbody>{body}</tbody>'
        f"</table></div>{note_}{cap}</figure>"
    )


def _rows(tips: list[Mapping[str, Any]], data: list[Any]) -> list[tuple[str, ...]]:
    """The distinct rows of ``data`` as the fields of ``tips`` show them."""
    seen: dict[tuple[str, ...], None] = {}
    for row in data:
        if isinstance(row, Mapping):
            seen.setdefault(tuple(_cell(row.get(t["field"]), t.get("format")) for t in tips))
    return [row for row in seen if any(row)]


_FORMAT = re.compile(r"\+?(\.\d+)?[fge%]")


def _cell(value: Any, spec: Any = None) -> str:
    """A value of a chart's data as its table shows it: with the tooltip's number
    format when it is one Python reads the same way (``.3f``, ``+.4g``, ``.1%``), else
    3 significant digits.

    >>> _cell(0.123456, ".3f"), _cell(0.0123456), _cell(-0.5, "+.2g"), _cell(True)
    ('0.123', '0.0123', '−0.5', 'yes')
    """
    if value is None or isinstance(value, bool):
        return "" if value is None else ("yes" if value else "no")
    if isinstance(value, (int, float)):
        if isinstance(spec, str) and _FORMAT.fullmatch(spec) and math.isfinite(value):
            return format(value, spec).replace("-", fmt.MINUS)
        return fmt.number(value, 3)
    return str(value)
