"""Tie groups at scale (issue 34 item 6): letters up to 8 groups, numbered groups beyond;
either way two systems share a label exactly when they share a group of the compact letter
display (the reference: the groups themselves, checked pair by pair)."""

from __future__ import annotations

import itertools

from reportgen.analysis.ledger.ties import MAX_LETTERED_GROUPS, tie_heading, tie_labels
from reportgen.stats import compact_letter_display


def _shares(label_a: str, label_b: str, numbered: bool) -> bool:
    if not numbered:
        return bool(set(label_a) & set(label_b))

    def members(label: str) -> set[int]:
        out: set[int] = set()
        for part in label.split(", "):
            lo, _, hi = part.partition("–")
            out.update(range(int(lo), int(hi or lo) + 1))
        return out

    return bool(members(label_a) & members(label_b))


def _display(n: int, reach: int):
    # systems in mean order; a pair differs when they are more than `reach` apart
    names = [f"sys{k:02d}" for k in range(n)]
    significant = [
        (names[i], names[j]) for i, j in itertools.combinations(range(n), 2) if j - i > reach
    ]
    return compact_letter_display(names, significant)


def test_few_groups_keep_their_letters() -> None:
    cld = _display(6, 2)
    assert len(cld.labels) <= MAX_LETTERED_GROUPS
    assert tie_labels(cld) == dict(zip(cld.systems, cld.letters))
    assert tie_heading(cld) == "tie group"


def test_many_groups_are_numbered_and_mean_the_same_ties() -> None:
    cld = _display(40, 3)  # 37 groups: letters would run "abcd", ..., "HIJK"
    assert len(cld.labels) > MAX_LETTERED_GROUPS
    labels = tie_labels(cld)
    assert tie_heading(cld) == "tie groups (numbered)"
    assert labels["sys00"] == "1" and labels["sys05"] == "3–6"
    assert max(len(v) for v in labels.values()) <= len("37–37")
    groups = [set(g) for g in cld.groups]
    for a, b in itertools.combinations(cld.systems, 2):
        together = any(a in g and b in g for g in groups)
        assert _shares(labels[a], labels[b], numbered=True) == together, (a, b)


def test_no_display_no_labels() -> None:
    assert tie_labels(None) == {} and tie_heading(None) == "tie group"


def test_tie_labels_of_record_against_the_display_itself() -> None:
    """The e-mail reads the display from results.json: it shows the labels the report
    shows (numbers beyond 8 groups), and says which kind a reader shares (issue 42: "sharing
    a letter" where the groups were numbered). Reference: tie_labels of the display."""
    from reportgen.analysis.ledger.ties import tie_labels_of_record, tie_word

    for cld in (_display(6, 2), _display(40, 3)):
        labels = tie_labels_of_record(cld.to_dict())
        assert labels == tie_labels(cld)
        numbered = len(cld.labels) > MAX_LETTERED_GROUPS
        assert tie_word(labels) == ("a number" if numbered else "a letter")
    assert tie_labels_of_record(None) == {} and tie_labels_of_record({"systems": []}) == {}
