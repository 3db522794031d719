"""`validate`: strict check of an accepted form answer against its `requestedSchema`.

A schema is compiled once onto one pydantic-core validator (a strict TypedDict, with the format,
number and multi-select rules as small validator functions; unknown keys refused), kept by the
schema's JSON text (REQUIREMENTS S-13, C-12). A valid answer costs writing that text and one
pass through the validator; only a failing one pays for turning pydantic's errors into sentences.

Strict means JSON types are taken as they are: "5" is not 5, true is not 1, and 5.0 is an
integer (as JSON Schema says) while 5.5 is not; an int or float of a subclass (an `IntEnum`,
`numpy.float64`) is the number it holds. A multi-select may name each choice once.

Problem codes (stable): `invalid-schema`, `not-an-object`, `unknown-field`, `missing`,
`wrong-type`, `too-short`, `too-long`, `pattern`, `format`, `not-a-choice`, `too-small`,
`too-large`, `too-few`, `too-many`, `duplicate`, `invalid`.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import CoreSchema, SchemaError, SchemaValidator, ValidationError
from pydantic_core import core_schema as cs

from elicitkit.i18n import noop
from elicitkit.schema import _patterns
from elicitkit.schema._checks import (
    Said,
    in_format,
    no_duplicates,
    not_in_format,
    number,
    number_problem,
    repeated,
)
from elicitkit.schema._sentences import cut, cut_list, json_type, sentence
from elicitkit.schema._subset import (
    ANNOTATIONS,
    FORMATS,
    KEYWORDS,
    TOP_KEYWORDS,
    Kind,
    choices_of,
    kind_of,
    pointer,
)

_CACHE_SIZE = 256
"""Compiled schemas kept: a server that sees ever new schemas holds at most this many."""


@dataclass(frozen=True)
class ValidationProblem:
    """One thing wrong with an answer. `field` is the property name, or None for the whole answer.

    `message` is in English; `say(gettext)` gives it in a person's language from its gettext
    `template`, its values (`params`) and which of them are themselves messages (`terms`).
    """

    field: str | None
    code: str
    message: str
    template: str = dataclasses.field(default="", compare=False, repr=False)
    params: tuple[tuple[str, str], ...] = dataclasses.field(default=(), compare=False, repr=False)
    terms: tuple[str, ...] = dataclasses.field(default=(), compare=False, repr=False)

    def say(self, gettext: Callable[[str], str]) -> str:
        """The sentence in the language of `gettext` (a UI's `Translator.gettext`)."""
        if not self.template:
            return self.message
        return gettext(self.template) % {k: gettext(v) if k in self.terms else v for k, v in self.params}


def validate(schema: Mapping[str, Any], content: Any) -> list[ValidationProblem]:
    """Return every problem with `content`; an empty list means valid. Never raises on JSON input."""
    try:
        text = json.dumps(schema, separators=(",", ":"), allow_nan=False, default=_plain)
    except (TypeError, ValueError, RecursionError):
        return [_NOT_JSON]
    compiled = _compiled(text)
    if compiled.validator is None:
        return list(compiled.broken)
    try:
        compiled.validator.validate_python(content)
    except ValidationError as exc:
        return _explain(exc, compiled)
    return []


@functools.lru_cache(maxsize=_CACHE_SIZE)
def _compiled(text: str) -> _Compiled:
    """The schema whose JSON text is `text`, compiled.

    Keyed by the text itself, not the schema object: an equal schema built anew (each request
    read from the wire) finds the validator already built, and a schema edited in place since
    is a different text, so it is compiled again. The text keeps the properties' order, which
    is the form's own (problems and the list of fields follow it)."""
    return _compile(json.loads(text))


class _BadSchema(Exception):
    """The schema cannot be compiled; carries the problem to report instead."""

    def __init__(self, field: str | None, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


@dataclass(frozen=True)
class _Compiled:
    """A schema ready to check answers: its validator, or the reason it has none."""

    validator: SchemaValidator | None
    broken: tuple[ValidationProblem, ...] = ()
    # Written once with the validator, so a failing answer's sentences cost no schema walk:
    # each field's choices as a sentence shows them, and the list of the form's fields.
    choices: dict[str, str] = field(default_factory=dict)
    known: str = "no fields"
    shown: dict[str, str] = field(default_factory=dict)  # each field's name as a sentence starts
    # For each field one of our own checks guards (formats, numbers, duplicates): what it says
    # about a value the check refused. The check itself only says no, which keeps raising cheap.
    said: dict[str, Said] = field(default_factory=dict)
    # Each field's pattern and length bounds: what pydantic's error context would repeat, read
    # here instead (asking pydantic for the context doubles the cost of `exc.errors()`).
    limits: dict[str, dict[str, Any]] = field(default_factory=dict)


def _plain(value: Any) -> Any:
    """Let `json.dumps` take any Mapping as an object (it only knows dict)."""
    if isinstance(value, Mapping):
        return dict(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def _invalid_schema(field: str | None, message: str) -> ValidationProblem:
    return ValidationProblem(field, "invalid-schema", message + " Run `elicitkit schema lint` on it.")


def _invalid(field: str | None, message: str) -> _Compiled:
    return _Compiled(None, broken=(_invalid_schema(field, message),))


_NOT_JSON = _invalid_schema(None, "The schema is not plain JSON; it must be a JSON object with string keys.")


def _compile(schema: Any) -> _Compiled:
    try:
        properties = _top_level(schema)
        required = set(schema.get("required", []))
        said: dict[str, Said] = {}
        fields = {
            name: cs.typed_dict_field(_field_schema(name, prop, said), required=name in required)
            for name, prop in properties.items()
        }
        core = cs.typed_dict_schema(fields, extra_behavior="forbid", strict=True)
        choices = {
            name: cut_list(choices_of(prop, kind) or [])
            for name, prop in properties.items()
            if (kind := kind_of(prop)) in ("enum", "titled-enum", "multi", "titled-multi")
        }
        known = cut_list(list(properties)) or "no fields"
        shown = {name: cut(name) for name in properties}
        limits = {name: _limits(name, prop) for name, prop in properties.items()}
        validator = SchemaValidator(core)
        return _Compiled(
            validator,
            choices=choices,
            known=known,
            shown=shown,
            said=said,
            limits=limits,
        )
    except _BadSchema as exc:
        return _invalid(exc.field, exc.message)
    except (SchemaError, RecursionError) as exc:  # pragma: no cover - belt and braces
        return _invalid(None, f"The schema could not be compiled ({exc}).")


def _top_level(schema: Any) -> dict[str, Mapping[str, Any]]:
    if not isinstance(schema, dict):
        raise _BadSchema(None, "The schema must be a JSON object.")
    for keyword in schema:
        if keyword not in TOP_KEYWORDS and keyword not in ANNOTATIONS:
            raise _BadSchema(
                None,
                f"The schema uses {cut(keyword)} (at {pointer(keyword)}), which is outside the form-mode "
                "subset; answers are never checked against half a schema, so it is refused.",
            )
    if schema.get("type") != "object":
        raise _BadSchema(None, 'The schema must have "type": "object".')
    properties = schema.get("properties", {})
    if not isinstance(properties, dict) or not all(isinstance(p, dict) for p in properties.values()):
        raise _BadSchema(None, 'The schema\'s "properties" must map each field name to a JSON object.')
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(r, str) for r in required):
        raise _BadSchema(None, 'The schema\'s "required" must be a list of field names.')
    for name in required:
        if name not in properties:
            raise _BadSchema(name, f'The schema requires {name!r} but does not define it in "properties".')
    if schema.get("additionalProperties", False) is not False:
        raise _BadSchema(
            None, 'A form schema cannot allow additional properties; drop "additionalProperties".'
        )
    return properties


def _field_schema(name: str, prop: Mapping[str, Any], said: dict[str, Said]) -> CoreSchema:
    kind = kind_of(prop)
    if kind is None:
        raise _BadSchema(name, f"Field {name!r} is not one of the form-mode primitive types.")
    for keyword in prop:
        if keyword not in KEYWORDS[kind] and keyword not in ANNOTATIONS:
            raise _BadSchema(
                name,
                f"Field {cut(name)} uses {cut(keyword)} (at {pointer('properties', name, keyword)}), which "
                f"a form-mode {kind} field cannot have; the schema is refused rather than half-checked.",
            )
    if kind == "string":
        return _string(name, prop, said)
    if kind in ("number", "integer"):
        low, high = _bound(name, prop, "minimum"), _bound(name, prop, "maximum")
        said[name] = number_problem(kind == "integer", low, high)
        return number(kind == "integer", low, high)
    if kind == "boolean":
        return cs.bool_schema(strict=True)
    choices = _choices(name, prop, kind)
    if kind in ("enum", "titled-enum"):
        return cs.literal_schema(choices)
    items = cs.list_schema(
        cs.literal_schema(choices),
        min_length=_count(name, prop, "minItems"),
        max_length=_count(name, prop, "maxItems"),
        strict=True,
    )
    said[name] = repeated
    return cs.no_info_after_validator_function(no_duplicates, items)


def _string(name: str, prop: Mapping[str, Any], said: dict[str, Said]) -> CoreSchema:
    pattern = prop.get("pattern")
    if pattern is not None:
        problem = _patterns.pattern_problem(pattern)
        if problem is not None:
            raise _BadSchema(name, f"Field {cut(name)} cannot be checked: {problem}.")
    string: CoreSchema = cs.str_schema(
        min_length=_count(name, prop, "minLength"),
        max_length=_count(name, prop, "maxLength"),
        pattern=pattern,
        regex_engine=_patterns.ENGINE,  # linear time: never the backtracking `re` (see _patterns)
        strict=True,
    )
    fmt = prop.get("format")
    if fmt is None:
        return string
    if not isinstance(fmt, str) or fmt not in FORMATS:
        raise _BadSchema(name, f"Field {name!r} has format {fmt!r}; a form can only check {sorted(FORMATS)}.")
    said[name] = not_in_format(fmt)
    return cs.no_info_after_validator_function(in_format(fmt), string)


def _count(name: str, prop: Mapping[str, Any], keyword: str) -> int | None:
    value = prop.get(keyword)
    if value is None:
        return None
    if type(value) is float and value.is_integer():
        value = int(value)
    if type(value) is not int or value < 0:
        raise _BadSchema(
            name, f"Field {name!r} has {keyword} {value!r}; it must be a whole number, 0 or more."
        )
    return value


def _limits(name: str, prop: Mapping[str, Any]) -> dict[str, Any]:
    """A field's pattern and length bounds, named as in pydantic's error context."""
    many = prop.get("type") == "array"
    return {
        "pattern": prop.get("pattern"),
        "min_length": _count(name, prop, "minItems" if many else "minLength"),
        "max_length": _count(name, prop, "maxItems" if many else "maxLength"),
    }


def _bound(name: str, prop: Mapping[str, Any], keyword: str) -> int | float | None:
    value = prop.get(keyword)
    if value is None or type(value) is int or (type(value) is float and math.isfinite(value)):
        return value
    raise _BadSchema(name, f"Field {name!r} has {keyword} {value!r}; it must be a number.")


_ITEM_KEYWORDS = frozenset({"type", "enum", "anyOf"})
_OPTION_KEYWORDS = frozenset({"const", "title"})


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _only(name: str, part: Any, allowed: frozenset[str], where: str) -> None:
    """A keyword inside `items` or a titled option that would constrain answers is refused."""
    if not isinstance(part, Mapping):
        return
    for keyword in part:
        if keyword not in allowed and keyword not in ANNOTATIONS:
            at = pointer("properties", name, *where.split("/"), keyword)
            raise _BadSchema(
                name,
                f"Field {cut(name)} uses {cut(keyword)} (at {at}), which a form cannot check; "
                "the schema is refused rather than half-checked.",
            )
    for i, option in enumerate(_listed(part.get("anyOf")) if where == "items" else []):
        _only(name, option, _OPTION_KEYWORDS, f"items/anyOf/{i}")


def _choices(name: str, prop: Mapping[str, Any], kind: Kind) -> list[str]:
    _only(name, prop.get("items"), _ITEM_KEYWORDS, "items")
    for i, option in enumerate(_listed(prop.get("oneOf"))):
        _only(name, option, _OPTION_KEYWORDS, f"oneOf/{i}")
    choices = choices_of(prop, kind)
    if not choices or not all(isinstance(c, str) for c in choices):
        raise _BadSchema(name, f"Field {name!r} must list its choices as a non-empty list of strings.")
    return choices


# -- turning pydantic's errors into sentences ---------------------------------------------------


def _explain(exc: ValidationError, compiled: _Compiled) -> list[ValidationProblem]:
    problems: list[ValidationProblem] = []
    said, shown = compiled.said, compiled.shown
    for error in exc.errors(include_url=False, include_context=False):
        loc, kind, value = error["loc"], error["type"], error.get("input")
        if not loc:
            problems.append(
                _problem(None, "not-an-object", _NOT_AN_OBJECT, ("got",), {"got": json_type(value)})
            )
            continue
        name = loc[0] if isinstance(loc[0], str) else None
        # One of ours refused the value: the field says what is wrong (never None when it refused).
        sentence_ = said[name](value) if kind == "elicitkit" and name in said else None
        code, template, params, terms = sentence_ or sentence(
            kind,
            compiled.limits.get(name or "", {}),
            value,
            loc,
            compiled.choices.get(name or "", ""),
            compiled.known,
        )
        values = {"name": (shown.get(name) if name is not None else None) or cut(loc[0])}
        for key, item in params.items():
            values[key] = item if type(item) is str else str(item)
        problems.append(_problem(name, code, template, terms, values))
    return problems


_NOT_AN_OBJECT = noop("The answer must be a JSON object, not %(got)s.")


def _problem(
    field: str | None, code: str, template: str, terms: tuple[str, ...], values: dict[str, str]
) -> ValidationProblem:
    """A problem whose English is `template` with `values`; `say` translates it (terms too)."""
    return ValidationProblem(
        field, code, template % values, template=template, params=tuple(values.items()), terms=terms
    )
