"""Read the fenced blocks of a Markdown guide, so the tests can run every example in it.

A fence's info string is the language, then optional `key=value` words (GitHub shows only the
language). The tests give each kind a meaning:

- `pycon`: a REPL session; all of a page's sessions run in order, as one doctest.
- `python`: a script, run in its own interpreter; a `text output` block right after it holds
  what it must print. `file=NAME` also saves it as NAME for the commands that follow.
- `json file=NAME`: a file the commands that follow read.
- `console`: commands after `$ `, each followed by exactly what it prints.

A block with the word `fragment` (```` ```python fragment ````) is shown, never run; the prose
next to it tells the reader why (it is part of a program, or needs what a test cannot give).

What a block needs installed is the line the reader sees above it, in its own paragraph:
``Needs `pip install "elicitkit[web,sqlite]"` `` (any text may follow the closing backtick). It
covers the blocks after it up to the next heading of the same or a higher level than the one
it sits under, so a line under the page's `#` title covers the whole page. One block that needs
something else says so in its fence, `needs=cli` (extras, comma-separated), and in the prose
next to it, `pip install "elicitkit[cli]"`. The tests run each
example in a fresh venv with exactly that (see `docvenvs`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"

_FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)


@dataclass(frozen=True)
class Needs:
    """A `Needs` line: elicitkit's extras (empty for `elicitkit` bare) and the other requirements."""

    extras: frozenset[str]
    others: tuple[str, ...]
    line: int


@dataclass(frozen=True)
class Block:
    """One fenced block: its language, its `key=value` options, its text and where it starts."""

    lang: str
    options: dict[str, str]
    words: frozenset[str]
    body: str
    line: int
    output: str | None = field(default=None, compare=False)
    needs: Needs | None = field(default=None, compare=False)

    @property
    def where(self) -> str:
        return f"line {self.line}"


def blocks(page: str) -> list[Block]:
    """Every fenced block of docs/`page`, a `text output` block folded into the block before it."""
    text = (DOCS / page).read_text(encoding="utf-8")
    fences = list(_FENCE.finditer(text))
    found: list[Block] = []
    for match in fences:
        lang, *rest = match.group(1).split() or [""]
        options = dict(word.split("=", 1) for word in rest if "=" in word)
        words = frozenset(word for word in rest if "=" not in word)
        line = text.count("\n", 0, match.start()) + 1
        needs = needs_at(text, match.start(), fences)
        if "needs" in options:
            needs = Needs(frozenset(e for e in options["needs"].split(",") if e), (), line)
        block = Block(lang, options, words, match.group(2), line, None, needs)
        if lang == "text" and "output" in words and found and found[-1].lang == "python":
            previous = found.pop()
            block = Block(
                previous.lang,
                previous.options,
                previous.words,
                previous.body,
                previous.line,
                block.body,
                previous.needs,
            )
        found.append(block)
    return found


_NEEDS = re.compile(r"^Needs `pip install ([^`]+)`", re.MULTILINE)
_LEVEL = re.compile(r"^(#{1,6}) ", re.MULTILINE)


def needs_at(text: str, offset: int, fences: list[re.Match[str]] | None = None) -> Needs | None:
    """The `Needs` line that covers `offset` in `text`, if any (headings and lines in fences do not count)."""
    spans = [m.span() for m in (fences if fences is not None else _FENCE.finditer(text))]

    def prose(at: int) -> bool:
        return not any(start <= at < end for start, end in spans)

    headings = [(m.start(), len(m.group(1))) for m in _LEVEL.finditer(text, 0, offset) if prose(m.start())]
    for match in reversed([m for m in _NEEDS.finditer(text, 0, offset) if prose(m.start())]):
        above = [level for at, level in headings if at < match.start()]
        level = above[-1] if above else 0  # a line under the page's title covers the page
        if any(at > match.start() and lvl <= level for at, lvl in headings):
            continue
        extras: frozenset[str] = frozenset()
        others: list[str] = []
        for word in match.group(1).split():
            word = word.strip("'\"")
            if word.startswith("-"):
                continue
            if word == "elicitkit" or word.startswith("elicitkit["):
                extras = (
                    frozenset(e.strip() for e in word[len("elicitkit[") : -1].split(","))
                    if "[" in word
                    else extras
                )
            else:
                others.append(word)
        return Needs(extras, tuple(others), text.count("\n", 0, match.start()) + 1)
    return None


def commands(block: Block) -> list[tuple[str, str]]:
    """The (command, expected output) pairs of a `console` block."""
    pairs: list[tuple[str, list[str]]] = []
    for line in block.body.splitlines():
        if line.startswith("$ "):
            pairs.append((line[2:], []))
        else:
            assert pairs, f"{block.where}: a console block must start with '$ '"
            pairs[-1][1].append(line)
    return [(command, "\n".join(out)) for command, out in pairs]


_INSTALL = re.compile(r"pip install ([^\n`#]*)")
_HEADING = re.compile(r"^#{1,6} ", re.MULTILINE)


def extras_named(text: str, offset: int) -> frozenset[str] | None:
    """The elicitkit extras the last `pip install` of the section before `offset` names.

    A section runs from its heading to the next one; `None` when the section names no install.
    """
    headings = [m.start() for m in _HEADING.finditer(text, 0, offset)]
    section = text[headings[-1] if headings else 0 : offset]
    installs = [line for line in _INSTALL.findall(section) if "elicitkit" in line]
    if not installs:
        return None
    match = re.search(r"elicitkit\[([^\]]*)\]", installs[-1])
    return frozenset(e.strip() for e in match.group(1).split(",")) if match else frozenset()


def installs_named(text: str, offset: int) -> tuple[frozenset[str], tuple[str, ...]] | None:
    """What the last `pip install` of the section before `offset` installs: elicitkit's extras
    (empty when it names elicitkit bare, or not at all) and the other requirements it names."""
    headings = [m.start() for m in _HEADING.finditer(text, 0, offset)]
    section = text[headings[-1] if headings else 0 : offset]
    installs = _INSTALL.findall(section)
    if not installs:
        return None
    extras: frozenset[str] = frozenset()
    others: list[str] = []
    for word in installs[-1].split():
        word = word.strip("'\"")
        if word.startswith("-"):
            continue
        if word == "elicitkit" or word.startswith("elicitkit["):
            extras = extras_named(f"pip install {word}", len(word) + 12) or frozenset()
        else:
            others.append(word)
    return extras, tuple(others)
