"""docs/spec-coverage.md stays true: every requirement has a row, and every test it cites exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COVERAGE = (ROOT / "docs" / "spec-coverage.md").read_text()
REQUIREMENTS = ROOT / "docs" / "requirements.md"
ID = re.compile(r"^- \*\*([A-Z]-\d\d)\*\*", re.M)


def requirement_ids() -> list[str]:
    """The IDs docs/requirements.md lists, in its order; the file is the project's own list."""
    assert REQUIREMENTS.is_file(), "docs/requirements.md, the list of the spec's normative points, is missing"
    ids = ID.findall(REQUIREMENTS.read_text(encoding="utf-8"))
    assert ids, "docs/requirements.md lists no requirement IDs (lines like '- **S-01** ...')"
    return ids


def rows() -> dict[str, list[str]]:
    table = {}
    for line in COVERAGE.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and re.fullmatch(r"[A-Z]-\d\d", cells[0]):
            table[cells[0]] = cells
    return table


def test_the_requirements_list_names_each_id_once() -> None:
    ids = requirement_ids()
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})


def test_every_requirement_has_exactly_one_row() -> None:
    ids = requirement_ids()
    missing = sorted(set(ids) - set(rows()))
    assert not missing, f"docs/spec-coverage.md has no row for {missing}"
    unknown = sorted(set(rows()) - set(ids))
    assert not unknown, f"docs/spec-coverage.md has rows docs/requirements.md does not list: {unknown}"
    assert len(re.findall(r"^\| [A-Z]-\d\d \|", COVERAGE, re.M)) == len(ids)


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
