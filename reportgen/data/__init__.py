"""The canonical score table, its validation, and the input adapters.

>>> from reportgen.data import load
>>> table = load("../shared/data/ibm-rag")                     # doctest: +SKIP
>>> table.systems, table.datasets, list(table.metrics)          # doctest: +SKIP
(('bm25_llama13b', ...), ('ibm-rag',), ['precision', 'recall', 'sbert'])
>>> table.paired("ibm-rag", "recall").scores.shape              # doctest: +SKIP
(140, 6)
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from reportgen.data._config import (
    DatasetSpec,
    MetricSpec,
    SystemSpec,
    TableConfig,
    load_config,
    parse_config,
    parse_input_size,
)
from reportgen.data._table import (
    KEY_COLUMNS,
    REQUIRED_COLUMNS,
    MetricInfo,
    PairedSamples,
    PairingInfo,
    PredictionSamples,
    ScoreTable,
    UnpairedSamples,
    build_score_table,
)
from reportgen.data.adapters import (
    Adapter,
    AdapterResult,
    Exclusion,
    FileDigest,
    LoadOptions,
    Problem,
    SkippedInput,
    adapter_names,
    detect_format,
    get_adapter,
    read_inputs,
    register_adapter,
)

__all__ = [
    "KEY_COLUMNS",
    "REQUIRED_COLUMNS",
    "Adapter",
    "AdapterResult",
    "DatasetSpec",
    "Exclusion",
    "FileDigest",
    "LoadOptions",
    "MetricInfo",
    "MetricSpec",
    "PairedSamples",
    "PairingInfo",
    "PredictionSamples",
    "Problem",
    "ScoreTable",
    "SkippedInput",
    "SystemSpec",
    "TableConfig",
    "UnpairedSamples",
    "adapter_names",
    "build_score_table",
    "detect_format",
    "get_adapter",
    "load",
    "load_config",
    "parse_config",
    "parse_input_size",
    "read_inputs",
    "register_adapter",
]


def load(
    paths: Iterable[str | Path] | str | Path,
    *,
    options: LoadOptions | None = None,
    config: TableConfig | str | Path | None = None,
    min_systems: int = 2,
) -> ScoreTable:
    """Read evaluation results and return the validated :class:`ScoreTable`.

    Parameters
    ----------
    paths
        Files or folders, in any supported format (:func:`adapter_names`); several are
        combined into one table.
    options
        How to read them (format, column names, ...); see :class:`LoadOptions`.
    config
        Metric and dataset properties: a :class:`TableConfig` or the path of a TOML file.
    min_systems
        Fewer systems is an error (2 to compare; 1 to look at the data of one system).

    Raises
    ------
    reportgen.errors.InputError
        Anything wrong with the inputs, with the file and line where it is.
    """
    options = options or LoadOptions()
    if config is not None and not isinstance(config, TableConfig):
        config = load_config(config)
    return build_score_table(
        read_inputs(paths, options), config, nan_policy=options.nan_policy, min_systems=min_systems
    )
