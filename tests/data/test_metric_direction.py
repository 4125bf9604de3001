"""Metric direction from the name (issue 30, item 7): conventional lower-is-better
names default to lower with one note naming the override; other names stay higher with
no note; the config and the source win over the name."""

from __future__ import annotations

import pandas as pd
import pytest

from reportgen.data import load
from reportgen.data._table import LOWER_IS_BETTER_WORDS, lower_is_better_by_name

LOWER = [
    "loss", "eval_loss", "evalLoss", "error", "error_rate", "err", "wer", "cer",
    "perplexity", "word_perplexity", "latency", "latency_ms", "time", "time_to_first_token",
    "duration_s", "cost_usd", "mae", "mse", "rmse", "edit_distance", "Levenshtein-Distance",
]  # fmt: skip
HIGHER = [
    "accuracy", "acc", "f1", "exact_match", "bleu", "rouge_l", "pass@1", "terminal",
    "timeliness", "errands", "costume", "recall", "score", "tokens_per_second",
    # issue 41: a word of absence names a good thing
    "error_free_rate", "errorFree", "no_error", "non_error_share", "loss_free", "zero_error",
]  # fmt: skip


@pytest.mark.parametrize("name", LOWER)
def test_lower_is_better_names_against_their_conventional_meaning(name):
    assert lower_is_better_by_name(name)


@pytest.mark.parametrize("name", HIGHER)
def test_other_names_stay_higher(name):
    # whole words only: "terminal" holds "ter", "timeliness" "time", "costume" "cost"
    assert not lower_is_better_by_name(name)


def test_the_words_the_issue_names_are_covered():
    issue = "loss error err wer cer perplexity latency time duration cost mae mse rmse distance"
    assert set(issue.split()) <= LOWER_IS_BETTER_WORDS


def _table(tmp_path, metrics, config=None):
    rows = [
        {"system": s, "dataset": "d", "metric": m, "item": i, "score": float(i % 3) + k}
        for m in metrics
        for k, s in enumerate(("a", "b"))
        for i in range(10)
    ]
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    cfg = None
    if config is not None:
        cfg = tmp_path / "reportgen.toml"
        cfg.write_text(config)
    return load([str(path)], config=None if cfg is None else str(cfg))


def test_inferred_direction_has_one_note_naming_the_override(tmp_path):
    table = _table(tmp_path, ["wer", "latency_ms", "accuracy"])
    assert table.metrics["wer"].direction == "lower"
    assert table.metrics["wer"].direction_source == "name"
    assert table.metrics["latency_ms"].direction == "lower"
    assert table.metrics["accuracy"].direction == "higher"
    assert table.metrics["accuracy"].direction_source == "default"
    notes = [p.message for p in table.problems if "inferred from the name" in p.message]
    assert len(notes) == 1
    assert "wer, latency_ms" in notes[0] and 'direction = "higher"' in notes[0]


def test_no_note_when_nothing_matches(tmp_path):
    table = _table(tmp_path, ["accuracy", "f1"])
    assert not [p for p in table.problems if "inferred from the name" in p.message]


def test_config_overrides_the_name(tmp_path):
    table = _table(tmp_path, ["wer"], config='[metrics.wer]\ndirection = "higher"\n')
    assert table.metrics["wer"].direction == "higher"
    assert table.metrics["wer"].direction_source == "config"
    assert not [p for p in table.problems if "inferred from the name" in p.message]
