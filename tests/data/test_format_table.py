"""The README's format table lists every registered input format with what it reads and
an example command (issue 43, item 7); the registry is the reference."""

from __future__ import annotations

import re
from pathlib import Path

from reportgen.data.adapters import adapter_names

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_format_table_against_the_registry() -> None:
    text = README.read_text(encoding="utf-8")
    section = text.split("## Inputs: what reportgen reads", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        match = re.match(r"\| `([a-z-]+)` \| (.+) \| (.+) \|$", line)
        if match:
            rows[match[1]] = (match[2], match[3])
    rows.pop("--format", None)  # the header
    assert set(rows) == set(adapter_names())
    for name, (reads, example) in rows.items():
        assert len(reads) > 20, name
        assert re.search(r"`reportgen (run|analyze|inspect) ", example), name
