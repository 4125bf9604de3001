"""System names from folders when file names clash.

Formats that record no system (an EvalPlus results file, a Ragas table, a DeepEval run
without ``hyperparameters.model``) name it after the input: its file name, or the folder
of the run. Harnesses write fixed file names (``evalplus.evaluate --samples
samples.jsonl`` writes ``samples_eval_results.json`` for every model), so users keep one
folder per system: ``sys-a/samples_eval_results.json``, ``sys-b/samples_eval_results.json``.

The rule (:func:`name_clashing_systems`): when inputs named after their path get the
same system name, each is named after its folders instead, the fewest trailing folder
names that tell them apart (``sys-a``, ``sys-b``; ``a/run``, ``b/run`` when the last
folders are alike too). A name given with ``--system`` is never changed. An ``info``
problem states the rule and each new name, so ``reportgen inspect`` shows it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from reportgen.data.adapters._base import AdapterResult, Problem
from reportgen.errors import Location

__all__ = ["folder_names", "name_clashing_systems"]


def folder_names(paths: Sequence[Path]) -> list[str] | None:
    """The fewest trailing folder names that tell ``paths`` apart (the folder of a
    file; a DeepEval ``.deepeval`` folder counts as the folder holding it), joined with
    ``/``; None when even their whole folder paths are alike.

    >>> folder_names([Path("/r/sys-a/x.json"), Path("/r/sys-b/x.json")])
    ['sys-a', 'sys-b']
    >>> folder_names([Path("/r/a/run/x.json"), Path("/r/b/run/x.json")])
    ['a/run', 'b/run']
    """
    folders = []
    for path in paths:
        resolved = Path(os.path.abspath(path))
        folder = resolved.parent if resolved.suffix or not resolved.is_dir() else resolved
        while folder.name in (".deepeval",) and folder.parent != folder:
            folder = folder.parent
        folders.append(folder.parts)
    longest = max(len(f) for f in folders)
    for k in range(1, longest + 1):
        tails = [f[-k:] for f in folders]
        if len(set(tails)) == len(tails):
            return ["/".join(t) for t in tails]
    return None


def name_clashing_systems(results: list[AdapterResult]) -> None:
    """Rename, in place, the systems named after their input's path whose names clash
    (module notes): in each result's frame, attributes, exclusions and problems."""
    by_name: dict[str, list[tuple[int, Path]]] = {}
    for index, result in enumerate(results):
        for system, path in result.named_by_path.items():
            by_name.setdefault(system, []).append((index, Path(path)))
    for system, owners in by_name.items():
        if len({os.path.abspath(p) for _, p in owners}) < 2:
            continue
        names = folder_names([p for _, p in owners])
        if names is None:
            continue
        for (index, _path), name in zip(owners, names, strict=True):
            _rename(results[index], system, name)
        shown = ", ".join(
            f"{_shown_path(p)} → {n!r}" for (_, p), n in zip(owners[:4], names, strict=False)
        )
        more = f" and {len(owners) - 4} more" if len(owners) > 4 else ""
        first = results[owners[0][0]]
        first.problems.append(
            Problem(
                "info",
                f"{len(owners)} inputs would all be named {system!r} after their file "
                "name (the format records no system): each is named after the folders "
                f"that tell them apart instead: {shown}{more}; name them yourself with "
                "--system FILE=NAME,...",
                Location(str(owners[0][1])),
            )
        )


def _shown_path(path: Path) -> str:
    parts = Path(path).parts
    return "/".join(parts[-3:]) if len(parts) > 3 else str(path)


def _rename(result: AdapterResult, old: str, new: str) -> None:
    frame = result.frame
    if "system" in frame:
        column = frame["system"]
        if hasattr(column, "cat"):
            frame["system"] = column.cat.rename_categories(
                {old: new} if old in column.cat.categories else {}
            )
        else:
            frame["system"] = column.where(column != old, new)
    if old in result.system_attributes:
        result.system_attributes[new] = result.system_attributes.pop(old)
    result.exclusions = [
        replace(e, system=new) if e.system == old else e for e in result.exclusions
    ]
    result.problems = [
        replace(p, message=p.message.replace(repr(old), repr(new))) for p in result.problems
    ]
    result.descriptive = [
        {**row, "system": new} if row.get("system") == old else row for row in result.descriptive
    ]
    result.named_by_path = {(new if s == old else s): p for s, p in result.named_by_path.items()}
