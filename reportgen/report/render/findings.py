"""The central matrix of an evaluation report (systems × dataset × metric) with the
order of its rows.

The sentences around it (the key findings, the release decision) are the ledger's
(:mod:`reportgen.analysis.ledger.words`); this module arranges the typed analysis for
the table and decides nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reportgen import format as fmt
from reportgen.analysis import Analysis, UnitResult
from reportgen.analysis.ledger import tie_labels

__all__ = [
    "MatrixCell",
    "MatrixColumn",
    "central_matrix",
    "overall_order",
]


# --------------------------------------------------------------------------- matrix


def _headline_units(analysis: Analysis) -> list[UnitResult]:
    """The units of the central matrix: every compared dataset × metric measured per
    item (corpus metrics stay in the appendix), or every unit when none is compared."""
    units = [u for u in analysis.compared if u.derived_from is None]
    return units or [u for u in analysis.units if u.derived_from is None]


def overall_order(analysis: Analysis) -> list[str]:
    """Every system, best first: the order of the ranking across datasets, then the
    systems it leaves out by their mean position over the dataset × metrics they are
    scored on (1 = best)."""
    positions: dict[str, list[float]] = {}
    for unit in _headline_units(analysis):
        order = unit.order()
        n = max(len(order) - 1, 1)
        for position, k in enumerate(order):
            positions.setdefault(unit.systems[k], []).append(position / n)
    ranked = list(analysis.ranking.systems) if analysis.ranking is not None else []
    rest = [s for s in analysis.table.systems if s not in set(ranked)]
    rest.sort(
        key=lambda s: (
            float(np.mean(positions[s])) if s in positions else 2.0,
            -len(positions.get(s, ())),
        )
    )
    return ranked + rest


@dataclass(frozen=True)
class MatrixColumn:
    """One dataset × metric of the central matrix."""

    dataset: str
    metric: str
    proportion: bool
    direction: str

    @property
    def label(self) -> str:
        return f"{self.dataset} / {self.metric}"

    @property
    def unit_label(self) -> str:
        """The unit of its values: ``%`` for proportions."""
        return "%" if self.proportion else ""


@dataclass(frozen=True)
class MatrixCell:
    """One system on one dataset × metric: mean, interval, tie-group letters, and
    whether it is the best value of its column."""

    mean: float
    ci_low: float
    ci_high: float
    letters: str
    best: bool

    def text(self, proportion: bool) -> tuple[str, str]:
        """The value and its interval as shown (percent for proportions, without the
        unit; 3 significant digits otherwise)."""
        value = fmt.value(self.mean, proportion=proportion).removesuffix("%")
        return value, fmt.interval(self.ci_low, self.ci_high, proportion=proportion)


def central_matrix(
    analysis: Analysis,
) -> tuple[list[MatrixColumn], dict[str, dict[int, MatrixCell]]]:
    """The systems × dataset × metric matrix of real values: the columns, and for each
    system its cells by column index (absent where it has no score)."""
    columns: list[MatrixColumn] = []
    cells: dict[str, dict[int, MatrixCell]] = {}
    for j, unit in enumerate(_headline_units(analysis)):
        columns.append(MatrixColumn(unit.dataset, unit.metric, unit.proportion, unit.direction))
        letters = tie_labels(unit.ranks.letters) if unit.ranks is not None else {}
        means = unit.means
        order = unit.order()
        best = unit.systems[order[0]] if order and np.isfinite(means[order[0]]) else None
        for k, name in enumerate(unit.systems):
            cells.setdefault(name, {})[j] = MatrixCell(
                float(means[k]),
                float(unit.intervals.ci_low[k]),
                float(unit.intervals.ci_high[k]),
                letters.get(name, ""),
                name == best,
            )
    return columns, cells
