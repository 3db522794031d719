"""Property tests: every model of supported fields builds a clean, spec-valid schema; `validate`
and `lint` never raise, whatever JSON they are given."""

from __future__ import annotations

import dataclasses
import datetime as dt
import enum
from typing import Annotated, Any, Literal

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pydantic import AnyUrl, EmailStr, Field, HttpUrl, TypeAdapter, create_model

from elicitkit._sdk import PrimitiveSchemaDefinition
from elicitkit.schema import Titled, TitledEnum, ValidationProblem, build, defaults, lint, validate

PRIMITIVE = TypeAdapter[Any](PrimitiveSchemaDefinition)
WORDS = ["Name", "Colour", "Arrival", "Team size", "Notes", "Favourite", "Budget", "Start"]
choice_values = st.lists(st.text(min_size=1, max_size=8), min_size=1, max_size=5, unique=True)


@st.composite
def choices(draw: st.DrawFn) -> tuple[Any, list[str]]:
    """A choice type (Literal, str Enum, TitledEnum or Titled Literal) and its values."""
    values = draw(choice_values)
    style = draw(st.sampled_from(["literal", "enum", "titled-enum", "titled-literal"]))
    members = [(f"M{i}", v) for i, v in enumerate(values)]
    if style == "literal":
        return Literal[tuple(values)], values
    if style == "enum":
        return enum.Enum("Choice", members, type=str), values
    if style == "titled-enum":
        return TitledEnum("Choice", [(n, (v, f"Title {n}")) for n, v in members]), values
    titles = {v: f"Title {i}" for i, v in enumerate(values)}
    return Annotated[Literal[tuple(values)], Titled(titles)], values


@st.composite
def fields(draw: st.DrawFn) -> tuple[Any, Any]:
    """(annotation, default or FieldInfo) for one field of any supported kind."""
    kind = draw(
        st.sampled_from(
            ["str", "int", "float", "bool", "date", "datetime", "url", "http", "email", "choice", "multi"]
        )
    )
    meta: dict[str, Any] = {}
    if draw(st.booleans()):
        meta["title"] = draw(st.sampled_from(WORDS))
    if draw(st.booleans()):
        meta["description"] = draw(st.sampled_from(WORDS)) + "."
    default: Any = ...
    annotation: Any
    if kind == "str":
        low, high = sorted(draw(st.lists(st.integers(0, 30), min_size=2, max_size=2)))
        meta.update(min_length=low, max_length=high)
        if draw(st.booleans()):
            meta["pattern"] = r"^\w*$"
            default = draw(st.none() | st.just("a" * low))
        annotation = str
    elif kind in ("int", "float"):
        number = st.integers(-1000, 1000) if kind == "int" else st.floats(-1e6, 1e6)
        low, high = sorted(draw(st.lists(number, min_size=2, max_size=2)))
        meta.update(ge=low, le=high)
        default = draw(st.none() | st.just(low))
        annotation = int if kind == "int" else float
    elif kind == "bool":
        annotation, default = bool, draw(st.sampled_from([..., True, False]))
    elif kind in ("date", "datetime"):
        annotation = dt.date if kind == "date" else dt.datetime
        if draw(st.booleans()):
            default = dt.date(2025, 11, 25) if kind == "date" else dt.datetime(2025, 11, 25, tzinfo=dt.UTC)
    elif kind in ("url", "http", "email"):
        annotation = {"url": AnyUrl, "http": HttpUrl, "email": EmailStr}[kind]
    elif kind == "choice":
        annotation, values = draw(choices())
        default = draw(st.sampled_from([..., None, values[0]]))
    else:
        item, values = draw(choices())
        container = draw(st.sampled_from([list, set, frozenset]))
        annotation = container[item]  # type: ignore[index]
        low = draw(st.integers(0, len(values)))
        meta.update(min_length=low, max_length=draw(st.integers(low, len(values) + 2)))
        default = draw(st.sampled_from([..., list(values[:low])]))
    if default is None:
        annotation = annotation | None
    return annotation, Field(default, **meta)


@st.composite
def form_types(draw: st.DrawFn) -> Any:
    specs = draw(st.lists(fields(), min_size=1, max_size=14))
    if draw(st.booleans()):
        return create_model("Generated", **{f"field_{i}": spec for i, spec in enumerate(specs)})
    return dataclasses.make_dataclass(
        "Generated",
        sorted(
            ((f"field_{i}", a, dataclasses.field(default=f)) for i, (a, f) in enumerate(specs)),
            key=lambda f: f[2].default.is_required(),
            reverse=True,
        ),
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(form_types())
def test_built_schemas_are_lint_clean_and_accepted_by_the_sdk(tp: Any) -> None:
    schema = build(tp)
    assert lint(schema) == []
    for prop in schema["properties"].values():
        PRIMITIVE.validate_python(prop)
        assert "$ref" not in prop and "anyOf" not in prop and prop.get("type") != "null"
    filled = defaults(schema)
    assert all(p.code == "missing" for p in validate(schema, filled))


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)
FORM = {
    "type": "object",
    "properties": {
        "s": {"type": "string", "minLength": 1, "pattern": "^[a-z]+$"},
        "e": {"type": "string", "format": "email"},
        "u": {"type": "string", "format": "uri"},
        "d": {"type": "string", "format": "date"},
        "t": {"type": "string", "format": "date-time"},
        "i": {"type": "integer", "minimum": 0},
        "n": {"type": "number", "maximum": 1.5},
        "b": {"type": "boolean"},
        "c": {"type": "string", "enum": ["a", "b"]},
        "m": {"type": "array", "items": {"anyOf": [{"const": "x", "title": "X"}]}, "maxItems": 1},
    },
    "required": ["s", "i"],
}


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_validate_never_raises_on_any_answer(content: Any) -> None:
    problems = validate(FORM, content)
    assert all(isinstance(p, ValidationProblem) and p.message for p in problems)


answers_for_form = st.fixed_dictionaries({}, optional={name: json_values for name in FORM["properties"]})


@settings(max_examples=400, deadline=None)
@given(answers_for_form)
def test_validate_never_raises_on_answers_shaped_like_the_form(content: Any) -> None:
    problems = validate(FORM, content)
    assert {p.field for p in problems} <= set(content) | {"s", "i"}


property_schemas = st.dictionaries(
    st.sampled_from(
        [
            "type",
            "enum",
            "oneOf",
            "items",
            "minLength",
            "maxLength",
            "pattern",
            "format",
            "default",
            "minimum",
            "maximum",
            "minItems",
            "maxItems",
            "title",
            "description",
            "enumNames",
            "anyOf",
            "$ref",
            "const",
        ]
    ),
    st.sampled_from(["string", "number", "integer", "boolean", "array", "object", "email", "^a"])
    | json_values,
    max_size=6,
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(max_size=5), property_schemas | json_values, max_size=4), json_values)
@example({"": {"type": "string", "format": []}}, None)  # found by CI: a format that is not a string
@example({"a": {"type": "string", "format": {"x": 1}}}, {"a": "b"})
def test_lint_and_validate_never_raise_on_any_schema(properties: Any, content: Any) -> None:
    schema = {"type": "object", "properties": properties}
    for finding in lint(schema, message="hi"):
        assert finding.severity in ("error", "warning") and finding.message
    assert all(isinstance(p, ValidationProblem) for p in validate(schema, content))
    assert isinstance(defaults(schema), dict)


@settings(max_examples=200, deadline=None)
@given(json_values, json_values)
def test_anything_as_a_schema(schema: Any, content: Any) -> None:
    """Any JSON as a schema gets an answer, never an exception: what is not an object schema is
    an error for `lint`, and no answer passes `validate` against it."""
    findings = lint(schema)
    problems = validate(schema, content)
    assert isinstance(defaults(schema), dict)
    if not (isinstance(schema, dict) and schema.get("type") == "object"):
        assert any(finding.severity == "error" for finding in findings)
        assert problems and all(isinstance(p, ValidationProblem) for p in problems)
