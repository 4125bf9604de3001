"""The exported body made whole: long words cut, every heading given a unique id (for
the table of contents), tables wrapped (and marked wide), the ids inside each inline SVG
prefixed so charts never share clip paths or gradients."""

from __future__ import annotations

import hashlib
import html as _html
import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser

from reportgen.plaintext import full_text

__all__ = [
    "MAX_WORD",
    "Heading",
    "cut_long_words",
    "esc",
    "finish_body",
    "full_names_note",
    "shorten_long_words",
]

#: Tables with more columns than this get a landscape page of their own in the PDF.
_WIDE_TABLE_COLUMNS = 10


#: A word of the report's text longer than this is cut to its start and end (a system
#: name of 10,000 characters would push every table off the page); the full names stay
#: in tables/*.csv and results.json.
MAX_WORD = 100
_TEXT_NODE = re.compile(r">([^<]+)<")
_LONG_WORD = re.compile(r"[^\s<>]{" + str(MAX_WORD + 1) + ",}")


def _cut_word(word: str) -> str:
    start, end = word[:60], word[-30:]
    amp = start.rfind("&")  # never leave half an entity at either end
    if amp != -1 and ";" not in start[amp:]:
        start = start[:amp]
    semi = end.find(";")
    if semi != -1 and "&" not in end[:semi]:
        end = end[semi + 1 :]
    return f"{start}…{end}"


#: Elements whose text is not the page's prose: an SVG (a chart's hover titles hold the
#: full names and stay whole; its drawn text is cut already), styles and scripts.
_NOT_PROSE = re.compile(
    r"(<svg\b.*?</svg>|<style\b.*?</style>|<script\b.*?</script>|<textarea\b.*?</textarea>"
    r'|<pre class="rg-item-text">.*?</pre>)',
    re.IGNORECASE | re.DOTALL,
)
#: An item's text as the log holds it (reportgen.report.render.item_text): left whole,
#: its long lines wrap instead.
_ITEM_TEXT = '<pre class="rg-item-text">'
#: A word and the brackets and punctuation around it (not ";": it may end an entity).
_WRAPPED = re.compile(r"([(\[\"'“‘«]*)(.*?)([)\]\"'”’».,:!?]*)", re.DOTALL)
_SVG_TITLE = re.compile(r"(<title\b[^>]*>.*?</title>)", re.IGNORECASE | re.DOTALL)


def cut_long_words(html: str) -> str:
    """``html`` with every run of more than :data:`MAX_WORD` non-space characters in a
    text node (not in tags or attributes) cut to its first 60 and last 30 characters
    around "…"; entities are never split (:func:`shorten_long_words`, which also says
    what it cut).

    >>> cut = cut_long_words("<td>" + "x" * 500 + "</td>")
    >>> cut.startswith('<td><span class="rg-cut" title="' + "x" * 500 + '">')
    True
    >>> cut.endswith(">" + "x" * 60 + "…" + "x" * 30 + "</span></td>")
    True
    """
    return shorten_long_words(html)[0]


def shorten_long_words(html: str) -> tuple[str, dict[str, str]]:
    """``html`` with its long words cut as :func:`cut_long_words` says, and the words
    cut: ``{shortened: full}`` (text, not HTML; in the order met).

    In the report's prose and tables the shortened word is a
    ``<span class="rg-cut" title="full word">`` (:func:`reportgen.plaintext.full_text`), so
    a browser shows the full name when it is pointed at; the printed report lists the
    full names at its end (:func:`full_names_note`). In an SVG (whose hover titles
    carry full names on purpose), a style or a script the word is only cut.

    >>> html, cut = shorten_long_words("<p>" + "a" * 120 + " and b</p>")
    >>> cut == {"a" * 60 + "…" + "a" * 30: "a" * 120}
    True
    """
    cuts: dict[str, str] = {}

    taken: dict[str, str] = {}  # shortened HTML -> the full word it stands for

    def shorten(match: re.Match[str]) -> str:
        # brackets and punctuation around a name in a sentence stay outside it
        lead, word, trail = _WRAPPED.fullmatch(match.group()).groups()  # type: ignore[union-attr]
        short = _cut_word(word)
        if taken.setdefault(short, word) != word:  # two words, one cut: tell them apart
            digest = hashlib.sha1(word.encode("utf-8")).hexdigest()[:6]
            short = _cut_word(word[:53] + "…" + digest + "…" + word[-30:])
            taken.setdefault(short, word)
        full = _html.unescape(word)
        cuts.setdefault(_html.unescape(short), full)
        return f'{lead}<span class="rg-cut" title="{esc(full_text(full))}">{short}</span>{trail}'

    def plain(match: re.Match[str]) -> str:
        return _cut_word(match.group())

    def text_nodes(part: str, cut: Callable[[re.Match[str]], str]) -> str:
        return _TEXT_NODE.sub(lambda m: ">" + _LONG_WORD.sub(cut, m.group(1)) + "<", part)

    out = []
    for k, part in enumerate(_NOT_PROSE.split(html)):
        if k % 2 == 0:
            out.append(text_nodes(part, shorten))
        elif part.startswith(_ITEM_TEXT):
            out.append(part)
        elif part[:4].lower() == "<svg":
            out.append(
                "".join(
                    t if j % 2 else text_nodes(t, plain)
                    for j, t in enumerate(_SVG_TITLE.split(part))
                )
            )
        else:
            out.append(text_nodes(part, plain))
    return "".join(out), cuts


def full_names_note(cuts: dict[str, str]) -> str:
    """The printed report's list of the words :func:`shorten_long_words` cut, each with
    its full text (long ones end with their length): HTML, shown in print only (a
    screen shows the full name on hover); empty when nothing was cut.

    >>> full_names_note({}) == ""
    True
    >>> "<li><code>ab…yz</code> in full: " in full_names_note({"ab…yz": "abcyz"})
    True
    """
    if not cuts:
        return ""
    items = []
    for short, full in cuts.items():
        items.append(f"<li><code>{esc(short)}</code> in full: {esc(full_text(full))}</li>")
    return (
        '<div class="rg-print-only rg-full-names"><p><strong>Shortened names in full.</strong> '
        f"Words of more than {MAX_WORD} characters are shortened in the middle in this "
        "report (on screen they show in full when pointed at); tables/*.csv and "
        "results.json have them whole.</p><ol>" + "".join(items) + "</ol></div>"
    )


def esc(text: object) -> str:
    return _html.escape(str(text), quote=True)


@dataclass
class Heading:
    level: int
    start: int
    end: int
    tag: str
    attrs: list[tuple[str, str | None]]
    own_id: str | None
    section_id: str | None
    text_parts: list[str] = field(default_factory=list)
    anchor: str = ""
    folded: bool = False  # inside a <details>: left out of the contents

    @property
    def text(self) -> str:
        return " ".join("".join(self.text_parts).split())


@dataclass
class _SvgTag:
    svg: int
    start: int
    end: int
    raw: str


@dataclass
class _OpenTag:
    tag: str
    attrs: list[tuple[str, str | None]]
    start: int
    end: int


class _BodyScanner(HTMLParser):
    """One pass over the body HTML that records where the exporter edits it."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._text = text
        self.id_counts: Counter[str] = Counter()
        self.headings: list[Heading] = []
        self.svg_tags: list[_SvgTag] = []
        self.svg_ids: list[set[str]] = []
        self.edits: list[tuple[int, int, str]] = []  # (start, end, replacement)
        self._svg_depth = 0
        self._table_depth = 0
        self._table_wrapper: _OpenTag | int = 0  # the sections' own wrapper, or our edit
        self._row_cells = 0
        self._table_columns = 0
        self._heading: Heading | None = None
        self._opened: _OpenTag | None = None  # the start tag just before, if nothing else
        self._details_depth = 0

    def _offset(self) -> int:
        line, column = self.getpos()
        return self._line_starts[line - 1] + column

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closes=False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._start(tag, attrs, closes=True)

    def _start(self, tag: str, attrs: list[tuple[str, str | None]], *, closes: bool) -> None:
        start = self._offset()
        raw = self.get_starttag_text() or ""
        element_id = dict(attrs).get("id")
        if tag == "svg" and self._svg_depth == 0:
            self.svg_ids.append(set())
        if self._svg_depth or tag == "svg":
            if element_id:
                self.svg_ids[-1].add(element_id)
            self.svg_tags.append(_SvgTag(len(self.svg_ids) - 1, start, start + len(raw), raw))
            if tag == "svg" and not closes:
                self._svg_depth += 1
            self._opened = None
            return
        if element_id:
            self.id_counts[element_id] += 1
        before, self._opened = self._opened, _OpenTag(tag, attrs, start, start + len(raw))
        if tag in ("h2", "h3") and not closes and self._heading is None:
            section_id = (
                dict(before.attrs).get("id")
                if before is not None and before.tag == "section"
                else None
            )
            self._heading = Heading(
                int(tag[1]),
                start,
                start + len(raw),
                tag,
                attrs,
                element_id,
                section_id,
                folded=self._details_depth > 0,
            )
        elif tag == "details" and not closes:
            self._details_depth += 1
        elif tag == "table" and not closes:
            if self._table_depth == 0:
                self._open_table(start, before)
            self._table_depth += 1
        elif tag == "tr" and self._table_depth == 1:
            self._row_cells = 0
        elif tag in ("td", "th") and self._table_depth == 1:
            span = dict(attrs).get("colspan") or "1"
            self._row_cells += int(span) if span.isdigit() else 1
            self._table_columns = max(self._table_columns, self._row_cells)

    def handle_endtag(self, tag: str) -> None:
        self._opened = None
        if self._svg_depth:
            if tag == "svg":
                self._svg_depth -= 1
            return
        if self._heading is not None and tag == self._heading.tag:
            self.headings.append(self._heading)
            self._heading = None
        elif tag == "details" and self._details_depth:
            self._details_depth -= 1
        elif tag == "table" and self._table_depth:
            self._table_depth -= 1
            if self._table_depth == 0:
                end = self._text.find(">", self._offset())
                self._close_table(len(self._text) if end < 0 else end + 1)

    def handle_data(self, data: str) -> None:
        if data.strip():
            self._opened = None
        if self._heading is not None:
            self._heading.text_parts.append(data)

    def finish(self) -> None:
        self.close()
        if self._heading is not None:
            self.headings.append(self._heading)
        if self._table_depth:
            self._close_table(len(self._text))

    def _open_table(self, start: int, before: _OpenTag | None) -> None:
        self._table_columns = 0
        if before is not None and before.tag == "div" and "rg-table-wrap" in _classes(before):
            self._table_wrapper = before  # already wrapped by the section
            return
        self._table_wrapper = len(self.edits)
        self.edits.append((start, start, '<div class="rg-table-wrap">'))

    def _close_table(self, end: int) -> None:
        wrapper = self._table_wrapper
        wide = self._table_columns > _WIDE_TABLE_COLUMNS
        if isinstance(wrapper, _OpenTag):
            if wide and "rg-wide" not in _classes(wrapper):
                attrs = [(k, v) for k, v in wrapper.attrs if k != "class"]
                attrs.insert(0, ("class", " ".join([*_classes(wrapper), "rg-wide"])))
                self.edits.append((wrapper.start, wrapper.end, _start_tag("div", attrs)))
            return
        if wide:
            start = self.edits[wrapper][0]
            self.edits[wrapper] = (start, start, '<div class="rg-table-wrap rg-wide">')
        self.edits.append((end, end, "</div>"))


def _classes(tag: _OpenTag) -> list[str]:
    return (dict(tag.attrs).get("class") or "").split()


def finish_body(body: str) -> tuple[str, list[Heading]]:
    scanner = _BodyScanner(body)
    scanner.feed(body)
    scanner.finish()
    edits = list(scanner.edits)
    edits += _heading_edits(scanner.headings, scanner.id_counts)
    edits += _svg_id_edits(scanner.svg_tags, scanner.svg_ids, set(scanner.id_counts))
    # Apply from the end so earlier offsets stay valid; at one offset, closing wrappers
    # (inserted at a table's end) go before opening ones (at the next table's start).
    pieces = []
    cursor = len(body)
    for start, end, text in sorted(
        edits, key=lambda e: (e[0], e[1], e[2] != "</div>"), reverse=True
    ):
        pieces.append(body[end:cursor])
        pieces.append(text)
        cursor = start
    pieces.append(body[:cursor])
    return "".join(reversed(pieces)), scanner.headings


def _heading_edits(headings: list[Heading], id_counts: Counter[str]) -> list[tuple[int, int, str]]:
    taken = set(id_counts)
    used: set[str] = set()
    edits = []
    for heading in headings:
        if heading.own_id and heading.own_id not in used:
            heading.anchor = heading.own_id  # a later heading with the same id is renamed
        elif (
            heading.own_id is None
            and heading.section_id
            and id_counts[heading.section_id] == 1
            and heading.section_id not in used
        ):
            heading.anchor = heading.section_id  # the section's own id names it already
        else:
            heading.anchor = _unique_slug(heading.text, taken)
            attrs = [(k, v) for k, v in heading.attrs if k != "id"]
            attrs.insert(0, ("id", heading.anchor))
            edits.append((heading.start, heading.end, _start_tag(heading.tag, attrs)))
        taken.add(heading.anchor)
        used.add(heading.anchor)
    return edits


def _unique_slug(text: str, taken: set[str]) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    base = "-".join(re.findall(r"[a-z0-9]+", ascii_text.lower()))[:60].strip("-")
    base = base or "section"
    slug, number = base, 2
    while slug in taken:
        slug, number = f"{base}-{number}", number + 1
    return slug


def _start_tag(tag: str, attrs: Sequence[tuple[str, str | None]]) -> str:
    rendered = "".join(
        f" {name}" if value is None else f' {name}="{esc(value)}"' for name, value in attrs
    )
    return f"<{tag}{rendered}>"


def _svg_id_edits(
    tags: list[_SvgTag], svg_ids: list[set[str]], body_ids: set[str]
) -> list[tuple[int, int, str]]:
    # Vega numbers clip paths and gradients per process ("clip1", "gradient_0"), so two
    # inline charts can define the same id and the second would use the first's clip
    # path. Each SVG's ids get a prefix of their own.
    edits = []
    for tag in tags:
        ids = svg_ids[tag.svg]
        if not ids:
            continue
        prefix = f"rg-svg{tag.svg + 1}-"
        while any(f"{prefix}{name}" in body_ids for name in ids):
            prefix = f"r{prefix}"
        raw = _prefix_svg_ids(tag.raw, ids, prefix)
        if raw != tag.raw:
            edits.append((tag.start, tag.end, raw))
    return edits


def _prefix_svg_ids(raw: str, ids: set[str], prefix: str) -> str:
    def own(name: str) -> str:
        return f"{prefix}{name}" if name in ids else name

    # One start tag at a time: its id, url(#...) references, and href="#..." links.
    raw = re.sub(
        r"""(\sid\s*=\s*)(["'])(.*?)\2""",
        lambda m: f"{m[1]}{m[2]}{own(_html.unescape(m[3]))}{m[2]}",
        raw,
    )
    raw = re.sub(
        r"""url\(\s*(["']?)#([^"')\s]+)\1\s*\)""", lambda m: f"url({m[1]}#{own(m[2])}{m[1]})", raw
    )
    return re.sub(
        r"""(\s(?:xlink:)?href\s*=\s*)(["'])#(.*?)\2""",
        lambda m: f"{m[1]}{m[2]}#{own(_html.unescape(m[3]))}{m[2]}",
        raw,
    )
