"""Which way a metric is better, said on the command line (issue 30 item 7): `--direction
METRIC=lower|higher` and `--metric NAME:lower|higher` win over the config, the input and
the inference from the name; a malformed override is a clear error (exit 2)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.cli import main
from reportgen.data import LoadOptions, TableConfig, load
from reportgen.data._config import MetricSpec
from reportgen.errors import InputError

ROWS = """system,dataset,metric,item,score
a,asr,wer,1,0.1
a,asr,wer,2,0.2
a,asr,wer,3,0.15
b,asr,wer,1,0.3
b,asr,wer,2,0.25
b,asr,wer,3,0.35
a,asr,bleu,1,30
a,asr,bleu,2,31
a,asr,bleu,3,29
b,asr,bleu,1,20
b,asr,bleu,2,22
b,asr,bleu,3,21
"""


@pytest.fixture
def scores(tmp_path: Path) -> Path:
    path = tmp_path / "asr.csv"
    path.write_text(ROWS, encoding="utf-8")
    return path


def test_the_name_decides_without_an_override(scores: Path) -> None:
    table = load([scores])
    assert table.metrics["wer"].direction == "lower"
    assert table.metrics["wer"].direction_source == "name"
    assert table.metrics["bleu"].direction == "higher"


def test_direction_override_wins_over_name_and_config(scores: Path) -> None:
    config = TableConfig(metrics={"bleu": MetricSpec(direction="higher")})
    table = load(
        [scores],
        options=LoadOptions(direction=("wer=higher", "bleu=lower")),
        config=config,
    )
    assert table.metrics["wer"].direction == "higher"
    assert table.metrics["bleu"].direction == "lower"  # over the config's "higher"
    # issue 41: a direction given by flag says so (it was shown as "config")
    assert {m.direction_source for m in table.metrics.values()} == {"flag"}


def test_a_json_list_is_read_as_the_tuple_and_the_last_override_wins() -> None:
    options = LoadOptions(direction=["wer=lower", "wer=higher"])  # type: ignore[arg-type]
    assert options.direction == ("wer=lower", "wer=higher")
    assert options.directions == {"wer": "higher"}


@pytest.mark.parametrize("bad", ["wer", "wer=up", "=lower", "wer:lower"])
def test_a_malformed_override_is_a_clear_error(bad: str) -> None:
    with pytest.raises(InputError, match="is not METRIC=lower or METRIC=higher") as err:
        LoadOptions(direction=(bad,))
    assert err.value.hint and "--direction wer=lower" in err.value.hint


def test_cli_direction_and_metric_suffix(scores: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["inspect", str(scores)]) == 0
    assert "lower is better for wer, inferred from the name" in capsys.readouterr().out
    for flags in (["--direction", "wer=higher"], ["--metric", "wer:higher"]):
        assert main(["inspect", str(scores), *flags]) == 0
        out = capsys.readouterr().out
        assert "inferred from the name" not in out
        assert "higher is better (flag)" in out  # issue 41: the source is the flag
    assert main(["inspect", str(scores), "--direction", "wer=up"]) == 2
    err = capsys.readouterr().err
    assert "'wer=up' is not METRIC=lower or METRIC=higher" in err and "Traceback" not in err
