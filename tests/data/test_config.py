"""The TOML config of metric and dataset properties."""

from __future__ import annotations

import pytest

from reportgen.data import MetricSpec, TableConfig, load_config, parse_config
from reportgen.errors import ConfigError, InputError


def test_config_parsed(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[metrics.bleu]\ndirection = "higher"\nweight = 2\n'
                    '[metrics.ter]\ndirection = "lower"\nmodality = "continuous"\n'
                    '[datasets.wmt]\nweight = 0.5\n')
    config = load_config(path)
    assert config.metrics["bleu"] == MetricSpec("higher", None, 2.0)
    assert config.metrics["ter"] == MetricSpec("lower", "continuous", None)
    assert config.datasets["wmt"].weight == 0.5
    assert config.source == str(path)


def test_config_errors_are_input_errors():
    assert issubclass(ConfigError, InputError) and issubclass(ConfigError, ValueError)


@pytest.mark.parametrize("raw,pattern", [
    ({"metrics": {"m": {"weight": 0}}}, r"metrics\.m\.weight = 0 is not valid"),
    ({"metrics": {"m": {"weight": True}}}, r"metrics\.m\.weight = True is not valid"),
    ({"metrics": {"m": {"modality": "ordinal"}}}, r"metrics\.m\.modality = 'ordinal'"),
    ({"metrics": {"m": "lower"}}, r"'metrics\.m' must be a table"),
    ({"metrics": ["m"]}, r"'metrics' must be a table of \[metrics\.NAME\] sections"),
    ({"datasets": {"d": {"direction": "lower"}}}, r"unknown key\(s\) in \[datasets\.d\]"),
])
def test_config_input_validation(raw, pattern):
    with pytest.raises(ConfigError, match=pattern):
        parse_config(raw)


def test_config_merged_overrides():
    base = TableConfig({"m": MetricSpec("lower", "binary", 2.0)})
    merged = base.merged(TableConfig({"m": MetricSpec(weight=3.0)}))
    assert merged.metrics["m"] == MetricSpec("lower", "binary", 3.0)


def test_config_systems_section(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[systems."llama-7b"]\nfamily = "llama"\nsize = 7\n')
    config = load_config(path)
    assert config.systems["llama-7b"].family == "llama"
    assert config.systems["llama-7b"].size == 7.0
    with pytest.raises(ConfigError, match=r"unknown key\(s\) in \[systems\.x\]: params"):
        parse_config({"systems": {"x": {"params": 7}}})
    with pytest.raises(ConfigError, match=r"systems\.x\.size = -7 is not valid"):
        parse_config({"systems": {"x": {"size": -7}}})
    with pytest.raises(ConfigError, match=r"systems\.x\.family = '' is not valid"):
        parse_config({"systems": {"x": {"family": ""}}})
