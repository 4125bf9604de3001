"""The canonical score table, its validation, and the input adapters.

>>> from reportgen.data import load
>>> table = load("../shared/data/ibm-rag")                     # doctest: +SKIP
>>> table.systems, table.datasets, list(table.metrics)          # doctest: +SKIP
(('bm25_llama13b', ...), ('ibm-rag',), ['precision', 'recall', 'sbert'])
>>> table.paired("ibm-rag", "recall").scores.shape              # doctest: +SKIP
(140, 6)
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from pathlib import Path

from reportgen.data._battles import BATTLE_COLUMNS, OUTCOMES, Battles, BattleTable
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
from reportgen.data._texts import TEXT_ROLES, ItemText, ItemTexts
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
    "BATTLE_COLUMNS",
    "KEY_COLUMNS",
    "OUTCOMES",
    "REQUIRED_COLUMNS",
    "Adapter",
    "AdapterResult",
    "BattleTable",
    "Battles",
    "DatasetSpec",
    "Exclusion",
    "FileDigest",
    "ItemText",
    "ItemTexts",
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
    "TEXT_ROLES",
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
    if options.direction:  # --direction wins over the config
        given = {
            name: MetricSpec(direction=way, direction_by="flag")
            for name, way in options.directions.items()
        }
        config = (config or TableConfig()).merged(TableConfig(metrics=given))
    with _arrow_system_memory():
        return build_score_table(
            read_inputs(paths, options),
            config,
            nan_policy=options.nan_policy,
            min_systems=min_systems,
            text_limit=options.text_limit,
            keep_text=not options.no_text,
        )


@contextlib.contextmanager
def _arrow_system_memory() -> Iterator[None]:
    """Arrow buffers made while loading (pyarrow's CSV reader, the text columns it
    returns, the checks on them) come from the system allocator, which gives freed
    memory back; pyarrow's default, mimalloc, keeps it for reuse. Loading two million
    CSV rows peaked 360 MB above the process (3.3x the 108 MB table pandas reads)
    with mimalloc, 314 MB (2.9x) so (``benchmarks/``: ``rows2m``). The buffers keep the
    pool they came from, so the default is put back afterwards; another thread making
    Arrow buffers meanwhile would use the system allocator too."""
    try:
        import pyarrow as pa
    except ImportError:  # pandas without pyarrow: nothing to choose
        yield
        return
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(previous)
