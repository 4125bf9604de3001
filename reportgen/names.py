"""Names the command line offers as choices, declared where importing them costs nothing
(no numpy, pandas or scipy): ``reportgen --help`` builds its parser from these.

:data:`CORRECTIONS` is the one declaration of the multiple-comparison corrections
(:mod:`reportgen.stats.multiplicity` takes its ``Correction`` type from here);
:data:`INPUT_FORMATS` names the built-in input adapters, which
``tests/test_cli.py`` checks against the registry.
"""

from __future__ import annotations

from typing import Literal, get_args

__all__ = ["CORRECTIONS", "INPUT_FORMATS", "Correction"]

#: Multiple-comparison corrections (statsmodels' ``multipletests`` names).
Correction = Literal["holm-sidak", "holm", "bonferroni", "sidak", "fdr_bh", "fdr_by", "none"]
CORRECTIONS: tuple[str, ...] = get_args(Correction)

#: The built-in input formats (``--format``), in about the order detection tries them.
INPUT_FORMATS: tuple[str, ...] = (
    "eval-arena",
    "lm-eval",
    "inspect",
    "helm",
    "every-eval-ever",
    "long",
    "wide",
)
