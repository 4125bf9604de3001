"""Item text (issue 46, item 1): read from the logs every adapter's harness writes, kept
once per item and system beside the scores, never a score, cut past --text-limit, left
out with --no-text.

Every adapter test compares what reportgen keeps with the log read directly (the
reference: ``json`` / ``zipfile`` on the real file, in the test); the long-table tests
are labelled hand-written edge cases.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from reportgen.data import TEXT_ROLES, LoadOptions, load
from reportgen.data._texts import as_text, parse_text_columns, split_texts
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"


def _samples(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# ------------------------------------------------------------------ adapters (real logs)


def test_lm_eval_texts_against_the_samples_files() -> None:
    # reference: the samples_*.jsonl of both systems read with json
    table = load([REAL / "lm_eval" / "v0.4.5"])
    for system in ("sys-a", "sys-b"):
        (path,) = (REAL / "lm_eval" / "v0.4.5" / system).glob("samples_tiny_gen_*.jsonl")
        seen = set()
        for record in _samples(path):
            doc = str(record["doc_id"])
            if doc in seen:  # the file repeats each document once per filter
                continue
            seen.add(doc)
            text = table.texts.of("tiny_gen", doc, system, "exact_match")
            assert text.input == record["arguments"]["gen_args_0"]["arg_0"]
            assert text.output == record["resps"][0][0]
            assert text.target == record["target"]
        (path,) = (REAL / "lm_eval" / "v0.4.5" / system).glob("samples_tiny_mc_*.jsonl")
        for record in _samples(path):
            text = table.texts.of("tiny_mc", str(record["doc_id"]), system, "acc")
            choices = [a["arg_1"] for a in record["arguments"].values()]
            lls = [float(r[0]) for r in record["filtered_resps"]]
            # the chosen continuation is the one lm-eval's acc scores: argmax log-likelihood
            assert text.output == choices[lls.index(max(lls))]
            assert (text.output == text.target) == bool(record["acc"])
            assert text.target == choices[int(record["target"])]


def test_inspect_eval_archive_outputs_against_the_sample_entries() -> None:
    # reference: each sample's own entry in the .eval archive (zipfile + zstandard)
    import zstandard

    folder = REAL / "inspect" / "eval_set-0.3.285"
    table = load([folder])
    for log in folder.glob("*.eval"):
        with zipfile.ZipFile(log) as archive:
            header = json.loads(_entry(archive, "header.json", zstandard))
            system = header["eval"]["model"]
            for name in archive.namelist():
                if not name.startswith("samples/"):
                    continue
                sample = json.loads(_entry(archive, name, zstandard))
                text = table.texts.of("toy_addition", sample["id"], system, "match")
                assert text.input == sample["input"]
                assert text.output == sample["output"]["completion"]
                assert text.target == sample["target"]
                assert text.explanation == sample["scores"]["match"]["explanation"]


def _entry(archive: zipfile.ZipFile, name: str, zstandard) -> bytes:
    info = archive.getinfo(name)
    if info.compress_type != 93:
        return archive.read(name)
    with open(archive.filename, "rb") as fh:  # type: ignore[arg-type]
        fh.seek(info.header_offset + 26)
        n, m = int.from_bytes(fh.read(2), "little"), int.from_bytes(fh.read(2), "little")
        fh.seek(info.header_offset + 30 + n + m)
        raw = fh.read(info.compress_size)
    return zstandard.ZstdDecompressor().decompress(raw, max_output_size=info.file_size)


def test_inspect_json_log_texts_with_choices_against_the_log() -> None:
    # reference: the JSON logs read with json; a multiple-choice sample's choices follow
    # its input as "A) ..." lines
    folder = REAL / "inspect" / "arc_easy-0.3.138"
    table = load([folder])
    for path in folder.glob("*.json"):
        log = json.loads(path.read_text())
        system = log["eval"]["model"]
        for sample in log["samples"]:
            text = table.texts.of(log["eval"]["task"], str(sample["id"]), system, "choice")
            letters = [f"{chr(65 + k)}) {c}" for k, c in enumerate(sample["choices"])]
            assert text.input == sample["input"] + "\n\n" + "\n".join(letters)
            assert text.output == sample["output"]["completion"]
            assert text.target == sample["target"]


def test_helm_texts_against_scenario_state() -> None:
    # reference: scenario_state.json of each run read with json
    suite = REAL / "helm" / "suite-0.5.16" / "benchmark_output" / "runs" / "fixture"
    table = load([suite])
    (dataset,) = table.datasets
    for run in suite.glob("simple_mcqa*"):
        state = json.loads((run / "scenario_state.json").read_text())
        system = json.loads((run / "run_spec.json").read_text())["adapter_spec"]["model"]
        for request in state["request_states"]:
            instance = request["instance"]
            text = table.texts.of(dataset, instance["id"], system, "exact_match")
            assert text.input == instance["input"]["text"]
            assert text.output == request["result"]["completions"][0]["text"]
            (correct,) = [r["output"]["text"] for r in instance["references"] if r["tags"]]
            letter = {v: k for k, v in request["output_mapping"].items()}[correct]
            assert text.target == f"{letter}. {correct}"


def test_promptfoo_texts_against_results_json() -> None:
    # reference: results.results[] read with json (prompt.raw, response.output, the
    # grading reason of pass and of each named metric's assertions)
    path = REAL / "promptfoo" / "tds-project-1" / "promptfoo_results.json"
    table = load([path])
    (dataset,) = table.datasets
    for entry in json.loads(path.read_text())["results"]["results"]:
        system = entry["provider"].get("label") or entry["provider"]["id"]
        text = table.texts.of(dataset, str(entry["testIdx"]), system, "pass")
        assert text.input == entry["prompt"]["raw"]
        output = entry["response"]["output"]  # a string, or JSON an endpoint answered
        assert text.output == (output if isinstance(output, str) else json.dumps(output))
        assert text.explanation == entry["gradingResult"]["reason"]


def test_deepeval_and_ragas_texts_against_their_files() -> None:
    # reference: the DeepEval run and the Ragas table read with json / pandas
    good = REAL / "deepeval" / "4.3.1" / "good"
    table = load([good, REAL / "deepeval" / "4.3.1" / "bad"])
    run = json.loads((good / ".deepeval" / ".latest_test_run.json").read_text())["testRunData"]
    for case in run["testCases"]:
        for metric in case["metricsData"]:
            text = table.texts.of(table.datasets[0], case["name"], "toy-good", metric["name"])
            assert (text.input, text.output, text.target) == (
                case["input"],
                case["actualOutput"],
                case["expectedOutput"],
            )
            assert text.explanation == metric["reason"]
    ragas = load([REAL / "ragas" / "0.2.15"])
    frame = pd.read_csv(REAL / "ragas" / "0.2.15" / "bm25.csv")
    for _, row in frame.iterrows():
        text = ragas.texts.of(ragas.datasets[0], row["user_input"], "bm25")
        assert (text.input, text.output, text.target) == (
            row["user_input"],
            row["response"],
            row["reference"],
        )


def test_no_text_reads_none_and_changes_no_score() -> None:
    # reference: the same logs read with and without text give the same rows
    for path in (REAL / "lm_eval" / "v0.4.5", REAL / "inspect" / "eval_set-0.3.285"):
        with_text = load([path])
        without = load([path], options=LoadOptions(no_text=True))
        assert len(without.texts) == 0 and len(with_text.texts) > 0
        pd.testing.assert_frame_equal(with_text.frame, without.frame)
        assert not set(TEXT_ROLES) & set(with_text.frame.columns)
        assert not set(TEXT_ROLES) & set(with_text.item_metadata.columns)


# ------------------------------------------------------------------ the table (edges)


def _long(tmp_path: Path, rows: list[dict]) -> Path:
    path = tmp_path / "scores.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    return path


def test_text_col_maps_columns_to_roles_and_never_to_scores(tmp_path: Path) -> None:
    # hand-written edge case: a long table whose text columns hold numbers ("12") and
    # markup; they stay text, never a score, metadata or system attribute
    rows = [
        {"system": s, "item": f"q{i}", "score": (i + k) % 2, "prompt": f"{i} * 4 = ?",
         "completion": str(i * 4 + k), "why": "<b>bold</b>"}
        for k, s in enumerate(("a", "b"))
        for i in range(4)
    ]  # fmt: skip
    path = _long(tmp_path, rows)
    table = load([path], options=LoadOptions(text_col=("prompt=input", "completion=output",
                                                       "why=explanation")))  # fmt: skip
    assert list(table.frame.columns[:5]) == ["system", "dataset", "metric", "item", "score"]
    assert not {"prompt", "completion", "why", *TEXT_ROLES} & set(table.frame.columns)
    assert table.item_metadata.columns.empty and "completion" not in table.system_attributes
    text = table.texts.of("scores", "q3", "b", "score")
    assert (text.input, text.output, text.explanation) == ("3 * 4 = ?", "13", "<b>bold</b>")
    assert table.texts.roles == ("input", "output", "explanation")


def test_text_limit_cuts_and_marks(tmp_path: Path) -> None:
    # hand-written edge case: one output of 50 characters, limit 20
    rows = [
        {"system": s, "item": f"q{i}", "score": i % 2, "output": ("x" * 50 if s == "a" else "ok")}
        for s in ("a", "b")
        for i in range(3)
    ]
    table = load([_long(tmp_path, rows)], options=LoadOptions(text_limit=20))
    text = table.texts.of("scores", "q0", "a")
    assert text.output == "x" * 20 and text.cut == {"output"}
    assert table.texts.of("scores", "q0", "b").cut == frozenset()
    assert table.texts.n_cut == 3 and table.texts.limit == 20
    # equal texts are one object (stored once)
    one, two = table.texts.of("scores", "q0", "a"), table.texts.of("scores", "q1", "a")
    assert one.output is two.output


def test_split_texts_first_text_per_item_against_pandas() -> None:
    # reference: pandas groupby(...).first() on the rows, by hand
    df = pd.DataFrame(
        {
            "system": ["a", "a", "a", "b"],
            "dataset": ["d"] * 4,
            "metric": ["m1", "m2", "m1", "m1"],
            "item": ["1", "1", "2", "1"],
            "input": [None, "asked", "other", "asked"],
            "output": ["said", None, "x", "y"],
            "explanation": ["e1", "e2", None, None],
        }
    )
    rest, texts = split_texts(df, limit=100)
    assert list(rest.columns) == ["system", "dataset", "metric", "item"]
    expected = df.groupby(["dataset", "item", "system"], sort=False)[["input", "output"]].first()
    for (dataset, item, system), row in expected.iterrows():
        got = texts.of(dataset, item, system)
        assert (got.input, got.output) == (row["input"], row["output"])
    assert texts.of("d", "1", "a", "m2").explanation == "e2"
    assert texts.of("d", "1", "a", "m1").explanation == "e1"


def test_as_text_edge_cases() -> None:
    # hand-written edge cases: lone surrogates never reach a file
    assert as_text(["5", "five"]) == "5\nfive"
    frame = pd.DataFrame({"system": ["a"], "dataset": ["d"], "metric": ["m"], "item": ["1"]})
    frame["output"] = pd.Series(["bad \ud800 char"], dtype=object)  # as adapters make it
    _, texts = split_texts(frame, limit=100)
    assert texts.of("d", "1", "a").output == "bad \\ud800 char"


def test_text_col_input_validation(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="is not NAME=ROLE with ROLE one of input"):
        LoadOptions(text_col=("prompt=question",))
    with pytest.raises(InputError, match="two columns for the role 'input'"):
        parse_text_columns(["a=input", "b=input"])
    with pytest.raises(InputError, match="is not a whole number of characters"):
        LoadOptions(text_limit=0)
    path = _long(tmp_path, [{"system": "a", "item": "1", "score": 1}])
    with pytest.raises(InputError, match=r"column 'prompt' \(--text-col prompt=input\) not found"):
        load([path], options=LoadOptions(text_col=("prompt=input",)), min_systems=1)
    with pytest.raises(InputError, match="names the table's score column"):
        load([path], options=LoadOptions(text_col=("score=output",)), min_systems=1)
