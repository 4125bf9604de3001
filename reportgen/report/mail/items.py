"""The release e-mail's items lost and gained: a pointer to them in the report, and, only
when ``reportgen email --email-items`` asks for it, the first lost items with their
text.

Item text is what models wrote: it may be confidential and it is hostile input, so the
e-mail carries none by default. With ``--email-items`` the first :data:`MAIL_ITEMS`
lost items (the order of ``tables/flips.csv``: per dataset × metric, the largest losses
first) are shown with their input and both outputs, each cut to :data:`MAIL_CHARS`
characters, escaped in the HTML part and shown with visible escapes in the text part
(:func:`reportgen.plaintext.shown`).
"""

from __future__ import annotations

import csv
import html as _html
from pathlib import Path
from typing import Any

from reportgen.plaintext import count, shown

__all__ = ["MAIL_CHARS", "MAIL_ITEMS", "items_part"]

#: Lost items the e-mail shows with their text under --email-items.
MAIL_ITEMS = 3
#: Characters of one text the e-mail shows.
MAIL_CHARS = 300


def _cut(text: str | None) -> str:
    if not text:
        return "(none in the log)"
    return text if len(text) <= MAIL_CHARS else text[:MAIL_CHARS] + "…"


def _esc(text: str) -> str:
    return _html.escape(shown(text, keep_lines=True), quote=True)


def items_part(comparison: Any, folder: Path | None = None) -> tuple[list[str], str]:
    """The text lines and the HTML of the e-mail's items part: where the items lost and
    gained are (always, when the release has any), and with ``folder`` (``--email-items``)
    the first lost items with their text read from its ``tables/flips.csv``."""
    flips = list(comparison.flips)
    n = sum(f.n_lost + f.n_gained for f in flips)
    if not n:
        return [], ""
    where = (
        f"The {count(n, 'changed item')}, with their inputs and both outputs where the logs "
        "hold them: report.html, section Items lost and gained (#release-flips), and "
        "tables/flips.csv."
    )
    lines, parts = ["  " + where], [f"<p>{_html.escape(where)}</p>"]
    if folder is None:
        return lines, "".join(parts)
    path = folder / "tables" / "flips.csv"
    if not path.is_file():
        return lines, "".join(parts)
    lost = {(f.dataset, f.metric, i) for f in flips for i, x in zip(f.items, f.lost) if x}
    with path.open(newline="", encoding="utf-8") as fh:
        rows = [
            r
            for r in csv.DictReader(fh)
            if (r.get("dataset"), r.get("metric"), r.get("item")) in lost
            and r.get("candidate_output") is not None
        ]
    chosen = rows[:MAIL_ITEMS]
    if not chosen:
        return lines, "".join(parts)
    lines += ["", f"FIRST LOST ITEMS ({len(chosen)} of {len(lost)}; --email-items)"]
    parts.append(f"<h3>First lost items ({len(chosen)} of {len(lost)})</h3>")
    for row in chosen:
        name = f"{row['dataset']} / {row['metric']}: item {row['item']}"
        fields = [
            (label, value)
            for label, value in (
                ("input", row.get("input")),
                ("target", row.get("target")),
                ("baseline", row.get("baseline_output")),
                ("candidate", row.get("candidate_output")),
            )
            if value or label != "target"
        ]
        lines.append(f"  - {name}")
        # one list entry per line: a line break in a text is shown as \n, never a new line
        lines += [f"      {label}: {_cut(value)}" for label, value in fields]
        parts.append(
            f"<p><strong>{_esc(name)}</strong></p><ul>"
            + "".join(
                f'<li>{label}: <pre style="white-space: pre-wrap; overflow-wrap: anywhere">'
                f"{_esc(_cut(value))}</pre></li>"
                for label, value in fields
            )
            + "</ul>"
        )
    return lines, "".join(parts)
