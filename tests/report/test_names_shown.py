"""Names are shown, never obeyed (issue 32): a system name holding U+202E, a line break
or an escape sequence is written as a visible escape in the console, in errors and
warnings, in the text e-mail, in the HTML and in the PDF made from it (chart labels
included: vl-convert aborts on a label holding ESC).

The reference of what must be escaped is ``unicodedata`` (general category Cc, Zl, Zp;
the explicit bidirectional formatting classes of Unicode TR #9 and the three implicit
marks); the outputs are checked as a reader gets them (stdout, the parsed message, the
HTML text).
"""

from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
import unicodedata
import warnings
from pathlib import Path

import numpy as np
import pytest

from reportgen.cli import main
from reportgen.errors import InputError, Location, ReportgenWarning
from reportgen.plaintext import shown
from reportgen.report.mail import MailError, build_message, read_report_folder
from reportgen.report.render.html import escape

RLO = "\u202e"
HOSTILE = (
    "base",
    f"gpt{RLO}4-evil",
    "two\nreportgen: all 12 checks passed",
    "esc\x1b]0;pwn\x07",
)
#: Explicit bidirectional formatting (TR #9, table 4) and the implicit marks.
BIDI = {"LRE", "RLE", "LRO", "RLO", "PDF", "LRI", "RLI", "FSI", "PDI"}
MARKS = {"\u200e", "\u200f", "\u061c"}


def _acts(char: str) -> bool:
    return (
        unicodedata.category(char) in ("Cc", "Zl", "Zp")
        or unicodedata.bidirectional(char) in BIDI
        or char in MARKS
    )


def test_shown_against_unicodedata():
    # every code point: escaped exactly when unicodedata says it acts rather than shows
    for code in range(0x30000):
        char = chr(code)
        if 0xD800 <= code <= 0xDFFF:
            continue
        escaped = shown(char) != char
        assert escaped == _acts(char), (hex(code), unicodedata.name(char, "?"))
        if escaped:
            assert shown(char).isascii() and shown(char).isprintable()


def test_shown_keep_lines_keeps_only_newline_and_tab():
    text = "a\nb\tc\u2028d\re" + RLO
    assert shown(text, keep_lines=True) == "a\nb\tc\\u2028d\\re\\u202e"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    rng = np.random.default_rng(1)
    path = tmp_path_factory.mktemp("hostile") / "scores.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["system", "dataset", "metric", "item", "score"])
        for k, name in enumerate(HOSTILE):
            for i in range(60):
                writer.writerow([name, "qa", "acc", f"q{i}", int(rng.random() < 0.4 + 0.15 * k)])
    return path


def _clean(text: str) -> None:
    """No character that acts, and no forged line, reaches the reader."""
    assert RLO not in text and "\x1b" not in text and "\x07" not in text
    assert not any(line.startswith("reportgen: all 12") for line in text.splitlines())


def test_console_output_shows_names_escaped(hostile, tmp_path, capfd):
    assert main(["analyze", str(hostile), "--out", str(tmp_path / "r"), "--n-resamples", "99"]) == 0
    out, err = capfd.readouterr()
    _clean(out + err)
    assert "gpt\\u202e4-evil" in out and "two\\nreportgen: all 12" in out


def test_errors_and_warnings_are_one_line_whatever_the_name(capfd):
    error = InputError(
        f"unknown system {HOSTILE[2]!s}", location=Location(f"a{RLO}.csv"), hint="fix it"
    )
    lines = str(error).splitlines()
    assert len(lines) == 2 and lines[1] == "  hint: fix it"
    _clean(str(error))
    from reportgen import cli

    with warnings.catch_warnings():
        warnings.showwarning = cli._show_warning
        warnings.simplefilter("always")
        warnings.warn(f"system {HOSTILE[2]} has one item", ReportgenWarning, stacklevel=1)
    err = capfd.readouterr().err
    assert err.count("\n") == 1
    _clean(err)


def test_html_escape_shows_bidi_and_controls():
    assert escape(f"<{RLO}>\x1b") == "&lt;\\u202e&gt;\\x1b"
    assert escape("قاعدة") == "قاعدة"  # right-to-left letters are names too


@pytest.fixture(scope="module")
def hostile_report(hostile, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("hostile-report") / "r"
    assert (
        main(
            [
                "run",
                str(hostile),
                "--out",
                str(out),
                "--format",
                "html,pdf",
                "--n-resamples",
                "199",
                "--seed",
                "3",
                "--quiet",
            ]
        )
        == 0
    )
    return out


def test_html_key_findings_escape_names(hostile_report):
    html = (hostile_report / "report.html").read_text(encoding="utf-8")
    # the text a reader sees: without the charts (SVG labels are drawn, not read as text)
    text = re.sub(r"<svg.*?</svg>", "", html, flags=re.S)
    text = re.sub(r"<script.*?</script>", "", text, flags=re.S)
    assert RLO not in text and "\x1b" not in text
    assert "gpt\\u202e4-evil" in text
    assert "<strong>esc\\x1b]0;pwn\\x07</strong>" in text  # a key finding


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="needs poppler's pdftotext")
def test_pdf_text_shows_names_escaped(hostile_report):
    # poppler: pdftotext report.pdf - (the text a reader copies out of the PDF)
    text = subprocess.run(
        ["pdftotext", str(hostile_report / "report.pdf"), "-"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert RLO not in text and "\x1b" not in text
    assert "gpt\\u202e4-evil" in text


def test_text_email_lines_cannot_be_forged(hostile_report):
    msg = build_message(
        read_report_folder(hostile_report),
        sender="bot@example.org",
        to=["ana@example.org"],
        attach=False,
        charts=False,
    )
    text = msg.get_body(("plain",)).get_content()
    html = msg.get_body(("html",)).get_content()
    _clean(text)
    assert RLO not in html and "\x1b" not in html
    assert RLO not in str(msg["Subject"])


@pytest.mark.parametrize("char", ["\x0b", "\x0c", "\x1c", "\u2028", "\x85"])
def test_email_subject_with_a_line_break_is_refused(hostile_report, char):
    with pytest.raises(MailError, match="--subject contains a line break or a control"):
        build_message(
            read_report_folder(hostile_report),
            sender="bot@example.org",
            to=["ana@example.org"],
            subject=f"weekly{char}Bcc: x@evil.example",
            attach=False,
            charts=False,
        )


def test_email_subject_with_a_line_break_exits_2_from_the_cli(hostile_report, capfd):
    status = main(
        [
            "email",
            str(hostile_report),
            "--to",
            "ana@example.org",
            "--from",
            "bot@example.org",
            "--subject",
            "weekly\x0bBcc: x@evil.example",
            "--eml",
            str(hostile_report.parent / "m.eml"),
            "--no-attach",
            "--no-charts",
        ]
    )
    err = capfd.readouterr().err
    assert status == 2 and "Traceback" not in err and "\\x0b" in err


def test_console_that_cannot_encode_a_name_escapes_it(hostile, tmp_path):
    import os

    proc = subprocess.run(
        [sys.executable, "-m", "reportgen", "inspect", str(hostile)],
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "ascii", "LC_ALL": "C"},
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode("ascii", "replace")
    assert b"Traceback" not in proc.stderr
    assert proc.stdout.isascii() and b"gpt\\u202e4-evil" in proc.stdout
