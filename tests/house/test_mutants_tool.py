"""``make mutants``'s own counting (tools/mutants.py): a mutant is killed only when a test
failed; a survivor is accepted by what it changes, whatever number mutmut gives it; the
summary holds each module's figures, mutmut's version and the date. Run on a tiny module in
the form mutmut writes its mutants (each a function beside the original)."""

from __future__ import annotations

import json
from pathlib import Path

from tools.mutants import Row, accepted, change_of, row, tally, write_summary

# A module as mutmut writes it under mutants/: the original of each function and its mutants.
MUTATED = """
def add(a, b):
    return _trampoline(x_add__mutmut_orig, x_add__mutmut_mutants, a, b)


def x_add__mutmut_orig(a, b):
    total = a + b
    return total


def x_add__mutmut_1(a, b):
    total = a - b
    return total


def x_add__mutmut_2(a, b):
    total = None
    return total


class Box:
    def xǁBoxǁlabel__mutmut_orig(self):
        return "box".upper()

    def xǁBoxǁlabel__mutmut_1(self):
        return "XXboxXX".upper()
"""
PATTERN = "tiny.*"
EXITS = {
    "tiny.x_add__mutmut_1": 1,  # a test failed: killed
    "tiny.x_add__mutmut_2": 3,  # pytest's internal error: not a kill
    "tiny.xǁBoxǁlabel__mutmut_1": 0,  # every test passed: survived
    "tiny.x_add__mutmut_3": 36,  # timed out
    "tiny.x_add__mutmut_4": -11,  # crashed
    "tiny.x_add__mutmut_5": 33,  # no test ran it
    "tiny.x_add__mutmut_6": None,  # not run yet
    "other.x_add__mutmut_1": 1,  # another module's
}
ACCEPTED = """
# comment
[tiny.py]
Box.label: return "box".upper() => return "XXboxXX".upper()  ## upper() makes the marker moot
add: total = a + b => total = a - b
[other.py]
add: total = a + b => total = None  ## another module's, not tiny's
"""


def test_only_a_failed_test_kills_a_mutant() -> None:
    found = tally({"exit_code_by_key": EXITS}, PATTERN)
    assert (found.total, found.killed, found.unchecked) == (7, 1, 1)
    statuses = {m.name.rpartition(".")[2]: m.status for m in found.survivors}
    assert statuses == {
        "x_add__mutmut_2": "pytest internal error",
        "xǁBoxǁlabel__mutmut_1": "survived",
        "x_add__mutmut_3": "timeout",
        "x_add__mutmut_4": "crashed",
        "x_add__mutmut_5": "no test ran",
    }


def test_a_mutant_is_named_by_what_it_changes_in_its_function() -> None:
    assert change_of(MUTATED, "tiny.x_add__mutmut_1") == "add: total = a + b => total = a - b"
    assert change_of(MUTATED, "tiny.x_add__mutmut_2") == "add: total = a + b => total = None"
    assert change_of(MUTATED, "tiny.xǁBoxǁlabel__mutmut_1") == (
        'Box.label: return "box".upper() => return "XXboxXX".upper()'
    )


def test_accepted_survivors_are_keyed_by_module_and_change_and_need_a_reason() -> None:
    assert accepted(ACCEPTED) == {
        ("tiny.py", 'Box.label: return "box".upper() => return "XXboxXX".upper()'): (
            "upper() makes the marker moot"
        ),
        ("other.py", "add: total = a + b => total = None"): "another module's, not tiny's",
    }


def test_a_survivor_renumbered_by_mutmut_stays_accepted() -> None:
    ok = accepted(ACCEPTED)
    renumbered = MUTATED.replace("label__mutmut_1", "label__mutmut_7")
    exits = {"tiny.xǁBoxǁlabel__mutmut_7": 0, "tiny.x_add__mutmut_1": 0}
    line, left = row("tiny.py", tally({"exit_code_by_key": exits}, PATTERN, renumbered), ok)
    assert [m.name for m in left] == ["tiny.x_add__mutmut_1"]  # accepted without a reason
    assert (line.total, line.killed, line.survived, line.accepted) == (2, 0, 2, 1)


def test_an_accepted_change_that_crashed_or_timed_out_is_not_accepted() -> None:
    ok = {("tiny.py", "add: total = a + b => total = None"): "said equivalent"}
    exits = {"tiny.x_add__mutmut_2": 3}
    line, left = row("tiny.py", tally({"exit_code_by_key": exits}, PATTERN, MUTATED), ok)
    assert [m.status for m in left] == ["pytest internal error"] and line.accepted == 0


def test_the_score_leaves_out_the_accepted_and_the_summary_keeps_version_and_date(
    tmp_path: Path,
) -> None:
    rows = [Row("tiny.py", total=12, killed=9, survived=3, accepted=2, unchecked=0)]
    assert rows[0].score == 90.0
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "docs").mkdir()
    write_summary(rows, "3.8.1", "2026-11-28", tmp_path)
    data = json.loads((tmp_path / "benchmarks" / "mutants.json").read_text())
    assert (data["mutmut"], data["date"]) == ("3.8.1", "2026-11-28")
    assert data["modules"] == [
        {
            "module": "tiny.py",
            "total": 12,
            "killed": 9,
            "survived": 3,
            "accepted": 2,
            "unchecked": 0,
            "score": 90.0,
        }
    ]
    page = (tmp_path / "docs" / "mutants.md").read_text()
    assert "| `tiny.py` | 12 | 9 | 3 | 2 | 90.0% |" in page and "mutmut 3.8.1" in page
