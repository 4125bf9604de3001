"""Themes and offline rendering of charts.

A theme is a folder with ``theme.json`` (``{"name", "description", "config"}``: the
Vega-Lite configuration of colours, fonts and sizes) and ``report.css`` (the styling of
the report's HTML). The bundled themes are ``default`` and ``print``
(:func:`theme_names`); any folder with the same two files works as well.

Chart builders return plain ``alt.Chart`` objects; the theme is applied when a chart is
turned into a spec (:func:`chart_spec`) or rendered (:func:`to_svg`, :func:`to_png`), so
one chart object can be rendered in several themes. Rendering uses vl-convert, which
bundles Vega and needs no browser and no network; charts carry their data inline.

>>> import altair as alt
>>> chart = alt.Chart(alt.Data(values=[{"x": 1, "y": 2}])).mark_point().encode(x="x:Q", y="y:Q")
>>> to_svg(chart).startswith("<svg")
True
"""

from __future__ import annotations

import copy
import textwrap
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from reportgen import resources
from reportgen.errors import InputError, Location
from reportgen.jsonsafe import load_json
from reportgen.plaintext import full_text, shown

__all__ = [
    "FULL_SUFFIX",
    "InlineRows",
    "Theme",
    "chart_spec",
    "inline_data",
    "label_chars",
    "load_theme",
    "middle_cut",
    "middle_cut_expr",
    "quiet_marks",
    "theme_names",
    "to_png",
    "to_svg",
]


@dataclass(frozen=True)
class Theme:
    """A chart configuration and the report CSS that go together."""

    name: str
    description: str
    config: dict[str, Any]
    css: str
    path: Path


def theme_names() -> list[str]:
    """Names of the bundled themes."""
    folder = resources.themes_dir()
    return sorted(p.name for p in folder.iterdir() if (p / "theme.json").is_file())


@lru_cache(maxsize=16)
def _load(path: Path) -> Theme:
    spec_path = path / "theme.json"
    try:
        data = spec_path.read_bytes()
    except OSError as exc:
        raise InputError(
            f"cannot read the theme ({exc.strerror or exc})",
            location=Location(str(spec_path)),
            hint="check the theme folder",
        ) from None
    raw = load_json(data, source=spec_path, hint="fix the theme file", what="the theme")
    if not isinstance(raw, dict) or not isinstance(raw.get("config"), dict):
        raise InputError(
            'a theme.json needs a "config" object (Vega-Lite config)',
            location=Location(str(spec_path)),
        )
    css_path = path / "report.css"
    try:
        css = css_path.read_text(encoding="utf-8") if css_path.is_file() else ""
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(
            "cannot read the theme's report.css"
            + (
                f": not UTF-8 text (byte {exc.start + 1})"
                if isinstance(exc, UnicodeDecodeError)
                else f" ({exc.strerror or exc})"
            ),
            location=Location(str(css_path)),
            hint="save it as UTF-8",
        ) from None
    loads = css_resource_loads(css)
    if loads:
        line, column, what = loads[0]
        raise InputError(
            f"the theme's CSS would load a resource: {what} (a report must "
            "open offline and fetch nothing)",
            location=Location(str(css_path), line, column),
            hint="remove it; fonts and images cannot come from a theme",
        )
    return Theme(
        str(raw.get("name", path.name)), str(raw.get("description", "")), raw["config"], css, path
    )


#: CSS functions that fetch a resource (CSS Values 4, Images 4, Fonts 4), matched
#: case-insensitively and with any vendor prefix (``-webkit-image-set``).
_LOADING_FUNCTIONS = frozenset(
    {"url", "image-set", "image", "src", "cross-fade", "element", "paint"}
)
#: At-rules that fetch a resource or whose descriptors may (``@font-face`` ``src``).
_LOADING_AT_RULES = frozenset(
    {"import", "font-face", "namespace", "font-feature-values", "property", "document"}
)


def css_resource_loads(css: str) -> list[tuple[int, int, str]]:
    """Every place in ``css`` that could make a browser or WeasyPrint fetch something:
    ``(line, column, what)`` of each loading function (``url(...)``, ``image-set(...)``,
    ``image()``, ``src()``, ... with any vendor prefix) and each at-rule that can load
    (``@import``, ``@font-face``, ...), found with tinycss2, the CSS parser WeasyPrint
    uses (so comments, escapes and strings are read as a browser reads them).

    >>> css_resource_loads("a { color: red }")
    []
    >>> css_resource_loads('b { background: image-set("http://x/a.png" 1x) }')
    [(1, 17, 'image-set(...)')]
    """
    import tinycss2

    found: list[tuple[int, int, str]] = []

    def name_of(token: object) -> str:
        name = getattr(token, "lower_name", None) or getattr(token, "lower_at_keyword", "")
        return (
            str(name)
            .lstrip("-")
            .removeprefix("webkit-")
            .removeprefix("moz-")
            .removeprefix("o-")
            .removeprefix("ms-")
        )

    def walk(tokens: object) -> None:
        for token in tokens or ():  # type: ignore[attr-defined]
            kind = getattr(token, "type", "")
            if kind == "url":
                found.append((token.source_line, token.source_column, "url(...)"))
            elif kind == "function":
                if name_of(token) in _LOADING_FUNCTIONS:
                    found.append(
                        (token.source_line, token.source_column, f"{token.lower_name}(...)")
                    )
                walk(token.arguments)
            elif kind == "at-rule":  # a vendor prefix is dropped by name_of
                if name_of(token) in _LOADING_AT_RULES:
                    found.append(
                        (token.source_line, token.source_column, f"@{token.lower_at_keyword}")
                    )
                walk(token.prelude)
                walk(token.content)
            elif kind == "qualified-rule":
                walk(token.prelude)
                walk(token.content)
            elif kind in ("() block", "[] block", "{} block"):
                walk(token.content)

    walk(tinycss2.parse_stylesheet(css, skip_comments=True, skip_whitespace=True))
    return found


def load_theme(theme: str | Path | Theme = "default") -> Theme:
    """A bundled theme by name, a theme folder, or a :class:`Theme` as is.

    Raises
    ------
    InputError
        Unknown name (the message lists the bundled themes), or a folder without a valid
        ``theme.json``.
    """
    if isinstance(theme, Theme):
        return theme
    candidate = Path(theme)
    if isinstance(theme, Path) or candidate.is_dir():
        if not (candidate / "theme.json").is_file():
            raise InputError(
                "the theme folder has no theme.json",
                location=Location(str(candidate)),
                hint="a theme folder holds theme.json and report.css",
            )
        return _load(candidate.resolve())
    return _load(resources.theme(str(theme)))


def chart_spec(chart: Any, theme: str | Path | Theme | None = None) -> dict[str, Any]:
    """The Vega-Lite spec of ``chart`` with the theme's configuration (default: the
    ``default`` theme; there is no global theme, callers pass theirs) underneath the
    chart's own (settings made on the chart win).

    The spec is not validated against the Vega-Lite schema here (a quarter of a
    report's chart time): the builders are tested with validation
    (``tests/charts``), and vl-convert rejects an invalid spec anyway. Inline rows
    (``alt.Data(values=...)``) are not deep-copied by Altair either: they become
    top-level named ``datasets`` (:func:`_detached_to_dict`)."""
    spec = _detached_to_dict(chart) if hasattr(chart, "to_dict") else copy.deepcopy(chart)
    chosen = load_theme("default" if theme is None else theme)
    config = copy.deepcopy(chosen.config)
    spec["config"] = _merge(config, spec.get("config", {}))
    return quiet_marks(cut_labels(spec))


def quiet_marks(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with ``aria: false`` on every mark that has no tooltip (its own or one
    its layer passes down): Vega describes such a mark by its raw encoded values
    ("x: 0.00852074754134"), which the report shows on hover
    (:func:`reportgen.report.render.svg.hover_titles`); a mark with a tooltip keeps its
    description, the tooltip's rounded fields. Changed in place and returned.

    >>> rule, point = quiet_marks({"layer": [{"mark": "rule", "encoding": {}},
    ...     {"mark": "point", "encoding": {"tooltip": [{"field": "p"}]}}]})["layer"]
    >>> rule["mark"], point["mark"]
    ({'type': 'rule', 'aria': False}, 'point')
    """

    def walk(node: Any, tipped: bool) -> None:
        if isinstance(node, list):
            for x in node:
                walk(x, tipped)
            return
        if not isinstance(node, dict):
            return
        encoding = node.get("encoding")
        if isinstance(encoding, dict) and "tooltip" in encoding:
            tipped = encoding["tooltip"] is not None
        mark = node.get("mark")
        if mark is not None and not tipped:
            if isinstance(mark, str):
                node["mark"] = {"type": mark, "aria": False}
            elif isinstance(mark, dict) and "tooltip" not in mark:
                mark.setdefault("aria", False)
        for key in ("layer", "hconcat", "vconcat", "concat", "spec"):
            if key in node:
                walk(node[key], tipped)

    walk(spec, False)
    return spec


_VIEW_LISTS = ("layer", "hconcat", "vconcat", "concat")


class InlineRows(tuple):
    """The rows of a chart, as a tuple: Altair deep-copies lists and dicts (one Python
    call per value) every time a chart is layered, given properties or has its scales
    resolved, but keeps any other object by reference. Vega-Lite sees a list."""

    __slots__ = ()


def inline_data(rows: Any) -> Any:
    """``alt.Data(values=rows)`` whose rows Altair will not copy (:class:`InlineRows`).

    Every chart builder passes its rows through here: building the noise charts of 12
    eval-arena benchmarks spent 3 of its 4.5 s in Altair's deep copies of the rows.

    >>> inline_data([{"x": 1}]).to_dict()
    {'values': [{'x': 1}]}
    """
    import altair as alt

    return alt.Data(values=InlineRows(rows))


def _detached_to_dict(chart: Any) -> dict[str, Any]:
    """``chart.to_dict(validate=False)`` with every inline ``alt.Data(values=rows)`` of
    the chart and its layers or concatenated views moved to the spec's top-level
    ``datasets`` (the same rows under a name; Vega-Lite draws the same chart).

    Altair's ``to_dict`` deep-copies every row of inline data, one Python call per
    value: 4 s of the benchmark-noise section of 12 eval-arena benchmarks. Here each
    view is copied shallowly with ``{"name": ...}`` in place of its rows, which go into
    the dict afterwards uncopied; the chart passed in is left as it was."""
    import altair as alt

    datasets: dict[str, Any] = {}
    names: dict[int, str] = {}

    def detach(view: Any) -> Any:
        if not hasattr(view, "copy") or not hasattr(view, "_kwds"):
            return view
        new = view.copy(deep=False)
        data = new._kwds.get("data")
        if isinstance(data, alt.Data) and isinstance(data._kwds.get("values"), (list, tuple)):
            rows = data._kwds["values"]
            name = names.setdefault(id(rows), f"rg-data-{len(names)}")
            datasets[name] = list(rows)
            new._kwds["data"] = alt.Data(name=name)
        for key in _VIEW_LISTS:
            views = new._kwds.get(key)
            if isinstance(views, list):
                new._kwds[key] = [detach(v) for v in views]
        return new

    spec = detach(chart).to_dict(validate=False)
    if datasets:
        spec["datasets"] = {**spec.get("datasets", {}), **datasets}
    return spec


#: Longest text a chart shows from its data or in a title; longer names are cut in the
#: middle (the tables keep them whole). Rendering time then does not grow with the
#: length of a name (a 10,000-character system name made a report take 10 minutes).
MAX_LABEL = 60
#: A field of the data that :func:`cut_labels` cut gets a copy with this suffix holding
#: the full text (:func:`reportgen.plaintext.full_text`), and the tooltips show that copy:
#: the name drawn is shortened, the one in the tooltip (and the SVG's ``aria-label``
#: and hover title) is whole.
FULL_SUFFIX = "__full"
#: Width of an average character of a name, in ems, in the bundled Liberation Sans
#: (lower case about 0.5, digits 0.556, capitals 0.67): :func:`label_chars`.
_CHAR_EM = 0.6


def label_chars(pixels: float, font_size: float) -> int:
    """How many characters of a name fit in ``pixels`` at ``font_size`` (at least 12).

    >>> label_chars(180, 10), label_chars(400, 11)
    (30, 60)
    """
    return max(12, int(pixels / (_CHAR_EM * font_size)))


def middle_cut_expr(value: str, chars: int) -> str:
    """A Vega expression: the string ``value`` (an expression, e.g. ``"datum.label"``)
    cut in the middle to ``chars`` characters around "…" when longer, keeping the
    start and the end, where names differ (``-v0.1`` and ``-v0.2``) — Vega's own
    ``labelLimit`` cuts the end off. Axes use it as ``labelExpr``, text marks as a
    calculated field; the tooltip keeps the whole name.

    >>> middle_cut_expr("d", 12)
    "length(d) > 12 ? substring(d, 0, 8) + '…' + substring(d, length(d) - 3) : d"
    """
    head = (2 * chars) // 3
    tail = chars - head - 1
    return (
        f"length({value}) > {chars} ? substring({value}, 0, {head}) + '…' + "
        f"substring({value}, length({value}) - {tail}) : {value}"
    )


def middle_cut(text: str, chars: int) -> str:
    """``text`` cut as :func:`middle_cut_expr` cuts it (for tests and Python-side labels).

    >>> middle_cut("organisation--model-7b-instruct-v0.2", 20)
    'organisation-…t-v0.2'
    >>> middle_cut("short", 20)
    'short'
    """
    if len(text) <= chars:
        return text
    head = (2 * chars) // 3
    return text[:head] + "…" + text[len(text) - (chars - head - 1) :]


#: Longest chart title or subtitle line: they are written by the report (a name inside
#: one is cut to :data:`MAX_LABEL` first), so they get more room than a name.
MAX_TITLE = 100


def cut_labels(
    spec: dict[str, Any], limit: int = MAX_LABEL, title_limit: int = MAX_TITLE
) -> dict[str, Any]:
    """``spec`` with every string in its data (``datasets``, inline ``values``) and in
    the category lists that order or filter it (``domain``, ``sort``, ``oneOf``,
    ``fold``) longer than ``limit`` cut to its start and end around "…", the same way
    everywhere; every title, subtitle or text longer than ``title_limit`` wraps into
    lines of at most ``title_limit`` characters (a list of lines: never cut mid-sentence;
    only a single word longer than a line is cut).
    Names that would cut to the same text get a short digest, so distinct systems stay
    distinct. A field cut in some row gets a copy holding the full text in every row
    (``<field>__full``, :data:`FULL_SUFFIX`) and every tooltip of that field shows the
    copy: the tooltip, and the SVG's ``aria-label`` drawn from it, name the system in
    full. Control and bidirectional characters in them are first written as visible
    escapes (:func:`reportgen.plaintext.shown`): a label holding ``ESC`` or ``BEL``
    would make vl-convert abort the whole process, and U+202E would turn the label
    around.

    >>> spec = {"datasets": {"d": [{"system": "a" * 100}, {"system": "b"}]},
    ...         "title": "x" * 70, "subtitle": "y" * 130}
    >>> [r["system"] for r in cut_labels(spec)["datasets"]["d"]]
    ['aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…aaaaaaaaaaaaaaaaaaa', 'b']
    >>> len(cut_labels(spec)["title"]), len(cut_labels(spec)["subtitle"])
    (70, 100)
    >>> cut_labels({"subtitle": "point: difference; dashed: no difference"}, title_limit=24)
    {'subtitle': ['point: difference;', 'dashed: no difference']}
    """
    import hashlib

    cuts: dict[tuple[str, int], str] = {}
    taken: dict[str, str] = {}

    def cut(text: str, lim: int = limit) -> str:
        text = shown(text, keep_lines=True)
        if len(text) <= lim:
            return text
        if (text, lim) not in cuts:
            head = 2 * lim // 3
            tail = lim - head - 1
            short = text[:head] + "…" + text[-tail:]
            if taken.setdefault(short, text) != text:  # two names, one cut: tell apart
                digest = hashlib.sha1(text.encode("utf-8")).hexdigest()[:6]
                short = text[: head - 7] + "…" + digest + "…" + text[-tail:]
            cuts[(text, lim)] = short
        return cuts[(text, lim)]

    def wrap(text: str) -> list[Any]:
        # Vega-Lite draws a list of strings as lines; it would cut none, but one long
        # line widens the chart (and a phone shrinks it), so the lines are kept short
        if len(text) <= title_limit:
            return [cut(text, title_limit)]
        words = [cut(word, title_limit) for word in text.split()]
        return textwrap.wrap(
            " ".join(words), title_limit, break_long_words=False, break_on_hyphens=False
        ) or [""]

    long_keys = _long_fields(spec, limit)

    def record(row: dict[str, Any]) -> dict[str, Any]:
        out = {k: cut(v) if isinstance(v, str) else v for k, v in row.items()}
        for k in long_keys.intersection(row):
            if isinstance(row[k], str):
                out[k + FULL_SUFFIX] = full_text(row[k])
        return out

    def records(rows: Any) -> Any:
        if not isinstance(rows, list):
            return rows
        return [
            record(row) if isinstance(row, dict) else (cut(row) if isinstance(row, str) else row)
            for row in rows
        ]

    def tooltip(node: Any) -> Any:
        # a tooltip of a field that was cut shows its full copy; its own title, as the
        # SVG's aria-label holds one value per title and an axis of the field has it too
        if isinstance(node, list):
            return [tooltip(x) for x in node]
        if isinstance(node, dict) and node.get("field") in long_keys:
            name = node.get("title", node["field"])
            return {
                **node,
                "field": node["field"] + FULL_SUFFIX,
                "title": f"{name} (in full)" if isinstance(name, str) else name,
            }
        return walk(node)

    def walk(node: Any) -> Any:
        if isinstance(node, list):
            return [walk(x) for x in node]
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key == "datasets" and isinstance(value, dict):
                out[key] = {name: records(rows) for name, rows in value.items()}
            elif key in ("values", "domain", "sort", "oneOf", "fold") and isinstance(
                value, list
            ):  # data, and the categories that order it
                out[key] = records(value)
            elif key == "tooltip":
                out[key] = tooltip(value)
            elif key in ("title", "subtitle", "text") and isinstance(value, str):
                lines = wrap(value)
                out[key] = lines[0] if len(lines) == 1 else lines
            elif key in ("title", "subtitle", "text") and isinstance(value, list):
                out[key] = [
                    line for x in value for line in (wrap(x) if isinstance(x, str) else [walk(x)])
                ]
            else:
                out[key] = walk(value)
        return out

    return walk(spec)


def _long_fields(spec: Any, limit: int) -> frozenset[str]:
    """The fields of the rows of ``spec`` (``datasets`` and inline ``values``) holding a
    string longer than ``limit`` characters somewhere."""
    found: set[str] = set()

    def rows(values: Any) -> None:
        for row in values if isinstance(values, list) else ():
            if isinstance(row, dict):
                found.update(k for k, v in row.items() if isinstance(v, str) and len(v) > limit)

    def walk(node: Any) -> None:
        if isinstance(node, list):
            for x in node:
                walk(x)
        elif isinstance(node, dict):
            for key, value in node.items():
                if key == "datasets" and isinstance(value, dict):
                    for v in value.values():
                        rows(v)
                elif key == "values":
                    rows(value)
                else:
                    walk(value)

    walk(spec)
    return frozenset(found)


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            base[key] = _merge(base[key], value)
        else:
            base[key] = value
    return base


def to_svg(chart: Any, theme: str | Path | Theme | None = None) -> str:
    """Render to SVG offline (for the archive HTML and the PDF)."""
    import vl_convert

    return vl_convert.vegalite_to_svg(chart_spec(chart, theme))


def to_png(chart: Any, theme: str | Path | Theme | None = None, *, scale: float = 2.0) -> bytes:
    """Render to PNG offline, at ``scale`` × (2 by default, for e-mail)."""
    import vl_convert

    return vl_convert.vegalite_to_png(chart_spec(chart, theme), scale=scale)
