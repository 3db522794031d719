"""docs/spec-coverage.md stays true: every requirement has a row, and every test it cites exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COVERAGE = (ROOT / "docs" / "spec-coverage.md").read_text()
REQUIREMENTS = ROOT.parent / "shared" / "spec" / "REQUIREMENTS.md"

# The IDs of REQUIREMENTS.md (revision 2025-11-25 plus the 2026-07-28 points), kept here so the
# check also runs where the steering repo's copy is not beside the project.
IDS = [
    "C-01",
    "S-01",
    "C-02",
    "S-02",
    "C-03",
    "S-03",
    "C-04",
    "S-10",
    "S-11",
    "S-12",
    "S-13",
    "C-10",
    "C-11",
    "C-12",
    "S-20",
    "S-21",
    "S-22",
    "S-23",
    "C-20",
    "C-21",
    "S-24",
    "C-22",
    "C-23",
    "C-24",
    "R-01",
    "S-30",
    "S-31",
    "S-32",
    "S-33",
    "S-34",
    "S-35",
    "C-30",
    "C-31",
    "M-01",
    "M-02",
    "M-03",
    "M-04",
]


def rows() -> dict[str, list[str]]:
    table = {}
    for line in COVERAGE.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and re.fullmatch(r"[A-Z]-\d\d", cells[0]):
            table[cells[0]] = cells
    return table


def test_every_requirement_has_exactly_one_row() -> None:
    assert sorted(rows()) == sorted(IDS)
    assert len(re.findall(r"^\| [A-Z]-\d\d \|", COVERAGE, re.M)) == len(IDS)


def test_the_id_list_matches_the_steering_requirements_where_they_are_at_hand() -> None:
    if REQUIREMENTS.exists():  # beside the project in CI and in development; absent in a bare clone
        listed = re.findall(r"^- ([A-Z]-\d\d) ", REQUIREMENTS.read_text(), re.M)
        assert sorted(listed) == sorted(IDS)


def test_every_row_names_code_and_a_test_unless_it_says_what_is_missing() -> None:
    for rid, (_, _, status, enforced, tests) in rows().items():
        assert status, f"{rid} has no status"
        if status.startswith("todo"):
            continue
        assert enforced and tests, f"{rid} is marked {status!r} but names no code or no test"


def test_every_cited_test_exists() -> None:
    missing = []
    for path, names in re.findall(r"`?(tests/[\w/]+\.py)((?:::\w+(?:\[[^\]]*\])?)?)", COVERAGE):
        file = ROOT / path
        if not file.exists():
            missing.append(path)
            continue
        for name in re.findall(r"::(\w+)", names):
            if not re.search(rf"def {name}\b", file.read_text()):
                missing.append(f"{path}::{name}")
    # `::other_test` continuations after a first citation refer to the same file
    for path, rest in re.findall(
        r"(tests/[\w/]+\.py)::\w+(?:\[[^\]]*\])?`((?:, `::\w+(?:\[[^\]]*\])?`)+)", COVERAGE
    ):
        for name in re.findall(r"::(\w+)", rest):
            if not re.search(rf"def {name}\b", (ROOT / path).read_text()):
                missing.append(f"{path}::{name}")
    assert not missing, f"docs/spec-coverage.md cites tests that do not exist: {sorted(set(missing))}"
