"""The README and the docs point only at what is in this repository, and quote the spec in English.

A reader of a clone has this repository and nothing beside it: every relative link must land
inside it, no page may send them to files of some other checkout, and the spec's words are
quoted as the spec writes them (English), with the IDs of docs/requirements.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
CJK = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")
#: Words that name files outside the repository: the steering checkout and its spec folder.
OUTSIDE = re.compile(r"\.\./shared|steering repo|spec/REQUIREMENTS\.md|\.zh\.txt")


def _prose(text: str) -> str:
    return re.sub(r"^```.*?^```", "", text, flags=re.MULTILINE | re.DOTALL)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_stay_in_the_repository(page: Path) -> None:
    for target in re.findall(r"\]\(([^)\s]+)\)", _prose(page.read_text(encoding="utf-8"))):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = (page.parent / target.partition("#")[0]).resolve()
        assert path.is_relative_to(ROOT), f"{page.name} links outside the repository: {target}"
        assert path.exists(), f"{page.name} links to missing {target}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_page_names_files_outside_the_repository(page: Path) -> None:
    found = [line for line in page.read_text(encoding="utf-8").splitlines() if OUTSIDE.search(line)]
    assert not found, f"{page.name} refers to files that are not in this repository: {found}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_spec_quotes_are_in_english(page: Path) -> None:
    quotes = [line for line in _prose(page.read_text(encoding="utf-8")).splitlines() if line.startswith(">")]
    translated = [line for line in quotes if CJK.search(line)]
    assert not translated, f"{page.name} quotes the spec in translation: {translated}"
