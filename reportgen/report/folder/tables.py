"""results.json that stays small: its long tables in columnar files beside it.

A results.json holds what a person or a dashboard reads: the summaries, the decisions,
the rankings, the ledger. Some of its tables grow with the square of the number of
systems or with the number of items: a 1,000-system analysis has 499,500 comparisons
(600 MB of JSON records), 100,000 items make 100,000 item rows. A table of more than
:data:`TABLE_ROWS_MAX` rows is written to ``tables/<name>.parquet`` (Apache Parquet,
zstd) and results.json keeps a **reference object** in its place::

    "comparisons": {"table": "comparisons", "path": "tables/comparisons.parquet",
                    "format": "parquet", "rows": 499500, "significant": 1234,
                    "neighbours": [...]}

A place that holds the rows of one dataset × metric of a table shared by several
(the leaderboards' win rates, the items) adds ``where`` (``{"dataset": ..., "metric":
...}``): its rows are those of the file with these values. The top-level ``tables``
section describes each file written (``path``, ``format``, ``rows``, ``columns`` with
their Arrow types, ``description``). Smaller tables stay in results.json as before, so
a small analysis writes the same file as ever.

The Python API is unchanged (:meth:`reportgen.analysis.Analysis.to_results` returns every
row); :func:`split_results` makes the written form and :func:`resolve_tables` gives a
reader the rows back from either form (the ``comparisons`` of a referenced file are read
from its Parquet file as they are iterated).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reportgen.errors import InputError, Location

__all__ = [
    "TABLES",
    "TABLE_ROWS_MAX",
    "SplitResults",
    "TableRows",
    "read_table",
    "resolve_tables",
    "split_results",
    "write_analysis",
    "write_results",
]

#: Above this many rows a table leaves results.json for ``tables/<name>.parquet``
#: (a comparison row is about 1.2 kB of JSON: 10,000 rows are 12 MB; 142 systems in one
#: dataset × metric make 10,011 pairs).
TABLE_ROWS_MAX = 10_000

#: The tables that may leave results.json: name → (where it is in results.json, what a
#: row is).
TABLES: dict[str, tuple[str, str]] = {
    "comparisons": ("comparisons", "one compared pair of one dataset × metric"),
    "ranking_pairs": (
        "rankings[kind=ordered].pairs",
        "one pair of the ordered ranking across datasets",
    ),
    "ranking_edges": (
        "rankings[kind=ordered].graph.edges",
        "one edge of the ordered ranking's graph (source significantly ahead of target)",
    ),
    "ranking_sign_tests": (
        "rankings[kind=ordered].across_lists.sign_tests",
        "the sign test of list wins of one pair",
    ),
    "win_rates": (
        "rankings[kind=leaderboard].win_rates.pairs",
        "the wins of one ordered pair of one dataset × metric (columns dataset, metric added)",
    ),
    "rank_probabilities": (
        "rankings[kind=ranks].distribution.systems[].rank_probabilities",
        "P(rank = rank) of one system of one dataset × metric (columns dataset, metric, "
        "system, rank, probability)",
    ),
    "items": (
        "items[].items",
        "one item of one dataset × metric (columns dataset, metric added)",
    ),
}

_FORMAT = "parquet"
#: Parquet field metadata of a column written as JSON text (values of mixed types).
_JSON_COLUMN = {b"reportgen.encoding": b"json"}


@dataclass(frozen=True)
class SplitResults:
    """What :func:`split_results` gives: the results.json document to write and the
    tables (name → rows, each row a dict) that go to ``tables/<name>.parquet``. From
    :func:`write_results`, every table written (those made from arrays with no rows)."""

    document: dict[str, Any]
    tables: dict[str, list[dict[str, Any]]] = field(default_factory=dict)


def _ref(name: str, rows: int, where: Mapping[str, Any] | None = None) -> dict[str, Any]:
    ref: dict[str, Any] = {
        "table": name,
        "path": f"tables/{name}.{_FORMAT}",
        "format": _FORMAT,
        "rows": rows,
    }
    if where:
        ref["where"] = dict(where)
    return ref


def is_reference(value: Any) -> bool:
    """Whether ``value`` is a reference object of a table written beside results.json."""
    return isinstance(value, Mapping) and "table" in value and "path" in value


def _unit(entry: Mapping[str, Any]) -> dict[str, Any]:
    return {k: entry[k] for k in ("dataset", "metric") if k in entry}


def _neighbours(document: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> list[Any]:
    """The comparison rows of each system against the next one of its dataset × metric
    in the ``systems`` section's order (the ranking): what the report's pairwise table
    shows when it has more rows than it prints."""
    order: dict[tuple[Any, Any], list[Any]] = {}
    for row in document.get("systems") or ():
        order.setdefault((row.get("dataset"), row.get("metric")), []).append(row.get("system"))
    pairs = {(unit, frozenset(p)) for unit, names in order.items() for p in zip(names, names[1:])}
    return [
        r
        for r in rows
        if ((r.get("dataset"), r.get("metric")), frozenset((r.get("system_a"), r.get("system_b"))))
        in pairs
    ]


def split_results(document: Mapping[str, Any], *, max_rows: int = TABLE_ROWS_MAX) -> SplitResults:
    """The written form of a results.json ``document``: every table of :data:`TABLES`
    with more than ``max_rows`` rows (over all its places) replaced by reference objects
    and returned beside it; ``document`` itself is not changed (the containers on the
    way to a moved table are copied).

    >>> rows = [{"system_a": "a", "system_b": f"b{k}", "p_value": 0.5} for k in range(3)]
    >>> split = split_results({"systems": [], "comparisons": rows}, max_rows=2)
    >>> split.document["comparisons"]["path"], len(split.tables["comparisons"])
    ('tables/comparisons.parquet', 3)
    >>> split_results({"comparisons": rows}, max_rows=3).tables
    {}
    """
    doc = dict(document)
    tables: dict[str, list[dict[str, Any]]] = {}

    comparisons = doc.get("comparisons")
    if isinstance(comparisons, list) and len(comparisons) > max_rows:
        tables["comparisons"] = comparisons
        ref = _ref("comparisons", len(comparisons))
        ref["significant"] = sum(1 for r in comparisons if r.get("significant"))
        ref["neighbours"] = _neighbours(doc, comparisons)
        doc["comparisons"] = ref

    rankings = [dict(e) if isinstance(e, Mapping) else e for e in doc.get("rankings") or ()]
    items = [dict(e) if isinstance(e, Mapping) else e for e in doc.get("items") or ()]

    # (name, the dict holding the rows, its key, the unit's columns)
    places: list[tuple[str, dict[str, Any], str, dict[str, Any]]] = []
    for entry in rankings:
        if not isinstance(entry, dict):
            continue
        kind = entry.get("kind")
        if kind == "ordered":
            places.append(("ranking_pairs", entry, "pairs", {}))
            for key, name, inner in (
                ("graph", "ranking_edges", "edges"),
                ("across_lists", "ranking_sign_tests", "sign_tests"),
            ):
                if isinstance(entry.get(key), Mapping):
                    entry[key] = dict(entry[key])
                    places.append((name, entry[key], inner, {}))
        elif kind == "leaderboard" and isinstance(entry.get("win_rates"), Mapping):
            entry["win_rates"] = dict(entry["win_rates"])
            places.append(("win_rates", entry["win_rates"], "pairs", _unit(entry)))
    for entry in items:
        if isinstance(entry, dict):
            places.append(("items", entry, "items", _unit(entry)))

    counts: dict[str, int] = {}
    for name, holder, key, _ in places:
        if isinstance(holder.get(key), list):
            counts[name] = counts.get(name, 0) + len(holder[key])
    for name, holder, key, where in places:
        rows = holder.get(key)
        if counts.get(name, 0) <= max_rows or not isinstance(rows, list):
            continue
        tables.setdefault(name, []).extend([{**where, **r} for r in rows] if where else rows)
        holder[key] = _ref(name, len(rows), where)

    probabilities = [
        e
        for e in rankings
        if isinstance(e, dict)
        and e.get("kind") == "ranks"
        and isinstance(e.get("distribution"), Mapping)
    ]
    cells = sum(
        len(s.get("rank_probabilities") or ())
        for e in probabilities
        for s in e["distribution"].get("systems") or ()
    )
    if cells > max_rows:
        long: list[dict[str, Any]] = []
        for entry in probabilities:
            dist = dict(entry["distribution"])
            where = _unit(entry)
            systems = []
            n = 0
            for s in dist.get("systems") or ():
                s = dict(s)
                for rank, p in enumerate(s.pop("rank_probabilities", None) or (), start=1):
                    long.append(
                        {**where, "system": s.get("system"), "rank": rank, "probability": p}
                    )
                    n += 1
                systems.append(s)
            dist["systems"] = systems
            dist["rank_probabilities"] = _ref("rank_probabilities", n, where)
            entry["distribution"] = dist
        tables["rank_probabilities"] = long

    if rankings:
        doc["rankings"] = rankings
    if items:
        doc["items"] = items
    return SplitResults(doc, tables)


# --------------------------------------------------------------------------- writing


def _column(values: list[Any]) -> tuple[Any, bool]:
    """An Arrow array of ``values``; values of mixed types (which Arrow refuses) are
    written as JSON text and flagged."""
    import pyarrow as pa

    try:
        return pa.array(values), False
    except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError):
        return pa.array(
            [None if v is None else json.dumps(v, ensure_ascii=False) for v in values],
            type=pa.string(),
        ), True


def _arrow_table(rows: Sequence[Mapping[str, Any]]) -> Any:
    import pyarrow as pa

    names: dict[str, None] = dict.fromkeys(rows[0]) if rows else {}
    seen: set[str] = set(names)
    for r in rows:
        if len(r) != len(names) or not seen.issuperset(r):
            for k in r:
                if k not in seen:
                    seen.add(k)
                    names[k] = None
    arrays, fields = [], []
    for name in names:
        array, as_json = _column([r.get(name) for r in rows])
        arrays.append(array)
        fields.append(pa.field(name, array.type, metadata=_JSON_COLUMN if as_json else None))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def _describe(name: str, table: Any) -> dict[str, Any]:
    place, row = TABLES[name]
    return {
        "path": f"tables/{name}.{_FORMAT}",
        "format": _FORMAT,
        "rows": table.num_rows,
        "place": place,
        "description": row,
        "columns": [
            {"name": f.name, "type": "json" if f.metadata == _JSON_COLUMN else str(f.type)}
            for f in table.schema
        ],
    }


def _write_parquet(table: Any, path: Path) -> None:
    import pyarrow.parquet as pq

    from reportgen.report.folder.output import default_mode

    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        pq.write_table(table, tmp, compression="zstd")
        os.chmod(tmp, default_mode())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_results(
    folder: Path,
    document: Mapping[str, Any],
    *,
    max_rows: int = TABLE_ROWS_MAX,
    built: Mapping[str, Any] | None = None,
) -> SplitResults:
    """Write ``folder/results.json`` (validated against its schema) and, for every
    table of more than ``max_rows`` rows, ``folder/tables/<name>.parquet``; each file
    atomically (written aside, renamed into place). ``built`` holds tables already made
    (name → Arrow table) that ``document`` already refers to. Returns what was written
    (:func:`split_results`, its document with the ``tables`` section)."""
    from reportgen.report.folder.manifest import validate_results
    from reportgen.report.folder.output import write_json_atomic

    split = split_results(document, max_rows=max_rows)
    arrow = dict(built or {})
    for name, rows in split.tables.items():
        arrow[name] = _arrow_table(rows)
    if arrow:
        (folder / "tables").mkdir(exist_ok=True)
        for name, table in arrow.items():
            _write_parquet(table, folder / "tables" / f"{name}.{_FORMAT}")
        split.document["tables"] = {name: _describe(name, t) for name, t in arrow.items()}
    validate_results(split.document)
    write_json_atomic(folder / "results.json", split.document)
    return SplitResults(split.document, {**dict.fromkeys(arrow, []), **split.tables})


def _arrow_columns(units: Sequence[Mapping[str, Any]]) -> Any:
    """One Arrow table of the columns of several units (each a mapping of name to an
    array, or to one value shared by its rows: :meth:`UnitResult.comparison_columns`)."""
    import numpy as np
    import pyarrow as pa

    parts = []
    for columns in units:
        n = max((len(v) for v in columns.values() if isinstance(v, np.ndarray)), default=0)
        arrays, names = [], []
        for name, value in columns.items():
            if isinstance(value, np.ndarray):
                array = pa.array(value, from_pandas=True)  # NaN -> null, as in JSON
            elif value is None:
                array = pa.nulls(n)
            else:
                array = pa.repeat(value, n)
            arrays.append(array)
            names.append(name)
        parts.append(pa.Table.from_arrays(arrays, names=names))
    return pa.concat_tables(parts, promote_options="permissive")


def _neighbour_rows(document: Mapping[str, Any], table: Any) -> list[dict[str, Any]]:
    """:func:`_neighbours` of an Arrow comparisons table."""
    import numpy as np

    order: dict[tuple[Any, Any], dict[Any, int]] = {}
    for row in document.get("systems") or ():
        place = order.setdefault((row.get("dataset"), row.get("metric")), {})
        place.setdefault(row.get("system"), len(place))
    frame = table.select(["dataset", "metric", "system_a", "system_b"]).to_pandas()
    keep = np.zeros(len(frame), dtype=bool)
    for (dataset, metric), rows in frame.groupby(["dataset", "metric"], sort=False).groups.items():
        position = order.get((dataset, metric), {})
        a = frame.loc[rows, "system_a"].map(position)
        b = frame.loc[rows, "system_b"].map(position)
        keep[np.asarray(rows)] = ((a - b).abs() == 1).to_numpy()
    return table.take(np.flatnonzero(keep)).to_pylist()


def write_analysis(
    folder: Path,
    analysis: Any,
    *,
    max_rows: int = TABLE_ROWS_MAX,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """What ``reportgen analyze`` writes of ``analysis`` (with the sections of
    ``extra`` added): :func:`write_results` of its results.json document. The per-pair
    tables of more than ``max_rows`` rows (the comparisons, the ordered ranking's pairs,
    the leaderboards' win rates) are made straight from the analysis' arrays, never as
    dicts: 1,000 systems have 499,500 comparisons and 999,000 win-rate pairs, gigabytes
    and tens of seconds as dicts. Returns the results.json written."""
    import numpy as np

    from reportgen.analysis.serialize import to_results
    from reportgen.jsonsafe import json_safe

    compared = [u for u in analysis.units if u.comparisons is not None]
    boards = [u for u in analysis.units if u.leaderboard is not None]
    sizes = {
        "comparisons": sum(int(u.comparisons.n_pairs) for u in compared),
        "ranking_pairs": 0 if analysis.ranking is None else len(analysis.ranking.index_a),
        "win_rates": sum(
            len(u.leaderboard.win_rates.systems) * (len(u.leaderboard.win_rates.systems) - 1)
            for u in boards
        ),
        "items": sum(len(u.items.items) for u in analysis.units if u.items is not None),
    }
    if all(n <= max_rows for n in sizes.values()):
        document = {**analysis.to_results(), **(extra or {})}
        return write_results(folder, document, max_rows=max_rows).document
    document = {**to_results(analysis, long_tables=False), **(extra or {})}
    built: dict[str, Any] = {}

    if sizes["comparisons"] > max_rows:
        table = _arrow_columns([u.comparison_columns() for u in compared])
        ref = _ref("comparisons", table.num_rows)
        ref["significant"] = int(np.count_nonzero(table.column("significant").to_numpy()))
        ref["neighbours"] = _neighbour_rows(document, table)
        document["comparisons"] = ref
        built["comparisons"] = table
    else:
        document["comparisons"] = json_safe(analysis.comparisons())

    for entry in document["rankings"]:
        if entry.get("kind") != "ordered" or analysis.ranking is None:
            continue
        if sizes["ranking_pairs"] > max_rows:
            built["ranking_pairs"] = _arrow_columns([analysis.ranking.pair_columns()])
            entry["pairs"] = _ref("ranking_pairs", sizes["ranking_pairs"])
        else:
            entry["pairs"] = json_safe(analysis.ranking.to_dict()["pairs"])

    entries = {
        (e.get("dataset"), e.get("metric")): e
        for e in document["rankings"]
        if e.get("kind") == "leaderboard"
    }
    columns = []
    for u in boards:
        wins = entries[(u.dataset, u.metric)]["win_rates"]
        if sizes["win_rates"] > max_rows:
            where = {"dataset": u.dataset, "metric": u.metric}
            columns.append({**where, **u.leaderboard.pair_columns()})
            s = len(u.leaderboard.win_rates.systems)
            wins["pairs"] = _ref("win_rates", s * (s - 1), where)
        else:
            pairs = u.leaderboard.to_dict(u.dataset, u.metric)["win_rates"]["pairs"]
            wins["pairs"] = json_safe(pairs)
    if columns:
        built["win_rates"] = _arrow_columns(columns)

    ranked = [u for u in analysis.units if u.ranks is not None]
    cells = sum(len(u.ranks.distributions.systems) ** 2 for u in ranked)
    entries = {
        (e.get("dataset"), e.get("metric")): e
        for e in document["rankings"]
        if e.get("kind") == "ranks"
    }
    columns = []
    for u in ranked:
        distribution = entries[(u.dataset, u.metric)]["distribution"]
        if cells > max_rows:
            where = {"dataset": u.dataset, "metric": u.metric}
            columns.append({**where, **u.ranks.probability_columns()})
            n = len(u.ranks.distributions.systems) ** 2
            distribution["rank_probabilities"] = _ref("rank_probabilities", n, where)
        else:
            full = u.ranks.to_dict(u.dataset, u.metric)["distribution"]
            distribution["systems"] = json_safe(full["systems"])
    if columns:
        built["rank_probabilities"] = _arrow_columns(columns)

    entries = {(e.get("dataset"), e.get("metric")): e for e in document["items"]}
    columns = []
    for u in analysis.units:
        if u.items is None:
            continue
        entry = entries[(u.dataset, u.metric)]
        if sizes["items"] > max_rows:
            where = {"dataset": u.dataset, "metric": u.metric}
            columns.append({**where, **u.item_columns()})
            entry["items"] = _ref("items", len(u.items.items), where)
        else:
            entry["items"] = json_safe(u.items.to_records())
    if columns:
        built["items"] = _arrow_columns(columns)
    return write_results(folder, document, max_rows=max_rows, built=built).document


# --------------------------------------------------------------------------- reading


def _table_path(folder: Path, ref: Mapping[str, Any]) -> Path:
    rel = str(ref.get("path") or "")
    path = (folder / rel).resolve()
    if (
        ref.get("format") != _FORMAT
        or not rel
        or Path(rel).is_absolute()
        or folder.resolve() not in path.parents
    ):
        raise InputError(
            f"results.json refers to a table it cannot read ({rel!r}, format "
            f"{ref.get('format')!r})",
            location=Location(str(folder / "results.json")),
            hint="the file was edited or damaged; make the report again",
        )
    if not path.is_file():
        raise InputError(
            f"results.json refers to {rel}, which is missing",
            location=Location(str(folder)),
            hint="copy the report folder with its tables/ folder, or make the report again",
        )
    return path


def read_table(folder: str | Path, ref: Mapping[str, Any]) -> Any:
    """The rows a reference object of ``folder``'s results.json points to, as a
    :class:`pandas.DataFrame` (its ``where`` applied; JSON-text columns decoded)."""
    rows = TableRows(Path(folder), ref)
    import pandas as pd

    return pd.DataFrame.from_records(list(rows))


class TableRows(Sequence[dict[str, Any]]):
    """The rows of a table written beside results.json, as a sequence of dicts (the
    form results.json would have held). Its length comes from the reference; the rows
    are read from the Parquet file as they are iterated, a batch at a time, so a reader
    that scans half a million comparisons for one pair holds one batch."""

    def __init__(self, folder: Path, ref: Mapping[str, Any]) -> None:
        self._path = _table_path(folder, ref)
        self._where = dict(ref.get("where") or {})
        self._rows = int(ref.get("rows") or 0)
        self._all: list[dict[str, Any]] | None = None

    def __len__(self) -> int:
        return self._rows

    def __iter__(self) -> Iterator[dict[str, Any]]:
        if self._all is not None:
            yield from self._all
            return
        import pyarrow.compute as pc
        import pyarrow.parquet as pq

        try:
            handle = pq.ParquetFile(self._path)
        except Exception as exc:  # noqa: BLE001 - pyarrow's errors name no file
            raise InputError(
                f"cannot read the table ({exc})",
                location=Location(str(self._path)),
                hint="the report folder is damaged; make the report again",
            ) from None
        encoded = [f.name for f in handle.schema_arrow if f.metadata == _JSON_COLUMN]
        for batch in handle.iter_batches(batch_size=65_536):
            for key, value in self._where.items():
                batch = batch.filter(pc.equal(batch.column(key), value))
            rows = batch.to_pylist()
            for name in encoded:
                for r in rows:
                    if r[name] is not None:
                        r[name] = json.loads(r[name])
            yield from rows

    def __getitem__(self, index: Any) -> Any:
        if self._all is None:
            self._all = list(iter(self))
        return self._all[index]

    def __repr__(self) -> str:
        return f"TableRows({self._path.name!r}, rows={self._rows}, where={self._where})"


def resolve_tables(document: Mapping[str, Any], folder: str | Path) -> dict[str, Any]:
    """``document`` (a results.json read from ``folder``) with every reference object
    replaced by its rows (:class:`TableRows`, read as iterated; the rank probabilities
    put back into each system's row): the form a reader of an older, single-file
    results.json expects. A document without references is returned as it is.

    Raises
    ------
    InputError
        A referenced file is missing or is not a table reportgen wrote.
    """
    base = Path(folder)
    doc = dict(document)
    if is_reference(doc.get("comparisons")):
        doc["comparisons"] = TableRows(base, doc["comparisons"])
    rankings = []
    for entry in doc.get("rankings") or ():
        if not isinstance(entry, Mapping):
            rankings.append(entry)
            continue
        entry = dict(entry)
        for key, inner in (("", "pairs"), ("graph", "edges"), ("across_lists", "sign_tests")):
            holder = entry if not key else entry.get(key)
            if isinstance(holder, Mapping) and is_reference(holder.get(inner)):
                holder = dict(holder)
                holder[inner] = TableRows(base, holder[inner])
                if key:
                    entry[key] = holder
                else:
                    entry = holder
        wins = entry.get("win_rates")
        if isinstance(wins, Mapping) and is_reference(wins.get("pairs")):
            entry["win_rates"] = {
                **wins,
                "pairs": [
                    {k: v for k, v in r.items() if k not in ("dataset", "metric")}
                    for r in TableRows(base, wins["pairs"])
                ],
            }
        dist = entry.get("distribution")
        if isinstance(dist, Mapping) and is_reference(dist.get("rank_probabilities")):
            probs: dict[Any, list[tuple[int, float]]] = {}
            for r in TableRows(base, dist["rank_probabilities"]):
                probs.setdefault(r["system"], []).append((r["rank"], r["probability"]))
            dist = {k: v for k, v in dist.items() if k != "rank_probabilities"}
            dist["systems"] = [
                {**s, "rank_probabilities": [p for _, p in sorted(probs.get(s.get("system"), []))]}
                for s in dist.get("systems") or ()
            ]
            entry["distribution"] = dist
        rankings.append(entry)
    if rankings:
        doc["rankings"] = rankings
    items = []
    for entry in doc.get("items") or ():
        if isinstance(entry, Mapping) and is_reference(entry.get("items")):
            entry = {
                **entry,
                "items": [
                    {k: v for k, v in r.items() if k not in ("dataset", "metric")}
                    for r in TableRows(base, entry["items"])
                ],
            }
        items.append(entry)
    if items:
        doc["items"] = items
    return doc
