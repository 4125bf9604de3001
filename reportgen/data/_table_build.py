"""Building a score table from a long frame: the canonical columns, the checks and
conversions of labels and scores, the NaN policy, runs, duplicates, references, pairing
groups and the properties of each metric (:class:`MetricInfo`).

Private to :mod:`reportgen.data._table`, which re-exports the names it shares."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd

from reportgen.data._config import Direction, Modality, TableConfig
from reportgen.data.adapters._base import (
    SOURCE_FILE,
    SOURCE_LINE,
    AdapterResult,
    Exclusion,
    Problem,
    SkippedInput,
    to_float,
)
from reportgen.errors import InputError, Location
from reportgen.names import Estimand
from reportgen.plaintext import count

REQUIRED_COLUMNS = ("system", "dataset", "metric", "item", "score")


LABEL_COLUMNS = ("system", "dataset", "metric", "item")


KEY_COLUMNS = ("system", "dataset", "metric", "item", "run")


#: Row columns of classification outputs, kept for corpus-level metrics.
PREDICTION_COLUMNS = ("prediction", "reference")


_MISSING_STRINGS = frozenset({"", "nan", "NaN", "NAN", "NA", "N/A", "null", "None", "none"})


_SHOW_ROWS = 5


@dataclass(frozen=True)
class MetricInfo:
    """Resolved properties of one metric.

    ``margin`` is the config's non-inferiority margin (``[metrics.NAME] margin``, in the
    metric's units; None when not given); ``estimand`` what its comparisons estimate
    (``[metrics.NAME] estimand``: the mean unless the config says ``"trimmed"`` or
    ``"hodges-lehmann"``). ``direction_source`` is ``"config"``,
    ``"source"`` (the input format said so), ``"name"`` (lower-is-better by the
    conventions of :data:`LOWER_IS_BETTER_WORDS`) or ``"default"``; ``modality`` is the
    config's if given, else ``"binary"`` when every dataset scores the metric 0/1
    (per-dataset modality: :meth:`ScoreTable.modality`).
    """

    name: str
    direction: Direction
    modality: Modality
    weight: float
    direction_source: Literal["config", "flag", "source", "name", "default"]
    modality_source: Literal["config", "inferred"]
    margin: float | None = None
    estimand: Estimand = "mean"

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "direction": self.direction,
            "modality": self.modality,
            "weight": self.weight,
            "direction_source": self.direction_source,
            "modality_source": self.modality_source,
            "margin": self.margin,
            "estimand": self.estimand,
        }


@dataclass(frozen=True)
class _Group:
    """Row positions and codes of one (dataset, metric), precomputed once."""

    system_codes: np.ndarray  # global system codes
    item_codes: np.ndarray  # codes into `items`, first-appearance order
    items: np.ndarray  # item labels (object array)
    run_codes: np.ndarray | None
    scores: np.ndarray
    predictions: np.ndarray | None = None  # object labels per row, when given
    references: np.ndarray | None = None


def _file_categories(files: pd.Series) -> pd.Series:
    """The :data:`SOURCE_FILE` column as a categorical of file names (text), missing
    names as ``"<input>"``; a categorical of text stays as it is (no string per row)."""
    if isinstance(files.dtype, pd.CategoricalDtype) and all(
        isinstance(c, str) for c in files.cat.categories
    ):
        if files.isna().any():
            if "<input>" not in files.cat.categories:
                files = files.cat.add_categories(["<input>"])
            files = files.fillna("<input>")
        return files
    return files.fillna("<input>").astype(str).astype("category")


def _files_location(files: Iterable[Any]) -> Location | None:
    """The input files an error about the whole table is in (the first three named)."""
    names = [str(f) for f in dict.fromkeys(files) if f is not None]
    if not names:
        return None
    more = f" and {len(names) - 3} more" if len(names) > 3 else ""
    return Location(", ".join(names[:3]) + more)


def _where(df: pd.DataFrame, index: Any, column: str | None = None) -> Location:
    row = df.loc[index]
    line = int(row[SOURCE_LINE])
    return Location(str(row[SOURCE_FILE]), line if line > 0 else None, column)


def _check_required(df: pd.DataFrame) -> None:
    missing = [c for c in REQUIRED_COLUMNS if c not in df]
    if missing:
        files = ", ".join(map(str, pd.unique(df[SOURCE_FILE])[:3]))
        present = [c for c in df.columns if not c.startswith("_")]
        raise InputError(
            f"missing required {'column' if len(missing) == 1 else 'columns'} "
            f"{', '.join(missing)}; found: {', '.join(present)}",
            location=Location(files),
            hint="rename the columns or map them with --system-col, --dataset-col, "
            "--metric-col, --item-col, --score-col (or --dataset NAME / --metric NAME "
            "when the file has a single one)",
        )


#: Each label column's ``pd.factorize`` (codes, first-appearance uniques), computed once
#: when the column is checked (:func:`_labels`) and shared by the later steps: on two
#: million rows of pyarrow text one factorization of the items takes about 0.15 s, and
#: the duplicate check, the pairing groups and the item list each made their own.
Codes = dict[str, tuple[np.ndarray, Any]]


def _labels(df: pd.DataFrame, column: str) -> tuple[pd.Series, tuple[np.ndarray, Any]]:
    """The checked label column ``column`` and its factorization (:data:`Codes`)."""
    values = df[column]
    if pd.api.types.is_float_dtype(values.dtype):
        finite = values.dropna()
        if len(finite) and bool(np.all((np.mod(finite, 1) == 0) & (np.abs(finite) <= 2**53))):
            values = values.astype("Int64")
    if values.dtype == object:
        nested = values.map(lambda v: isinstance(v, (dict, list)))
        if nested.any():
            first = nested.idxmax()
            kind = "an object" if isinstance(values.loc[first], dict) else "a list"
            raise InputError(
                f"{column} is {kind} ({_short(values.loc[first])}), not a name "
                f"({count(int(nested.sum()), 'such row')})",
                location=_where(df, first, column),
                hint=f"{_article(column)} {column} is a text or a number",
            )
    # names already clean are kept as read: no copy of a column of two million names;
    # whether they are is seen on the distinct names, not on every row
    codes, uniques = pd.factorize(values) if _arrow_text(values) else (None, None)
    if codes is not None and _clean_text(uniques):
        text = values
    else:
        text = values.astype(str).str.strip()
        codes, uniques = pd.factorize(text)
    if bool((codes < 0).any()) or bool(values.isna().any()) or bool(np.any(uniques == "")):
        blank = values.isna() | (text == "")
        first = blank.idxmax()
        raise InputError(
            f"empty {column} ({count(int(blank.sum()), 'row')})",
            location=_where(df, first, column),
            hint=f"every row needs {_article(column)} {column}; fill it in or drop the row",
        )
    return text, (_narrow(codes), uniques)


def _narrow(codes: np.ndarray) -> np.ndarray:
    """Codes as int32 (half the memory of the int64 ones pandas gives; every table in
    memory has fewer than 2**31 distinct names)."""
    return codes.astype(np.int32) if len(codes) < 2**31 else codes


def _arrow_text(values: pd.Series | pd.Index) -> bool:
    """Whether ``values`` is text stored as a pyarrow array."""
    return isinstance(values.dtype, pd.StringDtype) and hasattr(values.array, "__arrow_array__")


def _clean_text(values: pd.Series | pd.Index) -> bool:
    """Whether ``values`` is a pyarrow-backed text column whose every present name
    starts and ends with a non-space character: stripping it would change nothing (one
    regular-expression pass in pyarrow; False when that cannot be checked so)."""
    if not _arrow_text(values):
        return False
    try:
        import pyarrow.compute as pc

        edges = pc.match_substring_regex(values.array.__arrow_array__(), r"^\s|\s$")
        return not pc.any(edges).as_py()
    except Exception:  # noqa: BLE001 - not checkable here: strip as before
        return False


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def _short(value: Any, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _scores(df: pd.DataFrame) -> pd.Series:
    raw = df["score"]
    if pd.api.types.is_bool_dtype(raw.dtype):
        return raw.astype(np.float64)
    if pd.api.types.is_numeric_dtype(raw.dtype):
        num = raw.astype(np.float64)
    elif (
        isinstance(raw.dtype, pd.StringDtype)
        or pd.api.types.infer_dtype(raw, skipna=True) == "string"
    ):
        # text cells (CSV, TSV): vectorised, no Python call per row. Cells that are all
        # plain numbers (or missing) as read have no space to strip: converted at once
        fast = None
        if _arrow_text(raw):
            is_missing = raw.isna() | raw.isin(_MISSING_STRINGS)
            fast = _decimal_floats(raw, is_missing)
            text = raw
        if fast is None:
            text = raw if _clean_text(raw) else raw.str.strip()
            is_missing = raw.isna() | text.isin(_MISSING_STRINGS)
            fast = _decimal_floats(text, is_missing)
        if fast is not None:
            num = fast
        else:
            num = pd.to_numeric(text.where(~is_missing), errors="coerce").astype(np.float64)
            _check_numbers(df, raw, num, is_missing)
    else:
        obj = raw.astype(object)
        is_missing = obj.isna() | obj.map(
            lambda v: isinstance(v, str) and v.strip() in _MISSING_STRINGS
        )
        obj = obj.where(~is_missing, np.nan).map(
            lambda v: to_float(v) if isinstance(v, (bool, int)) else v
        )
        num = pd.to_numeric(obj, errors="coerce").astype(np.float64)
        _check_numbers(df, raw, num, is_missing)
    inf = np.isinf(num.to_numpy())
    if inf.any():
        first = df.index[int(np.argmax(inf))]
        raise InputError(
            f"score is infinite ({count(int(inf.sum()), 'such row')})",
            location=_where(df, first, "score"),
            hint="replace infinite scores by finite values, or leave them empty to drop them",
        )
    huge = np.abs(num.to_numpy()) >= MAX_SCORE
    if huge.any():
        first = df.index[int(np.argmax(huge))]
        raise InputError(
            f"score {num.loc[first]:.4g} is too large: the difference of two scores "
            f"beyond ±{MAX_SCORE:.4g} is not a finite number "
            f"({count(int(huge.sum()), 'such row')})",
            location=_where(df, first, "score"),
            hint="rescale the metric (e.g. divide it by 1e300), or drop those rows",
        )
    return num


#: The largest magnitude a score may have: 2**1023 (about 8.99e307), half the largest
#: float, so that the difference of any two scores is finite.
MAX_SCORE = 2.0**1023


#: A plain decimal number (sign, digits with an optional point, optional exponent): the
#: cells :func:`_decimal_floats` converts with pyarrow.
_DECIMAL = r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$"


def _decimal_floats(text: pd.Series, is_missing: pd.Series) -> pd.Series | None:
    """The scores of a pyarrow-backed text column whose every present cell is a plain
    decimal number (:data:`_DECIMAL`), converted by pyarrow's cast (correctly rounded,
    as ``float()`` is; about 10x faster than ``pd.to_numeric`` on two million cells);
    NaN where ``is_missing``. None for anything else (no pyarrow, another storage, a cell
    such as ``inf``, ``0x1p3`` or ``abc``): ``pd.to_numeric`` then converts the column and
    the first cell that is not a number is reported with its line."""
    if not hasattr(text.array, "__arrow_array__"):
        return None
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        return None
    try:
        values = text.array.__arrow_array__()
        present = pa.array(~is_missing.to_numpy(dtype=bool))
        if isinstance(values, pa.ChunkedArray):
            values = values.combine_chunks()
        plain = pc.match_substring_regex(values, _DECIMAL)
        if not pc.all(pc.or_kleene(plain, pc.invert(present))).as_py():
            return None
        del plain
        if not pc.all(present).as_py():  # a missing cell ("NA", "nan", ...): null, then NaN
            values = pc.if_else(present, values, pa.scalar(None, values.type))
        floats = pc.cast(values, pa.float64())
    except pa.ArrowException:
        return None
    return pd.Series(floats.to_numpy(zero_copy_only=False), index=text.index, dtype=np.float64)


def _check_numbers(df: pd.DataFrame, raw: pd.Series, num: pd.Series, is_missing: pd.Series) -> None:
    """Raise on the first score that is neither missing nor a number."""
    bad = num.isna() & ~is_missing
    if bad.any():
        first = bad.idxmax()
        raise InputError(
            f"score {raw.loc[first]!r} is not a number ({count(int(bad.sum()), 'such row')})",
            location=_where(df, first, "score"),
            hint="scores must be numbers (binary metrics as 0/1); leave a cell empty "
            "if the system was not scored on that item",
        )


#: Files skipped for one reason named one by one up to this many; more are summed up.
SKIPPED_SHOWN = 3
_DETAIL = re.compile(r"\s*\([^()]*\)|'[^']*'|\"[^\"]*\"")


def _skipped_problems(skipped: Sequence[SkippedInput]) -> list[Problem]:
    """One warning per reason a file was skipped: each file for a reason of at most
    :data:`SKIPPED_SHOWN` files, else their number and the first three (50,000 files
    of a folder that are not results give a line, not 50,000; every one stays listed
    in ``skipped_inputs``). Reasons that differ only in their details (the keys of an
    unknown JSON file) count as one."""
    kinds: dict[str, list[SkippedInput]] = {}
    for s in skipped:
        kinds.setdefault(_DETAIL.sub("", s.reason), []).append(s)
    problems: list[Problem] = []
    for group in kinds.values():
        if len(group) <= SKIPPED_SHOWN:
            problems.extend(
                Problem("warning", f"skipped: {s.reason}", Location(s.path)) for s in group
            )
            continue
        examples = ", ".join(s.path for s in group[:SKIPPED_SHOWN])
        problems.append(
            Problem(
                "warning",
                f"skipped {count(len(group), 'file')}: {group[0].reason}; e.g. {examples} "
                "(each is listed in skipped_inputs: reportgen inspect --json)",
            )
        )
    return problems


def _apply_nan_policy(df: pd.DataFrame, nan_policy: str) -> tuple[pd.DataFrame, list[Exclusion]]:
    missing = df["score"].isna()
    if not missing.any():
        return df, []
    if nan_policy == "raise":
        first = missing.idxmax()
        raise InputError(
            f"missing score ({count(int(missing.sum()), 'row')})",
            location=_where(df, first, "score"),
            hint="fill in the score, or use nan_policy='drop' "
            "(--nan-policy drop) to treat it as not scored",
        )
    counts = (
        df[missing]
        .groupby(["dataset", "metric", "system", SOURCE_FILE], sort=False, observed=True)
        .size()
    )
    dropped = [Exclusion("missing score", int(n), d, m, s, f) for (d, m, s, f), n in counts.items()]
    return df[~missing].reset_index(drop=True), dropped


def _kept_codes(codes: Codes, keep: np.ndarray) -> Codes:
    """The factorizations of :data:`Codes` for the rows where ``keep`` is true, as
    factorizing those rows would give them (first-appearance order, no unused names)."""
    out: Codes = {}
    for column, (all_codes, uniques) in codes.items():
        kept, first = pd.factorize(all_codes[keep])
        out[column] = (_narrow(kept), uniques.take(first))
    return out


def _factorized(df: pd.DataFrame, column: str, codes: Codes | None) -> tuple[np.ndarray, Any]:
    """``pd.factorize(df[column])``, from ``codes`` when it holds it."""
    if codes is not None and column in codes:
        return codes[column]
    return pd.factorize(df[column], use_na_sentinel=False)


def _runs(df: pd.DataFrame) -> dict[str, tuple[Any, ...] | None]:
    """Normalise the run column in place; return each dataset's sorted run labels, or
    None for a dataset without runs (its rows get run 0)."""
    datasets = pd.unique(df["dataset"])
    if "run" not in df:
        return dict.fromkeys(datasets)
    run = df["run"]
    numeric = pd.api.types.is_numeric_dtype(run.dtype) and not pd.api.types.is_bool_dtype(run.dtype)
    has = run.notna()
    values = run[has].to_numpy(np.float64) if numeric else np.empty(0)
    # whole numbers a float holds exactly become int labels; others (1e30) stay text
    if numeric and bool(np.all((np.mod(values, 1) == 0) & (np.abs(values) <= 2**53))):
        normal: pd.Series = run.fillna(0).astype(np.int64)
    else:
        text = run.astype(str).str.strip()
        has = has & (text != "")
        normal = text.where(has, "")
    labels: dict[str, tuple[Any, ...] | None] = {}
    for dataset, rows in df.groupby("dataset", sort=False).groups.items():
        flags = has.loc[rows]
        if flags.all():
            labels[dataset] = tuple(sorted(pd.unique(normal.loc[rows]).tolist()))
        elif not flags.any():
            labels[dataset] = None
        else:
            first = flags[~flags].index[0]
            raise InputError(
                f"dataset {dataset!r} has a run for some rows and not for others",
                location=_where(df, first, "run"),
                hint="give every row of a dataset with repeated runs a run label (or none of them)",
            )
    df["run"] = normal
    return labels


def _duplicate_hints(results: Sequence[AdapterResult]) -> dict[str, str]:
    """Input file -> the duplicate hint of the adapter that read it (where it has one)."""
    hints: dict[str, str] = {}
    for result in results:
        if result.duplicate_hint and SOURCE_FILE in result.frame:
            hints.update(
                dict.fromkeys(pd.unique(result.frame[SOURCE_FILE]).tolist(), result.duplicate_hint)
            )
    return hints


_DUPLICATE_HINT = (
    "each (system, dataset, metric, item, run) may appear once; if these are "
    "repeated runs, add a run column (--run-col), otherwise remove the "
    "duplicates"
)


def _check_duplicates(
    df: pd.DataFrame, hints: Mapping[str, str] | None = None, codes: Codes | None = None
) -> None:
    key = [c for c in KEY_COLUMNS if c in df]
    if not _has_duplicate_keys(df, key, codes):
        return
    dup = df.duplicated(key, keep=False)
    rows = df[dup]
    first_key = tuple(rows.iloc[0][key])
    same = rows[(rows[key] == pd.Series(first_key, index=key)).all(axis=1)]
    places = "; ".join(str(_where(df, i)) for i in same.index[:_SHOW_ROWS])
    n_keys = int(rows.groupby(key, sort=False).ngroups)
    # plain Python values: a numpy scalar's repr (np.int64(1)) means nothing to a reader
    label = ", ".join(f"{k}={_plain(v)!r}" for k, v in zip(key, first_key))
    where = _where(df, same.index[0])
    raise InputError(
        f"{count(n_keys, 'score')} given more than once; the first: ({label}) at {places}",
        location=where,
        hint=(hints or {}).get(where.file or "", _DUPLICATE_HINT),
    )


def _has_duplicate_keys(df: pd.DataFrame, key: Sequence[str], codes: Codes | None = None) -> bool:
    """Whether two rows of ``df`` share their values in every ``key`` column (missing
    values equal to each other), as ``df.duplicated(key).any()`` says.

    Each column is factorized to integer codes, and the codes are combined into one
    number per row; when the product of the columns' distinct counts would pass 2**62
    the combined codes are factorized again, so they never overflow. One int64 array
    per step instead of pandas' five factorizations and group index: on two million
    rows the check peaked 155 MB above its start, this one about 50 MB.
    """
    combined: np.ndarray | None = None
    size = 1
    for column in key:
        column_codes, uniques = _factorized(df, column, codes)
        n = max(len(uniques), 1)
        if combined is None:
            combined, size = column_codes.astype(np.int64, copy=False), n
            continue
        if size * n >= 2**62:
            combined, firsts = pd.factorize(combined)
            size = len(firsts)
        combined = combined * n + column_codes
        size *= n
    if combined is None:
        return False
    if size <= 4 * len(combined) + 1024:
        return bool(np.bincount(combined, minlength=0).max(initial=0) > 1)
    return bool(pd.Series(combined).duplicated().any())


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _check_references(df: pd.DataFrame) -> None:
    """Rows with predictions need a reference, the same for every row of an item."""
    if "prediction" not in df or "reference" not in df:
        return
    has_prediction_rows = df["prediction"].notna() | df["reference"].notna()
    rows = df[has_prediction_rows]
    missing = rows["reference"].isna()
    if missing.any():
        first = missing.idxmax()
        raise InputError(
            f"missing reference ({count(int(missing.sum()), 'row')})",
            location=_where(df, first, "reference"),
            hint="every prediction needs the item's reference label",
        )
    counts = rows.groupby(["dataset", "item"], sort=False)["reference"].nunique()
    if (counts > 1).any():
        dataset, item = counts[counts > 1].index[0]
        clash = rows[(rows["dataset"] == dataset) & (rows["item"] == item)]
        places = "; ".join(
            f"{_where(df, i)} ({clash.loc[i, 'reference']!r})"
            for i in clash.drop_duplicates("reference").index[:3]
        )
        raise InputError(
            f"item {item!r} of dataset {dataset!r} has different references: {places}",
            location=_where(df, clash.index[0], "reference"),
            hint="an item has one reference label; check that the systems "
            "were scored on the same data",
        )


def _pair_codes(df: pd.DataFrame, a: str, b: str, codes: Codes | None = None) -> np.ndarray:
    """One code per row for the pair of values of the columns ``a`` and ``b``, numbered
    in order of first appearance (0, 1, ... as ``pd.factorize`` numbers them)."""
    codes_a, uniques_a = _factorized(df, a, codes)
    codes_b, uniques_b = _factorized(df, b, codes)
    if len(uniques_a) == 1:  # one value of ``a``: the pairs are ``b``'s values
        return codes_b
    return pd.factorize(codes_a.astype(np.int64) * max(len(uniques_b), 1) + codes_b)[0]


def _first_rows(codes: np.ndarray) -> np.ndarray:
    """The row where each code first appears, ascending, for codes numbered in order of
    first appearance (as ``np.sort(np.unique(codes, return_index=True)[1])`` gives them,
    without sorting): a new code is one above the largest seen before it."""
    if not len(codes):
        return np.empty(0, dtype=np.intp)
    seen = np.maximum.accumulate(codes)
    return np.flatnonzero(np.concatenate(([True], seen[1:] > seen[:-1])))


def _row_groups(
    df: pd.DataFrame, columns: Sequence[str], codes: Codes | None = None
) -> dict[tuple[Any, ...], Any]:
    """The rows of each combination of ``columns``' values, as
    ``df.groupby(columns, sort=False).indices`` gives them (combinations in the order
    they first appear, rows ascending), from one factorization per column; a single
    combination gets ``slice(None)`` (all rows: the columns themselves, not copies).
    Two million rows of one dataset × metric: no grouping at all, where pandas' took 0.2 s
    and 60 MB of transient codes and indices."""
    key: np.ndarray | None = None
    uniques = []
    size = 1
    for column in columns:
        column_codes, names = _factorized(df, column, codes)
        uniques.append(names)
        key = (
            column_codes.astype(np.int64, copy=False)
            if key is None
            else key * len(names) + column_codes
        )
        size *= len(names)
        if size >= 2**62:  # beyond int64 codes (no table in memory gets here)
            return dict(df.groupby(list(columns), sort=False).indices)
    if key is None or not len(key):
        return {}
    if size == 1:
        return {tuple(names[0] for names in uniques): slice(None)}
    combos, first = np.unique(key, return_index=True)
    order = np.argsort(first, kind="stable")  # combinations by first appearance
    rows = np.argsort(key, kind="stable")  # the rows of each combination, ascending
    counts = np.bincount(np.searchsorted(combos, key), minlength=len(combos))
    ends = np.cumsum(counts)
    starts = ends - counts
    out: dict[tuple[Any, ...], Any] = {}
    for k in order:
        code = int(combos[k])
        label = []
        for names in reversed(uniques):
            code, r = divmod(code, len(names))
            label.append(names[r])
        out[tuple(reversed(label))] = rows[starts[k] : ends[k]]
    return out


def _groups(
    df: pd.DataFrame,
    systems: tuple[str, ...],
    run_labels: Mapping[str, tuple[Any, ...] | None],
    codes: Codes | None = None,
) -> tuple[dict[tuple[str, str], _Group], dict[tuple[str, str], Modality]]:
    # codes in the order of ``systems`` through one factorization (a Categorical of
    # pyarrow strings made a Python string per row first: 150 MB for two million rows)
    codes_of_system, uniques = _factorized(df, "system", codes)
    system_codes = pd.Index(list(systems)).get_indexer(uniques).astype(np.intp)[codes_of_system]
    del codes_of_system
    groups: dict[tuple[str, str], _Group] = {}
    modality: dict[tuple[str, str], Modality] = {}
    scores_all = df["score"].to_numpy(np.float64)
    # item ids as codes into their distinct values: no Python string per row (two
    # million rows of pyarrow strings would become two million str objects)
    item_codes_all, item_names = _factorized(df, "item", codes)
    item_names = np.asarray(item_names, dtype=object)
    runs_all = df["run"].to_numpy(object) if "run" in df else None
    with_predictions = "prediction" in df and "reference" in df
    predictions_all = df["prediction"].to_numpy(object) if with_predictions else None
    references_all = df["reference"].to_numpy(object) if with_predictions else None
    for (dataset, metric), rows in _row_groups(df, ("dataset", "metric"), codes).items():
        if isinstance(rows, slice):  # every row: the codes are already in order of appearance
            item_codes, items = item_codes_all, item_names
        else:
            item_codes, first_seen = pd.factorize(item_codes_all[rows])  # order of appearance
            items = item_names[first_seen]
        run_codes = None
        labels = run_labels[dataset]
        if labels is not None and runs_all is not None:
            run_codes = pd.Categorical(runs_all[rows], categories=list(labels)).codes.astype(
                np.intp
            )
        scores = scores_all[rows]
        predictions = references = None
        if predictions_all is not None and references_all is not None:
            references = references_all[rows]
            if not all(v is None for v in references):
                predictions = predictions_all[rows]
            else:
                references = None
        groups[(dataset, metric)] = _Group(
            system_codes[rows],
            item_codes.astype(np.intp, copy=False),
            np.asarray(items, dtype=object),
            run_codes,
            scores,
            predictions,
            references,
        )
        binary = bool(np.all((scores == 0) | (scores == 1)))
        modality[(dataset, metric)] = "binary" if binary else "continuous"
    return groups, modality


def _metric_infos(
    df: pd.DataFrame,
    config: TableConfig,
    modality: Mapping[tuple[str, str], Modality],
    results: Sequence[AdapterResult],
    problems: list[Problem],
) -> dict[str, MetricInfo]:
    source_dirs: dict[str, Direction] = {}
    for result in results:
        for name, direction in result.directions.items():
            if source_dirs.get(name, direction) != direction:
                problems.append(
                    Problem(
                        "warning",
                        f"the inputs disagree on whether higher "
                        f"or lower {name!r} is better; using 'higher' "
                        "unless the config says otherwise",
                    )
                )
                direction = "higher"
            source_dirs[name] = direction
    infos = {}
    by_name: list[str] = []
    for metric in pd.unique(df["metric"]):
        spec = config.metrics.get(metric)
        dsource: Literal["config", "flag", "source", "name", "default"]
        if spec is not None and spec.direction is not None:
            direction, dsource = spec.direction, spec.direction_by or "config"
        elif metric in source_dirs:
            direction, dsource = source_dirs[metric], "source"
        elif lower_is_better_by_name(str(metric)):
            direction, dsource = "lower", "name"
            by_name.append(str(metric))
        else:
            direction, dsource = "higher", "default"
        if spec is not None and spec.modality is not None:
            mod, msource = spec.modality, "config"
        else:
            binary = all(v == "binary" for (d, m), v in modality.items() if m == metric)
            mod, msource = ("binary" if binary else "continuous"), "inferred"
        weight = spec.weight if spec is not None and spec.weight is not None else 1.0
        margin = spec.margin if spec is not None else None
        estimand = (spec.estimand if spec is not None else None) or "mean"
        infos[metric] = MetricInfo(
            metric,
            direction,
            mod,
            weight,
            dsource,
            msource,  # type: ignore[arg-type]
            margin,
            estimand,
        )
    if by_name:
        problems.append(Problem("info", direction_note(by_name)))
    return infos


def direction_note(metrics: Sequence[str]) -> str:
    """The one note on metrics made lower-is-better by their names, with the override."""
    return (
        f"lower is better for {', '.join(metrics)}, inferred from the name (a word such "
        "as loss, error, latency or distance); if higher is better, say so: "
        f'--direction {metrics[0]}=higher, or [metrics.{metrics[0]}] direction = "higher" '
        "in the config"
    )


#: Words that make a metric lower-is-better by convention (whole words of its name).
LOWER_IS_BETTER_WORDS = frozenset(
    {
        "loss", "losses", "error", "errors", "err", "wer", "cer", "ter", "perplexity",
        "ppl", "nll", "bpb", "bpc", "latency", "time", "duration", "runtime", "cost",
        "mae", "mse", "rmse", "mape", "smape", "distance", "ece", "brier",
    }
)  # fmt: skip


def lower_is_better_by_name(name: str) -> bool:
    """Whether a metric's name marks it lower-is-better by convention: one of its words
    (split at non-letters, digits and camelCase boundaries, case-insensitive) is in
    :data:`LOWER_IS_BETTER_WORDS`, and not followed by "free" or "less" nor preceded by
    "no", "non", "without" or "zero".

    Examples
    --------
    >>> [lower_is_better_by_name(n) for n in ("latency_ms", "edit_distance", "evalLoss")]
    [True, True, True]
    >>> [lower_is_better_by_name(n) for n in ("accuracy", "f1", "terminal", "exact_match")]
    [False, False, False, False]

    A word of absence makes the name one of a good thing: ``error_free_rate``,
    ``noError``, ``loss-free`` are higher-is-better (they count what went right).

    >>> [lower_is_better_by_name(n) for n in ("error_free_rate", "noError", "loss-free")]
    [False, False, False]
    >>> lower_is_better_by_name("error_rate_free_tier")  # "error rate" still an error
    True
    """
    import re

    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name)
    words = [w for w in re.split(r"[^A-Za-z]+", spaced.lower()) if w]
    for k, w in enumerate(words):
        if w not in LOWER_IS_BETTER_WORDS:
            continue
        before = words[k - 1] if k else ""
        after = words[k + 1] if k + 1 < len(words) else ""
        # "error_free_rate", "no_error", "loss_less": the absence of the thing
        if after in _ABSENCE_AFTER or before in _ABSENCE_BEFORE:
            continue
        return True
    return False


#: Words that turn a lower-is-better word into its absence: after it ("error free",
#: "loss less") or before it ("no error", "without loss").
_ABSENCE_AFTER = frozenset({"free", "less"})
_ABSENCE_BEFORE = frozenset({"no", "non", "without", "zero"})


def _check_declared_modality(
    metrics: Mapping[str, MetricInfo],
    modality: dict[tuple[str, str], Modality],
    groups: Mapping[tuple[str, str], _Group],
    df: pd.DataFrame,
) -> None:
    for dataset, metric in groups:
        info = metrics[metric]
        if info.modality_source != "config":
            continue
        if info.modality == "binary" and modality[(dataset, metric)] != "binary":
            bad = (
                (df["dataset"] == dataset)
                & (df["metric"] == metric)
                & ~df["score"].isin([0.0, 1.0])
            )
            first = bad.idxmax()
            raise InputError(
                f"metric {metric!r} is declared binary but dataset {dataset!r} has the "
                f"score {df.loc[first, 'score']:g}",
                location=_where(df, first, "score"),
                hint='binary scores must be 0 or 1; remove `modality = "binary"` from the '
                "config or fix the scores",
            )
        modality[(dataset, metric)] = info.modality


def _nested_as_json(df: pd.DataFrame) -> None:
    """Extra columns holding JSON objects or lists (e.g. a ``hyperparams`` dict of a JSON
    lines input) get them as canonical JSON text, so that they can be compared."""
    for column in df.columns:
        if column in KEY_COLUMNS or column == "score" or df[column].dtype != object:
            continue
        values = df[column]
        nested = values.map(lambda v: isinstance(v, (dict, list)))
        if nested.any():
            df[column] = values.where(
                ~nested, values[nested].map(lambda v: json.dumps(v, sort_keys=True, default=str))
            )


def _split_extras(
    df: pd.DataFrame, results: Sequence[AdapterResult], codes: Codes | None = None
) -> tuple[pd.DataFrame, pd.DataFrame, list[str]]:
    """Classify extra columns as item metadata, system attributes or row-level."""
    extras = [
        c
        for c in df.columns
        if c not in KEY_COLUMNS
        and c != "score"
        and c not in (SOURCE_FILE, SOURCE_LINE) + PREDICTION_COLUMNS
    ]
    item_cols: list[str] = []
    system_cols: list[str] = []
    row_cols: list[str] = [c for c in PREDICTION_COLUMNS if c in df.columns]
    if extras:
        # a column missing from some files (NaN there) is classified by its present values
        by_item = df.groupby(["dataset", "item"], sort=False)[extras].nunique()
        by_system = df.groupby("system", sort=False)[extras].nunique()
        overall = df[extras].nunique()
        for column in extras:
            if by_item[column].max() <= 1 and overall[column] > 1:
                item_cols.append(column)
            elif by_system[column].max() <= 1:
                system_cols.append(column)
            else:
                row_cols.append(column)
    if item_cols:
        item_meta = df.groupby(["dataset", "item"], sort=False)[item_cols].first()
    else:  # the (dataset, item) pairs in order of appearance, from factorized codes
        first = _first_rows(_pair_codes(df, "dataset", "item", codes))
        item_meta = pd.DataFrame(
            index=pd.MultiIndex.from_arrays(
                [df["dataset"].iloc[first].array, df["item"].iloc[first].array],
                names=["dataset", "item"],
            )
        )
    if system_cols:
        attrs = df.groupby("system", sort=False)[system_cols].first()
    else:
        attrs = pd.DataFrame(index=pd.Index(pd.unique(df["system"]), name="system"))
    declared: dict[str, dict[str, Any]] = {}
    for result in results:
        for name, values in result.system_attributes.items():
            declared.setdefault(name, {}).update(values)
    if declared:
        extra = pd.DataFrame.from_dict(declared, orient="index")
        extra = extra.reindex(attrs.index)
        for column in extra.columns:
            if column not in attrs:
                attrs[column] = extra[column]
    return item_meta, attrs, row_cols
