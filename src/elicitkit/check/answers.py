"""Answers built from a schema: tool arguments, a valid form answer, and invalid ones.

A valid answer starts from the schema's defaults (`elicitkit.schema.defaults`) and fills every
other field with the plainest value its type, limits and format allow. Each invalid answer
breaks one rule on purpose, and is kept only if `elicitkit.schema.validate` agrees it is
invalid, so a server that takes it has taken something the spec's subset forbids.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from elicitkit.schema import defaults, validate

_FORMAT_SAMPLES = {
    "email": "checker@example.com",
    "uri": "https://example.com/",
    "date": "2030-01-02",
    "date-time": "2030-01-02T03:04:05Z",
}


def sample(prop: Mapping[str, Any]) -> Any:
    """The plainest value `prop` accepts (also used for tool arguments, which may nest)."""
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
        if prop.get("format") in _FORMAT_SAMPLES:
            return _FORMAT_SAMPLES[prop["format"]]
        text = "check"
        low, high = prop.get("minLength"), prop.get("maxLength")
        if isinstance(low, int) and len(text) < low:
            text = text + "x" * (low - len(text))
        if isinstance(high, int) and len(text) > high:
            text = text[: max(high, 0)]
        return text
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


def valid_answer(schema: Mapping[str, Any]) -> dict[str, Any]:
    """A complete answer that passes `validate` whenever the schema allows one."""
    answer = dict(_safe_defaults(schema))
    props = schema.get("properties")
    for name, prop in props.items() if isinstance(props, Mapping) else ():
        if name not in answer and isinstance(prop, Mapping):
            answer[name] = sample(prop)
    return answer


def invalid_answers(schema: Mapping[str, Any]) -> list[tuple[str, dict[str, Any], list[str]]]:
    """(what is wrong, the content, the problems `validate` names), each breaking one rule."""
    good = valid_answer(schema)
    props = schema.get("properties") if isinstance(schema.get("properties"), Mapping) else {}
    assert isinstance(props, Mapping)
    required = [n for n in schema.get("required") or () if n in good]
    candidates: list[tuple[str, str, dict[str, Any]]] = []
    for name, prop in props.items():
        if not isinstance(prop, Mapping):
            continue
        wrong = _wrong_type(prop)
        candidates.append(("type", f"wrong type for {name!r}", {**good, name: wrong}))
        beyond = _beyond(prop)
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


def _wrong_type(prop: Mapping[str, Any]) -> Any:
    kind = prop.get("type")
    if kind in ("integer", "number"):
        return "not a number"
    if kind == "boolean":
        return "not-a-boolean"
    if kind == "array":
        return "not a list"
    return 12345


def _beyond(prop: Mapping[str, Any]) -> Any:
    if _choices(prop):
        return "not-one-of-the-choices"
    kind = prop.get("type")
    if kind in ("integer", "number"):
        if isinstance(prop.get("maximum"), int | float):
            return prop["maximum"] + 1000
        if isinstance(prop.get("minimum"), int | float):
            return prop["minimum"] - 1000
    if kind == "string":
        if isinstance(prop.get("maxLength"), int):
            return "x" * (prop["maxLength"] + 10)
        if prop.get("format") in _FORMAT_SAMPLES:
            return "not a valid " + str(prop["format"])
    if kind == "array" and _choices(_mapping(prop.get("items"))):
        return ["not-one-of-the-choices"]
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
