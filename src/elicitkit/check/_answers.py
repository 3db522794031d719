"""Answers built from a schema: tool arguments, a valid form answer, and invalid ones.

A form is read as `elicitkit.schema.fields`, the model every UI uses too. A valid answer starts
from the schema's defaults (`elicitkit.schema.defaults`) and fills every other field with the
plainest value its kind, limits and format allow (a format's own `example`). Each invalid answer
breaks one rule on purpose, and is kept only if `elicitkit.schema.validate` agrees it is
invalid, so a server that takes it has taken something the spec's subset forbids.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from elicitkit.schema import FORMATS, Field, defaults, fields, validate


def sample(prop: Mapping[str, Any]) -> Any:
    """The plainest value `prop` accepts: a tool's input schema is any JSON Schema, and nests."""
    if "default" in prop:
        return prop["default"]
    if "const" in prop:
        return prop["const"]
    if isinstance(prop.get("enum"), list) and prop["enum"]:
        return prop["enum"][0]
    for key in ("oneOf", "anyOf"):
        options = prop.get(key)
        if isinstance(options, list) and options and isinstance(options[0], Mapping):
            if "const" in options[0]:
                return options[0]["const"]
            return sample(options[0])
    kind = prop.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "string":
        return _text(prop.get("format"), prop.get("minLength"), prop.get("maxLength"))
    if kind in ("integer", "number"):
        low, high = prop.get("minimum"), prop.get("maximum")
        value: float = 1
        if isinstance(low, int | float) and value < low:
            value = low
        if isinstance(high, int | float) and value > high:
            value = high
        return int(value) if kind == "integer" and float(value).is_integer() else value
    if kind == "boolean":
        return True
    if kind == "array":
        items = _mapping(prop.get("items"))
        count = prop["minItems"] if isinstance(prop.get("minItems"), int) else 1
        choices = _choices(items)
        if choices:
            return choices[: max(count, 1)]
        return [sample(items)] * max(count, 0)
    if kind == "object" or isinstance(prop.get("properties"), Mapping):
        return arguments(prop)
    if kind == "null":
        return None
    return "check"


def arguments(schema: Mapping[str, Any]) -> dict[str, Any]:
    """Arguments for a tool from its input schema: every required property, plainly filled."""
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return {}
    required = schema["required"] if isinstance(schema.get("required"), list) else []
    return {
        name: sample(prop) for name, prop in props.items() if name in required and isinstance(prop, Mapping)
    }


def _text(fmt: Any, low: Any, high: Any) -> str:
    if isinstance(fmt, str) and fmt in FORMATS:
        return FORMATS[fmt].example
    text = "check"
    if isinstance(low, int) and len(text) < low:
        text = text + "x" * (low - len(text))
    if isinstance(high, int) and len(text) > high:
        text = text[: max(high, 0)]
    return text


def valid_answer(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A complete answer that passes `validate` whenever the schema allows one."""
    answer = dict(_safe_defaults(schema))
    for field in fields(schema):
        if field.name not in answer:
            answer[field.name] = _plainest(field)
    return answer


def _plainest(field: Field) -> Any:
    """The plainest value a form field accepts."""
    if field.default is not None:
        return field.default
    if field.kind == "single-select" and field.options:
        return field.options[0].const
    if field.kind == "multi-select":
        count = field.min_items if field.min_items is not None else 1
        return [o.const for o in field.options[: max(count, 1)]]
    if field.kind == "string":
        return _text(field.format, field.min_length, field.max_length)
    if field.kind in ("integer", "number"):
        value: float = 1
        if field.minimum is not None and value < field.minimum:
            value = field.minimum
        if field.maximum is not None and value > field.maximum:
            value = field.maximum
        return int(value) if field.kind == "integer" and float(value).is_integer() else value
    return True  # boolean


def invalid_answers(schema: Mapping[str, Any]) -> list[tuple[str, dict[str, Any], list[str]]]:
    """(what is wrong, the content, the problems `validate` names), each breaking one rule."""
    good = valid_answer(schema)
    required = [n for n in schema.get("required") or () if n in good]
    candidates: list[tuple[str, str, dict[str, Any]]] = []
    for field in fields(schema):
        name = field.name
        candidates.append(("type", f"wrong type for {name!r}", {**good, name: _wrong_type(field)}))
        beyond = _beyond(field)
        if beyond is not None:
            candidates.append(("limit", f"{name!r} outside its limits or choices", {**good, name: beyond}))
    if required:
        candidates.append(
            (
                "required",
                f"required {required[0]!r} left out",
                {k: v for k, v in good.items() if k != required[0]},
            )
        )
    kept: list[tuple[str, dict[str, Any], list[str]]] = []
    kinds: set[str] = set()
    for kind, what, content in candidates:
        if kind in kinds:
            continue
        problems = [p.message for p in validate(schema, content)]
        if problems:
            kinds.add(kind)
            kept.append((what, content, problems))
    return kept


def _wrong_type(field: Field) -> Any:
    if field.kind in ("integer", "number"):
        return "not a number"
    if field.kind == "boolean":
        return "not-a-boolean"
    if field.kind == "multi-select":
        return "not a list"
    return 12345


def _beyond(field: Field) -> Any:
    if field.kind == "single-select":
        return "not-one-of-the-choices"
    if field.kind == "multi-select":
        return ["not-one-of-the-choices"] if field.options else None
    if field.kind in ("integer", "number"):
        if field.maximum is not None:
            return field.maximum + 1000
        if field.minimum is not None:
            return field.minimum - 1000
    if field.kind == "string":
        if field.max_length is not None:
            return "x" * (field.max_length + 10)
        if field.format is not None:
            return "not a valid " + field.format
    return None


def _choices(prop: Mapping[str, Any]) -> list[Any]:
    if isinstance(prop.get("enum"), list):
        return list(prop["enum"])
    for key in ("oneOf", "anyOf"):
        options = prop.get(key)
        if isinstance(options, list):
            return [o["const"] for o in options if isinstance(o, Mapping) and "const" in o]
    return []


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _safe_defaults(schema: Mapping[str, Any]) -> dict[str, Any]:
    try:
        return defaults(schema)
    except Exception:  # a schema outside the subset: fill from the types alone
        return {}
