"""Damaged harness logs (issue 44, item 2): every real fixture of every adapter in
tests/fixtures/real, damaged at random, read through the command line.

Each file a harness wrote is damaged in the ways logs get damaged: a value replaced by
one of another type (text, a number, a list, an object, null, true), by ``NaN``,
``Infinity``, ``10**400`` or ``±1.7e308``, a list emptied, a value nested 100,000 levels
deep, a whole line nested so, the file cut at random bytes. The input that holds it (the
file, or the folder its adapter reads) is then given to ``reportgen inspect``. The
contract: exit status 0 (the damage hit a field reportgen does not read, or was
skipped with a reason) or 2 with one message (``reportgen: error: ...`` and at most a
hint line), never a traceback and never anything else. Before the error boundary of
:mod:`reportgen.data.adapters._boundary`, 62 of 1,830 such inputs raised something else
(AttributeError, TypeError, OverflowError, IndexError, RecursionError).

The mutations are seeded by the file's path, so every run tries the same inputs; the CI
variant tries a few per file (the module stays under a minute on one core), the
``slow`` one many more (``bash tests/run.sh -m slow tests/data/test_damaged_logs.py``).
New fixtures and new adapters are picked up as they are added.
"""

from __future__ import annotations

import functools
import gzip
import io
import json
import random
import shutil
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reportgen.cli import main
from reportgen.data import LoadOptions, load
from reportgen.errors import InputError

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
#: The suffixes of the files harnesses write (task data under make/ are not outputs).
SUFFIXES = (".json", ".jsonl", ".eval", ".parquet", ".csv", ".json.gz", ".jsonl.gz")
#: Mutations per file: structural (JSON) ones and cuts, in CI and in the slow variant.
FAST = {"values": 6, "cuts": 2}
SLOW = {"values": 60, "cuts": 12}

#: What a damaged value becomes ("10**400" and "deep" are written as raw JSON text).
VALUES: tuple[Any, ...] = (
    None,
    True,
    "",
    "x",
    0,
    -1,
    0.5,
    [],
    {},
    [1, "a"],
    {"a": None},
    float("nan"),
    float("inf"),
    float("-inf"),
    "10**400",
    1.7e308,
    -1.7e308,
    "deep",
)
_RAW = {
    '"10**400"': "1" + "0" * 400,
    '"deep"': "[" * 100_000 + "]" * 100_000,
}


def _files() -> list[Path]:
    return sorted(
        p
        for p in REAL.rglob("*")
        if p.is_file() and p.name.endswith(SUFFIXES) and "make" not in p.relative_to(REAL).parts
    )


def _loads(path: Path, strict: bool) -> bool:
    try:
        load(path, options=LoadOptions(strict_inputs=strict), min_systems=1)
    except InputError:
        return False
    return True


@functools.cache
def _input_of(file: Path) -> tuple[Path, bool] | None:
    """The smallest input holding ``file`` that reads cleanly as it is (the file itself,
    else a folder above it, up to its release folder), and whether it does with
    --strict-inputs. None for a file no input reads (a harness's bookkeeping file)."""
    release = _release_folder(file)
    for strict in (True, False):
        for candidate in [file, *file.parents]:
            if not candidate.is_relative_to(release):
                break
            if _loads(candidate, strict):
                return candidate, strict
    return None


def _release_folder(file: Path) -> Path:
    """The folder of one harness release's fixtures (``lighteval/0.13.0``), copied whole
    around a damaged file so that its input finds the files beside it."""
    return REAL.joinpath(*file.relative_to(REAL).parts[:2])


# --------------------------------------------------------------------------- mutations


def _nodes(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _nodes(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _nodes(item, (*path, index))


def _put(document: Any, path: tuple[Any, ...], value: Any) -> Any:
    if not path:
        return value
    node = document
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return document


def _dump(document: Any) -> str:
    text = json.dumps(document, allow_nan=True)
    for placeholder, raw in _RAW.items():
        text = text.replace(placeholder, raw)
    return text


def _damage_json(text: str, rng: random.Random) -> tuple[str, str]:
    """One value of a JSON (or JSON-lines) text replaced; what was done."""
    try:
        json.loads(text)
        lines = None
    except ValueError:
        lines = text.split("\n")
    if lines is None:
        document = json.loads(text)
        where = rng.choice(list(_nodes(document)))
        lists = [p for p in _nodes(document) if p and isinstance(_get(document, p), list)]
        value = [] if lists and rng.random() < 0.15 else rng.choice(VALUES)
        if value == [] and lists:
            where = rng.choice(lists)
        return _dump(_put(document, where, value)), f"{list(where)} <- {value!r}"
    numbered = [k for k, line in enumerate(lines) if line.strip()]
    k = rng.choice(numbered)
    if rng.random() < 0.1:
        lines[k] = _RAW['"deep"']
        return "\n".join(lines), f"line {k + 1} nested 100,000 deep"
    document = json.loads(lines[k])
    where = rng.choice(list(_nodes(document)))
    value = rng.choice(VALUES)
    lines[k] = _dump(_put(document, where, value))
    return "\n".join(lines), f"line {k + 1}: {list(where)} <- {value!r}"


def _get(document: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        document = document[key]
    return document


def _damage_eval(data: bytes, rng: random.Random) -> tuple[bytes, str] | None:
    """One JSON entry of an Inspect .eval archive damaged (DEFLATE or stored entries)."""
    archive = zipfile.ZipFile(io.BytesIO(data))
    entries = [
        i
        for i in archive.infolist()
        if i.filename.endswith(".json") and i.compress_type in (zipfile.ZIP_STORED, 8)
    ]
    if not entries:
        return None
    chosen = rng.choice(entries)
    text, what = _damage_json(archive.read(chosen).decode(), rng)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as new:
        for info in archive.infolist():
            if info.filename == chosen.filename:
                new.writestr(info.filename, text)
            elif info.compress_type in (zipfile.ZIP_STORED, 8):
                new.writestr(info, archive.read(info))
            else:  # an entry Python cannot expand (Zstandard) is kept as it was
                return None
    return out.getvalue(), f"{chosen.filename}: {what}"


def mutations(file: Path, counts: dict[str, int]) -> list[tuple[bytes, str]]:
    """The damaged versions of ``file``: seeded by its path, the same on every run."""
    rng = random.Random(str(file.relative_to(REAL)))
    data = file.read_bytes()
    out = []
    for _ in range(counts["cuts"]):
        cut = rng.randrange(1, len(data))
        out.append((data[:cut], f"cut at byte {cut}"))
    if file.name.endswith((".json.gz", ".jsonl.gz")):  # gzipped JSON, as judges keep it
        text = gzip.decompress(data).decode("utf-8")
        for _ in range(counts["values"]):
            damaged, what = _damage_json(text, rng)
            out.append((gzip.compress(damaged.encode()), f"gzipped: {what}"))
        deep = _RAW['"deep"'].encode() + b"\n" + text.encode()
        out.append((gzip.compress(deep), "gzipped: a first line nested 100,000 deep"))
    elif file.suffix in (".json", ".jsonl"):
        text = data.decode("utf-8")
        for _ in range(counts["values"]):
            damaged, what = _damage_json(text, rng)
            out.append((damaged.encode(), what))
        out.append((_RAW['"deep"'].encode() + b"\n" + data, "a first line nested 100,000 deep"))
    elif file.suffix == ".eval":
        for _ in range(counts["values"]):
            damaged = _damage_eval(data, rng)
            if damaged is not None:
                out.append(damaged)
    elif file.suffix in (".parquet", ".csv"):
        for _ in range(counts["values"] // 2):
            at = rng.randrange(len(data))
            flipped = data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]
            out.append((flipped, f"byte {at} flipped"))
    return out


# --------------------------------------------------------------------------- the test


def _check(file: Path, counts: dict[str, int], tmp_path: Path, capsys) -> int:
    # a file no input reads cleanly (a fixture of an error: HELM trials without their
    # run_spec.json) is damaged all the same, and its release folder read
    target, strict = _input_of(file) or (_release_folder(file), False)
    top = _release_folder(file)  # the whole output (a results file finds its details)
    tried = 0
    for k, (data, what) in enumerate(mutations(file, counts)):
        work = tmp_path / f"m{k}"
        shutil.copytree(top, work, symlinks=True)
        (work / file.relative_to(top)).write_bytes(data)
        argv = ["inspect", str(work / target.relative_to(top))]
        if strict:
            argv.append("--strict-inputs")
        capsys.readouterr()
        case = f"{file.relative_to(REAL)}, {what}"
        try:
            status = main(argv)
        except BaseException as exc:  # noqa: BLE001 - the failure names the damage
            pytest.fail(f"{case}: {type(exc).__name__}: {exc}"[:2000])
        err = capsys.readouterr().err
        assert status in (0, 2), f"{case}: exit status {status}\n{err}"
        assert "Traceback" not in err, f"{case}\n{err}"
        if status == 2:
            lines = [line for line in err.splitlines() if not line.startswith("reportgen: warn")]
            assert lines[0].startswith("reportgen: error: "), f"{case}\n{err}"
            assert all(line.startswith("  hint: ") for line in lines[1:]), f"{case}\n{err}"
            assert len(lines) <= 2, f"{case}\n{err}"
        shutil.rmtree(work)
        tried += 1
    return tried


@pytest.mark.parametrize("file", _files(), ids=lambda p: str(p.relative_to(REAL)))
def test_damaged_real_logs_exit_2_with_one_message(file, tmp_path, capsys):
    _check(file, FAST, tmp_path, capsys)


@pytest.mark.slow
@pytest.mark.parametrize("file", _files(), ids=lambda p: str(p.relative_to(REAL)))
def test_damaged_real_logs_many_more(file, tmp_path, capsys):
    _check(file, SLOW, tmp_path, capsys)


def test_every_adapter_has_a_real_fixture_damaged():
    # the fuzzing covers each harness format reportgen reads (the generic tables have
    # their own fuzzing, tests/test_fuzz_inputs.py)
    from reportgen.data.adapters import _REGISTRY, adapter_names, detect_format

    adapter_names()
    covered = set()
    for file in _files():
        found = _input_of(file)
        if found is not None:
            try:
                covered.add(detect_format(found[0]).name)
            except InputError:
                continue
    harnesses = {name for name, a in _REGISTRY.items() if not a.generic}
    assert harnesses - covered <= {"eval-arena"}  # its real files are in ../shared/data


# ------------------------------------------------------------ through the real CLI

_CASES = {
    # file, the damage, the exit status: each printed a traceback and exited 1 before
    # (AttributeError, OverflowError, TypeError, IndexError). A description or a hint
    # that is not what promptfoo or lighteval write is ignored, as it should be; a score
    # of 10**400 is infinite, left out with a warning (--nonfinite drop); an OpenCompass
    # result with no items is an error naming the file.
    "promptfoo-wrong-type": (
        "promptfoo/0.120.0/results.json",
        lambda d: _put(d, ("results", "results", 19, "testCase"), float("inf")),
        0,
    ),
    "deepeval-10**400": (
        "deepeval/4.3.1/bad/.deepeval/.latest_test_run.json",
        lambda d: _put(d, ("testRunData", "testCases", 3, "metricsData", 0, "score"), "10**400"),
        0,
    ),
    "deepeval-nan-cases": (
        "deepeval/4.3.1/good/.deepeval/.latest_test_run.json",
        lambda d: _put(d, ("testRunData", "conversationalTestCases"), float("nan")),
        2,
    ),
    "lighteval-nan-metrics": (
        "lighteval/0.13.0/out/results/toy/good/results_2026-11-26T12-46-54.823861.json",
        lambda d: _put(d, ("config_tasks", "toy_add|0"), float("nan")),
        0,
    ),
    "opencompass-empty-details": (
        "opencompass/0.5.4/out/20261126_131758/results/toy-good/toy_add.json",
        lambda d: _put(d, ("details",), []),
        2,
    ),
}


@pytest.mark.parametrize("name", [*_CASES, "deep-jsonl-in-a-folder"])
def test_damaged_logs_through_the_command_line(name, tmp_path):
    if name == "deep-jsonl-in-a-folder":
        # a 100,000-deep .jsonl in a searched folder (RecursionError in the folder sniff)
        root = tmp_path / "runs"
        shutil.copytree(REAL / "evalplus" / "0.3.1" / "greedy", root / "greedy")
        (root / "greedy" / "deep.jsonl").write_text(_RAW['"deep"'] + "\n")
        target, expect = root, 0
    else:
        relative, damage, expect = _CASES[name]
        source = REAL / relative
        found = _input_of(source)
        assert found is not None
        given = found[0]
        top = _release_folder(source)
        shutil.copytree(top, tmp_path / "in", symlinks=True)
        copy = tmp_path / "in" / source.relative_to(top)
        copy.write_text(_dump(damage(json.loads(source.read_text()))))
        target = tmp_path / "in" / given.relative_to(top)
    proc = subprocess.run(
        [sys.executable, "-m", "reportgen", "inspect", str(target)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == expect, proc.stderr
    assert "Traceback" not in proc.stderr
    if expect == 2:
        first, *rest = proc.stderr.splitlines()
        assert first.startswith(f"reportgen: error: {tmp_path / 'in'}"), proc.stderr
        assert all(line.startswith("  hint: ") for line in rest), proc.stderr
    elif name == "deep-jsonl-in-a-folder":
        (line,) = [x for x in proc.stdout.splitlines() if "deep.jsonl" in x]
        assert "skipped: not read: cannot tell the format of this file" in line
    elif name == "deepeval-10**400":
        assert "Infinity, not a finite number" in proc.stdout


# ------------------------------------------------------------ the boundary itself


class _Fragile:
    """An adapter written without a thought for damaged input: whatever its file holds
    that it did not expect raises what Python raises."""

    def __init__(self, fault: BaseException) -> None:
        self.fault = fault

    def __call__(self):
        from reportgen.data.adapters import Adapter
        from reportgen.data.adapters._base import read_json
        from reportgen.errors import Location

        fault = self.fault

        class Fragile(Adapter):
            name = "fragile"
            description = "Fragile harness output (fragile.json)"
            priority = 1

            def sniff(self, path, head):
                return path.name.endswith(".fragile.json")

            def read(self, path, options):
                records = read_json(path)
                for number, record in enumerate(records, start=1):
                    where = Location(str(path), number, f"records[{number - 1}].score")
                    if record.get("bad"):
                        raise fault
                    del where
                raise AssertionError("the fault was not met")

        return Fragile()


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        (AttributeError("'float' object has no attribute 'get'"), "a number where"),
        (TypeError("'NoneType' object is not iterable"), "null where"),
        (KeyError("doc_id"), "the field 'doc_id' is missing"),
        (IndexError("list index out of range"), "a list is shorter"),
        (OverflowError("int too large to convert to float"), "too large for a floating"),
        (RecursionError("maximum recursion depth exceeded"), "nest deeper"),
        (MemoryError(), "more memory than there is"),
        (ValueError("could not convert string to float: 'x'"), "a value the harness"),
    ],
    ids=lambda v: type(v).__name__ if isinstance(v, BaseException) else None,
)
def test_adapter_boundary_names_file_record_and_fault(fault, words, tmp_path, monkeypatch, capsys):
    # a new adapter gets the boundary from the registry's dispatch, without code of its own
    from reportgen.data import adapters

    adapters._ensure_builtins()
    monkeypatch.setitem(adapters._REGISTRY, "fragile", _Fragile(fault)())
    path = tmp_path / "run.fragile.json"
    path.write_text('[{"score": 1}, {"score": 2}, {"bad": true}]')
    with pytest.raises(InputError) as raised:
        adapters.read_inputs(path)
    error = raised.value
    assert type(error).__name__ == "MalformedInputError"
    assert str(error.location) == f"{path}, line 3, column 'records[2].score'"
    assert error.message.startswith("cannot read this Fragile output: ")
    assert words in error.message and type(fault).__name__ in error.message
    assert "write it again with the harness" in str(error.hint)
    assert error.__cause__ is fault  # kept for whoever debugs the adapter
    # through the command line: exit 2, one message and its hint
    assert main(["inspect", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"reportgen: error: {path}, line 3") and "Traceback" not in err
    assert len(err.strip().splitlines()) == 2


def test_adapter_boundary_file_system_errors(tmp_path, monkeypatch):
    from reportgen.data import adapters
    from reportgen.errors import FileSystemError

    adapters._ensure_builtins()
    denied = PermissionError(13, "Permission denied", str(tmp_path / "details.parquet"))
    monkeypatch.setitem(adapters._REGISTRY, "fragile", _Fragile(denied)())
    path = tmp_path / "run.fragile.json"
    path.write_text('[{"bad": true}]')
    with pytest.raises(FileSystemError, match="cannot be read: permission denied") as raised:
        adapters.read_inputs(path)
    assert str(raised.value.location) == str(tmp_path / "details.parquet")


@pytest.mark.parametrize("value", ["1.7e308", "-1.7e308", "8.99e307"])
def test_scores_whose_differences_overflow_exit_2(value, tmp_path, capsys):
    # before: OverflowError (math range error) in the analysis of ±1.7e308
    rows = ["system,dataset,metric,item,score"] + [
        f"{s},qa,acc,q{i},{value if (s, i) == ('a', 3) else i % 2}"
        for s in ("a", "b")
        for i in range(8)
    ]
    path = tmp_path / "scores.csv"
    path.write_text("\n".join(rows) + "\n")
    assert main(["analyze", str(path), "--out", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"reportgen: error: {path}, line 5, column 'score': score ")
    assert "is too large: the difference of two scores beyond ±8.988e+307" in err
    assert "Traceback" not in err and not (tmp_path / "r").exists()
    # the largest score allowed is read
    path.write_text("\n".join(rows).replace(value, "8.98e307") + "\n")
    assert main(["inspect", str(path)]) == 0
