"""A form-mode schema seen as a person's form: one `Field` per property, and what its text means.

Pure and UI-free, shared by the terminal and web UIs so both read and check answers alike;
the widgets only draw and the rules stay testable on their own.
`None` stands for "no answer": the schema subset has no null type, so it cannot collide.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Literal

from email_validator import EmailNotValidError, validate_email

from elicitkit import schema
from elicitkit.i18n import gettext as _
from elicitkit.i18n import noop
from elicitkit.schema import ValidationProblem

Kind = Literal["text", "number", "integer", "boolean", "choice", "multi"]

_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATE_TIME = re.compile(r"\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})")
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:\S+")
_INTEGER = re.compile(r"[+-]?\d+")

_EXAMPLES = {
    "email": "name@example.com",
    "uri": "https://example.com/",
    "date": "YYYY-MM-DD",
    "date-time": "YYYY-MM-DDTHH:MM:SSZ",
}
_FORMATS = {
    "email": noop("an email address"),
    "uri": noop("a full URL (kept as text, never opened)"),
    "date": noop("a date, YYYY-MM-DD"),
    "date-time": noop("a date and time with zone, YYYY-MM-DDTHH:MM:SSZ"),
}


@dataclass(frozen=True)
class Field:
    """One property of `requestedSchema`, classified into the widget that asks for it."""

    name: str
    title: str
    description: str
    kind: Kind
    required: bool
    schema: Mapping[str, Any]
    options: tuple[tuple[Any, str], ...] = ()

    @property
    def format(self) -> str | None:
        fmt = self.schema.get("format")
        return fmt if isinstance(fmt, str) else None


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


def form_fields(schema: Mapping[str, Any]) -> list[Field]:
    """The form's fields, in the schema's property order."""
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return []
    required = schema.get("required")
    required_names = set(required) if isinstance(required, list) else set()
    result = []
    for name, prop in properties.items():
        prop = prop if isinstance(prop, Mapping) else {}
        kind, options = _classify(prop)
        title = prop.get("title")
        description = prop.get("description")
        result.append(
            Field(
                name=str(name),
                title=safe(title) if isinstance(title, str) and title else safe(str(name)),
                description=safe(description) if isinstance(description, str) else "",
                kind=kind,
                required=name in required_names,
                schema=prop,
                options=options,
            )
        )
    return result


def _classify(prop: Mapping[str, Any]) -> tuple[Kind, tuple[tuple[Any, str], ...]]:
    kind = prop.get("type")
    if kind == "array":
        items = prop.get("items")
        return "multi", _options(items if isinstance(items, Mapping) else {})
    if kind in ("number", "integer", "boolean"):
        return kind, ()
    options = _options(prop)
    return ("choice", options) if options else ("text", ())


def _options(schema: Mapping[str, Any]) -> tuple[tuple[Any, str], ...]:
    """Titled `oneOf`/`anyOf` of `{const, title}`, or plain `enum` (titled by legacy `enumNames`)."""
    for key in ("oneOf", "anyOf"):
        titled = schema.get(key)
        if isinstance(titled, list):
            return tuple(
                (option["const"], safe(str(option.get("title") or option["const"])))
                for option in titled
                if isinstance(option, Mapping) and "const" in option
            )
    enum = schema.get("enum")
    if not isinstance(enum, list):
        return ()
    names = schema.get("enumNames")
    if isinstance(names, list) and len(names) == len(enum):
        return tuple((value, safe(str(name))) for value, name in zip(enum, names, strict=True))
    return tuple((value, safe(str(value))) for value in enum)


def hint(field: Field) -> str:
    """The field's constraints in words, shown before the person types."""
    s = field.schema
    parts: list[str] = []
    if field.kind == "text":
        parts.append(span(s.get("minLength"), s.get("maxLength"), characters=True))
        if isinstance(s.get("pattern"), str):
            parts.append(_("pattern %(pattern)s") % {"pattern": safe(s["pattern"])})
        if field.format in _FORMATS:
            parts.append(_(_FORMATS[field.format]))
    elif field.kind in ("number", "integer"):
        parts.append(_("a whole number") if field.kind == "integer" else _("a number"))
        parts.append(span(s.get("minimum"), s.get("maximum")))
    elif field.kind == "boolean":
        parts.append(_("yes or no"))
    elif field.kind == "choice":
        parts.append(_("one of %(count)d") % {"count": len(field.options)})
    elif field.kind == "multi":
        parts.append(choose(s.get("minItems"), s.get("maxItems")))
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
    s = field.schema
    if field.kind in ("number", "integer"):
        return _number_example(field.kind == "integer", s.get("minimum"), s.get("maximum"))
    if field.kind != "text":
        return ""
    shown = _EXAMPLES.get(field.format or "", "")
    if not shown or field.format in ("date", "date-time"):
        return shown  # a shape (YYYY-MM-DD), not a value: it says how to write any date
    return shown if _check_text(field, shown) is None else ""


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
    """Turn what the person typed into the JSON value; raise ValueError with a sentence if it is not one."""
    if not text.strip():
        return None
    if field.kind == "integer":
        if not _INTEGER.fullmatch(text.strip()):
            raise ValueError(
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
            raise ValueError(
                _like(field, _("Enter a number."), _("Enter a number, like %(example)s."))
            ) from None
        if not math.isfinite(number):
            raise ValueError(_("Enter a finite number."))
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
    s = field.schema
    if field.kind == "text":
        return _check_text(field, value)
    if field.kind in ("number", "integer"):
        if _is_number(s.get("minimum")) and value < s["minimum"]:
            return _("Must be at least %(minimum)s.") % s
        if _is_number(s.get("maximum")) and value > s["maximum"]:
            return _("Must be at most %(maximum)s.") % s
    if field.kind == "choice" and value not in [v for v, _ in field.options]:
        return _("Not one of the choices.")
    if field.kind == "multi":
        if not isinstance(value, list):
            return _("Choose from the list.")
        if isinstance(s.get("minItems"), int) and len(value) < s["minItems"]:
            return _("Choose at least %(minItems)s.") % s
        if isinstance(s.get("maxItems"), int) and len(value) > s["maxItems"]:
            return _("Choose at most %(maxItems)s.") % s
    return None


def _check_text(field: Field, value: str) -> str | None:
    s = field.schema
    if isinstance(s.get("minLength"), int) and len(value) < s["minLength"]:
        return _("Must be at least %(minLength)s characters.") % s
    if isinstance(s.get("maxLength"), int) and len(value) > s["maxLength"]:
        return _("Must be at most %(maxLength)s characters.") % s
    pattern = s.get("pattern")
    if isinstance(pattern, str):
        try:
            matches = schema.pattern_matches(pattern, value)
        except schema.PatternError:
            matches = True  # never reached: a schema with such a pattern is refused before any UI
        if not matches:
            return _("Must match the pattern %(pattern)s.") % {"pattern": safe(pattern)}
    fmt = field.format
    if fmt == "email":
        try:
            validate_email(value, check_deliverability=False)
        except EmailNotValidError:
            return _("Enter an email address, like name@example.com.")
    elif fmt == "uri" and not _SCHEME.fullmatch(value):
        return _("Enter a full URL, with its scheme, like https://example.com/.")
    elif fmt == "date" and not _valid(_DATE, value, date.fromisoformat):
        return _("Enter a date as YYYY-MM-DD, like 2025-06-01.")
    elif fmt == "date-time" and not _valid(_DATE_TIME, value, datetime.fromisoformat):
        return _("Enter a date and time with a time zone, like 2025-06-01T09:30:00Z.")
    return None


def _valid(shape: re.Pattern[str], value: str, reader: Any) -> bool:
    if not shape.fullmatch(value):
        return False
    try:
        reader(value.upper())
    except ValueError:
        return False
    return True


def show(field: Field, value: Any) -> str:
    """The answer as a person reads it on the review screen."""
    if value is None:
        return "—"
    if field.kind == "boolean":
        return _("yes") if value else _("no")
    titles = dict((_key(v), t) for v, t in field.options)
    if field.kind == "choice":
        return titles.get(_key(value), safe(str(value)))
    if field.kind == "multi":
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
