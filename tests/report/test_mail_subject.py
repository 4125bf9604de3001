"""The e-mail's subject names a leader only when the first place is not shared, and its
counts agree with their nouns (issue 34: "no leader named where the first place is
tied", "1 metrics")."""

from __future__ import annotations

from reportgen.analysis import Ledger
from reportgen.report.mail.summary import _leader


def _ordered(names: list[str], significant: dict[tuple[str, str], bool] | dict) -> Ledger:
    """The ledger of a results.json whose ranking across datasets has these pairs."""
    pairs = (
        [{"system_a": a, "system_b": b, "significant": s} for (a, b), s in significant.items()]
        if "table" not in significant
        else []
    )
    entry = {
        "kind": "ordered",
        "lists": ["d1", "d2"],
        "systems": [{"system": n, "rank": k + 1, "score": 0.0} for k, n in enumerate(names)],
        "pairs": pairs,
    }
    return Ledger.from_results({"format_version": 1, "rankings": [entry]})


def test_a_leader_only_when_it_differs_from_every_other_system() -> None:
    clear = _ordered(["a", "b", "c"], {("a", "b"): True, ("a", "c"): True, ("b", "c"): False})
    assert _leader(clear) == ", leader a"
    two = _ordered(["a", "b", "c"], {("a", "b"): False, ("a", "c"): True, ("b", "c"): True})
    assert _leader(two) == ", first place shared by a and b"
    # the runner-up is tied with the first, the third differs from the second only:
    # the first place is still shared with the second, not with the third
    three = _ordered(["a", "b", "c", "d"], {("a", "b"): False, ("c", "a"): False, ("a", "d"): True})
    assert _leader(three) == ", first place shared by 3 systems"


def test_no_leader_named_when_the_pairs_are_not_at_hand() -> None:
    partial = _ordered(["a", "b", "c"], {("a", "b"): True})  # (a, c) unknown
    assert _leader(partial) == ""
    unresolved = _ordered(["a", "b"], {"table": "x"})  # pairs in a table not read back
    assert _leader(unresolved) == ""
    assert _leader(_ordered(["a"], {})) == ""
