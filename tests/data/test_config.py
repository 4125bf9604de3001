"""The TOML run configuration: [input], [analysis], [report], [metrics], [datasets],
[systems]."""

from __future__ import annotations

import dataclasses
import typing
from pathlib import Path

import pytest

from reportgen.data import (
    DatasetSpec,
    LoadOptions,
    MetricSpec,
    SystemSpec,
    TableConfig,
    _config,
    load,
    load_config,
    parse_config,
)
from reportgen.errors import ConfigError, InputError

FULL = """
[input]
data = ["results", "extra/more.jsonl"]
format = "long"
system_col = "model"
dataset_col = "task"
metric_col = "measure"
item_col = "example_id"
score_col = "value"
run_col = "seed"
prediction_col = "pred"
reference_col = "gold"
dataset = "bench"
metric = "acc"
lm_eval_filter = "strict-match"
nan_policy = "raise"

[analysis]
pairing = "paired"
method = "bootstrap"
order = "first-vs-rest"
baseline = "base-7b"
alternative = "greater"
correction = "fdr_bh"
correct_across = "all"
alpha = 0.01
confidence = 0.9
n_resamples = 4000
effect_threshold = "small"
ci_method = "clopper-pearson"
corpus_metrics = ["f1-micro", "accuracy"]
power = 0.9
detect_delta = -0.03
cluster_by = "passage"
group_by = "difficulty"
compare_by = ["prompt_format"]
condition_on = ["model", "size"]
seed = 7

[report]
title = "Release 2.1"
release = "v2.1"
candidate = "model-v2.1"
template = "notebooks/custom.ipynb"
theme = "print"
out = "reports/v2.1"
formats = "html,pdf"
force = true
fail_on_regression = true
max_table_rows = 25

[metrics.ter]
direction = "lower"
modality = "continuous"
weight = 2

[datasets.wmt]
weight = 0.5

[systems."base-7b"]
family = "base"
size = 7
"""


def _write(folder: Path, text: str, name: str = "reportgen.toml") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_config_parsed(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text(
        '[metrics.bleu]\ndirection = "higher"\nweight = 2\n'
        '[metrics.ter]\ndirection = "lower"\nmodality = "continuous"\n'
        "[datasets.wmt]\nweight = 0.5\n"
    )
    config = load_config(path)
    assert config.metrics["bleu"] == MetricSpec("higher", None, 2.0)
    assert config.metrics["ter"] == MetricSpec("lower", "continuous", None)
    assert config.datasets["wmt"].weight == 0.5
    assert config.source == str(path)
    assert config.analysis == {} and config.input == {} and config.report == {}


def test_config_full_round_trip(tmp_path):
    path = _write(tmp_path / "cfg", FULL)
    config = load_config(path)
    base = tmp_path / "cfg"
    assert config.input == {
        "data": (str(base / "results"), str(base / "extra" / "more.jsonl")),
        "format": "long",
        "system_col": "model",
        "dataset_col": "task",
        "metric_col": "measure",
        "item_col": "example_id",
        "score_col": "value",
        "run_col": "seed",
        "prediction_col": "pred",
        "reference_col": "gold",
        "dataset": "bench",
        "metric": "acc",
        "lm_eval_filter": "strict-match",
        "nan_policy": "raise",
    }
    assert config.analysis == {
        "pairing": "paired",
        "method": "bootstrap",
        "order": "first-vs-rest",
        "baseline": "base-7b",
        "alternative": "greater",
        "correction": "fdr_bh",
        "correct_across": "all",
        "alpha": 0.01,
        "confidence": 0.9,
        "n_resamples": 4000,
        "effect_threshold": "small",
        "ci_method": "clopper-pearson",
        "corpus_metrics": ("f1-micro", "accuracy"),
        "power": 0.9,
        "detect_delta": -0.03,
        "cluster_by": "passage",
        "group_by": ("difficulty",),
        "compare_by": ("prompt_format",),
        "condition_on": ("model", "size"),
        "seed": 7,
    }
    assert config.report == {
        "title": "Release 2.1",
        "release": "v2.1",
        "candidate": "model-v2.1",
        "template": str(base / "notebooks" / "custom.ipynb"),
        "theme": "print",  # no folder of that name next to the config: a theme name
        "out": str(base / "reports" / "v2.1"),
        "formats": ("html", "pdf"),
        "force": True,
        "fail_on_regression": True,
        "max_table_rows": 25,
    }
    assert config.metrics == {"ter": MetricSpec("lower", "continuous", 2.0)}
    assert config.datasets == {"wmt": DatasetSpec(0.5)}
    assert config.systems == {"base-7b": SystemSpec("base", 7.0)}
    assert isinstance(config.analysis["n_resamples"], int)
    assert isinstance(config.analysis["seed"], int)
    assert isinstance(config.report["max_table_rows"], int)


def test_config_sections_feed_the_library_options(tmp_path):
    from reportgen.analysis import AnalysisOptions

    config = load_config(_write(tmp_path, FULL))
    options = AnalysisOptions(**config.analysis)
    for key, value in config.analysis.items():
        assert getattr(options, key) == value
    reading = LoadOptions(**{k: v for k, v in config.input.items() if k != "data"})
    assert reading.system_col == "model" and reading.nan_policy == "raise"


def test_config_keys_are_the_library_option_names():
    from reportgen.analysis import AnalysisOptions
    from reportgen.execution import Execution

    # every analysis option but the system list (a [systems] section) and the margins
    # (each metric's [metrics.NAME] margin), and where it runs
    fields = ({f.name for f in dataclasses.fields(AnalysisOptions)} - {"systems", "margins"}) | {
        f.name for f in dataclasses.fields(Execution)
    }
    with pytest.raises(ConfigError) as exc:
        parse_config({"analysis": {"nosuch": 1}})
    assert set(exc.value.hint.removeprefix("allowed keys: ").split(", ")) == fields
    with pytest.raises(ConfigError) as exc:
        parse_config({"input": {"nosuch": 1}})
    # but the --direction overrides: the config says them per metric ([metrics.NAME])
    assert set(exc.value.hint.removeprefix("allowed keys: ").split(", ")) == (
        {f.name for f in dataclasses.fields(LoadOptions)} - {"direction"}
    ) | {"data"}


def test_declared_choices_equal_the_library_choices():
    from reportgen import analysis, names
    from reportgen.config import option
    from reportgen.stats import corpus, means, multiplicity, pairwise

    get = typing.get_args
    assert get(analysis.Pairing) == names.PAIRINGS == option("pairing").choices
    assert get(pairwise.Method) == names.METHODS == option("method").choices
    assert get(pairwise.Order) == names.ORDERS == option("order").choices
    assert get(pairwise.Alternative) == names.ALTERNATIVES == option("alternative").choices
    assert multiplicity.CORRECTIONS == names.CORRECTIONS == option("correction").choices
    assert get(analysis.CorrectAcross) == names.CORRECT_ACROSS
    assert get(pairwise.EffectLevel) == names.EFFECT_LEVELS
    assert get(means.CIMethod) == names.CI_METHODS == option("ci_method").choices
    assert corpus.CORPUS_METRICS == names.CORPUS_METRICS == option("corpus_metrics").choices
    assert get(typing.get_type_hints(LoadOptions)["nan_policy"]) == names.NAN_POLICIES


@pytest.mark.parametrize("command", ["analyze", "run"])
def test_every_declared_option_is_a_flag_with_its_choices(command):
    """Each command's parser holds a flag per declared option of the sections it reads,
    with the declared choices; a flag not given is None (so the config file applies)."""
    from reportgen.cli import build_parser
    from reportgen.config import options

    parser = build_parser()
    sub = parser._subparsers._group_actions[0].choices[command]
    actions = {a.dest: a for a in sub._actions}
    sections = ("input", "analysis", "report") if command == "run" else ("input", "analysis")
    for section in sections:
        for o in options(section):
            if o.flag is None:
                continue
            action = actions[o.key]
            if o.key != "format":
                assert o.flag in action.option_strings
            if o.kind == "choice":
                assert tuple(action.choices) == o.choices
            assert action.default is None, o.key
    assert sub.parse_args(["x", "--out", "o"]).alpha is None


def test_declared_defaults_are_the_library_defaults_and_valid_config_values():
    """The library's dataclasses default to the declared values, and every declared
    default is a value the config file accepts."""
    from reportgen.analysis import AnalysisOptions
    from reportgen.config import defaults, options
    from reportgen.execution import parse_memory_size
    from reportgen.stats import DEFAULT_MAX_MEMORY

    analysis = AnalysisOptions()
    for key, value in defaults("analysis").items():
        if hasattr(analysis, key) and key != "max_memory":
            assert getattr(analysis, key) == value, key
    assert parse_memory_size(defaults("analysis")["max_memory"]) == DEFAULT_MAX_MEMORY
    load = LoadOptions()
    for key, value in defaults("input").items():
        if key not in ("data", "max_input_bytes"):
            assert getattr(load, key) == value, key
    for section in ("input", "analysis", "report"):
        given = {
            o.key: list(o.default) if isinstance(o.default, tuple) else o.default
            for o in options(section, config=True)
            if o.default not in (None, ())
        }
        parse_config({section: given})


def test_config_errors_are_input_errors():
    assert issubclass(ConfigError, InputError) and issubclass(ConfigError, ValueError)


@pytest.mark.parametrize(
    "raw,pattern",
    [
        ({"metrics": {"m": {"weight": 0}}}, r"metrics\.m\.weight = 0 is not valid"),
        ({"metrics": {"m": {"weight": True}}}, r"metrics\.m\.weight = True is not valid"),
        ({"metrics": {"m": {"modality": "ordinal"}}}, r"metrics\.m\.modality = 'ordinal'"),
        ({"metrics": {"m": "lower"}}, r"'metrics\.m' must be a table"),
        ({"metrics": ["m"]}, r"'metrics' must be a table of \[metrics\.NAME\] sections"),
        ({"datasets": {"d": {"direction": "lower"}}}, r"unknown key in \[datasets\.d\]"),
    ],
)
def test_config_input_validation(raw, pattern):
    with pytest.raises(ConfigError, match=pattern):
        parse_config(raw)


UNIT = r"a number between 0 and 1 \(exclusive\)"
WHOLE = r"a whole number >= 1, written without a decimal point"


@pytest.mark.parametrize(
    "key,value,pattern,hint",
    [
        ("alpha", 1.5, r"analysis\.alpha = 1\.5 is not valid", UNIT),
        ("alpha", 0, r"analysis\.alpha = 0 is not valid", UNIT),
        ("alpha", True, r"analysis\.alpha = True is not valid", UNIT),
        ("alpha", "0.05", r"analysis\.alpha = '0\.05' is not valid", UNIT),
        ("alpha", float("nan"), r"analysis\.alpha = nan is not valid", UNIT),
        ("confidence", 1, r"analysis\.confidence = 1 is not valid", UNIT),
        ("power", 1.0, r"analysis\.power = 1\.0 is not valid", UNIT),
        ("n_resamples", 99.5, r"analysis\.n_resamples = 99\.5 is not valid", WHOLE),
        ("n_resamples", 1000.0, r"analysis\.n_resamples = 1000\.0 is not valid", WHOLE),
        ("n_resamples", 0, r"analysis\.n_resamples = 0 is not valid", WHOLE),
        ("n_resamples", True, r"analysis\.n_resamples = True is not valid", WHOLE),
        ("seed", -1, r"analysis\.seed = -1 is not valid", r"a whole number >= 0"),
        ("seed", 1.0, r"analysis\.seed = 1\.0 is not valid", r"a whole number >= 0"),
        ("seed", False, r"analysis\.seed = False is not valid", r"a whole number >= 0"),
        ("detect_delta", 0, r"analysis\.detect_delta = 0 is not valid", r"non-zero"),
        (
            "detect_delta",
            float("inf"),
            r"analysis\.detect_delta = inf is not valid",
            r"a finite, non-zero difference",
        ),
        (
            "pairing",
            "matched",
            r"analysis\.pairing = 'matched' is not valid",
            r"use one of: 'auto', 'paired', 'unpaired'",
        ),
        ("method", "t", r"analysis\.method = 't' is not valid", r"'permutation', 'bootstrap'"),
        (
            "order",
            "all_pairs",
            r"analysis\.order = 'all_pairs' is not valid",
            r"'all-pairs', 'first-vs-rest', 'successive'",
        ),
        ("alternative", "two_sided", r"analysis\.alternative = 'two_sided'", r"'two-sided'"),
        ("correction", "bh", r"analysis\.correction = 'bh' is not valid", r"'fdr_bh'"),
        (
            "correct_across",
            "sample_list",
            r"analysis\.correct_across = 'sample_list'",
            r"'sample-list', 'all'",
        ),
        (
            "effect_threshold",
            "huge",
            r"analysis\.effect_threshold = 'huge'",
            r"'small', 'medium', 'large'",
        ),
        ("ci_method", ["t"], r"analysis\.ci_method = \['t'\] is not valid", r"'wilson'"),
        (
            "corpus_metrics",
            ["f1-macro", "f2"],
            r"analysis\.corpus_metrics = \['f1-macro', 'f2'\] is not valid: unknown 'f2'",
            r"known: f1-macro, f1-micro",
        ),
        ("group_by", [1], r"analysis\.group_by = \[1\] is not valid", r"a list of names"),
        ("condition_on", [""], r"analysis\.condition_on = \[''\] is not valid", r"a list of names"),
        (
            "compare_by",
            {"a": 1},
            r"analysis\.compare_by = \{'a': 1\} is not valid",
            r"a list of names",
        ),
        ("cluster_by", "", r"analysis\.cluster_by = '' is not valid", r"a non-empty string"),
        ("baseline", 3, r"analysis\.baseline = 3 is not valid", r"a non-empty string"),
    ],
)
def test_config_analysis_validation(key, value, pattern, hint):
    with pytest.raises(ConfigError, match=pattern) as exc:
        parse_config({"analysis": {key: value}})
    assert exc.match(r"hint: .*" + hint)


def test_config_analysis_power_must_exceed_alpha():
    with pytest.raises(
        ConfigError,
        match=r"analysis\.power = 0\.1 is not above "
        r"analysis\.alpha = 0\.2",
    ) as exc:
        parse_config({"analysis": {"alpha": 0.2, "power": 0.1}})
    assert exc.match(r"hint: the power at no effect is alpha")


def test_config_analysis_one_string_is_a_list():
    config = parse_config({"analysis": {"group_by": "difficulty", "corpus_metrics": "f1-binary"}})
    assert config.analysis == {"group_by": ("difficulty",), "corpus_metrics": ("f1-binary",)}
    assert parse_config({"analysis": {"corpus_metrics": []}}).analysis == {"corpus_metrics": ()}


@pytest.mark.parametrize(
    "section,key,value,pattern,hint",
    [
        (
            "input",
            "format",
            "excel",
            r"input\.format = 'excel' is not valid",
            r"use one of: .*'long'",
        ),
        (
            "input",
            "nan_policy",
            "ignore",
            r"input\.nan_policy = 'ignore' is not valid",
            r"'drop', 'raise'",
        ),
        ("input", "data", [], r"input\.data = \[\] is not valid", r"a list of files or folders"),
        (
            "input",
            "data",
            ["a.csv", 3],
            r"input\.data = \['a\.csv', 3\] is not valid",
            r"a list of files or folders",
        ),
        ("input", "system_col", "", r"input\.system_col = '' is not valid", r"non-empty string"),
        (
            "input",
            "lm_eval_filter",
            1,
            r"input\.lm_eval_filter = 1 is not valid",
            r"non-empty string",
        ),
        (
            "report",
            "formats",
            ["html", "docx"],
            r"report\.formats = \['html', 'docx'\] is not valid",
            r"'html', 'pdf', 'ipynb'",
        ),
        ("report", "formats", [], r"report\.formats = \[\] is not valid", r"at least one of"),
        ("report", "formats", " , ", r"report\.formats = ' , ' is not valid", r"at least one of"),
        (
            "report",
            "formats",
            "html;pdf",
            r"report\.formats = 'html;pdf' is not valid",
            r"at least one of",
        ),
        ("report", "force", "yes", r"report\.force = 'yes' is not valid", r"true or false"),
        (
            "report",
            "fail_on_regression",
            1,
            r"report\.fail_on_regression = 1 is not valid",
            r"true or false",
        ),
        ("report", "max_table_rows", 0, r"report\.max_table_rows = 0 is not valid", WHOLE),
        ("report", "max_table_rows", 2.0, r"report\.max_table_rows = 2\.0 is not valid", WHOLE),
        ("report", "title", "  ", r"report\.title = '  ' is not valid", r"non-empty string"),
        (
            "report",
            "candidate",
            ["a"],
            r"report\.candidate = \['a'\] is not valid",
            r"non-empty string",
        ),
    ],
)
def test_config_input_and_report_validation(section, key, value, pattern, hint):
    with pytest.raises(ConfigError, match=pattern) as exc:
        parse_config({section: {key: value}})
    assert exc.match(r"hint: .*" + hint)


@pytest.mark.parametrize(
    "raw,pattern,hint",
    [
        (
            {"analysis": {"n-resamples": 99}},
            r"unknown key in \[analysis\]: n-resamples",
            r"did you mean 'n_resamples'\? allowed keys: alpha, alternative, baseline",
        ),
        (
            {"report": {"format": "html"}},
            r"unknown key in \[report\]: format",
            r"did you mean 'formats'\?",
        ),
        (
            {"input": {"systems": "x"}},
            r"unknown key in \[input\]: systems",
            r"allowed keys: data, dataset, dataset_col",
        ),
        ({"report": "out"}, r"'report' must be a table, got 'out'", r"\[report\]"),
        ({"input": ["a.csv"]}, r"'input' must be a table", r"\[input\]"),
        (
            {"colors": {}},
            r"unknown config section: colors",
            r"\[input\], \[analysis\], \[report\], \[metrics\.NAME\]",
        ),
    ],
)
def test_config_unknown_keys_and_sections(raw, pattern, hint):
    with pytest.raises(ConfigError, match=pattern) as exc:
        parse_config(raw)
    assert exc.match(r"hint: .*" + hint)


def test_config_error_names_the_file(tmp_path):
    path = _write(tmp_path, "[analysis]\nalpha = 1.5\n")
    with pytest.raises(
        ConfigError,
        match=r"reportgen\.toml, line 2: analysis\.alpha = 1\.5 is not "
        r"valid\n  hint: a number between 0 and 1",
    ):
        load_config(path)


def test_config_relative_paths_resolve_against_the_config_folder(tmp_path, monkeypatch):
    folder = tmp_path / "project" / "conf"
    (folder / "brand").mkdir(parents=True)
    path = _write(
        folder,
        '[input]\ndata = "../results"\n'
        '[report]\nout = "out"\ntemplate = "nb/mine.ipynb"\n'
        'theme = "brand"\n',
    )
    monkeypatch.chdir(tmp_path)
    config = load_config(Path("project") / "conf" / "reportgen.toml")
    conf = Path("project") / "conf"
    assert config.input["data"] == (str(conf / ".." / "results"),)
    assert config.report["out"] == str(conf / "out")
    assert config.report["template"] == str(conf / "nb" / "mine.ipynb")
    assert config.report["theme"] == str(conf / "brand")
    assert load_config(path).report["out"] == str(folder / "out")


def test_config_names_and_absolute_paths_are_kept(tmp_path):
    absolute = tmp_path / "elsewhere" / "r.csv"
    path = _write(
        tmp_path / "conf",
        f"[input]\ndata = [{str(absolute)!r}]\n"
        f'[report]\nout = {str(tmp_path / "out")!r}\ntemplate = "data_overview"\n'
        'theme = "print"\n',
    )
    config = load_config(path)
    assert config.input["data"] == (str(absolute),)
    assert config.report["out"] == str(tmp_path / "out")
    assert config.report["template"] == "data_overview"
    assert config.report["theme"] == "print"


def test_config_home_folder_is_expanded(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    config = load_config(
        _write(tmp_path / "conf", '[input]\ndata = "~/r.csv"\n[report]\nout = "~/out"\n')
    )
    assert config.input["data"] == (str(tmp_path / "home" / "r.csv"),)
    assert config.report["out"] == str(tmp_path / "home" / "out")


def test_config_parse_without_source_keeps_paths_as_given():
    raw = {
        "input": {"data": ["r.csv", "~/x"]},
        "report": {"out": "out", "template": "t.ipynb", "theme": "."},
    }
    config = parse_config(raw)
    assert config.input["data"] == ("r.csv", "~/x")
    assert config.report == {"out": "out", "template": "t.ipynb", "theme": "."}
    # with a source, they are relative to its folder
    sourced = parse_config(raw, source=str(Path("conf") / "c.toml"))
    assert sourced.input["data"][0] == str(Path("conf") / "r.csv")
    assert sourced.report["out"] == str(Path("conf") / "out")


def test_config_data_paths_load_from_another_working_folder(tmp_path, monkeypatch):
    results = tmp_path / "project" / "results.csv"
    results.parent.mkdir()
    results.write_text("system,item,score\nA,1,1\nA,2,0\nB,1,0\nB,2,0\n")
    path = _write(
        tmp_path / "project", '[input]\ndata = "results.csv"\ndataset = "toy"\nmetric = "acc"\n'
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    config = load_config(path)
    reading = LoadOptions(**{k: v for k, v in config.input.items() if k != "data"})
    table = load(config.input["data"], options=reading, config=config)
    assert table.systems == ("A", "B") and table.datasets == ("toy",)


def test_config_merged_overrides():
    base = TableConfig({"m": MetricSpec("lower", "binary", 2.0)})
    merged = base.merged(TableConfig({"m": MetricSpec(weight=3.0)}))
    assert merged.metrics["m"] == MetricSpec("lower", "binary", 3.0)


def test_config_merged_overrides_input_analysis_and_report():
    base = parse_config(
        {
            "input": {"data": "a.csv", "nan_policy": "raise"},
            "analysis": {"alpha": 0.01, "group_by": ["x"]},
            "report": {"formats": ["html"], "title": "Old"},
        },
        source="base.toml",
    )
    other = parse_config(
        {
            "input": {"data": ["b.csv", "c.csv"]},
            "analysis": {"alpha": 0.1, "seed": 3},
            "report": {"title": "New", "force": True},
        }
    )
    merged = base.merged(other)
    assert merged.input == {"data": ("b.csv", "c.csv"), "nan_policy": "raise"}
    assert merged.analysis == {"alpha": 0.1, "group_by": ("x",), "seed": 3}
    assert merged.report == {"formats": ("html",), "title": "New", "force": True}
    assert merged.source == "base.toml"
    assert base.report == {"formats": ("html",), "title": "Old"}  # base left unchanged


def test_config_formats_string_and_duplicates():
    assert parse_config({"report": {"formats": "pdf, html"}}).report == {"formats": ("pdf", "html")}
    assert parse_config({"report": {"formats": ["ipynb", "ipynb"]}}).report == {
        "formats": ("ipynb",)
    }


def test_config_systems_section(tmp_path):
    path = tmp_path / "c.toml"
    path.write_text('[systems."llama-7b"]\nfamily = "llama"\nsize = 7\n')
    config = load_config(path)
    assert config.systems["llama-7b"].family == "llama"
    assert config.systems["llama-7b"].size == 7.0
    with pytest.raises(ConfigError, match=r"unknown key in \[systems\.x\]: params"):
        parse_config({"systems": {"x": {"params": 7}}})
    with pytest.raises(ConfigError, match=r"systems\.x\.size = -7 is not valid"):
        parse_config({"systems": {"x": {"size": -7}}})
    with pytest.raises(ConfigError, match=r"systems\.x\.family = '' is not valid"):
        parse_config({"systems": {"x": {"family": ""}}})


def test_config_docstring_documents_every_key():
    doc = _config.__doc__
    with pytest.raises(ConfigError) as exc:
        parse_config({"analysis": {"?": 1}})
    keys = exc.value.hint.removeprefix("allowed keys: ").split(", ")
    for section in ("input", "report"):
        with pytest.raises(ConfigError) as exc:
            parse_config({section: {"?": 1}})
        keys += exc.value.hint.removeprefix("allowed keys: ").split(", ")
    missing = [k for k in keys if f"\n    {k} = " not in doc]
    assert not missing


def test_metric_margin_and_report_gate_in_the_config():
    config = parse_config(
        {"metrics": {"pass1": {"margin": 0.01}}, "report": {"gate": "non-inferiority"}}
    )
    assert config.metrics["pass1"].margin == 0.01
    assert config.report["gate"] == "non-inferiority"
    # a later config keeps the margin unless it gives its own
    merged = config.merged(parse_config({"metrics": {"pass1": {"weight": 2.0}}}))
    assert merged.metrics["pass1"].margin == 0.01 and merged.metrics["pass1"].weight == 2.0
    with pytest.raises(ConfigError, match=r"metrics\.pass1\.margin = 0 is not valid"):
        parse_config({"metrics": {"pass1": {"margin": 0}}})
    with pytest.raises(ConfigError, match=r"report\.gate = 'always' is not valid"):
        parse_config({"report": {"gate": "always"}})
