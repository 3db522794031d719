"""The sentences of `validate`'s problems: each a gettext template (marked with `noop`) and its
values, so a problem's `message` is English and `ValidationProblem.say` speaks any language.
Only a failing answer comes here."""

from __future__ import annotations

from typing import Any

from elicitkit.i18n import noop

__all__ = ["NOT_A", "Listed", "Sentence", "cut", "cut_list", "json_type", "sentence"]

Sentence = tuple[str, str, dict[str, Any], tuple[str, ...]]
"""A problem's code, its template, the template's values, and which values are themselves messages."""

NOT_A = noop("%(name)s must be %(wanted)s, not %(got)s.")


_SHOWN = 80  # characters of a value (or a field name) repeated in a problem's sentence


def cut(value: Any) -> str:
    """`repr(value)`, cut to a length a sentence can carry: no echo of a megabyte."""
    shown = repr(value)
    return shown if len(shown) <= _SHOWN else shown[: _SHOWN - 1] + "…"


class Listed(str):
    """A list cut for a sentence: its English text (a `str`, read as before wherever it goes), and
    the items `shown` and how many were left out (`more`), so a template of its own says the
    "and N more" whole in any language instead of gluing an English tail on."""

    shown: str
    more: int

    def __new__(cls, shown: str, more: int = 0) -> Listed:
        text = super().__new__(cls, f"{shown} and {more} more" if more > 0 else shown)
        text.shown, text.more = shown, max(more, 0)
        return text


def cut_list(values: list[Any], most: int = 10) -> str:
    """The first `most` values for a sentence, as a `Listed`."""
    return Listed(", ".join(cut(v) for v in values[:most]), len(values) - most)


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return noop("a boolean")
    if isinstance(value, int):
        return noop("an integer")
    if isinstance(value, float):
        return noop("a number")
    if isinstance(value, str):
        return noop("a string")
    if isinstance(value, list | tuple):
        return noop("a list")
    if isinstance(value, dict):
        return noop("an object")
    return type(value).__name__


def sentence(
    kind: str,
    ctx: dict[str, Any],
    value: Any,
    loc: tuple[int | str, ...],
    choices: str,
    known: str,
) -> Sentence:
    """The code, template, values and terms of one of pydantic's errors, said as elicitkit says it.

    `ctx` holds the field's `pattern`, `min_length` and `max_length` (see `_validate._limits`)."""
    if kind in ("extra_forbidden", "invalid_key"):
        if known in ("", "no fields"):  # a form without fields
            return "unknown-field", _NO_FIELDS, {}, ()
        template, values = _listed(_KNOWN, "known", known)
        return "unknown-field", template, values, ()
    if kind == "missing":
        return "missing", noop("%(name)s is required; give it a value."), {}, ()
    if kind == "string_pattern_mismatch":
        template = noop("%(name)s must match the pattern %(pattern)s; %(got)s does not.")
        return "pattern", template, {"pattern": cut(ctx["pattern"]), "got": cut(value)}, ()
    if kind in ("string_too_short", "string_too_long"):
        short = kind == "string_too_short"
        code, template, limit = (
            (
                "too-short",
                noop("%(name)s must be at least %(limit)s characters long, not %(got)s."),
                "min_length",
            )
            if short
            else (
                "too-long",
                noop("%(name)s must be at most %(limit)s characters long, not %(got)s."),
                "max_length",
            )
        )
        return code, template, {"limit": ctx[limit], "got": len(value)}, ()
    if kind in ("too_short", "too_long"):
        limit = ctx["min_length" if kind == "too_short" else "max_length"]
        template = _COUNTS[kind, limit == 1]
        return _COUNT_CODES[kind], template, {"limit": limit, "got": len(value)}, ()
    if kind == "literal_error":
        template, params = _listed(_CHOICES[len(loc) > 1], "choices", choices)
        params["got"] = cut(value)
        if len(loc) > 1:
            params["item"] = loc[1]
        return "not-a-choice", template, params, ()
    if kind == "string_unicode":
        return (
            "wrong-type",
            noop("%(name)s must be valid Unicode text (it holds an unpaired surrogate)."),
            {},
            (),
        )
    expected = _EXPECTED.get(kind)
    if expected is not None:
        return "wrong-type", NOT_A, {"wanted": expected, "got": json_type(value)}, ("wanted", "got")
    return "invalid", noop("%(name)s is not valid: %(kind)s."), {"kind": kind}, ()


def _listed(templates: tuple[str, str], name: str, listed: str) -> tuple[str, dict[str, Any]]:
    """The template for a list (the second when items were left out) and its values."""
    if isinstance(listed, Listed) and listed.more:
        return templates[1], {name: listed.shown, "more": listed.more}
    return templates[0], {name: listed}


_NO_FIELDS = noop("%(name)s is not a field of this form; remove it (the form asks for no fields).")
_KNOWN = (
    noop("%(name)s is not a field of this form; remove it (the form asks for %(known)s)."),
    noop("%(name)s is not a field of this form; remove it (the form asks for %(known)s and %(more)s more)."),
)
_CHOICES = {
    False: (
        noop("%(name)s has %(got)s, which is not one of its choices: %(choices)s."),
        noop("%(name)s has %(got)s, which is not one of its choices: %(choices)s and %(more)s more."),
    ),
    True: (
        noop("%(name)s has item %(item)s (%(got)s), which is not one of its choices: %(choices)s."),
        noop(
            "%(name)s has item %(item)s (%(got)s), which is not one of its choices: %(choices)s and "
            "%(more)s more."
        ),
    ),
}
_EXPECTED = {
    "string_type": noop("a string"),
    "bool_type": noop("a boolean"),
    "list_type": noop("a list of choices"),
}
_COUNT_CODES = {"too_short": "too-few", "too_long": "too-many"}
_COUNTS = {
    ("too_short", True): noop("%(name)s must have at least %(limit)s choice, not %(got)s."),
    ("too_short", False): noop("%(name)s must have at least %(limit)s choices, not %(got)s."),
    ("too_long", True): noop("%(name)s must have at most %(limit)s choice, not %(got)s."),
    ("too_long", False): noop("%(name)s must have at most %(limit)s choices, not %(got)s."),
}
