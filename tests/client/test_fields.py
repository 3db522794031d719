"""What the terminal form makes of a schema and of what a person types (no terminal needed)."""

from __future__ import annotations

from typing import Any

import pytest

from elicitkit.client._fields import (
    Field,
    check,
    editable,
    example,
    form_fields,
    hint,
    parse,
    problems_by_field,
    safe,
    show,
)
from elicitkit.schema import ValidationProblem


def one(prop: dict[str, Any], required: bool = False) -> Field:
    schema = {"type": "object", "properties": {"f": prop}, "required": ["f"] if required else []}
    (field,) = form_fields(schema)
    return field


def test_each_kind_of_the_subset_gets_its_widget() -> None:
    kinds = {
        "text": {"type": "string"},
        "email": {"type": "string", "format": "email"},
        "number": {"type": "number"},
        "integer": {"type": "integer"},
        "boolean": {"type": "boolean"},
        "choice": {"type": "string", "enum": ["a", "b"]},
        "titled": {"type": "string", "oneOf": [{"const": "a", "title": "A"}]},
        "multi": {"type": "array", "items": {"type": "string", "enum": ["a"]}},
        "titled_multi": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}},
    }
    fields = form_fields({"type": "object", "properties": kinds, "required": ["number"]})
    assert [(f.name, f.kind) for f in fields] == [
        ("text", "string"),
        ("email", "string"),
        ("number", "number"),
        ("integer", "integer"),
        ("boolean", "boolean"),
        ("choice", "single-select"),
        ("titled", "single-select"),
        ("multi", "multi-select"),
        ("titled_multi", "multi-select"),
    ]
    assert [f.required for f in fields] == [False, False, True, False, False, False, False, False, False]


def test_choices_show_titles_from_oneof_anyof_and_legacy_enumnames() -> None:
    titled = one({"type": "string", "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0"}]})
    assert titled.options == (("#f00", "Red"), ("#0f0", "#0f0"))
    legacy = one({"type": "string", "enum": ["s", "l"], "enumNames": ["Small", "Large"]})
    assert legacy.options == (("s", "Small"), ("l", "Large"))
    multi = one({"type": "array", "items": {"anyOf": [{"const": 1, "title": "One"}]}})
    assert multi.options == ((1, "One"),)
    assert show(legacy, "l") == "Large"
    assert show(multi, [1]) == "One"


def test_hints_put_the_constraints_in_words() -> None:
    text = {"type": "string", "minLength": 3, "maxLength": 50, "pattern": "^[a-z]+$", "format": "email"}
    assert hint(one(text)) == "3 to 50 characters · pattern ^[a-z]+$ · an email address"
    assert hint(one({"type": "integer", "minimum": 0})) == "a whole number · at least 0"
    assert hint(one({"type": "number", "maximum": 9.5})) == "a number · at most 9.5"
    assert (
        hint(one({"type": "array", "minItems": 1, "maxItems": 2, "items": {"enum": ["a"]}}))
        == "choose 1 to 2"
    )


@pytest.mark.parametrize(
    ("prop", "text", "value"),
    [
        ({"type": "integer"}, " 42 ", 42),
        ({"type": "number"}, "42", 42),
        ({"type": "number"}, "-2.5", -2.5),
        ({"type": "string"}, "  ", None),
        ({"type": "string"}, "Ada", "Ada"),
    ],
)
def test_parse_turns_text_into_json_values(prop: dict[str, Any], text: str, value: Any) -> None:
    assert parse(one(prop), text) == value


@pytest.mark.parametrize(
    ("prop", "text", "message"),
    [
        ({"type": "integer"}, "4.5", "Enter a whole number, like 42."),
        ({"type": "number"}, "many", "Enter a number, like 3.5."),
        ({"type": "integer", "minimum": 1, "maximum": 12}, "4.5", "Enter a whole number, like 6."),
        ({"type": "number", "minimum": 100}, "many", "Enter a number, like 100."),
        ({"type": "integer", "minimum": 0.2, "maximum": 0.8}, "x", "Enter a whole number."),
        ({"type": "number"}, "nan", "Enter a finite number."),
    ],
)
def test_parse_refuses_what_is_not_a_number(prop: dict[str, Any], text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse(one(prop), text)


@pytest.mark.parametrize(
    ("prop", "value", "message"),
    [
        ({"type": "string", "minLength": 3}, "ab", "Must be at least 3 characters."),
        ({"type": "string", "maxLength": 2}, "abc", "Must be at most 2 characters."),
        ({"type": "string", "pattern": "^[a-z]+$"}, "a1", "Must match the pattern ^[a-z]+$."),
        ({"type": "string", "format": "email"}, "ada@", "Enter an email address, like name@example.com."),
        ({"type": "string", "format": "uri"}, "example.com", "Enter a full URL, with its scheme"),
        ({"type": "string", "format": "date"}, "2025-02-30", "Enter a date as YYYY-MM-DD"),
        ({"type": "string", "format": "date"}, "20250201", "Enter a date as YYYY-MM-DD"),
        ({"type": "string", "format": "date-time"}, "2025-06-01T09:30:00", "with a time zone"),
        ({"type": "integer", "minimum": 1}, 0, "Must be at least 1."),
        ({"type": "number", "maximum": 1}, 1.5, "Must be at most 1."),
        ({"type": "string", "enum": ["a"]}, "b", "Not one of the choices."),
        ({"type": "array", "minItems": 1, "items": {"enum": ["a"]}}, [], "Choose at least 1."),
        ({"type": "array", "maxItems": 1, "items": {"enum": ["a", "b"]}}, ["a", "b"], "Choose at most 1."),
    ],
)
def test_check_says_what_is_wrong(prop: dict[str, Any], value: Any, message: str) -> None:
    problem = check(one(prop), value)
    assert problem is not None and message in problem


@pytest.mark.parametrize(
    ("prop", "value"),
    [
        ({"type": "string", "format": "email"}, "ada@example.org"),
        ({"type": "string", "format": "uri"}, "https://example.org/a?b"),
        ({"type": "string", "format": "date"}, "2024-02-29"),
        ({"type": "string", "format": "date-time"}, "2025-06-01T09:30:00+02:00"),
        ({"type": "string", "format": "date-time"}, "2025-06-01t09:30:00.5z"),
        ({"type": "string", "pattern": "[0-9]"}, "a1b"),  # JSON Schema patterns are not anchored
        ({"type": "integer", "minimum": 0, "maximum": 0}, 0),
    ],
)
def test_check_accepts_good_answers(prop: dict[str, Any], value: Any) -> None:
    assert check(one(prop), value) is None


def test_no_answer_is_fine_only_when_optional() -> None:
    assert check(one({"type": "string"}), None) is None
    assert check(one({"type": "string"}, required=True), None) == "This answer is required."


def test_prefilled_values_become_editable_text() -> None:
    assert editable(one({"type": "number"}), 2.5) == "2.5"
    assert editable(one({"type": "string"}), None) == ""


def test_server_text_is_made_inert() -> None:
    assert safe("Demo\x1b[2J\u202eserver\n") == "Demo\\u001b[2J\\u202eserver\n"
    field = one({"type": "string", "title": "\x1b]8;;https://evil\x07Click"})
    assert field.title == "\\u001b]8;;https://evil\\u0007Click"


def test_problems_are_grouped_by_field_and_strays_go_to_the_whole_form() -> None:
    problems = [
        ValidationProblem("a", "x", "Too short."),
        ValidationProblem("a", "y", "Not a word."),
        ValidationProblem(None, "z", "Whole answer."),
        ValidationProblem("zz", "extra", "Unknown key."),
    ]
    assert problems_by_field(problems, ["a"]) == {
        "a": "Too short. Not a word.",
        None: "Whole answer. Unknown key.",
    }


@pytest.mark.parametrize(
    "prop",
    [
        {"type": "integer", "minimum": 1, "maximum": 12},
        {"type": "integer", "minimum": 100},
        {"type": "integer", "maximum": -3},
        {"type": "integer", "minimum": 0.5, "maximum": 2.5},
        {"type": "number", "minimum": 0, "maximum": 1},
        {"type": "number", "minimum": 10.25},
        {"type": "number", "maximum": -1.5},
        {"type": "string", "format": "email", "maxLength": 10},
        {"type": "string", "format": "email", "minLength": 30},
        {"type": "string", "format": "email", "pattern": "@corp\\.example$"},
        {"type": "string", "format": "uri", "maxLength": 12},
        {"type": "string", "minLength": 3, "maxLength": 5},
    ],
)
def test_the_example_under_a_field_is_an_answer_the_field_accepts(prop: dict[str, Any]) -> None:
    """An example the field would refuse ("e.g. 42" for 1 to 12) teaches the wrong answer."""
    field = one(prop, required=True)
    shown = example(field)
    if shown:
        assert check(field, parse(field, shown)) is None, (prop, shown)


@pytest.mark.parametrize(
    ("prop", "shown"),
    [
        ({"type": "integer"}, "42"),
        ({"type": "integer", "minimum": 1, "maximum": 12}, "6"),
        ({"type": "integer", "minimum": 100}, "100"),
        ({"type": "number", "minimum": 0, "maximum": 1}, "0.5"),
        ({"type": "string", "format": "email"}, "name@example.com"),
        ({"type": "string", "format": "email", "maxLength": 10}, ""),
    ],
)
def test_the_example_fits_inside_the_bounds_or_is_left_out(prop: dict[str, Any], shown: str) -> None:
    assert example(one(prop)) == shown
