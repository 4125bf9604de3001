"""``--system``: the names of systems that an input does not record.

DeepEval runs, Ragas tables and EvalPlus files name no model. ``--system NAME`` names
every such input; ``--system FILE=NAME,FILE2=NAME2`` names each input its ``FILE``
matches. ``FILE`` is the input as the user typed it or would type it: its path
relative to the working folder or absolute, its trailing folders and name
(``greedy/toy_eval_results.json``), or its bare name, with or without the suffix; a
DeepEval run is also matched by the folder holding its ``.deepeval``.

A text is a mapping only when its left sides name inputs: each ``FILE=NAME`` part is
split at the last ``=`` whose left side names an input (so ``FILE`` may hold ``=``, as
HELM-style names do, and ``NAME`` too once ``FILE`` is matched). A text none of whose
left sides names an input is one ``NAME`` (``gpt=4``), unless a left side looks like
a file (a path, a file suffix, a name close to an input's): then it is a mapping that
matches nothing, and an error naming the inputs it could have meant, never a system
silently named after its file. A part that names an input which records its own
system names is an error too (:meth:`SystemNames.check_used`).
"""

from __future__ import annotations

import contextlib
import contextvars
import difflib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reportgen.errors import InputError, Location, path_text

__all__ = ["SystemNames", "names_input", "system_names"]

#: Suffixes that make the left side of ``=`` look like a file, not part of a name.
_FILE_SUFFIXES = (
    ".csv",
    ".tsv",
    ".tab",
    ".parquet",
    ".pq",
    ".json",
    ".jsonl",
    ".ndjson",
    ".eval",
    ".gz",
    ".zst",
)


def _stem(name: str) -> str:
    """A file name without its suffixes (``bm25.csv.gz`` -> ``bm25``)."""
    base = name
    while True:
        stem, dot, suffix = base.rpartition(".")
        if not dot or not stem or f".{suffix.lower()}" not in _FILE_SUFFIXES:
            return base
        base = stem


def _candidates(path: Path) -> list[Path]:
    """The paths an input answers to: itself, and for a DeepEval run (its ``.deepeval``
    folder or a file in it) the folder holding its ``.deepeval``."""
    out = [path]
    if path.name == ".deepeval":
        out.append(path.parent)
    elif path.parent.name == ".deepeval":
        out.append(path.parent.parent)
    return out


def names_input(key: str, path: Path | str) -> bool:
    """Whether ``key`` (the left side of ``FILE=NAME``) names the input ``path``.

    >>> path = "runs/dense.jsonl"
    >>> [names_input(key, path) for key in ("dense", "runs/dense.jsonl", "runs/dense")]
    [True, True, True]
    >>> names_input("r2/dense", path), names_input("dense.csv", path)
    (False, False)
    """
    key = key.strip()
    if not key or "\x00" in key:
        return False
    typed = Path(key)
    for candidate in _candidates(Path(path)):
        if key in (candidate.name, candidate.stem, _stem(candidate.name)):
            return True
        if os.path.realpath(key) == os.path.realpath(candidate):
            return True
        parts = typed.parts
        if len(parts) > 1 and len(candidate.parts) >= len(parts):
            tail = candidate.parts[-len(parts) :]
            if tail[:-1] == parts[:-1] and parts[-1] in (
                tail[-1],
                Path(tail[-1]).stem,
                _stem(tail[-1]),
            ):
                return True
    return False


def _looks_like_a_file(key: str, inputs: Sequence[Path]) -> bool:
    key = key.strip()
    if "/" in key or os.sep in key or key.lower().endswith(_FILE_SUFFIXES):
        return True
    if key and os.path.lexists(key):
        return True
    names = {n for p in inputs for c in _candidates(p) for n in (c.name, _stem(c.name))}
    return bool(difflib.get_close_matches(key, names, n=1, cutoff=0.75))


@dataclass
class SystemNames:
    """What ``--system`` says, resolved against the inputs read.

    Attributes
    ----------
    text
        The option as given.
    name
        One name for every input that records none, or None for a mapping.
    mapping
        ``(FILE, NAME)`` per part of a mapping, ``FILE`` as typed.
    used
        The ``FILE`` keys an adapter took a name from (:meth:`for_path`).
    """

    text: str
    name: str | None = None
    mapping: tuple[tuple[str, str], ...] = ()
    used: set[str] = field(default_factory=set)

    @classmethod
    def parse(cls, text: str, inputs: Sequence[Path | str]) -> SystemNames:
        """Read ``--system`` against the ``inputs`` found (files and folders).

        Raises
        ------
        InputError
            A mapping part whose ``FILE`` names no input (with the inputs it could
            have meant), or an empty ``NAME``.
        """
        paths = [Path(p) for p in inputs]
        if "=" not in text:
            return cls(text, name=text.strip())
        parts = [p for p in text.split(",") if p.strip()]
        matched: list[tuple[str, str]] = []
        unmatched: list[tuple[str, str]] = []
        for part in parts:
            split = _split(part, paths)
            if split is not None:
                matched.append(split)
            else:
                key, _, name = part.rpartition("=")
                unmatched.append((key, name))
        if not matched and not any(_looks_like_a_file(k, paths) for k, _ in unmatched if k):
            return cls(text, name=text.strip())  # a name that holds '=' (gpt=4)
        if unmatched:
            key = next((k for k, _ in unmatched if k.strip()), unmatched[0][0])
            raise InputError(
                f"FILE {key.strip()!r} of {text!r} names none of the inputs",
                location=Location("--system"),
                hint=_could_have_meant(key, paths),
            )
        for key, name in matched:
            if not name.strip():
                raise InputError(
                    f"{text!r} gives no NAME for {key.strip()!r}",
                    location=Location("--system"),
                    hint="write FILE=NAME, e.g. --system bm25.csv=BM25",
                )
        return cls(text, mapping=tuple((k.strip(), n.strip()) for k, n in matched))

    def for_path(self, path: Path | str) -> str | None:
        """The name ``--system`` gives the input ``path``, or None."""
        if self.name is not None:
            return self.name or None
        for key, name in self.mapping:
            if names_input(key, path):
                self.used.add(key)
                return name
        return None

    def check_used(self, formats: dict[str, str]) -> None:
        """Refuse a mapping part no adapter took a name from: its input records its own
        system names (``formats``: input path -> the format it was read as).

        Raises
        ------
        InputError
            Naming the part, the input and its format.
        """
        for key, _name in self.mapping:
            if key in self.used:
                continue
            named = [(p, f) for p, f in formats.items() if names_input(key, p)]
            where = ", ".join(f"{path_text(p)} ({f})" for p, f in named[:3]) or "an input"
            raise InputError(
                f"FILE {key!r} of {self.text!r} names {where}, which records its own system names",
                location=Location("--system"),
                hint="--system names the inputs that record none (DeepEval runs, Ragas "
                "tables, EvalPlus files); leave this one out",
            )


def _split(part: str, inputs: Sequence[Path]) -> tuple[str, str] | None:
    """``FILE=NAME`` split at the last ``=`` whose left side names an input, or None."""
    at = len(part)
    while True:
        at = part.rfind("=", 0, at)
        if at <= 0:
            return None
        key = part[:at]
        if any(names_input(key, p) for p in inputs):
            return key, part[at + 1 :]


def _could_have_meant(key: str, inputs: Sequence[Path]) -> str:
    if not inputs:
        return "no input was found to name"
    shown = [path_text(p) for p in inputs]
    ranked = sorted(
        shown,
        key=lambda p: -difflib.SequenceMatcher(None, key.strip(), Path(p).name).ratio(),
    )
    listed = ", ".join(ranked[:6]) + (f" and {len(ranked) - 6} more" if len(ranked) > 6 else "")
    return (
        f"the inputs: {listed}; write FILE=NAME with FILE as you typed it (a path, or "
        "the file's name with or without its suffix), or a NAME with '=' on its own"
    )


_CURRENT: contextvars.ContextVar[SystemNames | None] = contextvars.ContextVar(
    "reportgen_system_names", default=None
)


@contextlib.contextmanager
def system_names(names: SystemNames | None) -> Iterator[None]:
    """Let :func:`~reportgen.data.adapters._base.given_system` answer from ``names``
    (resolved against every input) while the inputs are read."""
    token = _CURRENT.set(names)
    try:
        yield
    finally:
        _CURRENT.reset(token)


def current() -> SystemNames | None:
    """The names resolved for the read in progress, or None."""
    return _CURRENT.get()
