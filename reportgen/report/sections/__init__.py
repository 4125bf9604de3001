"""The sections of the report notebooks: one function per section, each taking the
:class:`Report` made by :func:`prepare` and returning an :class:`HTMLBlock` (shown by
Jupyter and exported as is) or ``None`` when the section has nothing to show.

The notebook templates (``notebook_templates/evaluation.ipynb``, ``release.ipynb``) are
thin recipes of calls to these functions; copy a template and drop, reorder or add cells
to make a report of your own. Every number comes from :func:`reportgen.analysis.analyze`
(the ``results.json`` of the report); these modules only format it: tables, claim
sentences and charts rendered to inline SVG with the report's theme.

The HTML building blocks (sections, tables, figures) are in :mod:`reportgen.report.render.html`,
numbers and p-values are formatted by :mod:`reportgen.format`.

One module per family of sections: :mod:`._base` (the :class:`Report` and the helpers
they share), :mod:`.overview`, :mod:`.ranking`, :mod:`.units`, :mod:`.detail`,
:mod:`.methods`, :mod:`.data`, :mod:`.release`, :mod:`.item_text` (items with their
text), :mod:`.battles` and :mod:`.outputs`.
"""

from reportgen.report.render.html import HTMLBlock
from reportgen.report.sections._base import (
    Report,
    prepare,
)
from reportgen.report.sections.battles import (
    battles,
)
from reportgen.report.sections.data import (
    appendix,
    data_section,
    exploration,
    provenance,
)
from reportgen.report.sections.detail import (
    groups_and_hyperparameters,
    items_section,
    noise_and_power,
    noise_detail,
    repeated_runs,
)
from reportgen.report.sections.item_text import (
    notable_items,
    release_items,
)
from reportgen.report.sections.methods import (
    methods,
)
from reportgen.report.sections.outputs import (
    write_outputs,
)
from reportgen.report.sections.overview import (
    results_matrix,
    summary,
)
from reportgen.report.sections.ranking import (
    across_datasets,
)
from reportgen.report.sections.release import (
    release_details,
    release_flips,
    release_summary,
    verdict_sentence,
)
from reportgen.report.sections.units import (
    across_metrics,
    per_sample_list,
)

__all__ = [
    "HTMLBlock",
    "Report",
    "across_datasets",
    "across_metrics",
    "appendix",
    "battles",
    "data_section",
    "exploration",
    "groups_and_hyperparameters",
    "items_section",
    "methods",
    "noise_and_power",
    "notable_items",
    "noise_detail",
    "per_sample_list",
    "prepare",
    "provenance",
    "release_details",
    "release_flips",
    "release_items",
    "release_summary",
    "repeated_runs",
    "results_matrix",
    "summary",
    "verdict_sentence",
    "write_outputs",
]
