"""`build`: Python types to a spec-valid `requestedSchema`, and a sentence for what cannot be."""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import enum
from typing import Annotated, Any, Literal, NotRequired

import pytest
from pydantic import AnyUrl, BaseModel, EmailStr, Field, HttpUrl, StringConstraints, TypeAdapter
from typing_extensions import TypedDict

from elicitkit._sdk import PrimitiveSchemaDefinition
from elicitkit.schema import SchemaBuildError, Titled, TitledEnum, build, defaults, lint, validate

PRIMITIVE = TypeAdapter[Any](PrimitiveSchemaDefinition)


class Color(TitledEnum):
    RED = "#FF0000", "Red"
    GREEN = "#00FF00", "Green"
    BLUE = "#0000FF", "Blue"


class Size(enum.StrEnum):
    S = "s"
    M = "m"


class Profile(BaseModel):
    name: str = Field(title="Display Name", description="Description text", min_length=3, max_length=50)
    handle: Annotated[str, StringConstraints(pattern=r"^[a-z]+$")] = "octo"
    email: EmailStr
    site: HttpUrl | None = None
    home: AnyUrl | None = None
    born: dt.date = dt.date(2000, 1, 31)
    meet: dt.datetime | None = None
    age: int = Field(default=50, ge=0, le=100)
    score: float = Field(default=0.5, ge=0, le=1)
    ok: bool = False
    color: Literal["Red", "Green", "Blue"] = "Red"
    size: Size = Size.M
    hex: Color = Color.RED
    titled: Annotated[Literal["a", "b"], Titled({"a": "Option A", "b": "Option B"})] = "b"
    free_titled: Annotated[str, Titled({"x": "Ex", "y": "Why"})] | None = None
    tags: list[Literal["Red", "Green", "Blue"]] = Field(default=["Red", "Green"], min_length=1, max_length=2)
    sizes: set[Size] = Field(default_factory=lambda: {Size.M, Size.S})
    colors: frozenset[Color] = frozenset({Color.GREEN})
    picks: Annotated[list[str], Titled({"p": "P", "q": "Q"})] = []


def test_every_kind_of_field() -> None:
    schema = build(Profile)
    p = schema["properties"]
    assert schema["type"] == "object" and schema["required"] == ["name", "email"]
    assert p["name"] == {
        "type": "string",
        "title": "Display Name",
        "description": "Description text",
        "minLength": 3,
        "maxLength": 50,
    }
    assert p["handle"] == {"type": "string", "pattern": "^[a-z]+$", "default": "octo"}
    assert p["email"] == {"type": "string", "format": "email"}
    assert p["site"] == p["home"] == {"type": "string", "format": "uri"}
    assert p["born"] == {"type": "string", "format": "date", "default": "2000-01-31"}
    assert p["meet"] == {"type": "string", "format": "date-time"}
    assert p["age"] == {"type": "integer", "minimum": 0, "maximum": 100, "default": 50}
    assert p["score"] == {"type": "number", "minimum": 0, "maximum": 1, "default": 0.5}
    assert p["ok"] == {"type": "boolean", "default": False}
    assert p["color"] == {"type": "string", "enum": ["Red", "Green", "Blue"], "default": "Red"}
    assert p["size"] == {"type": "string", "enum": ["s", "m"], "default": "m"}
    assert p["hex"] == {
        "type": "string",
        "oneOf": [
            {"const": "#FF0000", "title": "Red"},
            {"const": "#00FF00", "title": "Green"},
            {"const": "#0000FF", "title": "Blue"},
        ],
        "default": "#FF0000",
    }
    assert p["titled"]["oneOf"] == [{"const": "a", "title": "Option A"}, {"const": "b", "title": "Option B"}]
    assert p["free_titled"] == {
        "type": "string",
        "oneOf": [{"const": "x", "title": "Ex"}, {"const": "y", "title": "Why"}],
    }
    assert p["tags"] == {
        "type": "array",
        "items": {"type": "string", "enum": ["Red", "Green", "Blue"]},
        "minItems": 1,
        "maxItems": 2,
        "default": ["Red", "Green"],
    }
    assert p["sizes"] == {
        "type": "array",
        "items": {"type": "string", "enum": ["s", "m"]},
        "default": ["s", "m"],
    }
    assert p["colors"]["items"] == {"anyOf": p["hex"]["oneOf"]} and p["colors"]["default"] == ["#00FF00"]
    assert p["picks"] == {
        "type": "array",
        "items": {"anyOf": [{"const": "p", "title": "P"}, {"const": "q", "title": "Q"}]},
        "default": [],
    }


def test_built_schema_is_spec_valid_lint_clean_and_round_trips() -> None:
    schema = build(Profile)
    for prop in schema["properties"].values():
        PRIMITIVE.validate_python(prop)
    assert "$ref" not in str(schema) and "anyOf': [{'type'" not in str(schema) and "null" not in str(schema)
    assert lint(schema) == []
    answer = {**defaults(schema), "name": "Ada", "email": "ada@example.com"}
    assert validate(schema, answer) == []
    model = Profile.model_validate(answer)
    assert model.hex is Color.RED and model.sizes == {Size.S, Size.M}


def test_titled_enum_members_carry_their_title() -> None:
    assert Color.GREEN == "#00FF00" and Color.GREEN.label == "Green" and Color("#0000FF") is Color.BLUE


@dataclasses.dataclass
class Booking:
    guest: str
    nights: int = 1
    extras: list[Literal["breakfast", "parking"]] = dataclasses.field(default_factory=list)
    when: dt.date | None = None
    note: Annotated[str, Field(max_length=200)] = ""


class Contact(TypedDict):
    name: str
    email: NotRequired[EmailStr]


def test_dataclass() -> None:
    assert build(Booking) == {
        "type": "object",
        "properties": {
            "guest": {"type": "string"},
            "nights": {"type": "integer", "default": 1},
            "extras": {
                "type": "array",
                "items": {"type": "string", "enum": ["breakfast", "parking"]},
                "default": [],
            },
            "when": {"type": "string", "format": "date"},
            "note": {"type": "string", "maxLength": 200, "default": ""},
        },
        "required": ["guest"],
    }


def test_typed_dict() -> None:
    assert build(Contact) == {
        "type": "object",
        "properties": {"name": {"type": "string"}, "email": {"type": "string", "format": "email"}},
        "required": ["name"],
    }


def test_alias_is_the_property_name() -> None:
    class Aliased(BaseModel):
        first_name: str = Field(alias="firstName")

    assert build(Aliased)["properties"] == {"firstName": {"type": "string"}}


class Address(BaseModel):
    street: str


@dataclasses.dataclass
class Point:
    x: int


class Nested(TypedDict):
    a: str


# (id, annotation, default or ..., words the error must contain)
REFUSED: list[tuple[str, Any, Any, list[str]]] = [
    ("nested-model", Address, ..., ["'field'", "nested Address", "flat fields"]),
    ("nested-dataclass", Point, ..., ["nested Point"]),
    ("nested-typeddict", Nested, ..., ["nested Nested"]),
    ("dict", dict[str, str], ..., ["mapping"]),
    ("union", int | str, ..., ["union", "one type"]),
    ("optional-without-default", int | None, ..., ["None", "default"]),
    ("list-of-str", list[str], ..., ["list[Literal[...]]"]),
    ("list-of-int", list[int], ..., ["multi-select"]),
    ("tuple", tuple[str, ...], ..., ["list, set or frozenset"]),
    ("int-literal", Literal[1, 2], ..., ["not strings", "Literal of strings"]),
    ("mixed-literal", Literal["a", 1], ..., ["not strings"]),
    ("int-enum", enum.IntEnum("Level", {"LOW": 1}), ..., ["not strings"]),
    ("decimal", decimal.Decimal, ..., ["use float"]),
    ("time", dt.time, ..., ["str with a pattern"]),
    ("bytes", bytes, ..., ["URL mode"]),
    ("any", Any, ..., ["cannot ask for"]),
    ("gt", Annotated[int, Field(gt=0)], ..., ["exclusive minimum", "ge"]),
    ("lt", Annotated[float, Field(lt=1)], ..., ["exclusive maximum", "le"]),
    ("multiple-of", Annotated[int, Field(multiple_of=2)], ..., ["multiple_of"]),
    (
        "titles-mismatch",
        Annotated[Literal["a", "b"], Titled({"a": "A"})],
        ...,
        ["'b'", "one title per choice"],
    ),
    ("length-on-int", Annotated[int, Field(min_length=1)], ..., ["min_length"]),
    ("default-breaks-rule", Annotated[int, Field(le=3)], 5, ["default", "at most 3"]),
]


@pytest.mark.parametrize(
    ("annotation", "default", "words"), [c[1:] for c in REFUSED], ids=[c[0] for c in REFUSED]
)
def test_unsupported_types_are_refused_naming_the_field(
    annotation: Any, default: Any, words: list[str]
) -> None:
    from pydantic import create_model

    model = create_model("Form", field=(annotation, default))
    with pytest.raises(SchemaBuildError) as caught:
        build(model)
    message = str(caught.value)
    assert "'field'" in message
    for word in words:
        assert word in message


def test_not_a_form_type() -> None:
    with pytest.raises(SchemaBuildError, match="not a pydantic model, dataclass or TypedDict"):
        build(int)


def test_sensitive_fields_build_but_lint_flags_them() -> None:
    class Login(BaseModel):
        password: str

    schema = build(Login)
    assert [f.code for f in lint(schema)] == ["sensitive-field"]
