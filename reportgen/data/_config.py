"""Metric and dataset properties given by the user (a TOML file or Python objects).

The file format (``--config FILE``)::

    [metrics.edit_distance]
    direction = "lower"        # "higher" (default) or "lower" is better
    modality = "continuous"    # "binary" or "continuous"; default: inferred from the values
    weight = 1.0               # > 0, used when metrics are aggregated

    [datasets.python]
    weight = 2.0               # > 0, used when datasets are aggregated

    [systems."codellama-13b"]
    family = "codellama"       # model family, for the signal-to-noise of seed 002
    size = 13                  # parameters in billions (> 0)

    [analysis]
    group_by = ["difficulty"]      # item-metadata columns: compare within each level
    compare_by = ["prompt_format"] # hyperparameters (system attributes) to compare ...
    condition_on = ["model"]       # ... within each combination of these

Unknown sections or keys and wrong types are errors that name the key and the file.
System entries become system attributes (``family``, ``size``); the ``analysis`` lists
are defaults of the same-named command-line options.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from reportgen.errors import ConfigError, Location

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

__all__ = ["DatasetSpec", "Direction", "MetricSpec", "Modality", "SystemSpec", "TableConfig",
           "load_config"]

Direction = Literal["higher", "lower"]
Modality = Literal["binary", "continuous"]


@dataclass(frozen=True)
class MetricSpec:
    """What the user says about one metric; ``None`` means "infer" (or the default)."""

    direction: Direction | None = None
    modality: Modality | None = None
    weight: float | None = None


@dataclass(frozen=True)
class DatasetSpec:
    """What the user says about one dataset."""

    weight: float | None = None


@dataclass(frozen=True)
class SystemSpec:
    """What the user says about one system: its model family and size (billions)."""

    family: str | None = None
    size: float | None = None


@dataclass(frozen=True)
class TableConfig:
    """Metric, dataset and system properties, keyed by name."""

    metrics: Mapping[str, MetricSpec] = field(default_factory=dict)
    datasets: Mapping[str, DatasetSpec] = field(default_factory=dict)
    source: str | None = None
    systems: Mapping[str, SystemSpec] = field(default_factory=dict)
    analysis: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def merged(self, other: TableConfig) -> TableConfig:
        """A config where ``other``'s non-None values override this one's."""
        metrics = dict(self.metrics)
        for name, spec in other.metrics.items():
            old = metrics.get(name, MetricSpec())
            metrics[name] = MetricSpec(
                direction=spec.direction or old.direction,
                modality=spec.modality or old.modality,
                weight=spec.weight if spec.weight is not None else old.weight)
        datasets = dict(self.datasets)
        for name, dspec in other.datasets.items():
            old_d = datasets.get(name, DatasetSpec())
            datasets[name] = DatasetSpec(
                weight=dspec.weight if dspec.weight is not None else old_d.weight)
        systems = dict(self.systems)
        for name, sspec in other.systems.items():
            old_s = systems.get(name, SystemSpec())
            systems[name] = SystemSpec(family=sspec.family or old_s.family,
                                       size=sspec.size if sspec.size is not None
                                       else old_s.size)
        return TableConfig(metrics, datasets, other.source or self.source, systems,
                           {**self.analysis, **other.analysis})


_METRIC_KEYS = {"direction", "modality", "weight"}
_DATASET_KEYS = {"weight"}
_SYSTEM_KEYS = {"family", "size"}
_ANALYSIS_KEYS = {"group_by", "compare_by", "condition_on"}


def load_config(path: str | Path) -> TableConfig:
    """Read a TOML config file of metric and dataset properties.

    Raises
    ------
    ConfigError
        The file is missing, not TOML, or has an unknown key or a bad value; the
        message names the key (e.g. ``metrics.bleu.direction``).
    """
    path = Path(path)
    if not path.is_file():
        raise ConfigError("config file not found", location=Location(str(path)),
                          hint="check the path given to --config")
    try:
        raw = tomllib.loads(path.read_bytes().decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise ConfigError("the config file is not valid UTF-8", location=Location(str(path)),
                          hint="save it as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"invalid TOML: {exc}", location=Location(str(path)),
                          hint="see the config format in the README") from None
    return parse_config(raw, source=str(path))


def parse_config(raw: Mapping[str, Any], *, source: str | None = None) -> TableConfig:
    """Validate a config mapping (as read from TOML) into a :class:`TableConfig`."""
    loc = Location(source)
    unknown = set(raw) - {"metrics", "datasets", "systems", "analysis"}
    if unknown:
        raise ConfigError(f"unknown config section(s): {', '.join(sorted(unknown))}",
                          location=loc, hint="allowed sections: [metrics.NAME], "
                                             "[datasets.NAME], [systems.NAME], [analysis]")
    metrics = {name: _metric_spec(name, body, loc)
               for name, body in _section(raw, "metrics", loc).items()}
    datasets = {name: _dataset_spec(name, body, loc)
                for name, body in _section(raw, "datasets", loc).items()}
    systems = {name: _system_spec(name, body, loc)
               for name, body in _section(raw, "systems", loc).items()}
    return TableConfig(metrics, datasets, source, systems,
                       _analysis_section(raw.get("analysis", {}), loc))


def _section(raw: Mapping[str, Any], key: str, loc: Location) -> Mapping[str, Any]:
    section = raw.get(key, {})
    if not isinstance(section, Mapping):
        raise ConfigError(f"'{key}' must be a table of [{key}.NAME] sections, "
                          f"got {type(section).__name__}", location=loc)
    for name, body in section.items():
        if not isinstance(body, Mapping):
            raise ConfigError(f"'{key}.{name}' must be a table, got {body!r}", location=loc,
                              hint=f"write it as [{key}.{name}] followed by key = value lines")
    return section


def _metric_spec(name: str, body: Mapping[str, Any], loc: Location) -> MetricSpec:
    _check_keys(f"metrics.{name}", body, _METRIC_KEYS, loc)
    return MetricSpec(
        direction=_choice(f"metrics.{name}.direction", body.get("direction"), Direction, loc),
        modality=_choice(f"metrics.{name}.modality", body.get("modality"), Modality, loc),
        weight=_weight(f"metrics.{name}.weight", body.get("weight"), loc))


def _dataset_spec(name: str, body: Mapping[str, Any], loc: Location) -> DatasetSpec:
    _check_keys(f"datasets.{name}", body, _DATASET_KEYS, loc)
    return DatasetSpec(weight=_weight(f"datasets.{name}.weight", body.get("weight"), loc))


def _system_spec(name: str, body: Mapping[str, Any], loc: Location) -> SystemSpec:
    _check_keys(f"systems.{name}", body, _SYSTEM_KEYS, loc)
    family = body.get("family")
    if family is not None and (not isinstance(family, str) or not family.strip()):
        raise ConfigError(f"systems.{name}.family = {family!r} is not valid", location=loc,
                          hint="a family is a non-empty name, e.g. \"llama\"")
    return SystemSpec(family=family,
                      size=_weight(f"systems.{name}.size", body.get("size"), loc))


def _analysis_section(body: Any, loc: Location) -> dict[str, tuple[str, ...]]:
    if not isinstance(body, Mapping):
        raise ConfigError(f"'analysis' must be a table, got {body!r}", location=loc,
                          hint="write it as [analysis] followed by key = [...] lines")
    _check_keys("analysis", body, _ANALYSIS_KEYS, loc)
    out = {}
    for key, value in body.items():
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
            raise ConfigError(f"analysis.{key} = {value!r} is not valid", location=loc,
                              hint="a list of column names, e.g. [\"difficulty\"]")
        out[key] = tuple(value)
    return out


def _check_keys(where: str, body: Mapping[str, Any], allowed: set[str], loc: Location) -> None:
    unknown = set(body) - allowed
    if unknown:
        raise ConfigError(f"unknown key(s) in [{where}]: {', '.join(sorted(unknown))}",
                          location=loc, hint=f"allowed keys: {', '.join(sorted(allowed))}")


def _choice(key: str, value: Any, kind: Any, loc: Location) -> Any:
    if value is None:
        return None
    choices = get_args(kind)
    if value not in choices:
        raise ConfigError(f"{key} = {value!r} is not valid", location=loc,
                          hint=f"use one of: {', '.join(repr(c) for c in choices)}")
    return value


def _weight(key: str, value: Any, loc: Location) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value <= 0:
        raise ConfigError(f"{key} = {value!r} is not valid", location=loc,
                          hint="a weight is a finite number > 0")
    return float(value)
