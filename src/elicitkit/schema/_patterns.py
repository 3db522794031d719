"""The one engine that evaluates a schema's `pattern`: RE2, linear in the input, never backtracking.

A `pattern` comes from whoever wrote the schema, which on the client is a server nobody vetted.
Python's `re` backtracks, so `(a+)+$` against a few dozen characters can hold the event loop for
minutes. RE2 runs in time linear in the text and memory bounded by `max_mem`, and it refuses
what it cannot run that way (backreferences, lookaround): such a pattern is reported as a
problem with a sentence, never evaluated by something slower. `lint`, `validate`, `defaults`,
the client's field checks and the CLI all come through here.
"""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock

import re2

MAX_PATTERN_LENGTH = 1_000
"""Characters in one pattern; longer ones are refused (a form field needs nothing near this)."""

_MAX_MEM = 1 << 20  # bytes RE2 may spend on one compiled pattern
_CACHE_SIZE = 256

_options = re2.Options()
_options.max_mem = _MAX_MEM
_options.log_errors = False

_cache: OrderedDict[str, re2._Regexp[str] | str] = OrderedDict()
_lock = Lock()


class PatternError(ValueError):
    """A `pattern` the linear-time engine cannot run; the message says why, in a sentence."""


def compile_pattern(pattern: str) -> re2._Regexp[str]:
    """The compiled `pattern` (cached), or `PatternError` with a sentence saying why not."""
    with _lock:
        found = _cache.get(pattern)
    if found is None:
        found = _compile(pattern)
        with _lock:
            _cache[pattern] = found
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    if isinstance(found, str):
        raise PatternError(found)
    return found


def pattern_problem(pattern: object) -> str | None:
    """Why `pattern` cannot be used (a sentence), or None when it can."""
    if not isinstance(pattern, str):
        return "the pattern is not a string"
    try:
        compile_pattern(pattern)
    except PatternError as exc:
        return str(exc)
    return None


def pattern_matches(pattern: str, text: str) -> bool:
    """Whether `pattern` matches anywhere in `text` (JSON Schema patterns are not anchored).

    Text that is not valid Unicode (an unpaired surrogate) matches nothing; a pattern the engine
    cannot run raises `PatternError`.
    """
    compiled = compile_pattern(pattern)
    try:
        return compiled.search(text) is not None
    except UnicodeEncodeError:
        return False


def _compile(pattern: str) -> re2._Regexp[str] | str:
    if len(pattern) > MAX_PATTERN_LENGTH:
        return f"the pattern is {len(pattern)} characters long; at most {MAX_PATTERN_LENGTH} are allowed"
    try:
        return re2.compile(pattern, _options)
    except re2.error as exc:
        return _reason(exc)
    except (TypeError, ValueError) as exc:  # e.g. a string holding an unpaired surrogate
        return f"the pattern cannot be read ({exc})"


def _reason(exc: re2.error) -> str:
    detail = exc.args[0] if exc.args else ""
    if isinstance(detail, bytes):
        detail = detail.decode("utf-8", "replace")
    detail = str(detail)
    if "invalid perl operator: (?=" in detail or "(?!" in detail or "(?<" in detail:
        return (
            "the pattern uses lookaround, which a linear-time engine cannot run; "
            f"rewrite it without (?=, (?!, (?<= or (?<! ({detail})"
        )
    if "invalid escape sequence: \\" in detail and detail[-1:].isdigit():
        return (
            "the pattern uses a backreference, which a linear-time engine cannot run; "
            f"rewrite it without \\1-style references ({detail})"
        )
    if "pattern too large" in detail:
        return "the pattern is too large to run in bounded memory; simplify it"
    return f"the pattern is not a regular expression this client can run ({detail})"
