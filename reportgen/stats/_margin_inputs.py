"""The vocabularies of the margin tests (directions, methods, designs, verdicts) and the
validation of their inputs.

Private to :mod:`reportgen.stats.margins`, which re-exports the public names.

Examples
--------
The baseline is the first system unless named; the candidates are the others:

>>> b, cand = _roles_iv(("a", "b", "c"), "b", None)
>>> b, cand.tolist()
(1, [0, 2])
>>> _margin_iv(0.01, True)
0.01
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast, get_args

import numpy as np

from reportgen.errors import InputError
from reportgen.stats._common import (
    ResamplingOptions,
    choices_iv,
    resampling_fields,
    resampling_iv,
    system_index,
)

Direction = Literal["higher", "lower"]
MarginMethod = Literal["auto", "permutation", "bootstrap"]
MarginDesign = Literal[
    "paired-binary", "unpaired-binary", "paired-continuous", "unpaired-continuous"
]


DIRECTIONS: tuple[str, ...] = get_args(Direction)


MARGIN_METHODS: tuple[str, ...] = get_args(MarginMethod)


MARGIN_DESIGNS: tuple[str, ...] = get_args(MarginDesign)


#: Verdicts of a comparison without a margin, and with one (in precedence order).
VERDICTS: tuple[str, ...] = ("improved", "regressed", "no detectable difference")
VERDICTS_WITH_MARGIN: tuple[str, ...] = ("improved", "regressed", "non-inferior", "inconclusive")


@dataclass(frozen=True)
class _Options(ResamplingOptions):
    method: MarginMethod
    margin: float | None
    direction: Direction


def _margin_iv(margin: Any, binary: bool) -> float | None:
    if margin is None:
        return None
    if isinstance(margin, bool) or not isinstance(margin, (int, float, np.floating, np.integer)):
        raise InputError(
            f"margin={margin!r} must be a number",
            hint="give the margin in the metric's units, e.g. 0.01 for one point of accuracy",
        )
    value = float(margin)
    if not (math.isfinite(value) and value > 0):
        raise InputError(
            f"margin={margin!r} must be a positive finite number",
            hint="the margin is the loss you accept, in the metric's units "
            "(e.g. 0.01 for one point of accuracy); a superiority test "
            "needs no margin",
        )
    if binary and value >= 1:
        raise InputError(
            f"margin={margin!r} is not below 1 for 0/1 scores",
            hint="differences of proportions lie in (−1, 1); give the margin "
            "as a proportion, e.g. 0.01 for one point",
        )
    return value


def _options_iv(
    *,
    margin: float | None,
    direction: str,
    method: str,
    confidence: float,
    n_resamples: int,
    rng: Any,
    max_memory: int,
) -> _Options:
    choices_iv({"direction": (direction, DIRECTIONS), "method": (method, MARGIN_METHODS)})
    resampling_iv(confidence=confidence, n_resamples=n_resamples, max_memory=max_memory)
    return _Options(
        method=cast(MarginMethod, method),
        margin=margin,
        direction=cast(Direction, direction),
        **resampling_fields(
            confidence=confidence, n_resamples=n_resamples, rng=rng, max_memory=max_memory
        ),
    )


def _roles_iv(
    names: tuple[str, ...], baseline: int | str | None, candidates: Sequence[int | str] | None
) -> tuple[int, np.ndarray]:
    b = 0 if baseline is None else system_index(baseline, names, "baseline")
    if candidates is None:
        cand = [j for j in range(len(names)) if j != b]
    else:
        if isinstance(candidates, (str, int, np.integer)):
            candidates = [candidates]
        cand = [system_index(c, names, "candidate") for c in candidates]
    if not cand:
        raise InputError(
            "no candidate to compare with the baseline",
            hint="give at least 2 systems, or name the candidates",
        )
    if b in cand:
        raise InputError(
            f"the baseline {names[b]!r} is also a candidate",
            hint="compare the candidates with a different baseline",
        )
    if len(set(cand)) != len(cand):
        raise InputError("a candidate is named twice")
    return b, np.asarray(cand, dtype=np.intp)
