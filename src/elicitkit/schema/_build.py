"""`build`: Python types to a spec-valid form-mode `requestedSchema` (REQUIREMENTS S-10).

The form holds flat primitive fields only, so `build` walks the fields of a pydantic model,
dataclass or TypedDict itself rather than post-editing pydantic's JSON Schema: each field's
type maps to exactly one primitive shape, and a type that has none is refused with a sentence
naming the field. Pydantic still supplies what it knows best: field metadata, constraints
(`Field(ge=..)`, `StringConstraints`, annotated-types) and defaults.

Titled choices (a `oneOf`/`anyOf` of `{const, title}`) come from either

- `Annotated[Literal["#f00", "#0f0"], Titled({"#f00": "Red", "#0f0": "Green"})]` (also on a
  `str`, a str `Enum`, or a `list`/`set`/`frozenset` of those), or
- a `TitledEnum`, whose members carry their title: `RED = "#f00", "Red"`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
import pathlib
import types
import typing
import uuid
from collections.abc import Mapping
from typing import Annotated, Any, Literal, NotRequired, Required, Self, Union, get_args, get_origin

from pydantic import AnyUrl, BaseModel, EmailStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined, to_jsonable_python
from typing_extensions import is_typeddict

from elicitkit.errors import ElicitationError
from elicitkit.schema._lint import lint


class SchemaBuildError(ElicitationError, TypeError):
    """A type the form-mode subset cannot express; the message names the field and what to use."""


@dataclasses.dataclass(frozen=True, init=False)
class Titled:
    """Display titles for choices, keyed by the value sent: `Titled({"#f00": "Red"})`.

    Kept as pairs so that it hashes, as `typing.Annotated` metadata must.
    """

    pairs: tuple[tuple[str, str], ...]

    def __init__(self, titles: Mapping[str, str]) -> None:
        object.__setattr__(self, "pairs", tuple(titles.items()))

    @property
    def titles(self) -> dict[str, str]:
        """Value to title, in the order given."""
        return dict(self.pairs)


class TitledEnum(enum.StrEnum):
    """A str Enum whose members carry a display title: `RED = "#f00", "Red"`.

    The title is `member.label` (a str already has a `title` method).
    """

    label: str

    def __new__(cls, value: str, label: str) -> Self:
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label
        return member


def build(tp: Any) -> dict[str, Any]:
    """Return the `requestedSchema` for a pydantic model, dataclass or TypedDict."""
    properties: dict[str, Any] = {}
    required: list[str] = []
    for name, info, is_required in _fields(tp):
        properties[name] = _property(name, info, is_required)
        if is_required:
            required.append(name)
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    _check(schema)
    return schema


def _check(schema: dict[str, Any]) -> None:
    """A last guard: refuse anything `lint` would call an error (bar S-11, the caller's call)."""
    for finding in lint(schema):
        if finding.severity == "error" and finding.code != "sensitive-field":
            raise SchemaBuildError(finding.message)


# -- the fields of a model, dataclass or TypedDict -----------------------------------------------


def _fields(tp: Any) -> list[tuple[str, FieldInfo, bool]]:
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return [
            (info.alias if isinstance(info.alias, str) else name, info, info.is_required())
            for name, info in tp.model_fields.items()
        ]
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        hints = typing.get_type_hints(tp, include_extras=True)
        found = []
        for f in dataclasses.fields(tp):
            if not f.init:
                continue
            default: Any = f.default
            if default is dataclasses.MISSING:
                default = f if f.default_factory is not dataclasses.MISSING else PydanticUndefined
            info = FieldInfo.from_annotated_attribute(hints[f.name], default)
            found.append((info.alias if isinstance(info.alias, str) else f.name, info, info.is_required()))
        return found
    if is_typeddict(tp):
        hints = typing.get_type_hints(tp, include_extras=True)
        required_keys: frozenset[str] = getattr(tp, "__required_keys__", frozenset(hints))
        found = []
        for name, hint in hints.items():
            # Under `from __future__ import annotations`, `__required_keys__` cannot see
            # `NotRequired[...]`, so the wrapper itself decides when it is there.
            is_required = name in required_keys
            while get_origin(hint) in (Required, NotRequired):
                is_required = get_origin(hint) is Required
                hint = get_args(hint)[0]
            found.append((name, FieldInfo.from_annotation(hint), is_required))
        return found
    raise SchemaBuildError(
        f"{tp!r} is not a pydantic model, dataclass or TypedDict; describe the form as one of those."
    )


# -- one field to one primitive property --------------------------------------------------------

_INSTEAD: dict[Any, str] = {
    decimal.Decimal: "float",
    uuid.UUID: "str with a pattern",
    dt.time: "str with a pattern, or datetime",
    dt.timedelta: "int (a number of seconds, minutes...)",
    pathlib.Path: "str",
    bytes: "str, or URL mode to upload a file",
    Any: "str, int, float, bool or a Literal of strings",
}

_FIELD_TYPES = (
    "str, int, float, bool, date, datetime, AnyUrl, EmailStr, a Literal of strings, a str Enum, "
    "or a list/set/frozenset of choices"
)


def _unwrap(annotation: Any, metadata: list[Any]) -> Any:
    while get_origin(annotation) is Annotated:
        metadata.extend(annotation.__metadata__)
        annotation = annotation.__origin__
    return annotation


def _property(name: str, info: FieldInfo, required: bool) -> dict[str, Any]:
    metadata = list(info.metadata)
    tp = _unwrap(info.annotation, metadata)
    if get_origin(tp) in (Union, types.UnionType):
        options = [a for a in get_args(tp) if a is not type(None)]
        if len(options) != 1:
            raise SchemaBuildError(
                f"Field {name!r} is a union ({_show(tp)}); a form field has one type. "
                "Pick one, or offer the alternatives as a Literal of strings."
            )
        if required:
            raise SchemaBuildError(
                f"Field {name!r} may be None but has no default; give it a default (for example `= None`) "
                "so it is simply not required."
            )
        tp = _unwrap(options[0], metadata)

    limits = _limits(name, metadata)
    titles = next((m.titles for m in metadata if isinstance(m, Titled)), None)
    prop = _shape(name, tp, titles, limits)
    for keyword, value in (("title", info.title), ("description", info.description)):
        if value:
            prop[keyword] = value
    if limits:
        raise SchemaBuildError(
            f"Field {name!r} has constraints a form cannot express for its type: {', '.join(sorted(limits))}."
        )
    default = info.get_default(call_default_factory=True, validated_data={})
    if default is not PydanticUndefined and default is not None:
        prop["default"] = _json_default(default, prop)
    return prop


_SUPPORTED_LIMITS = frozenset({"min_length", "max_length", "pattern", "ge", "le"})
_REFUSED_LIMITS = {
    "gt": "an exclusive minimum (gt); use ge",
    "lt": "an exclusive maximum (lt); use le",
    "multiple_of": "multiple_of, which a form cannot express",
    "max_digits": "max_digits, which a form cannot express",
    "decimal_places": "decimal_places, which a form cannot express",
}


def _limits(name: str, metadata: list[Any]) -> dict[str, Any]:
    limits: dict[str, Any] = {}
    for m in metadata:
        if isinstance(m, Titled):
            continue
        if dataclasses.is_dataclass(m) and not isinstance(m, type):
            items = {f.name: getattr(m, f.name) for f in dataclasses.fields(m)}
        else:
            items = dict(getattr(m, "__dict__", {}))
        for key, value in items.items():
            if value is None:
                continue
            if key in _REFUSED_LIMITS:
                raise SchemaBuildError(f"Field {name!r} uses {_REFUSED_LIMITS[key]}.")
            if key in _SUPPORTED_LIMITS:
                limits[key] = value
    return limits


def _shape(name: str, tp: Any, titles: Mapping[str, str] | None, limits: dict[str, Any]) -> dict[str, Any]:
    origin = get_origin(tp)
    if origin in (list, set, frozenset):
        (item,) = get_args(tp) or (Any,)
        item_metadata: list[Any] = []
        item = _unwrap(item, item_metadata)
        titles = titles or next((m.titles for m in item_metadata if isinstance(m, Titled)), None)
        options = _choices(name, item, titles, multi=True)
        prop: dict[str, Any] = {"type": "array"}
        if titles is not None or _is_titled_enum(item):
            prop["items"] = {"anyOf": [{"const": v, "title": t} for v, t in options]}
        else:
            prop["items"] = {"type": "string", "enum": [v for v, _ in options]}
        _move(limits, prop, min_length="minItems", max_length="maxItems")
        return prop
    if tp is str and titles is None:
        prop = {"type": "string"}
        _move(limits, prop, min_length="minLength", max_length="maxLength", pattern="pattern")
        return prop
    if tp is bool:
        return {"type": "boolean"}
    if tp in (int, float):
        prop = {"type": "integer" if tp is int else "number"}
        _move(limits, prop, ge="minimum", le="maximum")
        return prop
    formats = {dt.datetime: "date-time", dt.date: "date", EmailStr: "email"}
    if tp in formats or (isinstance(tp, type) and issubclass(tp, AnyUrl)):
        prop = {"type": "string", "format": formats.get(tp, "uri")}
        _move(limits, prop, min_length="minLength", max_length="maxLength")
        return prop
    if tp is str or origin is Literal or (isinstance(tp, type) and issubclass(tp, enum.Enum)):
        options = _choices(name, tp, titles, multi=False)
        if titles is not None or _is_titled_enum(tp):
            return {"type": "string", "oneOf": [{"const": v, "title": t} for v, t in options]}
        return {"type": "string", "enum": [v for v, _ in options]}
    raise SchemaBuildError(_refusal(name, tp))


def _is_titled_enum(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, TitledEnum)


def _choices(name: str, tp: Any, titles: Mapping[str, str] | None, *, multi: bool) -> list[tuple[str, str]]:
    """The (value, title) pairs of a choice type; the title is the value when there is none."""
    if get_origin(tp) is Literal:
        values = list(get_args(tp))
    elif isinstance(tp, type) and issubclass(tp, enum.Enum):
        values = [m.value for m in tp]
        if titles is None and issubclass(tp, TitledEnum):
            titles = {m.value: m.label for m in tp}
    elif tp is str and titles is not None:
        values = list(titles)
    else:
        what = "a multi-select" if multi else "a choice"
        raise SchemaBuildError(
            f"Field {name!r} is a list of {_show(tp)}; a form can only offer {what} of fixed strings. "
            "Use list[Literal[...]] or a list of a str Enum (or ask for a single str)."
            if multi
            else _refusal(name, tp)
        )
    bad = [v for v in values if not isinstance(v, str)]
    if bad or not values:
        raise SchemaBuildError(
            f"Field {name!r} offers choices that are not strings ({', '.join(map(repr, bad)) or 'none'}); "
            "form choices are strings. Use a Literal of strings or a str Enum."
        )
    if titles is None:
        return [(v, v) for v in values]
    missing, extra = [v for v in values if v not in titles], [k for k in titles if k not in values]
    if missing or extra:
        raise SchemaBuildError(
            f"Field {name!r} has Titled titles that do not match its choices "
            f"(without a title: {missing or 'none'}; not a choice: {extra or 'none'}); "
            "give one title per choice."
        )
    return [(v, titles[v]) for v in values]


def _move(limits: dict[str, Any], prop: dict[str, Any], **names: str) -> None:
    for key, keyword in names.items():
        if key in limits:
            prop[keyword] = limits.pop(key)


def _refusal(name: str, tp: Any) -> str:
    if isinstance(tp, type) and (
        issubclass(tp, BaseModel) or dataclasses.is_dataclass(tp) or is_typeddict(tp)
    ):
        return (
            f"Field {name!r} is a nested {tp.__name__}; a form holds flat fields only. "
            "Move its fields up into this form, or ask for them in a second elicitation."
        )
    if tp in (dict, Mapping) or get_origin(tp) in (dict, Mapping, typing.Mapping):
        return f"Field {name!r} is a mapping; a form holds flat fields only. Give each entry its own field."
    if get_origin(tp) in (tuple, typing.Sequence):
        return f"Field {name!r} is a {_show(tp)}; for a multi-select use a list, set or frozenset of choices."
    instead = _INSTEAD.get(tp, _FIELD_TYPES)
    return f"Field {name!r} has type {_show(tp)}, which a form cannot ask for; use {instead}."


def _show(tp: Any) -> str:
    return tp.__name__ if isinstance(tp, type) else repr(tp).replace("typing.", "")


def _json_default(default: Any, prop: dict[str, Any]) -> Any:
    value = to_jsonable_python(default)
    if prop["type"] == "array" and isinstance(default, set | frozenset):
        order = (
            [o["const"] for o in prop["items"]["anyOf"]]
            if "anyOf" in prop["items"]
            else prop["items"]["enum"]
        )
        value = sorted(value, key=lambda v: order.index(v) if v in order else len(order))
    return value
