"""Policies shared by every adapter: Git LFS pointers, one-system inspection, duplicates.

The LFS pointer is hand-written (its three lines are the whole format, git-lfs spec v1);
the other inputs are real files (tests/fixtures/real/SOURCES.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from reportgen.cli import main
from reportgen.data import AdapterResult, LoadOptions, build_score_table, load
from reportgen.data.adapters import detect_format
from reportgen.errors import InputError

POINTER = (
    b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    b"size 12345\n"
)


@pytest.mark.parametrize("name", ["samples.jsonl", "log.eval", "results.csv"])
def test_lfs_pointer_is_named_on_detection(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(POINTER)
    with pytest.raises(InputError, match="Git LFS pointer, not the data") as info:
        detect_format(path)
    assert "git lfs pull" in (info.value.hint or "")


def test_lfs_pointer_is_named_when_an_adapter_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "scores.jsonl"
    path.write_bytes(POINTER)
    with pytest.raises(InputError, match="Git LFS pointer"):
        load(path, options=LoadOptions(format="long"))


def test_lfs_pointer_exits_2_from_the_cli(tmp_path: Path, capsys) -> None:
    path = tmp_path / "samples.jsonl"
    path.write_bytes(POINTER)
    assert main(["inspect", str(path)]) == 2
    err = capsys.readouterr().err
    assert "this is a Git LFS pointer, not the data" in err
    assert "hint: run `git lfs pull`" in err
    assert "Traceback" not in err


def test_duplicate_message_has_no_numpy_repr_and_the_adapters_hint() -> None:
    import pandas as pd

    frame = pd.DataFrame(
        {
            "system": ["a", "a", "b"],
            "dataset": ["d"] * 3,
            "metric": ["m"] * 3,
            "item": ["1", "1", "1"],
            "score": [1.0, 0.0, 1.0],
            "run": [1, 1, 1],
            "_file": ["log.eval"] * 3,
            "_line": [1, 2, 3],
        }
    )
    result = AdapterResult(frame, duplicate_hint="a hint in this format's terms")
    with pytest.raises(InputError) as info:
        build_score_table([result])
    assert "run=1" in str(info.value) and "np.int64" not in str(info.value)
    assert info.value.hint == "a hint in this format's terms"


def test_inspect_shows_one_system_and_analyze_refuses_it(tmp_path: Path, capsys) -> None:
    data = Path(__file__).resolve().parents[2] / "bad_inputs" / "one_system.csv"
    assert main(["inspect", str(data)]) == 0
    assert "A" in capsys.readouterr().out
    assert main(["analyze", str(data), "--out", str(tmp_path / "out")]) == 2
    assert "only one system ('A') in the input" in capsys.readouterr().err
