"""Write the generated files of the bad-input corpus (binary encodings, archives, folders).

The hand-written cases are plain files beside this script; the ones below are easier to
describe as code than to edit by hand: other encodings and line endings, Inspect ``.eval``
archives, lm-evaluation-harness and HELM output folders, cut-off files. Run it from
anywhere to regenerate them (the output is deterministic); ``cases.toml`` says what each
case is and which message it must give.

    python tests/bad_inputs/make_cases.py [FOLDER]   # default: beside this script
"""

from __future__ import annotations

import codecs
import io
import json
import shutil
import sys
import zipfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
_out = HERE  # where the files are written (main's argument)

TABLE = "system,dataset,metric,item,score\nA,d,m,1,0.5\nB,d,m,1,0.6\nA,d,m,2,0.1\nB,d,m,2,0.2\n"


def write(name: str, data: bytes | str) -> Path:
    path = _out / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


def fresh(folder: str) -> str:
    shutil.rmtree(_out / folder, ignore_errors=True)
    return folder


# ----------------------------------------------------------------------- encodings, text


def text_cases() -> None:
    write("utf16_bom.csv", TABLE.encode("utf-16"))  # loads: BOM says UTF-16
    write("utf16_no_bom.csv", TABLE.encode("utf-16-le"))  # NUL bytes, no BOM
    write("utf8_bom.csv", codecs.BOM_UTF8 + TABLE.encode())  # loads
    write("bom_only.csv", codecs.BOM_UTF8)
    write(
        "mixed_line_endings.csv",  # loads: \r\n, \n and \r
        b"system,dataset,metric,item,score\r\nA,d,m,1,0.5\nB,d,m,1,0.6\r\n"
        b"A,d,m,2,0.1\rB,d,m,2,0.2\n",
    )
    write("binary_garbage.csv", bytes((i * 37 + 11) % 256 for i in range(300)))
    write("not_gzip.csv.gz", TABLE)
    write(
        "latin1.jsonl",
        '{"system": "A", "item": "1", "score": 1}\n'
        '{"system": "B", "item": "caf\u00e9", "score": 0}\n'.encode("latin-1"),
    )
    lines = "".join(
        f'{{"system": "{s}", "item": "{i}", "score": {(i + len(s)) % 2}}}\n'
        for s in ("A", "B")
        for i in range(1, 4)
    )
    write("utf16_bom.jsonl", lines.encode("utf-16"))  # loads
    write(
        "eval_arena_utf8_bom.jsonl",
        codecs.BOM_UTF8
        + "".join(  # loads
            f'{{"benchmark_id": "b", "model": "{m}", "example_id": "e{i}", "pass1": {i % 2}}}\n'
            for m in ("A", "B")
            for i in range(1, 4)
        ).encode(),
    )
    # JSON strings may hold U+2028, U+2029 and U+0085 unescaped: they do not end a line
    write(
        "line_separators_in_strings.jsonl",
        "".join(
            f'{{"system": "{s}", "item": "q{i}\u2028\u2029\u0085x", "score": {(i + len(s)) % 2}}}\n'
            for s in ("A", "B")
            for i in range(1, 4)
        ).encode(),
    )
    write(
        "huge_digits_score.jsonl",  # more digits than Python turns into an int
        '{"system": "A", "item": "1", "score": 1}\n'
        '{"system": "B", "item": "1", "score": ' + "9" * 4500 + "}\n",
    )
    write(
        "eval_arena_hyperparams_object.jsonl",
        "".join(  # loads: a dict per model
            json.dumps(
                {
                    "benchmark_id": "b",
                    "model": m,
                    "example_id": f"e{i}",
                    "pass1": i % 2,
                    "hyperparams": {"temperature": t, "top_p": 1},
                }
            )
            + "\n"
            for m, t in (("A", 0.2), ("B", 0.8))
            for i in range(1, 4)
        ),
    )
    # 100,000 levels of nesting: Python's parser would stop with a RecursionError
    depth = 100_000
    write(
        "deep_nesting.jsonl",
        '{"system": "A", "item": "1", "score": 1}\n'
        '{"system": "B", "item": "1", "score": ' + "[" * depth + "1" + "]" * depth + "}\n",
    )
    write("config_utf16.toml", '[metrics.m]\ndirection = "lower"\n'.encode("utf-16"))
    write("config_latin1.toml", '[report]\ntitle = "r\u00e9sum\u00e9"\n'.encode("latin-1"))
    write("config_utf8_bom.toml", codecs.BOM_UTF8 + b'[metrics.m]\ndirection = "lower"\n')
    write("config_empty.toml", b"")


# ----------------------------------------------------------------------- Inspect logs


def _header(model: str, status: str = "success") -> dict[str, Any]:
    return {"version": 2, "status": status, "eval": {"task": "arith", "model": model}}


def _summaries(k: int = 0) -> list[dict[str, Any]]:
    return [
        {"id": i, "epoch": 1, "scores": {"match": {"value": "CI"[(i + k) % 2]}}}
        for i in range(1, 4)
    ]


def _eval_bytes(entries: dict[str, Any]) -> bytes:
    # stored, not deflated: the bytes do not depend on the zlib build
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as archive:
        for name, value in entries.items():
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
            archive.writestr(info, value if isinstance(value, (bytes, str)) else json.dumps(value))
    return out.getvalue()


def inspect_cases() -> None:
    good = _eval_bytes({"header.json": _header("mockllm/a"), "summaries.json": _summaries()})
    write("inspect_one_model.eval", good)
    write("inspect_truncated.eval", good[: len(good) // 2])
    write(
        "inspect_header_invalid_json.eval",
        _eval_bytes(
            {
                "header.json": '{"version": 2, "status": "success", "eval": {"task": ',
                "summaries.json": _summaries(),
            }
        ),
    )
    write(
        "inspect_no_eval.eval",
        _eval_bytes(
            {"header.json": {"version": 2, "status": "success"}, "summaries.json": _summaries()}
        ),
    )
    write(
        "inspect_no_samples.eval",
        _eval_bytes({"header.json": _header("mockllm/a"), "summaries.json": []}),
    )
    bad_value = _summaries()
    bad_value[1]["scores"]["match"]["value"] = "maybe"
    write(
        "inspect_bad_value.eval",
        _eval_bytes({"header.json": _header("mockllm/a"), "summaries.json": bad_value}),
    )
    huge_epoch = _summaries()
    huge_epoch[0]["epoch"] = 10**30
    write(
        "inspect_huge_epoch.eval",
        _eval_bytes({"header.json": _header("mockllm/a"), "summaries.json": huge_epoch}),
    )
    no_id = _summaries()
    del no_id[2]["id"]
    write(
        "inspect_no_id.eval",
        _eval_bytes({"header.json": _header("mockllm/a"), "summaries.json": no_id}),
    )
    # a byte of the header flipped: the CRC check fails
    corrupt = bytearray(good)
    start = corrupt.index(b"header.json") + len(b"header.json") + 5
    corrupt[start] ^= 0xFF
    write("inspect_crc_error.eval", bytes(corrupt))
    write("not_an_inspect_log.zip", _eval_bytes({"README.txt": "a zip of notes"}))
    log = json.dumps({**_header("mockllm/a"), "samples": _summaries()}, indent=1)
    write("inspect_truncated.json", log[: len(log) * 2 // 3])
    write(fresh("inspect_mismatched") + "/a.eval", good)
    write(
        "inspect_mismatched/b.eval",
        _eval_bytes(
            {
                "header.json": _header("mockllm/b"),
                "summaries.json": [{**s, "id": s["id"] + 2} for s in _summaries(1)],
            }
        ),
    )


# ----------------------------------------------------------------------- lm-eval folders

_DATE = "2026-01-01T00-00-00.000000"


def _lm_results(model: str, k: int) -> dict[str, Any]:
    return {
        "results": {"tiny": {"alias": "tiny", "acc,none": 0.5}},
        "group_subtasks": {"tiny": []},
        "configs": {"tiny": {"task": "tiny"}},
        "higher_is_better": {"tiny": {"acc": True}},
        "model_name": model,
        "config": {"model": "hf", "model_args": f"pretrained={model}"},
        "date": 1.0 + k,
    }


def _lm_samples(k: int) -> list[dict[str, Any]]:
    return [
        {
            "doc_id": i,
            "filter": "none",
            "metrics": ["acc"],
            "doc_hash": f"h{i}",
            "acc": float((i + k) % 2),
        }
        for i in range(3)
    ]


def lm_eval_folder(
    name: str,
    *,
    models: tuple[str, ...] = ("model-a", "model-b"),
    results: dict[str, Any] | None = None,
    samples: list[dict[str, Any]] | None = None,
    samples_text: str | None = None,
    keep_samples: bool = True,
) -> None:
    """An lm-eval output folder; the last model's files get the given damage."""
    fresh(name)
    for k, model in enumerate(models):
        last = k == len(models) - 1
        res = results if (last and results is not None) else _lm_results(model, k)
        write(f"{name}/{model}/results_{_DATE}.json", json.dumps(res, indent=1))
        if last and not keep_samples:
            continue
        if last and samples_text is not None:
            text = samples_text
        else:
            rows = samples if (last and samples is not None) else _lm_samples(k)
            text = "".join(json.dumps(r) + "\n" for r in rows)
        write(f"{name}/{model}/samples_tiny_{_DATE}.jsonl", text)


def lm_eval_cases() -> None:
    missing_field = _lm_samples(1)
    del missing_field[1]["acc"]
    lm_eval_folder("lm_eval_missing_field", samples=missing_field)
    no_doc_id = _lm_samples(1)
    del no_doc_id[2]["doc_id"]
    lm_eval_folder("lm_eval_no_doc_id", samples=no_doc_id)
    lm_eval_folder("lm_eval_no_samples", keep_samples=False)
    text = "".join(json.dumps(r) + "\n" for r in _lm_samples(1))
    lm_eval_folder("lm_eval_truncated_samples", samples_text=text[: len(text) - 30])
    lm_eval_folder("lm_eval_not_results", results={"results": ["tiny"], "model_name": "x"})
    lm_eval_folder(
        "lm_eval_no_model",
        results={k: v for k, v in _lm_results("x", 1).items() if k not in ("model_name", "config")},
    )
    lm_eval_folder("lm_eval_one_model", models=("model-a",))
    lm_eval_folder(
        "lm_eval_text_values",
        models=("model-a",),
        samples=[{**s, "acc": "yes"} for s in _lm_samples(0)],
    )


# ----------------------------------------------------------------------- HELM runs


def helm_cases() -> None:
    spec = {
        "name": "mmlu:subject=anatomy,model=org_model-a",
        "adapter_spec": {"model": "org/model-a", "model_deployment": "org/model-a"},
    }
    stats = [
        {
            "instance_id": f"id{i}",
            "train_trial_index": 0,
            "stats": [
                {
                    "name": {"name": "exact_match", "split": "test"},
                    "count": 1,
                    "sum": i % 2,
                    "mean": float(i % 2),
                }
            ],
        }
        for i in range(3)
    ]
    text = json.dumps(stats, indent=1)
    write(f"{fresh('helm_truncated')}/run_a/run_spec.json", json.dumps(spec, indent=1))
    write("helm_truncated/run_a/per_instance_stats.json", text[: len(text) // 2])
    negative = json.loads(text)
    negative[1]["stats"][0]["count"] = -1
    write(f"{fresh('helm_negative_count')}/run_a/run_spec.json", json.dumps(spec, indent=1))
    write("helm_negative_count/run_a/per_instance_stats.json", json.dumps(negative, indent=1))
    write(
        f"{fresh('helm_no_model')}/run_a/run_spec.json",
        json.dumps({"name": spec["name"], "adapter_spec": {}}, indent=1),
    )
    write("helm_no_model/run_a/per_instance_stats.json", text)


def main(out: Path = HERE) -> None:
    """Write every generated case into ``out``."""
    global _out
    _out = Path(out)
    text_cases()
    inspect_cases()
    lm_eval_cases()
    helm_cases()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
