"""A form-mode schema seen as a person's form: one `Field` per property, and what its text means.

Pure and UI-free, shared by the terminal and web UIs so both read and check answers alike;
the widgets only draw and the rules stay testable on their own.
`None` stands for "no answer": the schema subset has no null type, so it cannot collide.
"""

from __future__ import annotations

import dataclasses
import math
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from elicitkit import schema
from elicitkit.errors import ElicitationError
from elicitkit.i18n import gettext as _
from elicitkit.i18n import noop
from elicitkit.schema import Field, ValidationProblem

__all__ = [
    "Field",
    "NotAnAnswer",
    "check",
    "choose",
    "editable",
    "example",
    "form_fields",
    "hint",
    "listing",
    "parse",
    "problems_by_field",
    "safe",
    "show",
    "span",
]

_INTEGER = re.compile(r"[+-]?\d+")


class NotAnAnswer(ElicitationError, ValueError):
    """What the person typed is not a value of the field; the message, in their words, says what to enter."""


#: What the person is told to type when a value is not in its format; a format without a
#: sentence here is told what `schema.FORMATS` describes it as.
_ENTER = {
    "email": noop("Enter an email address, like name@example.com."),
    "uri": noop("Enter a full URL, with its scheme, like https://example.com/."),
    "date": noop("Enter a date as YYYY-MM-DD, like 2025-06-01."),
    "date-time": noop("Enter a date and time with a time zone, like 2025-06-01T09:30:00Z."),
}
_NOT_A = noop("%(name)s must be %(wanted)s, not %(got)s.")


def safe(text: str) -> str:
    """Make untrusted text inert on a terminal: control and bidi characters become visible escapes.

    Server names, messages and URLs come from the server; an escape sequence in them could
    repaint the screen and forge the very prompt a person is trusting.
    """
    out = []
    for ch in text:
        if ch in "\n\t" or unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp"):
            out.append(ch)
        else:
            out.append(f"\\u{ord(ch):04x}")
    return "".join(out)


def form_fields(requested: Mapping[str, Any]) -> list[Field]:
    """The form's fields (`schema.fields`), their texts made inert for a screen (`safe`)."""
    return [
        dataclasses.replace(
            f,
            title=safe(f.title),
            description=safe(f.description),
            options=tuple(schema.Option(o.const, safe(o.title)) for o in f.options),
        )
        for f in schema.fields(requested)
    ]


def hint(field: Field) -> str:
    """The field's constraints in words, shown before the person types."""
    parts: list[str] = []
    if field.kind == "string":
        parts.append(span(field.min_length, field.max_length, characters=True))
        if field.pattern is not None:
            parts.append(_("pattern %(pattern)s") % {"pattern": safe(field.pattern)})
        if (rules := field.format_rules) is not None:
            parts.append(safe(_(rules.hint)))
    elif field.kind in ("number", "integer"):
        parts.append(_("a whole number") if field.kind == "integer" else _("a number"))
        parts.append(span(field.minimum, field.maximum))
    elif field.kind == "boolean":
        parts.append(_("yes or no"))
    elif field.kind == "single-select":
        parts.append(_("one of %(count)d") % {"count": len(field.options)})
    elif field.kind == "multi-select":
        parts.append(choose(field.min_items, field.max_items))
    return " · ".join(p for p in parts if p)


def span(low: Any, high: Any, *, characters: bool = False, shown: Callable[[Any], str] = str) -> str:
    """A range in words ("2 to 5 characters", "at least 1"), in the current language."""
    low, high = (v if _is_number(v) else None for v in (low, high))
    values = {"low": shown(low), "high": shown(high)}
    if low is not None and high is not None:
        return (_("%(low)s to %(high)s characters") if characters else _("%(low)s to %(high)s")) % values
    if low is not None:
        return (_("at least %(low)s characters") if characters else _("at least %(low)s")) % values
    if high is not None:
        return (_("at most %(high)s characters") if characters else _("at most %(high)s")) % values
    return ""


def choose(low: Any, high: Any, *, shown: Callable[[Any], str] = str) -> str:
    """How many of a multi-choice to tick, in words: one message per case, so each language
    words it whole (Chinese puts "at least" before the verb, English after)."""
    low, high = (v if _is_number(v) else None for v in (low, high))
    values = {"low": shown(low), "high": shown(high)}
    if low is not None and high is not None:
        return _("choose %(low)s to %(high)s") % values
    if low is not None:
        return _("choose at least %(low)s") % values
    if high is not None:
        return _("choose at most %(high)s") % values
    return _("choose any")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def example(field: Field) -> str:
    """A faint example shown in an empty typed field, so the expected shape is plain.

    It obeys the field's own rules (bounds, lengths, pattern): an example the field would
    refuse teaches the wrong thing, so a field with no fitting example gets none.
    """
    if field.kind in ("number", "integer"):
        return _number_example(field.kind == "integer", field.minimum, field.maximum)
    rules = field.format_rules
    if field.kind != "string" or rules is None:
        return ""
    if rules.placeholder is not None:
        return safe(rules.placeholder)  # a shape (YYYY-MM-DD), not a value: it says how to write any
    return safe(rules.example) if _check_text(field, rules.example) is None else ""


def _number_example(integer: bool, low: Any, high: Any) -> str:
    """42 (or 3.5) when the bounds allow it, else the middle of the range, or its one bound."""
    low = low if _is_number(low) else None
    high = high if _is_number(high) else None
    if integer:  # the whole numbers inside the bounds
        low = None if low is None else math.ceil(low)
        high = None if high is None else math.floor(high)
    if low is not None and high is not None and low > high:
        return ""  # nothing fits; such a schema is refused before any UI anyway
    value: float = 42 if integer else 3.5
    if (low is not None and value < low) or (high is not None and value > high):
        if low is not None and high is not None:
            value = (low + high) // 2 if integer else (low + high) / 2
        else:
            value = low if low is not None else high
    return _plain(value)


def _plain(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def editable(field: Field, value: Any) -> str:
    """The text a typed field starts with, from a pre-filled value."""
    if value is None:
        return ""
    return str(value)


def parse(field: Field, text: str) -> Any:
    """Turn what the person typed into the JSON value, or raise `NotAnAnswer` with a sentence."""
    if not text.strip():
        return None
    if field.kind == "integer":
        if not _INTEGER.fullmatch(text.strip()):
            raise NotAnAnswer(
                _like(field, _("Enter a whole number."), _("Enter a whole number, like %(example)s."))
            )
        return int(text.strip())
    if field.kind == "number":
        stripped = text.strip()
        if _INTEGER.fullmatch(stripped):
            return int(stripped)
        try:
            number = float(stripped)
        except ValueError:
            raise NotAnAnswer(
                _like(field, _("Enter a number."), _("Enter a number, like %(example)s."))
            ) from None
        if not math.isfinite(number):
            raise NotAnAnswer(_("Enter a finite number."))
        return number
    return text


def _like(field: Field, plain: str, with_example: str) -> str:
    """The sentence with the field's own example, or without one when none fits."""
    shown = example(field)
    return with_example % {"example": shown} if shown else plain


def check(field: Field, value: Any) -> str | None:
    """The first thing wrong with `value` for this field, as a sentence; None if it is fine."""
    if value is None:
        return _("This answer is required.") if field.required else None
    if field.kind == "string":
        return _check_text(field, value)
    if field.kind in ("number", "integer"):
        if field.minimum is not None and value < field.minimum:
            return _("Must be at least %(minimum)s.") % {"minimum": field.minimum}
        if field.maximum is not None and value > field.maximum:
            return _("Must be at most %(maximum)s.") % {"maximum": field.maximum}
    if field.kind == "single-select" and value not in [v for v, _ in field.options]:
        return _("Not one of the choices.")
    if field.kind == "multi-select":
        if not isinstance(value, list):
            return _("Choose from the list.")
        if field.min_items is not None and len(value) < field.min_items:
            return _("Choose at least %(minItems)s.") % {"minItems": field.min_items}
        if field.max_items is not None and len(value) > field.max_items:
            return _("Choose at most %(maxItems)s.") % {"maxItems": field.max_items}
    return None


def _check_text(field: Field, value: str) -> str | None:
    if field.min_length is not None and len(value) < field.min_length:
        return _("Must be at least %(minLength)s characters.") % {"minLength": field.min_length}
    if field.max_length is not None and len(value) > field.max_length:
        return _("Must be at most %(maxLength)s characters.") % {"maxLength": field.max_length}
    if field.pattern is not None:
        try:
            matches = schema.pattern_matches(field.pattern, value)
        except schema.PatternError:
            matches = True  # never reached: a schema with such a pattern is refused before any UI
        if not matches:
            return _("Must match the pattern %(pattern)s.") % {"pattern": safe(field.pattern)}
    rules = field.format_rules
    if rules is not None and not rules.accepts(value):
        if rules.name in _ENTER:
            return _(_ENTER[rules.name])
        return _(_NOT_A) % {"name": field.title, "wanted": safe(_(rules.described)), "got": safe(repr(value))}
    return None


def show(field: Field, value: Any) -> str:
    """The answer as a person reads it on the review screen."""
    if value is None:
        return "—"
    if field.kind == "boolean":
        return _("yes") if value else _("no")
    titles = dict((_key(v), t) for v, t in field.options)
    if field.kind == "single-select":
        return titles.get(_key(value), safe(str(value)))
    if field.kind == "multi-select":
        chosen = [titles.get(_key(v), safe(str(v))) for v in value]
        return listing(chosen) if chosen else _("none")
    return safe(str(value))


def listing(items: Iterable[str]) -> str:
    """Items in a row, with the current language's separator (Chinese lists with "、")."""
    return _(", ").join(items)


def _key(value: Any) -> str:
    return repr(value)


def problems_by_field(problems: Sequence[ValidationProblem], known: Collection[str]) -> dict[str | None, str]:
    """Group problems by field, one sentence each; a problem about no known field goes under None."""
    grouped: dict[str | None, str] = {}
    for problem in problems:
        where = problem.field if problem.field in known else None
        message = safe(problem.say(_))
        grouped[where] = f"{grouped[where]} {message}" if where in grouped else message
    return grouped
