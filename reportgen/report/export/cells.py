"""What of a notebook's cells is exported: rich outputs (HTML, SVG, PNG/JPEG/GIF,
Vega-Lite rendered to SVG, Markdown) and Markdown cells, never code or streams; a cell
with an error output stops the export."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

from reportgen.errors import ReportgenError
from reportgen.report.export.body import esc

__all__ = ["notebook_fragments"]

_VEGALITE_MIME = re.compile(r"application/vnd\.vegalite\.v\d+(?:\.\d+)*\+json")
_IMAGE_MIMES = ("image/png", "image/jpeg", "image/gif")


def notebook_fragments(nb: Mapping[str, Any]) -> list[str]:
    fragments: list[str] = []
    for index, cell in enumerate(nb.get("cells", [])):
        kind = cell.get("cell_type")
        tags = set(cell.get("metadata", {}).get("tags", []) or [])
        if kind == "code":
            _raise_on_error(index, cell)
            if "remove" in tags or "remove-output" in tags:
                continue
            for output in cell.get("outputs", []):
                fragment = _output_html(index, output)
                if fragment:
                    fragments.append(fragment)
        elif "remove" in tags:
            continue
        elif kind == "markdown":
            source = _joined(cell.get("source", ""))
            fragments.append(_markdown(_inline_attachments(source, cell.get("attachments"))))
        elif kind == "raw":
            metadata = cell.get("metadata", {})
            if "text/html" in (metadata.get("format"), metadata.get("raw_mimetype")):
                fragments.append(_joined(cell.get("source", "")))
    return fragments


def _raise_on_error(index: int, cell: Mapping[str, Any]) -> None:
    for output in cell.get("outputs", []):
        if output.get("output_type") == "error":
            count = cell.get("execution_count")
            where = f"cell {index}" + (f" (In [{count}])" if count is not None else "")
            raise ReportgenError(
                f"the notebook failed in {where}: {output.get('ename', 'Error')}: "
                f"{output.get('evalue', '')}; open the executed notebook to see the "
                "traceback"
            )


def _joined(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value)


def _output_html(index: int, output: Mapping[str, Any]) -> str | None:
    if output.get("output_type") not in ("display_data", "execute_result"):
        return None
    data = output.get("data", {})
    if "text/html" in data:
        return _joined(data["text/html"])
    if "image/svg+xml" in data:
        return _figure(_inline_svg(index, _joined(data["image/svg+xml"])))
    for mime in _IMAGE_MIMES:
        if mime in data:
            encoded = "".join(_joined(data[mime]).split())
            size = output.get("metadata", {}).get(mime, {})
            width = size.get("width") if isinstance(size, Mapping) else None
            width_attr = f' width="{int(width)}"' if isinstance(width, int | float) else ""
            return _figure(f'<img src="data:{mime};base64,{esc(encoded)}"{width_attr} alt="chart">')
    for mime, spec in data.items():
        if _VEGALITE_MIME.fullmatch(mime):
            return _figure(_vegalite_svg(index, spec))
    if "text/markdown" in data:
        return _markdown(_joined(data["text/markdown"]))
    return None


def _figure(content: str) -> str:
    return f'<figure class="rg-chart">\n{content}\n</figure>'


def _inline_svg(index: int, svg: str) -> str:
    # An SVG file may start with an XML declaration, comments and a DOCTYPE; none of
    # them is allowed inside an HTML body, so the inline copy starts at <svg.
    match = re.search(r"<svg[\s>]", svg, re.IGNORECASE)
    if match is None:
        raise ReportgenError(
            f"an image/svg+xml output of cell {index} has no <svg> "
            "element; fix the code that displays it"
        )
    return svg[match.start() :].strip()


def _vegalite_svg(index: int, spec: Any) -> str:
    import vl_convert

    try:
        if isinstance(spec, str):
            spec = json.loads(spec)
        return _inline_svg(index, vl_convert.vegalite_to_svg(spec, allowed_base_urls=[]))
    except ValueError as exc:  # vl-convert's message, then a JavaScript stack trace
        detail = " ".join(str(exc).splitlines()[:2])
        raise ReportgenError(
            f"the Vega-Lite chart shown by cell {index} cannot be "
            f"rendered offline ({detail}); give the chart inline data "
            "or display it as SVG"
        ) from None


def _inline_attachments(source: str, attachments: Mapping[str, Any] | None) -> str:
    for name, bundle in (attachments or {}).items():
        for mime in _IMAGE_MIMES:
            if mime in bundle:
                encoded = "".join(_joined(bundle[mime]).split())
                source = source.replace(f"attachment:{name}", f"data:{mime};base64,{encoded}")
                break
    return source


@lru_cache(maxsize=1)
def _markdown_renderer() -> Callable[[str], Any]:
    import mistune

    # escape=False: raw HTML in Markdown cells passes through, as in Jupyter.
    return mistune.create_markdown(escape=False, plugins=["strikethrough", "table"])


def _markdown(text: str) -> str:
    return str(_markdown_renderer()(text))
