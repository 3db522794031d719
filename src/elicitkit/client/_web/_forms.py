"""A form on a web page: the widget for each field, and what the posted widgets mean as an answer.

The schema is read into fields by the same code the terminal UI uses (`elicitkit.schema.fields`,
through `_fields`), so both UIs agree on kinds, titles, required marks, parsing and checks. What
is web-only lives here: the HTML input for each kind, and the text each widget holds, which is
what the page posts.
A posted form is only text, so every value is read back and checked here, and then the whole
answer is checked with `elicitkit.schema.validate`: the browser's checks are a convenience.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from elicitkit.client._fields import (
    Field,
    NotAnAnswer,
    check,
    choose,
    form_fields,
    parse,
    problems_by_field,
    safe,
    show,
    span,
)
from elicitkit.client._ui import FormQuestion
from elicitkit.i18n import gettext as _
from elicitkit.schema import validate

Raw = str | list[str]
Step = Literal["edit", "review"]

#: The HTML input that asks for each string `format` (any other format is typed as text).
INPUTS = {"email": "email", "uri": "url", "date": "date", "date-time": "datetime-local"}
_RADIOS_UP_TO = 6


@dataclass(frozen=True)
class Widget:
    """One field as the page draws it; `value` is the text (or ticked indexes) the widget holds."""

    field: Field
    id: str
    input: str
    value: Raw
    attrs: Mapping[str, str]
    hint: str
    problem: str | None
    options: Sequence[tuple[str, str]] = ()

    @property
    def name(self) -> str:
        return "f:" + self.field.name


@dataclass
class Draft:
    """A form being filled: the widgets' text, the step (edit or review), and what is wrong."""

    question: FormQuestion
    fields: list[Field] = field(init=False)
    raw: dict[str, Raw] = field(init=False)
    problems: dict[str | None, str] = field(init=False)
    step: Step = "edit"
    focus: str | None = None
    content: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        self.fields = form_fields(self.question.schema)
        self.raw = {f.name: _raw(f, self.question.initial.get(f.name)) for f in self.fields}
        self.problems = problems_by_field(self.question.problems, self.raw)
        self.focus = next((f.name for f in self.fields if f.name in self.problems), None)

    def take(self, posted: Mapping[str, list[str]]) -> None:
        """Keep what the page posted for each field (absent boxes and radios mean nothing chosen)."""
        for f in self.fields:
            values = posted.get("f:" + f.name, [])
            self.raw[f.name] = list(values) if f.kind == "multi-select" else (values[0] if values else "")

    def check(self) -> bool:
        """Read and check every field, then the whole answer; True when it may be sent."""
        content: dict[str, Any] = {}
        problems: dict[str | None, str] = {}
        for f in self.fields:
            try:
                value = _read(f, self.raw[f.name])
            except ValueError as error:
                problems[f.name] = str(error)
                continue
            problem = check(f, value)
            if problem is not None:
                problems[f.name] = problem
            elif value is not None:
                content[f.name] = value
        if not problems:
            problems = problems_by_field(validate(self.question.schema, content), self.raw)
        self.problems = problems
        self.content = None if problems else content
        self.focus = next((f.name for f in self.fields if f.name in problems), None)
        return not problems

    def widgets(self) -> list[Widget]:
        return [_widget(f, i, self.raw[f.name], self.problems.get(f.name)) for i, f in enumerate(self.fields)]

    def review(self) -> list[tuple[Field, str]]:
        """Each field with its answer as a person reads it."""
        content = self.content or {}
        return [(f, show(f, content.get(f.name))) for f in self.fields]


# -- from an answer to what a widget holds -----------------------------------------------------


def _raw(f: Field, value: Any) -> Raw:
    if f.kind == "multi-select":
        chosen = value if isinstance(value, list) else []
        return [str(i) for i, (option, _) in enumerate(f.options) if any(_same(option, v) for v in chosen)]
    if value is None:
        return ""
    if f.kind == "boolean":
        return {True: "yes", False: "no"}.get(value, "") if isinstance(value, bool) else ""
    if f.kind == "single-select":
        return next((str(i) for i, (option, _) in enumerate(f.options) if _same(option, value)), "")
    if f.format == "date-time" and isinstance(value, str):
        return _local(value)
    if _is_number(value):
        return _number(value)
    return str(value)


def _same(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


def _local(value: str) -> str:
    """An RFC 3339 date-time as the wall-clock time a `datetime-local` input shows here."""
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        return value
    if moment.tzinfo is not None:
        moment = moment.astimezone().replace(tzinfo=None)
    return moment.isoformat(timespec="seconds")


# -- from what a widget holds to an answer -----------------------------------------------------


def _read(f: Field, raw: Raw) -> Any:
    """The JSON value the widget's text stands for; None is no answer. `NotAnAnswer` says what is wrong."""
    if f.kind == "multi-select":
        indexes = raw if isinstance(raw, list) else [raw]
        chosen = [_option(f, i) for i in indexes]
        return chosen if chosen or f.required else None
    text = raw if isinstance(raw, str) else ""
    if f.kind == "boolean":
        if text not in ("", "yes", "no"):
            raise NotAnAnswer(_("Choose yes or no."))
        return None if not text else text == "yes"
    if f.kind == "single-select":
        return _option(f, text) if text else None
    if f.format == "date-time" and text.strip():
        return _zoned(text.strip())
    return parse(f, text)


def _option(f: Field, index: str) -> Any:
    if not index.isdigit() or int(index) >= len(f.options):
        raise NotAnAnswer(_("Choose from the list."))
    return f.options[int(index)][0]


def _zoned(text: str) -> str:
    """A `datetime-local` value read as this computer's time, written with its UTC offset.

    The page is on 127.0.0.1, so the browser's clock and zone are this machine's.
    """
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        raise NotAnAnswer(_("Enter a date and time, like 2025-06-01 09:30.")) from None
    if moment.tzinfo is None:
        moment = moment.astimezone()
    return moment.isoformat(timespec="seconds")


# -- drawing -----------------------------------------------------------------------------------


def _widget(f: Field, index: int, raw: Raw, problem: str | None) -> Widget:
    attrs: dict[str, str] = {}
    if f.required and f.kind != "multi-select":
        attrs["required"] = "required"
    options: list[tuple[str, str]] = []
    if f.kind in ("single-select", "multi-select"):
        options = [(str(i), title) for i, (_, title) in enumerate(f.options)]
        if f.kind == "multi-select":
            kind = "checkbox"
            attrs.update(_numbers(("data-min", f.min_items), ("data-max", f.max_items)))
            if "data-min" in attrs:  # the browser's own message for the limit, in the page's language
                attrs["data-min-text"] = _("Choose at least %(minItems)s.") % {"minItems": f.min_items}
            if "data-max" in attrs:
                attrs["data-max-text"] = _("Choose at most %(maxItems)s.") % {"maxItems": f.max_items}
        else:
            kind = "radio" if len(options) <= _RADIOS_UP_TO else "select"
    elif f.kind == "boolean":
        kind = "yesno"
    elif f.kind in ("number", "integer"):
        kind = "number"
        attrs["step"] = "1" if f.kind == "integer" else "any"
        attrs.update(_numbers(("min", f.minimum), ("max", f.maximum)))
    else:
        kind = INPUTS.get(f.format or "", "text")
        if kind == "datetime-local":
            attrs["step"] = "1"
        else:
            attrs.update(_numbers(("minlength", f.min_length), ("maxlength", f.max_length)))
    return Widget(f, f"f{index}", kind, raw, attrs, _hint(f), problem, options)


def _numbers(*pairs: tuple[str, Any]) -> dict[str, str]:
    return {name: _number(value) for name, value in pairs if _is_number(value)}


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number(value: float) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _hint(f: Field) -> str:
    """The field's rules in words, for what the widget itself does not already say."""
    parts: list[str] = []
    if f.kind == "string":
        parts.append(span(f.min_length, f.max_length, characters=True, shown=_number))
        if f.pattern is not None:
            parts.append(_("must match the pattern %(pattern)s") % {"pattern": safe(f.pattern)})
        if f.format == "email":
            parts.append(_("an email address"))
        elif f.format == "uri":
            parts.append(_("a full URL, like https://example.com/ (kept as text, never opened)"))
        elif f.format == "date-time":
            parts.append(_("your local time (%(zone)s)") % {"zone": _zone()})
        elif f.format != "date" and (rules := f.format_rules) is not None:
            parts.append(safe(_(rules.hint)))  # a date input says how to write a date itself
    elif f.kind in ("number", "integer"):
        parts.append(_("a whole number") if f.kind == "integer" else _("a number"))
        parts.append(span(f.minimum, f.maximum, shown=_number))
    elif f.kind == "multi-select":
        parts.append(choose(f.min_items, f.max_items, shown=_number))
    return " · ".join(p for p in parts if p)


def _zone() -> str:
    offset = datetime.now().astimezone().strftime("%z")
    return f"UTC{offset[:3]}:{offset[3:]}" if offset else "UTC"
