"""The form-mode subset itself: which property shapes exist and which keywords each may carry.

`lint`, `validate`, `build` and `fields` all read this one table (and `FORMATS`, the
formats' table), so they never disagree about what the subset is (REQUIREMENTS S-10).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from elicitkit.schema._formats import FORMATS

__all__ = ["ANNOTATIONS", "FORMATS", "KEYWORDS", "TOP_KEYWORDS", "Kind", "choices_of", "kind_of", "pointer"]

Kind = Literal["string", "number", "integer", "boolean", "enum", "titled-enum", "multi", "titled-multi"]

#: Keywords a top-level `requestedSchema` may carry. `additionalProperties: false` is what
#: pydantic emits for `extra="forbid"` and matches how answers are checked anyway.
TOP_KEYWORDS = frozenset(
    {"type", "properties", "required", "title", "description", "$schema", "additionalProperties"}
)

_COMMON = frozenset({"type", "title", "description", "default"})

KEYWORDS: dict[Kind, frozenset[str]] = {
    "string": _COMMON | {"minLength", "maxLength", "pattern", "format"},
    "number": _COMMON | {"minimum", "maximum"},
    "integer": _COMMON | {"minimum", "maximum"},
    "boolean": _COMMON,
    "enum": _COMMON | {"enum", "enumNames"},
    "titled-enum": _COMMON | {"oneOf"},
    "multi": _COMMON | {"items", "minItems", "maxItems"},
    "titled-multi": _COMMON | {"items", "minItems", "maxItems"},
}

#: Keywords that only describe a value and never constrain it. `validate` may ignore these
#: (a schema carrying them is still linted as outside the subset); any other unknown keyword
#: would change which answers are valid, so `validate` refuses a schema that has one.
ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "$comment",
        "deprecated",
        "readOnly",
        "writeOnly",
        "enumNames",
    }
)


def kind_of(prop: Mapping[str, Any]) -> Kind | None:
    """Which primitive shape `prop` means to be, or None when it is none of them."""
    match prop.get("type"):
        case "string":
            if "enum" in prop:
                return "enum"
            return "titled-enum" if "oneOf" in prop else "string"
        case "number":
            return "number"
        case "integer":
            return "integer"
        case "boolean":
            return "boolean"
        case "array":
            items = prop.get("items")
            return "titled-multi" if isinstance(items, Mapping) and "anyOf" in items else "multi"
    return None


def choices_of(prop: Mapping[str, Any], kind: Kind) -> list[Any] | None:
    """The allowed values of a choice property as written (not checked), or None if absent."""
    options: Any
    if kind == "enum":
        options = prop.get("enum")
        return list(options) if isinstance(options, list) else None
    if kind == "titled-enum":
        options = prop.get("oneOf")
    elif kind in ("multi", "titled-multi"):
        items = prop.get("items")
        if not isinstance(items, Mapping):
            return None
        if kind == "multi":
            options = items.get("enum")
            return list(options) if isinstance(options, list) else None
        options = items.get("anyOf")
    else:
        return None
    if not isinstance(options, list):
        return None
    return [o.get("const") if isinstance(o, Mapping) else None for o in options]


def pointer(*parts: str | int) -> str:
    """An RFC 6901 JSON pointer to `parts`."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)
