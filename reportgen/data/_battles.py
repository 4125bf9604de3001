"""Pairwise outcomes: the battles a judge decided between two systems.

A *battle* is one comparison of two systems on one prompt: Chatbot Arena's votes,
MT-bench's pairwise GPT-4 judgments, any arena-style table. It is a different kind of
evidence from a score: the two systems are judged against each other, not each on its
own, so battles are kept in their own typed table (:class:`BattleTable`) beside the
scores, and analysed by :mod:`reportgen.stats.battles`.

Adapters hand over battles as a frame (:attr:`AdapterResult.battles`) with the columns

=============== ==================================================================
column          meaning
=============== ==================================================================
``dataset``     the benchmark or arena the battle belongs to
``model_a``     the system shown as A
``model_b``     the system shown as B
``winner``      ``"model_a"``, ``"model_b"``, ``"tie"`` or ``"tie (bothbad)"``
``judge``       optional: who decided (a user id, ``gpt-4/pair-v2``, ...)
``question_id`` optional: the prompt
``turn``        optional: the turn of a multi-turn conversation
``_file``,      where the battle was read (file and 1-based line or record)
``_line``
=============== ==================================================================

:func:`build_battle_table` validates them once: missing columns, empty names and
unknown outcomes are errors with the file and line; a battle of a system with itself
is left out and counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from reportgen.data.adapters._base import SOURCE_FILE, SOURCE_LINE, Exclusion, Problem
from reportgen.errors import InputError, Location
from reportgen.plaintext import count

__all__ = ["BATTLE_COLUMNS", "OUTCOMES", "Battles", "BattleTable", "build_battle_table"]

#: The columns every battle has.
BATTLE_COLUMNS = ("dataset", "model_a", "model_b", "winner")
#: The outcome of each ``winner`` value: A's share of the win.
OUTCOMES: Mapping[str, float] = {
    "model_a": 1.0,
    "model_b": 0.0,
    "tie": 0.5,
    "tie (bothbad)": 0.5,
}
_SELF_REASON = "a battle of a system with itself"


@dataclass(frozen=True)
class Battles:
    """The battles of one dataset as arrays.

    Attributes
    ----------
    dataset
        The dataset.
    systems
        The systems that battled, in order of first appearance.
    index_a, index_b
        Per battle, the two systems (indices into ``systems``).
    outcome
        Per battle: 1 (A won), 0 (B won) or 0.5 (a tie).
    both_bad
        Per battle, whether it was a tie judged "both bad".
    judges
        The distinct judges (empty when the input names none).
    """

    dataset: str
    systems: tuple[str, ...]
    index_a: np.ndarray
    index_b: np.ndarray
    outcome: np.ndarray
    both_bad: np.ndarray
    judges: tuple[str, ...] = ()

    @property
    def n_battles(self) -> int:
        return int(self.outcome.size)


@dataclass(frozen=True)
class BattleTable:
    """Every battle read, validated (build it with :func:`build_battle_table`).

    Attributes
    ----------
    frame
        One row per battle: :data:`BATTLE_COLUMNS`, the optional ``judge``,
        ``question_id`` and ``turn``, and ``_file``/``_line``.
    datasets
        Dataset names, in order of first appearance.
    systems
        Every system that battled, in order of first appearance.
    exclusions
        Battles left out, with the reason.
    """

    frame: pd.DataFrame
    datasets: tuple[str, ...]
    systems: tuple[str, ...]
    exclusions: tuple[Exclusion, ...] = ()

    def of(self, dataset: str) -> Battles:
        """The battles of ``dataset``.

        Raises
        ------
        InputError
            An unknown dataset.
        """
        if dataset not in self.datasets:
            raise InputError(
                f"no battles of dataset {dataset!r}", hint=f"datasets: {', '.join(self.datasets)}"
            )
        part = self.frame[self.frame["dataset"] == dataset]
        names = pd.unique(pd.concat([part["model_a"], part["model_b"]], ignore_index=True))
        systems = tuple(str(n) for n in names)
        code = {name: k for k, name in enumerate(systems)}
        judges = tuple(str(j) for j in pd.unique(part["judge"].dropna())) if "judge" in part else ()
        winner = part["winner"]
        return Battles(
            dataset,
            systems,
            part["model_a"].map(code).to_numpy(dtype=np.intp),
            part["model_b"].map(code).to_numpy(dtype=np.intp),
            winner.map(OUTCOMES).to_numpy(dtype=np.float64),
            (winner == "tie (bothbad)").to_numpy(),
            judges,
        )

    def summary(self) -> list[dict[str, Any]]:
        """Per dataset: battles, systems, outcomes and judges (``reportgen inspect``)."""
        out = []
        for dataset in self.datasets:
            part = self.frame[self.frame["dataset"] == dataset]
            outcomes = part["winner"].value_counts()
            out.append(
                {
                    "dataset": dataset,
                    "n_battles": len(part),
                    "n_systems": len(
                        pd.unique(pd.concat([part["model_a"], part["model_b"]], ignore_index=True))
                    ),
                    "outcomes": {k: int(outcomes.get(k, 0)) for k in OUTCOMES},
                    "judges": int(part["judge"].nunique()) if "judge" in part else 0,
                }
            )
        return out


def build_battle_table(
    frames: Sequence[pd.DataFrame], problems: list[Problem]
) -> BattleTable | None:
    """Validate the battles adapters read (None when there are none).

    Raises
    ------
    InputError
        A required column missing, an empty system or dataset name, or a ``winner``
        that is not one of :data:`OUTCOMES`, with the file and line.
    """
    frames = [f for f in frames if f is not None and len(f)]
    if not frames:
        return None
    df = pd.concat(frames, ignore_index=True, sort=False)
    for column in BATTLE_COLUMNS:
        if column not in df:
            raise InputError(
                f"the battles have no {column!r} column",
                location=_where(df, 0),
                hint="battles need dataset, model_a, model_b and winner",
            )
    if SOURCE_FILE not in df:
        df[SOURCE_FILE] = "<input>"
    if SOURCE_LINE not in df:
        df[SOURCE_LINE] = -1
    for column in ("dataset", "model_a", "model_b"):
        text = df[column].astype("string").str.strip()
        empty = text.isna() | (text == "")
        if empty.any():
            raise InputError(
                f"a battle has no {column}",
                location=_where(df, int(np.argmax(empty.to_numpy())), column),
                hint=f"give every battle its {column}",
            )
        df[column] = text.astype(str)
    winner = df["winner"].astype("string").str.strip()
    bad = ~winner.isin(list(OUTCOMES)).fillna(False).to_numpy(dtype=bool)
    if bad.any():
        first = int(np.argmax(bad))
        raise InputError(
            f"winner = {df['winner'].iloc[first]!r} is not one of "
            f"{', '.join(repr(k) for k in OUTCOMES)}",
            location=_where(df, first, "winner"),
            hint="a battle's winner is model_a, model_b, tie or 'tie (bothbad)'",
        )
    df["winner"] = winner.astype(str)
    exclusions = []
    same = (df["model_a"] == df["model_b"]).to_numpy()
    if same.any():
        for (dataset, path), n in (
            df[same].groupby(["dataset", SOURCE_FILE], sort=False).size().items()
        ):
            exclusions.append(Exclusion(_SELF_REASON, int(n), dataset=str(dataset), source=path))
        problems.append(
            Problem(
                "warning",
                f"{count(int(same.sum()), 'battle')} of a system with itself left out",
                _where(df, int(np.argmax(same))),
            )
        )
        df = df[~same].reset_index(drop=True)
    datasets = tuple(str(d) for d in pd.unique(df["dataset"]))
    systems = tuple(
        str(s) for s in pd.unique(pd.concat([df["model_a"], df["model_b"]], ignore_index=True))
    )
    return BattleTable(df, datasets, systems, tuple(exclusions))


def _where(df: pd.DataFrame, row: int, column: str | None = None) -> Location:
    path = str(df[SOURCE_FILE].iloc[row]) if SOURCE_FILE in df else None
    line = int(df[SOURCE_LINE].iloc[row]) if SOURCE_LINE in df else -1
    return Location(path, line if line > 0 else None, column)
