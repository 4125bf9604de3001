"""LLM judges and preferences on the files the harnesses wrote (tests/fixtures/real/SOURCES.md):
FastChat MT-bench single and pairwise judgments, alpaca_eval annotations, and an
arena's battle dump.

References, each the harness's own computation:

- MT-bench: FastChat ``llm_judge/show_result.py`` (``display_result_single``: the mean of
  every judgment whose score is not -1, per model, per turn and over both turns;
  ``display_result_pairwise``: a battle is won when both orders agree, a tie otherwise,
  ``error`` rows dropped), transcribed with pandas;
- alpaca_eval: its published leaderboard (``alpaca_eval_gpt4_leaderboard.csv``:
  ``win_rate``, ``standard_error``, ``n_wins``, ``n_wins_base``, ``n_draws``,
  ``n_total``) and, for the weighted annotator, ``get_winrate``'s mean of
  ``preference - 1``;
- the arena: GenAI-Arena's published ``leaderboard.csv`` of the same battles (Bradley-
  Terry, ``compute_elo_mle_with_tie``), its ordering, and its numbers reproduced with
  its own L2-penalised objective.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import optimize

from reportgen.analysis import AnalysisOptions, analyze
from reportgen.data import LoadOptions, load
from reportgen.data.adapters import detect_format, get_adapter
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[2] / "fixtures" / "real"
MT = REAL / "mt_bench"
LLAMA2 = MT / "llama2-7b-variants" / "model_judgment" / "gpt-4_single.jsonl"
GRIFFIN = MT / "griffin-llama3-8b" / "model_judgment" / "gpt-4_single.jsonl"
PAIR = MT / "phi-3-dpo" / "model_judgment" / "gpt-4_pair.jsonl.gz"
AE = REAL / "alpaca_eval"
AE1 = [AE / "alpaca_eval_gpt4" / m / "annotations.json.gz" for m in ("text_davinci_001", "phi-2")]
AE2 = [
    AE / "weighted_alpaca_eval_gpt4_turbo" / m / "annotations.json"
    for m in ("text_davinci_001", "alpaca-7b")
]
ARENA = REAL / "arena" / "genai-arena-20240220"


def _jsonl(path: Path) -> pd.DataFrame:
    raw = gzip.decompress(path.read_bytes()) if path.suffix == ".gz" else path.read_bytes()
    return pd.read_json(io.BytesIO(raw), lines=True)


def _show_result_single(path: Path) -> tuple[pd.Series, pd.DataFrame]:
    """FastChat show_result.py display_result_single: (average, per-turn means)."""
    df_all = _jsonl(path)
    df = df_all[["model", "score", "turn"]]
    df = df[df["score"] != -1]
    average = df[["model", "score"]].groupby("model").mean()["score"]
    turns = df.groupby(["model", "turn"]).mean()["score"].unstack("turn")
    return average, turns


def test_mt_bench_single_against_show_result() -> None:
    assert detect_format(LLAMA2).name == "mt-bench"
    average, turns = _show_result_single(LLAMA2)
    table = load(LLAMA2)
    assert table.datasets == ("mt_bench",) and set(table.metrics) == {"score"}
    view = table.paired("mt_bench", "score")  # items × systems × turns
    assert view.scores.shape == (3, 5, 2) and view.runs == (1, 2)
    for k, system in enumerate(view.systems):
        # the report's mean (questions' means over turns) is show_result's average
        assert view.scores[:, k, :].mean() == pytest.approx(average[system], rel=1e-12)
        for t, turn in enumerate(view.runs):
            assert view.scores[:, k, t].mean() == pytest.approx(turns.loc[system, turn])
    assert table.metrics["score"].direction == "higher"


def test_mt_bench_single_failed_and_repeated_judgments() -> None:
    frame = _jsonl(GRIFFIN)
    result = get_adapter("mt-bench").read(GRIFFIN, LoadOptions())
    # reference: the last valid rating of each model, question and turn
    valid = frame[frame["score"] != -1]
    last = valid.drop_duplicates(["model", "question_id", "turn"], keep="last")
    got = result.frame.set_index(["system", "item", "run"])["score"]
    for row in last.itertuples():
        assert got[(row.model, str(row.question_id), row.turn)] == row.score
    assert len(result.frame) == len(last)
    # every -1 of this file was judged again later: nothing is left out, and show_result,
    # which averages every copy, differs from the kept ratings
    assert not result.exclusions
    notes = [p.message for p in result.problems]
    assert any("given more than once" in m and "show_result would average" in m for m in notes)
    average, _ = _show_result_single(GRIFFIN)
    normal = "Meta-Llama-3-8B-Instruct-Normal"
    assert average[normal] != pytest.approx(got[normal].mean())


def test_mt_bench_single_minus_one_is_excluded_with_a_warning(tmp_path: Path) -> None:
    # edge case from the real file: its four failed judgments without the later ones
    # that replaced them, and the other model's judgments
    lines = [x for x in GRIFFIN.read_bytes().split(b"\n") if x]
    griffin = [x for x in lines if b"Instruct-Griffin" in x]
    path = tmp_path / "gpt-4_single.jsonl"
    path.write_bytes(b"\n".join(lines[:4] + griffin) + b"\n")
    result = get_adapter("mt-bench").read(path, LoadOptions())
    failed = [e for e in result.exclusions if "score -1" in e.reason]
    assert sum(e.count for e in failed) == 4
    assert any(p.severity == "warning" and "score -1" in p.message for p in result.problems)
    assert (result.frame["score"] >= 1).all()


def _show_result_pairwise(path: Path) -> pd.DataFrame:
    """FastChat show_result.py display_result_pairwise (--mode pairwise-all)."""
    df_all = _jsonl(path)
    df_all = df_all[(df_all["g1_winner"] != "error") & (df_all["g2_winner"] != "error")]
    rows = []
    for _, row in df_all.iterrows():
        if row["g1_winner"] == "tie" or row["g1_winner"] != row["g2_winner"]:
            rows.append({"model": row["model_1"], "win": 0, "loss": 0, "tie": 1})
            rows.append({"model": row["model_2"], "win": 0, "loss": 0, "tie": 1})
        else:
            if row["g1_winner"] == "model_1":
                winner, loser = row["model_1"], row["model_2"]
            else:
                winner, loser = row["model_2"], row["model_1"]
            rows.append({"model": winner, "win": 1, "loss": 0, "tie": 0})
            rows.append({"model": loser, "win": 0, "loss": 1, "tie": 0})
    df = pd.DataFrame(rows).groupby(["model"]).sum()
    df["win_rate_adjusted"] = (df["win"] + 0.5 * df["tie"]) / (df["win"] + df["loss"] + df["tie"])
    return df


def test_mt_bench_pairwise_against_show_result() -> None:
    assert detect_format(PAIR).name == "mt-bench"
    expected = _show_result_pairwise(PAIR)
    table = load(PAIR)
    assert table.battles is not None and table.datasets == ()
    analysis = analyze(table, AnalysisOptions(seed=1, n_resamples=200))
    (result,) = analysis.battles.results
    counts = result.counts
    for k, system in enumerate(counts.systems):
        wins = counts.wins[k].sum()
        losses = counts.wins[:, k].sum()
        ties = counts.ties[k].sum()
        row = expected.loc[system]
        assert (wins, losses, ties) == (row["win"], row["loss"], row["tie"])
        assert counts.win_rate()[k, 1 - k] == pytest.approx(row["win_rate_adjusted"])
    errors = [e for e in table.exclusions if "error" in e.reason]
    assert sum(e.count for e in errors) == 2  # the two 'error' verdicts of the file


def _leaderboard() -> pd.DataFrame:
    return pd.read_csv(AE / "alpaca_eval_gpt4" / "alpaca_eval_gpt4_leaderboard.csv", index_col=0)


def test_alpaca_eval_against_the_published_leaderboard() -> None:
    board = _leaderboard()
    table = load(AE1)
    metric = "win rate vs text_davinci_003"
    assert table.datasets == ("alpaca_eval_gpt4",)
    for system in ("text_davinci_001", "phi-2"):
        frame = table.frame
        scores = frame[(frame["system"] == system) & (frame["metric"] == metric)]["score"]
        row = board.loc[system]
        assert scores.mean() * 100 == pytest.approx(row["win_rate"], rel=1e-12)
        assert scores.sem() * 100 == pytest.approx(row["standard_error"], rel=1e-9)
        assert len(scores) == row["n_total"]
        assert (scores > 0.5).sum() == row["n_wins"]
        assert (scores < 0.5).sum() == row["n_wins_base"]
        assert (scores == 0.5).sum() == row["n_draws"]
    # generators are paired by instruction: both annotated the same 805
    pairing = table.pairing("alpaca_eval_gpt4", metric)
    assert pairing.n_items == 805 and pairing.recommended == "paired"
    missing = {e.system: e.count for e in table.exclusions if "no preference" in e.reason}
    assert missing == {"text_davinci_001": 1, "phi-2": 6}
    notes = [p.message for p in table.problems]
    assert any("length-controlled win rate is not computed" in m for m in notes)


def test_alpaca_eval_weighted_preferences_against_get_winrate() -> None:
    table = load(AE2)
    for path in AE2:
        records = json.loads(path.read_text())
        system = records[0]["generator_2"]
        # alpaca_eval get_winrate: mean of preference - 1 (0 counted as 1.5)
        expected = np.mean(
            [(1.5 if r["preference"] == 0 else r["preference"]) - 1 for r in records]
        )
        got = table.frame[table.frame["system"] == system]["score"]
        assert got.mean() == pytest.approx(expected, rel=1e-12)
        assert table.datasets == ("weighted_alpaca_eval_gpt4_turbo",)
    assert table.pairing(table.datasets[0], "win rate vs gpt4_1106_preview").n_common == 10


def test_alpaca_eval_model_outputs_are_refused_with_what_to_do(tmp_path: Path) -> None:
    # edge case from a real annotations file: the outputs alpaca_eval is given
    records = json.loads(AE2[0].read_text())
    outputs = [
        {"instruction": r["instruction"], "output": r["output_2"], "generator": r["generator_2"]}
        for r in records
    ]
    path = tmp_path / "model_outputs.json"
    path.write_text(json.dumps(outputs, indent=2))
    with pytest.raises(InputError, match="alpaca_eval's model outputs") as exc:
        detect_format(path)
    assert "alpaca_eval evaluate --model_outputs" in str(exc.value.hint)


def _published() -> pd.DataFrame:
    return pd.read_csv(ARENA / "leaderboard.csv", index_col="key")


def _battle_frame() -> pd.DataFrame:
    return pd.DataFrame(
        json.loads(gzip.decompress((ARENA / "clean_battle_20240220.json.gz").read_bytes()))
    )


@pytest.mark.parametrize("which", ["full", "anony"])
def test_arena_battles_against_the_published_ordering(tmp_path: Path, which: str) -> None:
    path = ARENA / "clean_battle_20240220.json.gz"
    if which == "anony":  # the arena's leaderboard: anonymous battles only
        battles = [b for b in json.loads(gzip.decompress(path.read_bytes())) if b["anony"]]
        path = tmp_path / "anonymous.json"
        path.write_text(json.dumps(battles, indent=2))
    assert detect_format(path).name == "arena-battles"
    analysis = analyze(load(path), AnalysisOptions(seed=3, n_resamples=100))
    published = _published()[f"Arena Elo rating ({which})"]
    results = analysis.battles.results
    assert len(results) == 2  # image editing and image generation never met
    for result in results:
        ours = list(result.systems)
        theirs = list(published[ours].sort_values(ascending=False).index)
        assert ours == theirs, result.dataset


def _arena_penalised(frame: pd.DataFrame) -> pd.Series:
    """GenAI-Arena's compute_elo_mle_with_tie: sklearn LogisticRegression (L2, C = 1, no
    intercept) on the doubled design, minimised here with scipy."""
    models = pd.concat([frame["model_a"], frame["model_b"]]).unique()
    code = pd.Series(np.arange(len(models)), index=models)
    double = pd.concat([frame, frame], ignore_index=True)
    n = len(double)
    X = np.zeros([n, len(models)])
    X[np.arange(n), code[double["model_a"]].to_numpy()] = +math.log(10)
    X[np.arange(n), code[double["model_b"]].to_numpy()] = -math.log(10)
    Y = np.zeros(n)
    Y[(double["winner"] == "model_a").to_numpy()] = 1.0
    tie = double["winner"].isin(["tie", "tie (bothbad)"]).to_numpy().copy()
    tie[len(tie) // 2 :] = False
    Y[tie] = 1.0

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        z = X @ w
        value = 0.5 * w @ w + np.sum(Y * np.logaddexp(0, -z) + (1 - Y) * np.logaddexp(0, z))
        return value, w + X.T @ (1 / (1 + np.exp(-z)) - Y)

    w = optimize.minimize(loss, np.zeros(len(models)), jac=True, method="L-BFGS-B").x
    return pd.Series(400 * w + 1000, index=models)


def test_arena_battles_reproduce_the_published_ratings() -> None:
    # the battles as the adapter reads them, rated with the arena's own objective
    table = load(ARENA / "clean_battle_20240220.json.gz")
    frame = table.battles.frame
    anonymous = _battle_frame()
    anonymous = anonymous[anonymous["anony"]]
    published = _published()
    got = _arena_penalised(anonymous[["model_a", "model_b", "winner"]])
    # sklearn stops at its default tolerance (1e-4): a few Elo points
    np.testing.assert_allclose(got[published.index], published["Arena Elo rating (anony)"], atol=3)
    assert len(frame) == len(_battle_frame()) - 1  # the one battle of a system with itself


def test_arena_battles_bad_winner_names_the_record(tmp_path: Path) -> None:
    battles = json.loads(gzip.decompress((ARENA / "clean_battle_20240220.json.gz").read_bytes()))
    battles[2]["winner"] = "model_c"
    path = tmp_path / "battles.json"
    path.write_text(json.dumps(battles[:10]))
    with pytest.raises(InputError, match="winner = 'model_c' is not one of") as exc:
        load(path)
    assert "[2].winner" in str(exc.value)


def test_arena_battles_as_csv_and_json_lines(tmp_path: Path) -> None:
    frame = _battle_frame()[["model_a", "model_b", "winner", "judge", "tstamp"]]
    frame.to_csv(tmp_path / "votes.csv", index=False)
    frame.to_json(tmp_path / "votes.jsonl", orient="records", lines=True)
    for name in ("votes.csv", "votes.jsonl"):
        assert detect_format(tmp_path / name).name == "arena-battles"
        table = load(tmp_path / name, options=LoadOptions(dataset="genai"))
        assert table.battles.datasets == ("genai",)
        assert len(table.battles.frame) == len(frame) - 1
    shutil.rmtree(tmp_path)


def test_alpaca_eval_folder_with_its_leaderboard_reads_the_annotations() -> None:
    # alpaca_eval writes leaderboard.csv beside annotations.json: aggregates, skipped
    folder = AE / "alpaca_eval_gpt4"
    table = load(folder)
    assert set(table.systems) == {"text_davinci_001", "phi-2"}
    (skipped,) = table.skipped_inputs
    assert skipped.path.endswith("alpaca_eval_gpt4_leaderboard.csv")
    assert "alpaca_eval's leaderboard" in skipped.reason
    with pytest.raises(InputError, match="strict-inputs|leaderboard"):
        load(folder, options=LoadOptions(strict_inputs=True))
