"""The PDF of a report: the document (:mod:`~reportgen.report.pdf.document`), its charts
drawn as vector PDF (:mod:`~reportgen.report.pdf.charts`) and its wide tables
(:mod:`~reportgen.report.pdf.tables`)."""

from reportgen.report.pdf.document import html_to_pdf

__all__ = ["html_to_pdf"]
