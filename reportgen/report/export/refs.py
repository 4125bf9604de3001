"""The self-containment check: everything in a document that would need the network or
a script (the pipeline refuses to write an archive HTML for which it is not empty)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

__all__ = ["external_references"]

#: Elements that load something or run code, whatever their attributes.
_FORBIDDEN_ELEMENTS = frozenset(
    {"script", "link", "iframe", "frame", "frameset", "object", "embed", "applet", "portal"}
)
#: Attributes whose value is a URL (or a list of them, for srcset/ping/archive).
_URL_ATTRIBUTES = frozenset(
    {
        "href",
        "src",
        "xlink:href",
        "srcset",
        "action",
        "formaction",
        "poster",
        "background",
        "data",
        "ping",
        "manifest",
        "codebase",
        "archive",
        "longdesc",
        "lowsrc",
        "dynsrc",
        "imagesrcset",
    }
)
#: SVG presentation attributes that take url(...) values.
_CSS_URL_ATTRIBUTES = frozenset(
    {
        "style",
        "fill",
        "stroke",
        "clip-path",
        "mask",
        "filter",
        "marker-start",
        "marker-mid",
        "marker-end",
        "cursor",
    }
)
_CSS_URL = re.compile(r"""url\(\s*(?:"([^"]*)"|'([^']*)'|([^)]*?))\s*\)""", re.IGNORECASE)
_CSS_IMPORT = re.compile(r"@import\b[^;]*", re.IGNORECASE)
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


def external_references(html: str) -> list[str]:
    """Everything in ``html`` that would need the network or a script.

    Parameters
    ----------
    html
        A complete document or a fragment.

    Returns
    -------
    list of str
        One readable entry per reference, in document order (duplicates once): any
        ``<script>``, ``<link>``, ``<iframe>``, ``<frame>``, ``<object>``, ``<embed>``,
        ``<applet>``; an event handler attribute (``onload``, ...); a ``href``,
        ``src``, ``xlink:href``, ``srcset``, ``action`` (and similar) value that is
        neither a ``#fragment`` nor a ``data:`` URI; a CSS
        ``url(...)`` (in ``<style>``, a ``style`` attribute or an SVG paint attribute)
        that is neither; any ``@import``; a ``<meta http-equiv="refresh">``; an
        ``<?xml-stylesheet?>``. Empty for a self-contained document.

    Notes
    -----
    XML namespace declarations (``xmlns="http://www.w3.org/2000/svg"``) name a
    vocabulary and are never fetched, so they are not references.

    Examples
    --------
    >>> external_references('<svg xmlns="http://www.w3.org/2000/svg"><a href="#x"/></svg>')
    []
    >>> external_references('<img src="https://example.org/a.png">')
    ['<img src="https://example.org/a.png">']
    """
    finder = _ReferenceFinder()
    finder.feed(html)
    finder.close()
    return list(dict.fromkeys(finder.found))


def _is_local(url: str) -> bool:
    value = url.strip()
    return value == "" or value.startswith("#") or value[:5].lower() == "data:"


def _short(value: str, limit: int = 160) -> str:
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _css_references(css: str, where: str) -> list[str]:
    css = _CSS_COMMENT.sub("", css)
    found = [f"{_short(m[0].strip())} in {where}" for m in _CSS_IMPORT.finditer(css)]
    for match in _CSS_URL.finditer(css):
        url = next(group for group in match.groups() if group is not None)
        if not _is_local(url):
            found.append(f"url({_short(url)}) in {where}")
    return found


def _srcset_urls(value: str) -> list[str]:
    # Candidates are "URL [descriptor]" separated by commas; a data: URI contains a
    # comma itself, so split only where a comma is followed by white space.
    return [part.split()[0] for part in re.split(r",\s+", value.strip()) if part.split()]


class _ReferenceFinder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _FORBIDDEN_ELEMENTS:
            source = next(((k, v) for k, v in attrs if k in ("src", "href", "data") and v), None)
            self.found.append(
                f'<{tag} {source[0]}="{_short(source[1])}">' if source else f"<{tag}> element"
            )
            return
        values = dict(attrs)
        if tag == "meta" and (values.get("http-equiv") or "").lower() == "refresh":
            self.found.append(f'<meta http-equiv="refresh" content="{values.get("content")}">')
        for name, value in attrs:
            if value is None:
                continue
            if name.startswith("on"):  # an event handler is a script
                self.found.append(f'<{tag} {name}="{_short(value)}">')
            elif name in _URL_ATTRIBUTES:
                urls = _srcset_urls(value) if name in ("srcset", "imagesrcset") else [value]
                self.found += [
                    f'<{tag} {name}="{_short(url)}">' for url in urls if not _is_local(url)
                ]
            elif name in _CSS_URL_ATTRIBUTES:
                self.found += _css_references(value, f"the {name} attribute of <{tag}>")
        if tag == "style":
            self._in_style = True

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self._in_style = False

    def handle_endtag(self, tag: str) -> None:
        if tag == "style":
            self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style:
            self.found += _css_references(data, "a <style> element")

    def handle_pi(self, data: str) -> None:
        if data.lstrip().lower().startswith("xml-stylesheet"):
            self.found.append(f"<?{_short(data.rstrip('?'))}?>")
