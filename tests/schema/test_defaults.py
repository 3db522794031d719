"""`defaults`: the answer a form starts from (C-11)."""

from __future__ import annotations

from typing import Any

from elicitkit.schema import defaults

FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "age": {"type": "integer", "default": 50},
        "ok": {"type": "boolean", "default": False},
        "color": {"type": "string", "enum": ["Red", "Green"], "default": "Red"},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "default": ["a"]},
    },
    "required": ["name"],
}


def test_each_default_is_pre_filled() -> None:
    assert defaults(FORM) == {"age": 50, "ok": False, "color": "Red", "tags": ["a"]}


def test_the_result_is_a_copy() -> None:
    filled = defaults(FORM)
    filled["tags"].append("b")
    assert FORM["properties"]["tags"]["default"] == ["a"]


def test_a_default_that_breaks_its_rules_is_left_out() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 3, "default": 9}}}
    assert defaults(schema) == {}


def test_no_properties_no_defaults() -> None:
    assert defaults({"type": "object", "properties": {}}) == {}
    assert defaults({"type": "object"}) == {}
    assert defaults([]) == {}  # type: ignore[arg-type]
