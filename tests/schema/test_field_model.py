"""`schema.fields`: a requestedSchema read once into the fields a form shows."""

from __future__ import annotations

from typing import Any

import pytest

from elicitkit.schema import Field, Option, fields


def one(prop: Any, required: bool = False) -> Field:
    (field,) = fields({"type": "object", "properties": {"f": prop}, "required": ["f"] if required else []})
    return field


@pytest.mark.parametrize(
    ("prop", "kind"),
    [
        ({"type": "string"}, "string"),
        ({"type": "string", "format": "date"}, "string"),
        ({"type": "number"}, "number"),
        ({"type": "integer"}, "integer"),
        ({"type": "boolean"}, "boolean"),
        ({"type": "string", "enum": ["a"]}, "single-select"),
        ({"type": "string", "oneOf": [{"const": "a", "title": "A"}]}, "single-select"),
        ({"type": "array", "items": {"type": "string", "enum": ["a"]}}, "multi-select"),
        ({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}, "multi-select"),
    ],
)
def test_each_primitive_of_the_spec_is_one_kind(prop: dict[str, Any], kind: str) -> None:
    assert one(prop).kind == kind


def test_a_field_carries_its_words_limits_and_choices() -> None:
    text = one({"type": "string", "title": "Name", "minLength": 2, "maxLength": 9, "pattern": "^a"}, True)
    assert (text.name, text.title, text.required, text.min_length, text.max_length, text.pattern) == (
        "f",
        "Name",
        True,
        2,
        9,
        "^a",
    )
    number = one({"type": "number", "minimum": 0.5, "maximum": 10, "default": 3, "description": "How many"})
    assert (number.minimum, number.maximum, number.default, number.description) == (0.5, 10, 3, "How many")
    picks = one(
        {"type": "array", "minItems": 1, "maxItems": 2, "items": {"anyOf": [{"const": "r", "title": "Red"}]}}
    )
    assert (picks.min_items, picks.max_items, picks.options) == (1, 2, (Option("r", "Red"),))
    legacy = one({"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]})
    assert [(o.const, o.title) for o in legacy.options] == [("s", "Small"), ("l", "Large")]


def test_a_field_without_a_title_is_called_by_its_name_and_unknown_limits_are_none() -> None:
    field = one({"type": "integer", "minimum": "zero", "title": ""})
    assert field.title == "f" and field.minimum is None and field.default is None
    assert one({"type": "string", "format": "colour"}).format_rules is None
    assert one({"type": "string", "format": "email"}).format_rules is not None


@pytest.mark.parametrize(
    "requested",
    [None, [], {"properties": []}, {"properties": {"f": 3}}, {"properties": {"f": {"type": ["string"]}}}],
)
def test_reading_a_broken_schema_never_raises(requested: Any) -> None:
    assert all(f.kind == "string" for f in fields(requested))
