"""Item text: what an item asked, what each system answered, the reference and the
scorer's explanation, kept beside the scores and never used as one.

Adapters whose harness logs the text put it in the optional columns :data:`TEXT_ROLES`
of their frame (``input``, ``output``, ``target``, ``explanation``); a long table names
its own columns with ``--text-col NAME=ROLE`` (the four canonical names are read as
text without it). :func:`split_texts` takes those columns out of the rows before
validation, so no text ever becomes a score, item metadata or a system attribute, and
keeps them in an :class:`ItemTexts`:

* **once per item and system**: ``input``, ``output`` and ``target`` of a (dataset,
  item, system), whichever metric's row carried them; the ``explanation`` per metric
  as well (a scorer explains its own score). With repeated runs the first run's text
  is kept.
* **cut past a limit**: a text longer than ``limit`` characters (``--text-limit``,
  default :data:`DEFAULT_TEXT_LIMIT`) keeps its first ``limit`` characters and is
  marked as cut; the report says so where it shows it.
* **stored once**: equal texts (the same question asked of every system) are one
  string object.

Text is data, shown and never obeyed: nothing here escapes or interprets it; the
renderers do (``reportgen.plaintext.shown`` and the HTML escaping of the report). A
lone surrogate (JSON allows ``"\\ud800"``), which no UTF-8 file can hold, is written as
its visible escape so a report can always be written.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal, get_args

import numpy as np
import pandas as pd

from reportgen.errors import InputError, Location

__all__ = [
    "DEFAULT_TEXT_LIMIT",
    "TEXT_ROLES",
    "ItemText",
    "ItemTexts",
    "TextRole",
    "as_text",
    "content_text",
    "parse_text_columns",
    "split_texts",
]

TextRole = Literal["input", "output", "target", "explanation"]
#: The optional text columns of the data contract, in the order a report shows them.
TEXT_ROLES: tuple[TextRole, ...] = get_args(TextRole)
#: The roles kept once per (dataset, item, system); ``explanation`` is kept per metric.
_ITEM_ROLES: tuple[TextRole, ...] = ("input", "output", "target")
#: The default of ``--text-limit``: characters kept of one text.
DEFAULT_TEXT_LIMIT = 4000
_BIT = {role: 1 << k for k, role in enumerate(TEXT_ROLES)}


def as_text(value: Any) -> str | None:
    """A harness's value of a text field as one string (None when there is none).

    A string is kept as it is; a number or boolean is written as Python writes it; a
    list of chat messages (objects with ``role`` and ``content``, the content a string
    or a list of parts with ``text``) becomes one ``role: content`` paragraph per
    message; a list of strings (several acceptable answers) one line each; any other
    list or object is written as compact JSON.

    >>> as_text([{"role": "user", "content": "2 + 3?"}, {"role": "assistant",
    ...          "content": [{"type": "text", "text": "5"}]}])
    'user: 2 + 3?\\n\\nassistant: 5'
    >>> as_text({"a": 1}), as_text(None), as_text(float("nan")), as_text(7.0), as_text(0.5)
    ('{"a": 1}', None, None, '7', '0.5')
    """
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return str(int(value))  # a table's column of whole numbers read as floats
    if isinstance(value, (bool, int, float, np.number)):
        return str(value)
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return "\n".join(value)  # several acceptable answers, one a line
    if isinstance(value, list) and value and all(_is_message(m) for m in value):
        return "\n\n".join(f"{m['role']}: {content_text(m.get('content'))}" for m in value)
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):  # pragma: no cover - default=str writes anything
        return str(value)


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("role"), str) and "content" in value


def content_text(content: Any) -> str:
    """A chat message's content: a string, or the text of its parts (an image part is
    named, never embedded)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, dict) and isinstance(part.get("type"), str):
                parts.append(f"[{part['type']}]")
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return "" if content is None else as_text(content) or ""


@dataclass(frozen=True)
class ItemText:
    """The text of one item as one system saw and answered it.

    Attributes
    ----------
    input, output, target, explanation
        The texts (None where the log holds none).
    cut
        The roles whose text is longer in the log than the limit kept.
    """

    input: str | None = None
    output: str | None = None
    target: str | None = None
    explanation: str | None = None
    cut: frozenset[str] = frozenset()

    def get(self, role: str) -> str | None:
        """The text of ``role`` (one of :data:`TEXT_ROLES`)."""
        return getattr(self, role) if role in TEXT_ROLES else None

    @property
    def empty(self) -> bool:
        return all(getattr(self, role) is None for role in TEXT_ROLES)


_NO_TEXT = ItemText()


@dataclass(frozen=True, eq=False)
class ItemTexts:
    """The item text of a score table (module notes).

    Attributes
    ----------
    texts
        Indexed by (dataset, item, system): ``input``, ``output``, ``target`` (object
        columns, None where absent) and ``cut`` (bits of the roles cut).
    explanations
        Indexed by (dataset, metric, item, system): ``explanation`` and ``cut``.
    limit
        The most characters kept of one text.
    n_cut
        Texts cut at ``limit``.
    several_runs
        Whether some item and system had several runs, of which the first run's text
        is kept.
    """

    texts: pd.DataFrame = field(default_factory=lambda: _empty_frame(_ITEM_ROLES, 3))
    explanations: pd.DataFrame = field(default_factory=lambda: _empty_frame(("explanation",), 4))
    limit: int = DEFAULT_TEXT_LIMIT
    n_cut: int = 0
    several_runs: bool = False

    @classmethod
    def none(cls, limit: int = DEFAULT_TEXT_LIMIT) -> ItemTexts:
        """No text at all (inputs without any, or ``--no-text``)."""
        return cls(limit=limit)

    def __len__(self) -> int:
        return len(self.texts) + len(self.explanations)

    @property
    def roles(self) -> tuple[str, ...]:
        """The roles some item has a text for, in :data:`TEXT_ROLES` order."""
        present = {r for r in _ITEM_ROLES if self.texts[r].notna().any()}
        if len(self.explanations):
            present.add("explanation")
        return tuple(r for r in TEXT_ROLES if r in present)

    def of(self, dataset: str, item: str, system: str, metric: str | None = None) -> ItemText:
        """The text of ``item`` of ``dataset`` for ``system`` (with the explanation of
        ``metric``); an :class:`ItemText` with no text when there is none."""
        row = self._rows.get((dataset, item, system))
        why = None if metric is None else self._explained.get((dataset, metric, item, system))
        if row is None and why is None:
            return _NO_TEXT
        values: dict[str, Any] = {}
        bits = 0
        if row is not None:
            values.update(zip(_ITEM_ROLES, row[:3]))
            bits |= int(row[3])
        if why is not None:
            values["explanation"] = why[0]
            bits |= int(why[1])
        return ItemText(**values, cut=frozenset(r for r, b in _BIT.items() if bits & b))

    @cached_property
    def _rows(self) -> dict[Any, tuple[Any, ...]]:
        return _lookup(self.texts)

    @cached_property
    def _explained(self) -> dict[Any, tuple[Any, ...]]:
        return _lookup(self.explanations)

    def __getstate__(self) -> dict[str, Any]:
        # the lookups are made again where they are needed, not pickled with the table
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}


def _lookup(frame: pd.DataFrame) -> dict[Any, tuple[Any, ...]]:
    """``{index: row}`` of ``frame``: a dict lookup per item instead of a pandas one."""
    rows = zip(*(frame[c].tolist() for c in frame.columns), strict=True)
    return dict(zip(frame.index, rows, strict=True))


def _empty_frame(roles: Sequence[str], levels: int) -> pd.DataFrame:
    names = ["dataset", "item", "system"]
    if levels == 4:
        names.insert(1, "metric")
    index = pd.MultiIndex.from_arrays([[] for _ in names], names=names)
    frame = pd.DataFrame({r: pd.Series([], dtype=object) for r in roles}, index=index)
    frame["cut"] = np.zeros(0, dtype=np.int8)
    return frame


# ------------------------------------------------------------------------ columns


def parse_text_columns(specs: Sequence[str], *, where: str = "--text-col") -> dict[str, TextRole]:
    """``--text-col NAME=ROLE`` texts as ``{column: role}``.

    Raises
    ------
    InputError
        A text that is not ``NAME=ROLE`` with ROLE one of :data:`TEXT_ROLES`, or one
        role given to two columns.

    >>> parse_text_columns(["prompt=input", "completion=output"])
    {'prompt': 'input', 'completion': 'output'}
    """
    out: dict[str, TextRole] = {}
    for text in specs:
        name, sep, role = str(text).rpartition("=")
        name, role = name.strip(), role.strip().lower()
        if not sep or not name or role not in TEXT_ROLES:
            raise InputError(
                f"{text!r} is not NAME=ROLE with ROLE one of {', '.join(TEXT_ROLES)}",
                location=Location(where),
                hint="e.g. --text-col prompt=input --text-col completion=output",
            )
        taken = next((c for c, r in out.items() if r == role and c != name), None)
        if taken is not None:
            raise InputError(
                f"two columns for the role {role!r}: {taken!r} and {name!r}",
                location=Location(where),
                hint="give each role (input, output, target, explanation) one column",
            )
        out[name] = role  # type: ignore[assignment,unused-ignore]
    return out


# ------------------------------------------------------------------------ splitting


def split_texts(
    df: pd.DataFrame, *, limit: int = DEFAULT_TEXT_LIMIT, keep: bool = True
) -> tuple[pd.DataFrame, ItemTexts]:
    """Take the text columns (:data:`TEXT_ROLES`) out of the validated rows ``df``.

    Parameters
    ----------
    df
        Rows with clean labels (``system``, ``dataset``, ``metric``, ``item``, maybe
        ``run``) and any of the text columns.
    limit
        The most characters kept of one text.
    keep
        False (``--no-text``): the text columns are dropped, nothing is kept.

    Returns
    -------
    tuple
        ``df`` without the text columns, and the :class:`ItemTexts`.
    """
    roles = [r for r in TEXT_ROLES if r in df.columns]
    if not roles:
        return df, ItemTexts.none(limit)
    rest = df.drop(columns=roles)
    if not keep:
        return rest, ItemTexts.none(limit)
    canonical: dict[str, str] = {}
    n_cut = 0
    several = False
    item_roles = [r for r in _ITEM_ROLES if r in roles]
    texts = _empty_frame(_ITEM_ROLES, 3)
    if item_roles:
        part = df[["dataset", "item", "system", *item_roles]]
        present = part[item_roles].notna().any(axis=1).to_numpy()
        part = part[present]
        keys = ["dataset", "item", "system"]
        several = "run" in df.columns and bool(
            df.loc[present, ["dataset", "metric", "item", "system"]].duplicated().any()
        )
        # the first text of each (dataset, item, system), whichever metric or run had it
        first = part.groupby(keys, sort=False, observed=True)[item_roles].first()
        cut = np.zeros(len(first), dtype=np.int8)
        columns: dict[str, list[str | None]] = {}
        for role in _ITEM_ROLES:
            if role not in item_roles:
                columns[role] = [None] * len(first)
                continue
            values, cut_here = _clipped(first[role].tolist(), limit, canonical)
            columns[role] = values
            cut |= cut_here.astype(np.int8) * np.int8(_BIT[role])
            n_cut += int(cut_here.sum())
        texts = pd.DataFrame(
            {r: pd.Series(columns[r], dtype=object, index=first.index) for r in _ITEM_ROLES}
        )
        texts["cut"] = cut
    explanations = _empty_frame(("explanation",), 4)
    if "explanation" in roles:
        part = df[["dataset", "metric", "item", "system", "explanation"]]
        part = part[part["explanation"].notna().to_numpy()]
        keys = ["dataset", "metric", "item", "system"]
        first = part.groupby(keys, sort=False, observed=True)["explanation"].first()
        values, cut_here = _clipped(first.tolist(), limit, canonical)
        explanations = pd.DataFrame(
            {"explanation": pd.Series(values, dtype=object, index=first.index)}
        )
        explanations["cut"] = cut_here.astype(np.int8) * np.int8(_BIT["explanation"])
        n_cut += int(cut_here.sum())
    return rest, ItemTexts(texts, explanations, int(limit), n_cut, several)


def _clipped(
    values: list[Any], limit: int, canonical: dict[str, str]
) -> tuple[list[str | None], np.ndarray]:
    """The texts of ``values`` cut at ``limit`` characters, each equal text one object
    (``canonical``), and which were cut."""
    out: list[str | None] = []
    cut = np.zeros(len(values), dtype=bool)
    for k, value in enumerate(values):
        text = as_text(value)
        if text is None:
            out.append(None)
            continue
        if len(text) > limit:
            text = text[:limit]
            cut[k] = True
        text = _encodable(text)
        out.append(canonical.setdefault(text, text))
    return out, cut


def _encodable(text: str) -> str:
    """``text`` with any lone surrogate written as its escape (``\\ud800``)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text
