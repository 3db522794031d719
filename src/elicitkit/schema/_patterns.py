"""The one engine that evaluates a schema's `pattern`: linear in the input, never backtracking.

A `pattern` comes from whoever wrote the schema, which on the client is a server nobody vetted.
Python's `re` backtracks, so `(a+)+$` against a few dozen characters can hold the event loop for
minutes. The engine here is the Rust `regex` crate that pydantic-core already ships (its
`rust-regex` engine): finite automata, time linear in the text, compiled size capped, and it
refuses what it cannot run that way (backreferences, lookaround). Such a pattern is reported as
a problem with a sentence, never handed to something slower. `lint`, `validate`, `defaults`, the
client's field checks and the CLI all come through here.

Why not google-re2: the same guarantees, but its Python binding costs about 13 µs per search
(16 times Python's `re`, and it halved `validate`'s throughput on a schema with one pattern);
pydantic-core's engine costs under 1 µs and adds no dependency.
"""

from __future__ import annotations

import functools
from typing import Final

from pydantic_core import SchemaError, SchemaValidator
from pydantic_core import core_schema as cs

from elicitkit.errors import ElicitationError

MAX_PATTERN_LENGTH = 1_000
"""Characters in one pattern; longer ones are refused (a form field needs nothing near this)."""

ENGINE: Final = "rust-regex"
"""pydantic-core's name for the engine; `validate` passes it to `str_schema` with the pattern."""

_CACHE_SIZE = 256
"""Compiled patterns kept: a field's checks run its pattern on every keystroke and answer."""


class PatternError(ElicitationError, ValueError):
    """A `pattern` the linear-time engine cannot run; the message says why, in a sentence."""


def _compiled(pattern: str) -> SchemaValidator:
    found = _compile(pattern)
    if isinstance(found, str):
        raise PatternError(found)
    return found


def pattern_problem(pattern: object) -> str | None:
    """Why `pattern` cannot be used (a sentence without a final stop), or None when it can."""
    if not isinstance(pattern, str):
        return "the pattern is not a string"
    try:
        _compiled(pattern)
    except PatternError as exc:
        return str(exc)
    return None


def pattern_matches(pattern: str, text: str) -> bool:
    """Whether `pattern` matches anywhere in `text` (JSON Schema patterns are not anchored).

    Text that is not valid Unicode (an unpaired surrogate) matches nothing; a pattern the engine
    cannot run raises `PatternError`.
    """
    return _compiled(pattern).isinstance_python(text)


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _compile(pattern: str) -> SchemaValidator | str:
    """The pattern compiled, or why it cannot be (a sentence without a final stop)."""
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"the pattern is {len(pattern)} characters long; at most {MAX_PATTERN_LENGTH} are allowed"
    try:
        return SchemaValidator(cs.str_schema(pattern=pattern, regex_engine=ENGINE, strict=True))
    except SchemaError as exc:
        return _reason(str(exc))


def _reason(detail: str) -> str:
    said = detail.rsplit("error: ", 1)[-1].strip() if "error: " in detail else detail.strip()
    said = said.splitlines()[-1] if said else "unreadable"
    if "look-around" in said:
        return (
            "the pattern uses lookaround, which a linear-time engine cannot run; "
            "rewrite it without (?=, (?!, (?<= or (?<!"
        )
    if "backreferences" in said:
        return (
            "the pattern uses a backreference, which a linear-time engine cannot run; "
            "rewrite it without \\1-style references"
        )
    if "size limit" in said:
        return "the pattern compiles too large to run in bounded memory; simplify it"
    return f"the pattern is not a regular expression this client can run ({said[:200]})"
