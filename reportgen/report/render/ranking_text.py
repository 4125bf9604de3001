"""The ordered ranking in one line, for ``reportgen analyze``."""

from __future__ import annotations

from typing import Any

__all__ = ["neighbour_pairs", "ordering_line"]


def ordering_line(entry: dict[str, Any], *, limit: int = 12) -> str:
    """``A ≈ B > C ...``: systems best first, ``≈`` between neighbours that are not
    significantly different, ``>`` where they are.

    Examples
    --------
    >>> entry = {"lists": ["d"], "systems": [{"system": "A"}, {"system": "B"},
    ...          {"system": "C"}], "pairs": [
    ...          {"system_a": "A", "system_b": "B", "significant": False},
    ...          {"system_a": "B", "system_b": "C", "significant": True}]}
    >>> ordering_line(entry)
    'ordered ranking over 1 list: A ≈ B > C'
    """
    names = [s["system"] for s in entry["systems"]]
    significant = {
        frozenset((p["system_a"], p["system_b"])): p["significant"] for p in entry["pairs"]
    }
    parts = [names[0]] if names else []
    for a, b in zip(names[: limit - 1], names[1:limit]):
        parts.append(">" if significant.get(frozenset((a, b)), False) else "≈")
        parts.append(b)
    tail = f" ... ({len(names) - limit} more)" if len(names) > limit else ""
    n = len(entry["lists"])
    return f"ordered ranking over {n} list{'s' if n != 1 else ''}: {' '.join(parts)}{tail}"


def neighbour_pairs(ranking: Any) -> list[dict[str, Any]]:
    """The pairs of neighbours of an ordered ranking
    (:class:`reportgen.analysis.RankingAcrossLists`) as ``pairs`` rows of results.json:
    what :func:`ordering_line` needs when the rows are in ``tables/ranking_pairs.parquet``."""
    import numpy as np

    a, b = np.asarray(ranking.index_a), np.asarray(ranking.index_b)
    significant = ranking.significant()
    return [
        {
            "system_a": ranking.systems[int(a[k])],
            "system_b": ranking.systems[int(b[k])],
            "significant": bool(significant[k]),
        }
        for k in np.flatnonzero(np.abs(a - b) == 1)
    ]
