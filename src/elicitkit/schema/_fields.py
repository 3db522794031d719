"""`fields`: a `requestedSchema` read once into one `Field` per property.

The spec calls each property a `PrimitiveSchemaDefinition`: a string (with an optional
`format`), a number or integer, a boolean, or an enum, single-select (`enum`, titled `oneOf`,
legacy `enumNames`) or multi-select (an array of `enum`, or of titled `anyOf`). A `Field` says
which, with its limits and choices already read, so a UI, `elicitkit check` and the client's
size limits never look at the JSON again to work out what a field is.

Reading is lenient and never raises: a client reads a schema a server sent before deciding
whether to show it, so anything odd becomes the nearest field (a property with no type is a
string), and `lint`/`validate` are what say the schema is outside the subset.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from elicitkit.schema._formats import FORMATS, Format
from elicitkit.schema._subset import kind_of

FieldKind = Literal["string", "number", "integer", "boolean", "single-select", "multi-select"]
"""What a field asks for: the spec's primitive types, with an enum as a single or multi-select."""

_KINDS: dict[str, FieldKind] = {
    "string": "string",
    "number": "number",
    "integer": "integer",
    "boolean": "boolean",
    "enum": "single-select",
    "titled-enum": "single-select",
    "multi": "multi-select",
    "titled-multi": "multi-select",
}


class Option(NamedTuple):
    """One choice of a select: the `const` that is sent, and the `title` a person reads."""

    const: Any
    title: str


@dataclass(frozen=True)
class Field:
    """One property of a `requestedSchema`: what it asks for, its limits and its choices.

    `title` is what a person reads as the field's name (its `title`, else its name);
    `default` is None when there is none (the subset has no null, so it cannot collide).
    A limit the schema does not give, or gives with the wrong type, is None. `schema` is the
    property as written, for whatever a UI wants to read that the model does not carry.
    """

    name: str
    kind: FieldKind
    title: str
    description: str = ""
    required: bool = False
    default: Any = None
    format: str | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    min_items: int | None = None
    max_items: int | None = None
    options: tuple[Option, ...] = ()
    schema: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def format_rules(self) -> Format | None:
        """The row of `FORMATS` for this field's `format` (None for no format or an unknown one)."""
        return FORMATS.get(self.format) if self.format is not None else None

    @classmethod
    def of(cls, name: str, prop: Any, *, required: bool = False) -> Field:
        """The field one property describes (`prop` is the property's JSON Schema)."""
        prop = prop if isinstance(prop, Mapping) else {}
        shape = kind_of(prop)
        options: tuple[Option, ...] = ()
        if shape is None:  # outside the subset: the nearest field a person could answer
            options = _options(prop)
            kind: FieldKind = "single-select" if options else "string"
        else:
            kind = _KINDS[shape]
            if kind == "single-select":
                options = _options(prop)
            elif kind == "multi-select":
                items = prop.get("items")
                options = _options(items if isinstance(items, Mapping) else {})
        title, description, fmt = prop.get("title"), prop.get("description"), prop.get("format")
        return cls(
            name=str(name),
            kind=kind,
            title=title if isinstance(title, str) and title else str(name),
            description=description if isinstance(description, str) else "",
            required=required,
            default=prop.get("default"),
            format=fmt if kind == "string" and isinstance(fmt, str) else None,
            min_length=_count(prop.get("minLength")) if kind == "string" else None,
            max_length=_count(prop.get("maxLength")) if kind == "string" else None,
            pattern=_text(prop.get("pattern")) if kind == "string" else None,
            minimum=_number(prop.get("minimum")) if kind in ("number", "integer") else None,
            maximum=_number(prop.get("maximum")) if kind in ("number", "integer") else None,
            min_items=_count(prop.get("minItems")) if kind == "multi-select" else None,
            max_items=_count(prop.get("maxItems")) if kind == "multi-select" else None,
            options=options,
            schema=prop,
        )


def fields(schema: Any) -> list[Field]:
    """The form's fields, in the schema's property order (none when it has no `properties`)."""
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return []
    required = schema.get("required")
    names = {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()
    return [Field.of(str(name), prop, required=name in names) for name, prop in properties.items()]


def _options(part: Mapping[str, Any]) -> tuple[Option, ...]:
    """Titled `oneOf`/`anyOf` of `{const, title}`, or plain `enum` (titled by legacy `enumNames`)."""
    for key in ("oneOf", "anyOf"):
        titled = part.get(key)
        if isinstance(titled, list):
            return tuple(
                Option(option["const"], str(option.get("title") or option["const"]))
                for option in titled
                if isinstance(option, Mapping) and "const" in option
            )
    enum = part.get("enum")
    if not isinstance(enum, list):
        return ()
    names = part.get("enumNames")
    if isinstance(names, list) and len(names) == len(enum):
        return tuple(Option(value, str(name)) for value, name in zip(enum, names, strict=True))
    return tuple(Option(value, str(value)) for value in enum)


def _count(value: Any) -> int | None:
    if type(value) is float and value.is_integer():
        value = int(value)
    return value if type(value) is int and value >= 0 else None


def _number(value: Any) -> int | float | None:
    if type(value) is int or (type(value) is float and math.isfinite(value)):
        return value
    return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None
