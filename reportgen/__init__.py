"""reportgen: statistically rigorous reports from per-item evaluation results.

The layers (imports point downwards): ``cli`` → ``report`` → ``charts`` → ``analysis`` →
``stats`` → ``data``. Start with :func:`reportgen.data.load`.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

from reportgen.errors import (
    ConfigError,
    DataWarning,
    DegenerateDataWarning,
    InputError,
    OneSidedWarning,
    ReportgenError,
    ReportgenWarning,
)

try:
    __version__ = version("reportgen")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"

__all__ = [
    "ConfigError",
    "DataWarning",
    "DegenerateDataWarning",
    "InputError",
    "OneSidedWarning",
    "ReportgenError",
    "ReportgenWarning",
    "__version__",
    "load",
]


def __getattr__(name: str):  # lazy: `import reportgen` stays cheap for the CLI
    if name == "load":
        from reportgen.data import load

        return load
    raise AttributeError(f"module 'reportgen' has no attribute {name!r}")
