"""What detection says about a file it cannot place, on real harness output: a JSON
document forced through a table format names the format it reads as; an unknown JSON
file is described by its top-level keys, with the JSON outputs reportgen reads."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from reportgen.data import LoadOptions, load
from reportgen.data.adapters import detect_format
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


@pytest.mark.parametrize("forced", ["long", "wide"])
def test_json_output_forced_as_a_table_names_its_format(forced: str) -> None:
    path = REAL / "promptfoo" / "0.120.0" / "results.json"
    with pytest.raises(InputError) as exc:
        load(path, options=LoadOptions(format=forced))
    assert "this is a JSON document, not a table" in exc.value.message
    assert "--format promptfoo" in str(exc.value.hint)


def test_unknown_json_lists_its_keys_and_the_json_formats(tmp_path: Path) -> None:
    # a promptfoo config dump is JSON but no result: its keys are named
    data = json.loads((REAL / "promptfoo" / "0.120.0" / "results.json").read_text())["config"]
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError) as exc:
        detect_format(path)
    assert exc.value.message.startswith(
        "cannot tell the format of this JSON file (top-level keys: "
    )
    assert "'description'" in exc.value.message
    assert "promptfoo -o results.json" in str(exc.value.hint)
    # a large file cut at the detection window: the keys seen so far
    big = {"first": "x" * 70_000, "second": 1}
    path.write_text(json.dumps(big))
    with pytest.raises(InputError, match=r"top-level keys: 'first'\)"):
        detect_format(path)
