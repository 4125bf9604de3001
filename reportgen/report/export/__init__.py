"""Export an executed report notebook to one self-contained HTML file.

The archive HTML (:func:`notebook_to_html`) is a single file that needs no script and no
network: the theme's CSS is inlined in one ``<style>``, charts are inline SVG (or PNG as
``data:`` URIs), and a table of contents links every ``h2``/``h3``. Only what a reader
should see is exported: rich outputs (``text/html``, ``image/svg+xml``, ``image/png``,
``image/jpeg``, Vega-Lite specs rendered to SVG, ``text/markdown``) and Markdown cells;
code, ``text/plain``-only results and streams are left out. Cells tagged ``remove`` are
left out entirely; code cells tagged ``remove-output`` contribute nothing.

The PDF is rendered from the same HTML by :func:`reportgen.report.pdf.html_to_pdf`.

:func:`external_references` lists everything in a document that would need the network
or a script; the pipeline refuses to write an archive HTML for which it is not empty.

>>> import nbformat
>>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("## Summary")])
>>> html = notebook_to_html(nb, title="Release 1.2")
>>> '<a href="#summary">Summary</a>' in html
True
>>> external_references(html)
[]

The package's rooms: :mod:`~reportgen.report.export.cells` (what of each cell is shown),
:mod:`~reportgen.report.export.body` (heading ids, table wrappers, SVG ids, long words),
:mod:`~reportgen.report.export.page` (the document around the body) and
:mod:`~reportgen.report.export.refs` (the self-containment check).
"""

from reportgen.report.export.body import MAX_WORD, cut_long_words
from reportgen.report.export.page import CONTENTS_MARKER, notebook_to_html
from reportgen.report.export.refs import external_references

__all__ = [
    "CONTENTS_MARKER",
    "MAX_WORD",
    "cut_long_words",
    "external_references",
    "notebook_to_html",
]
