"""`lint`: each invalid schema is caught at the right pointer, and its valid twin is clean."""

from __future__ import annotations

from typing import Any

import pytest

from elicitkit.schema import LintFinding, lint


def one(prop: Any, name: str = "f") -> dict[str, Any]:
    return {"type": "object", "properties": {name: prop}}


STR = {"type": "string"}
MULTI = {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}}
TITLED = [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]

# (id, invalid schema, its valid twin, pointer, code)
CASES: list[tuple[str, Any, Any, str, str]] = [
    (
        "nested-object",
        one({"type": "object", "properties": {"x": STR}}),
        one(STR),
        "/properties/f",
        "nested-object",
    ),
    ("properties-without-type", one({"properties": {"x": STR}}), one(STR), "/properties/f", "nested-object"),
    ("ref", one({"$ref": "#/$defs/X"}), one(STR), "/properties/f/$ref", "ref"),
    ("top-defs", {**one(STR), "$defs": {"X": STR}}, one(STR), "/$defs", "ref"),
    ("anyOf-null", one({"anyOf": [STR, {"type": "null"}]}), one(STR), "/properties/f/anyOf", "union"),
    ("type-list", one({"type": ["string", "null"]}), one(STR), "/properties/f/type", "union"),
    ("allOf", one({"allOf": [STR]}), one(STR), "/properties/f/allOf", "union"),
    (
        "oneOf-on-integer",
        one({"type": "integer", "oneOf": TITLED}),
        one({"type": "string", "oneOf": TITLED}),
        "/properties/f/oneOf",
        "union",
    ),
    (
        "integer-enum",
        one({"type": "integer", "enum": [1, 2]}),
        one({"type": "string", "enum": ["1", "2"]}),
        "/properties/f/enum",
        "enum-not-strings",
    ),
    (
        "mixed-enum",
        one({"type": "string", "enum": ["a", 1]}),
        one({"type": "string", "enum": ["a", "1"]}),
        "/properties/f/enum/1",
        "enum-not-strings",
    ),
    (
        "titled-const-not-string",
        one({"type": "string", "oneOf": [{"const": 1, "title": "One"}]}),
        one({"type": "string", "oneOf": [{"const": "1", "title": "One"}]}),
        "/properties/f/oneOf/0",
        "enum-not-strings",
    ),
    (
        "integer-items",
        one({"type": "array", "items": {"type": "integer", "enum": [1]}}),
        one({"type": "array", "items": {"type": "string", "enum": ["1"]}}),
        "/properties/f/items/type",
        "enum-not-strings",
    ),
    (
        "exclusiveMinimum",
        one({"type": "number", "exclusiveMinimum": 0}),
        one({"type": "number", "minimum": 0}),
        "/properties/f/exclusiveMinimum",
        "exclusive-bound",
    ),
    (
        "exclusiveMaximum",
        one({"type": "integer", "exclusiveMaximum": 9}),
        one({"type": "integer", "maximum": 9}),
        "/properties/f/exclusiveMaximum",
        "exclusive-bound",
    ),
    (
        "uniqueItems",
        one({**MULTI, "uniqueItems": True}),
        one(MULTI),
        "/properties/f/uniqueItems",
        "unique-items",
    ),
    ("array-no-items", one({"type": "array"}), one(MULTI), "/properties/f", "items-not-enumerated"),
    (
        "array-free-items",
        one({"type": "array", "items": STR}),
        one(MULTI),
        "/properties/f/items",
        "items-not-enumerated",
    ),
    (
        "array-of-objects",
        one({"type": "array", "items": {"type": "object"}}),
        one(MULTI),
        "/properties/f/items",
        "items-not-enumerated",
    ),
    (
        "format-password",
        one({"type": "string", "format": "password"}),
        one({"type": "string", "format": "email"}),
        "/properties/f/format",
        "unknown-format",
    ),
    (
        "format-hostname",
        one({"type": "string", "format": "hostname"}),
        one({"type": "string", "format": "uri"}),
        "/properties/f/format",
        "unknown-format",
    ),
    (
        "boolean-minLength",
        one({"type": "boolean", "minLength": 1}),
        one({"type": "boolean"}),
        "/properties/f/minLength",
        "unknown-keyword",
    ),
    (
        "number-pattern",
        one({"type": "number", "pattern": "^1"}),
        one({"type": "number"}),
        "/properties/f/pattern",
        "unknown-keyword",
    ),
    (
        "string-minimum",
        one({"type": "string", "minimum": 1}),
        one({"type": "string", "minLength": 1}),
        "/properties/f/minimum",
        "unknown-keyword",
    ),
    (
        "enum-pattern",
        one({"type": "string", "enum": ["a"], "pattern": "a"}),
        one({"type": "string", "enum": ["a"]}),
        "/properties/f/pattern",
        "unknown-keyword",
    ),
    (
        "multipleOf",
        one({"type": "integer", "multipleOf": 2}),
        one({"type": "integer"}),
        "/properties/f/multipleOf",
        "unknown-keyword",
    ),
    (
        "const",
        one({"type": "string", "const": "x"}),
        one({"type": "string", "enum": ["x"]}),
        "/properties/f/const",
        "unknown-keyword",
    ),
    (
        "writeOnly",
        one({"type": "string", "writeOnly": True}),
        one(STR),
        "/properties/f/writeOnly",
        "unknown-keyword",
    ),
    (
        "items-extra-keyword",
        one({"type": "array", "items": {"type": "string", "enum": ["a"], "minLength": 1}}),
        one({"type": "array", "items": {"type": "string", "enum": ["a"]}}),
        "/properties/f/items/minLength",
        "unknown-keyword",
    ),
    ("top-unknown", {**one(STR), "$id": "x"}, one(STR), "/$id", "unknown-keyword"),
    (
        "top-additional",
        {**one(STR), "additionalProperties": True},
        {**one(STR), "additionalProperties": False},
        "/additionalProperties",
        "bad-value",
    ),
    (
        "default-too-short",
        one({"type": "string", "minLength": 3, "default": "ab"}),
        one({"type": "string", "minLength": 3, "default": "abc"}),
        "/properties/f/default",
        "bad-default",
    ),
    (
        "default-pattern",
        one({"type": "string", "pattern": "^[a-z]+$", "default": "A1"}),
        one({"type": "string", "pattern": "^[a-z]+$", "default": "ab"}),
        "/properties/f/default",
        "bad-default",
    ),
    (
        "default-not-a-choice",
        one({"type": "string", "enum": ["a", "b"], "default": "c"}),
        one({"type": "string", "enum": ["a", "b"], "default": "b"}),
        "/properties/f/default",
        "bad-default",
    ),
    (
        "default-titled-uses-title",
        one({"type": "string", "oneOf": TITLED, "default": "A"}),
        one({"type": "string", "oneOf": TITLED, "default": "a"}),
        "/properties/f/default",
        "bad-default",
    ),
    (
        "default-above-maximum",
        one({"type": "integer", "maximum": 10, "default": 11}),
        one({"type": "integer", "maximum": 10, "default": 10}),
        "/properties/f/default",
        "bad-default",
    ),
    (
        "default-wrong-type",
        one({"type": "boolean", "default": "yes"}),
        one({"type": "boolean", "default": True}),
        "/properties/f/default",
        "bad-default",
    ),
    (
        "default-too-many",
        one({**MULTI, "maxItems": 1, "default": ["a", "b"]}),
        one({**MULTI, "maxItems": 1, "default": ["a"]}),
        "/properties/f/default",
        "bad-default",
    ),
    (
        "default-bad-email",
        one({"type": "string", "format": "email", "default": "nobody"}),
        one({"type": "string", "format": "email", "default": "nobody@example.com"}),
        "/properties/f/default",
        "bad-default",
    ),
    (
        "default-bad-date",
        one({"type": "string", "format": "date", "default": "2025-02-30"}),
        one({"type": "string", "format": "date", "default": "2025-02-28"}),
        "/properties/f/default",
        "bad-default",
    ),
    (
        "enumNames-length",
        one({"type": "string", "enum": ["a", "b"], "enumNames": ["A"]}),
        one({"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"]}),
        "/properties/f/enumNames",
        "enum-names-length",
    ),
    ("no-type", one({"title": "Name"}), one({"type": "string", "title": "Name"}), "/properties/f", "no-type"),
    ("type-null", one({"type": "null"}), one(STR), "/properties/f/type", "unknown-type"),
    ("top-type-array", {"type": "array", "properties": {"f": STR}}, one(STR), "/type", "not-type-object"),
    (
        "no-properties",
        {"type": "object"},
        {"type": "object", "properties": {}},
        "/properties",
        "no-properties",
    ),
    (
        "required-unknown",
        {**one(STR), "required": ["g"]},
        {**one(STR), "required": ["f"]},
        "/required/0",
        "bad-required",
    ),
    (
        "required-not-list",
        {**one(STR), "required": "f"},
        {**one(STR), "required": ["f"]},
        "/required",
        "bad-required",
    ),
    ("property-not-object", one("string"), one(STR), "/properties/f", "not-an-object"),
    ("schema-not-object", ["type", "object"], one(STR), "", "not-an-object"),
    (
        "empty-enum",
        one({"type": "string", "enum": []}),
        one({"type": "string", "enum": ["a"]}),
        "/properties/f/enum",
        "empty-choices",
    ),
    (
        "duplicate-enum",
        one({"type": "string", "enum": ["a", "a"]}),
        one({"type": "string", "enum": ["a", "b"]}),
        "/properties/f/enum/1",
        "duplicate-choice",
    ),
    (
        "option-without-title",
        one({"type": "string", "oneOf": [{"const": "a"}]}),
        one({"type": "string", "oneOf": [{"const": "a", "title": "A"}]}),
        "/properties/f/oneOf/0",
        "bad-option",
    ),
    (
        "multi-option-extra-key",
        one({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A", "description": "x"}]}}),
        one({"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}}),
        "/properties/f/items/anyOf/0",
        "bad-option",
    ),
    (
        "minLength-above-maxLength",
        one({"type": "string", "minLength": 5, "maxLength": 2}),
        one({"type": "string", "minLength": 2, "maxLength": 5}),
        "/properties/f/minLength",
        "min-above-max",
    ),
    (
        "minimum-above-maximum",
        one({"type": "number", "minimum": 5, "maximum": 2.5}),
        one({"type": "number", "minimum": 2.5, "maximum": 5}),
        "/properties/f/minimum",
        "min-above-max",
    ),
    (
        "minItems-above-maxItems",
        one({**MULTI, "minItems": 3, "maxItems": 1}),
        one({**MULTI, "minItems": 1, "maxItems": 3}),
        "/properties/f/minItems",
        "min-above-max",
    ),
    (
        "negative-minLength",
        one({"type": "string", "minLength": -1}),
        one({"type": "string", "minLength": 0}),
        "/properties/f/minLength",
        "bad-value",
    ),
    (
        "minItems-not-int",
        one({**MULTI, "minItems": "1"}),
        one({**MULTI, "minItems": 1}),
        "/properties/f/minItems",
        "bad-value",
    ),
    (
        "minimum-not-number",
        one({"type": "number", "minimum": "0"}),
        one({"type": "number", "minimum": 0}),
        "/properties/f/minimum",
        "bad-value",
    ),
    (
        "title-not-string",
        one({"type": "string", "title": 5}),
        one({"type": "string", "title": "5"}),
        "/properties/f/title",
        "bad-value",
    ),
    (
        "bad-pattern",
        one({"type": "string", "pattern": "("}),
        one({"type": "string", "pattern": "\\("}),
        "/properties/f/pattern",
        "bad-pattern",
    ),
    # S-11: secrets belong in URL mode.
    ("password", one(STR, "password"), one(STR, "nickname"), "/properties/password", "sensitive-field"),
    (
        "api-key-title",
        one({"type": "string", "title": "Your API key"}, "k"),
        one({"type": "string", "title": "Your handle"}, "k"),
        "/properties/k",
        "sensitive-field",
    ),
    (
        "cardNumber",
        one(STR, "cardNumber"),
        one(STR, "cardHolder"),
        "/properties/cardNumber",
        "sensitive-field",
    ),
    (
        "cvv",
        one({"type": "string", "maxLength": 4}, "cvv"),
        one({"type": "string", "maxLength": 4}, "zip"),
        "/properties/cvv",
        "sensitive-field",
    ),
    (
        "access-token",
        one(STR, "access_token"),
        one(STR, "access_level"),
        "/properties/access_token",
        "sensitive-field",
    ),
    (
        "ssn-description",
        one({"type": "string", "description": "Your SSN"}, "id"),
        one({"type": "string", "description": "Your badge number"}, "id"),
        "/properties/id",
        "sensitive-field",
    ),
    (
        "client-secret",
        one(STR, "client-secret"),
        one(STR, "client-name"),
        "/properties/client-secret",
        "sensitive-field",
    ),
    # S-12: clickable URLs are warnings.
    (
        "url-in-description",
        one({"type": "string", "description": "See https://evil.example/help"}),
        one({"type": "string", "description": "See the help page"}),
        "/properties/f/description",
        "url-in-text",
    ),
    (
        "url-in-title",
        one({"type": "string", "title": "Go to www.example.com"}),
        one({"type": "string", "title": "Go"}),
        "/properties/f/title",
        "url-in-text",
    ),
    (
        "url-in-default",
        one({"type": "string", "default": "http://example.com"}),
        one({"type": "string", "default": "x"}),
        "/properties/f/default",
        "url-in-text",
    ),
    (
        "url-in-option-title",
        one({"type": "string", "oneOf": [{"const": "a", "title": "mailto:a@example.com"}]}),
        one({"type": "string", "oneOf": [{"const": "a", "title": "Email us"}]}),
        "/properties/f/oneOf/0/title",
        "url-in-text",
    ),
    (
        "url-in-form-title",
        {**one(STR), "title": "Details at https://example.com"},
        {**one(STR), "title": "Details"},
        "/title",
        "url-in-text",
    ),
]


def test_there_are_at_least_forty_cases() -> None:
    assert len(CASES) >= 40
    assert len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize(
    ("invalid", "pointer", "code"), [c[1:2] + c[3:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_invalid_schema_is_caught_at_the_right_pointer(invalid: Any, pointer: str, code: str) -> None:
    findings = lint(invalid)
    assert (pointer, code) in {(f.pointer, f.code) for f in findings}, findings
    finding = next(f for f in findings if (f.pointer, f.code) == (pointer, code))
    assert finding.severity == ("warning" if code == "url-in-text" else "error")
    assert finding.message.endswith(".") and len(finding.message) > 20


@pytest.mark.parametrize("valid", [c[2] for c in CASES], ids=[c[0] for c in CASES])
def test_valid_twin_is_clean(valid: Any) -> None:
    assert lint(valid) == []


def test_sensitive_field_can_be_allowed_with_a_reason() -> None:
    schema = one(STR, "pin")
    assert [f.code for f in lint(schema)] == ["sensitive-field"]
    assert lint(schema, allow_sensitive={"pin": "A map pin label, not a PIN code."}) == []
    assert [f.code for f in lint(schema, allow_sensitive={"pin": "  "})] == ["sensitive-field"]


def test_url_in_message_is_a_warning() -> None:
    findings = lint(one(STR), message="Please read https://example.com/terms first")
    assert findings == [
        LintFinding(
            "",
            "warning",
            "url-in-text",
            "The message contains a URL (https://example.com/terms); a client may render it as a link. "
            "Put links only in a URL-mode request.",
        )
    ]
    assert lint(one(STR), message="Please provide your GitHub username") == []


def test_pointer_escapes_slash_and_tilde() -> None:
    findings = lint(one({"type": "object"}, name="a/b~c"))
    assert findings[0].pointer == "/properties/a~1b~0c"


def test_pydantic_style_top_level_title_and_description_are_fine() -> None:
    schema = {"title": "Contact", "description": "Who to reach.", **one(STR), "required": ["f"]}
    assert lint(schema) == []


def test_legacy_enum_names_are_accepted() -> None:
    assert (
        lint(one({"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"], "default": "s"}))
        == []
    )


# -- every example schema on the spec page (2025-11-25, "Requested Schema" and the examples) ---------

SPEC_STRING = {
    "type": "string",
    "title": "Display Name",
    "description": "Description text",
    "minLength": 3,
    "maxLength": 50,
    "pattern": "^[A-Za-z]+$",
    "format": "email",
    # The translated page in ../shared/spec shows a redacted "[e-mail]" here; the English page
    # has an address, which (like any address) cannot match the example's own pattern.
    "default": "user@example.com",
}
SPEC_PROPERTIES: dict[str, dict[str, Any]] = {
    "number": {
        "type": "number",
        "title": "Display Name",
        "description": "Description text",
        "minimum": 0,
        "maximum": 100,
        "default": 50,
    },
    "boolean": {
        "type": "boolean",
        "title": "Display Name",
        "description": "Description text",
        "default": False,
    },
    "untitled-single": {
        "type": "string",
        "title": "Color Selection",
        "description": "Choose your favorite color",
        "enum": ["Red", "Green", "Blue"],
        "default": "Red",
    },
    "titled-single": {
        "type": "string",
        "title": "Color Selection",
        "description": "Choose your favorite color",
        "oneOf": [
            {"const": "#FF0000", "title": "Red"},
            {"const": "#00FF00", "title": "Green"},
            {"const": "#0000FF", "title": "Blue"},
        ],
        "default": "#FF0000",
    },
    "untitled-multi": {
        "type": "array",
        "title": "Color Selection",
        "description": "Choose your favorite colors",
        "minItems": 1,
        "maxItems": 2,
        "items": {"type": "string", "enum": ["Red", "Green", "Blue"]},
        "default": ["Red", "Green"],
    },
    "titled-multi": {
        "type": "array",
        "title": "Color Selection",
        "description": "Choose your favorite colors",
        "minItems": 1,
        "maxItems": 2,
        "items": {
            "anyOf": [
                {"const": "#FF0000", "title": "Red"},
                {"const": "#00FF00", "title": "Green"},
                {"const": "#0000FF", "title": "Blue"},
            ]
        },
        "default": ["#FF0000", "#00FF00"],
    },
}
SPEC_SIMPLE = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
SPEC_STRUCTURED = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "Your full name"},
        "email": {"type": "string", "format": "email", "description": "Your email address"},
        "age": {"type": "number", "minimum": 18, "description": "Your age"},
    },
    "required": ["name", "email"],
}


@pytest.mark.parametrize("name", list(SPEC_PROPERTIES))
def test_spec_primitive_examples_are_clean(name: str) -> None:
    assert lint(one(SPEC_PROPERTIES[name])) == []


def test_spec_string_example_is_in_the_subset_but_its_default_breaks_its_pattern() -> None:
    findings = lint(one(SPEC_STRING))
    assert [(f.pointer, f.code) for f in findings] == [("/properties/f/default", "bad-default")]
    assert lint(one({**SPEC_STRING, "pattern": "^[a-z]+@[a-z.]+$"})) == []


@pytest.mark.parametrize("schema", [SPEC_SIMPLE, SPEC_STRUCTURED], ids=["simple-text", "structured"])
def test_spec_request_examples_are_clean(schema: dict[str, Any]) -> None:
    assert lint(schema, message="Please provide your contact information") == []
