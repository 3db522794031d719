"""`validate`: each invalid answer is caught naming its field, and its valid twin passes."""

from __future__ import annotations

import copy
import enum
import gc
import json
import math
import tracemalloc
from types import MappingProxyType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic_core import PydanticCustomError

from elicitkit.schema import ValidationProblem, validate
from elicitkit.schema import _checks as checks

FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 20},
        "handle": {"type": "string", "pattern": "^[a-z0-9_]+$"},
        "email": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "born": {"type": "string", "format": "date"},
        "meet": {"type": "string", "format": "date-time"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150},
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "ok": {"type": "boolean", "default": False},
        "color": {"type": "string", "enum": ["Red", "Green", "Blue"]},
        "hex": {
            "type": "string",
            "oneOf": [{"const": "#f00", "title": "Red"}, {"const": "#0f0", "title": "Green"}],
        },
        "tags": {
            "type": "array",
            "items": {"type": "string", "enum": ["a", "b", "c"]},
            "minItems": 1,
            "maxItems": 2,
        },
        "picks": {
            "type": "array",
            "items": {"anyOf": [{"const": "x", "title": "X"}, {"const": "y", "title": "Y"}]},
        },
        "size": {"type": "string", "enum": ["s", "m"], "enumNames": ["Small", "Medium"]},
    },
    "required": ["name", "email", "age"],
}
VALID: dict[str, Any] = {
    "name": "Ada",
    "handle": "ada_l",
    "email": "ada@example.com",
    "site": "https://example.com/ada?x=1#top",
    "born": "1815-12-10",
    "meet": "2025-11-25T10:00:00Z",
    "age": 36,
    "score": 0.5,
    "ok": True,
    "color": "Red",
    "hex": "#f00",
    "tags": ["a", "b"],
    "picks": ["y"],
    "size": "m",
}
_ABSENT = object()

# (id, field, invalid value (or _ABSENT to leave it out), valid twin value (or _ABSENT), problem code)
CASES: list[tuple[str, str, Any, Any, str]] = [
    ("name-empty", "name", "", "A", "too-short"),
    ("name-too-long", "name", "x" * 21, "x" * 20, "too-long"),
    ("name-null", "name", None, "Ada", "wrong-type"),
    ("name-number", "name", 5, "5", "wrong-type"),
    ("handle-pattern", "handle", "Ada!", "ada", "pattern"),
    ("handle-list", "handle", ["ada"], "ada", "wrong-type"),
    ("email-no-at", "email", "nope", "n@example.org", "format"),
    ("email-no-local", "email", "@example.com", "a@example.com", "format"),
    ("email-no-dot-domain", "email", "a@localhost", "a@local.host", "format"),
    ("email-space", "email", "a b@example.com", "a.b@example.com", "format"),
    ("uri-words", "site", "not a uri", "urn:isbn:0451450523", "format"),
    ("uri-relative", "site", "example.com/page", "https://example.com/page", "format"),
    ("uri-space", "site", "http://exa mple.com", "http://example.com", "format"),
    ("date-feb-30", "born", "2024-02-30", "2024-02-29", "format"),
    ("date-slashes", "born", "2024/01/01", "2024-01-01", "format"),
    ("date-short-year", "born", "24-01-01", "2024-01-01", "format"),
    ("date-time-no-zone", "meet", "2025-11-25T10:00:00", "2025-11-25T10:00:00+01:00", "format"),
    ("date-time-space", "meet", "2025-11-25 10:00", "2025-11-25T10:00:00.5Z", "format"),
    ("date-time-month-13", "meet", "2025-13-01T00:00:00Z", "2025-12-01T00:00:00Z", "format"),
    ("age-string", "age", "5", 5, "wrong-type"),
    ("age-true", "age", True, 1, "wrong-type"),
    ("age-fraction", "age", 5.5, 5.0, "wrong-type"),
    ("age-negative", "age", -1, 0, "too-small"),
    ("age-too-big", "age", 151, 150, "too-large"),
    ("age-null", "age", None, 40, "wrong-type"),
    ("score-string", "score", "0.5", 0.25, "wrong-type"),
    ("score-false", "score", False, 0, "wrong-type"),
    ("score-too-big", "score", 1.5, 1, "too-large"),
    ("score-too-small", "score", -0.1, 0.0, "too-small"),
    ("ok-one", "ok", 1, True, "wrong-type"),
    ("ok-string", "ok", "true", False, "wrong-type"),
    ("color-unknown", "color", "Purple", "Blue", "not-a-choice"),
    ("color-case", "color", "red", "Red", "not-a-choice"),
    ("color-list", "color", ["Red"], "Green", "not-a-choice"),
    ("hex-title-not-const", "hex", "Red", "#0f0", "not-a-choice"),
    ("size-legacy-name", "size", "Small", "s", "not-a-choice"),
    ("tags-none", "tags", [], ["c"], "too-few"),
    ("tags-too-many", "tags", ["a", "b", "c"], ["a", "c"], "too-many"),
    ("tags-unknown", "tags", ["a", "d"], ["a", "b"], "not-a-choice"),
    ("tags-duplicate", "tags", ["a", "a"], ["a"], "duplicate"),
    ("tags-string", "tags", "a", ["a"], "wrong-type"),
    ("tags-number", "tags", [1], ["b"], "not-a-choice"),
    ("picks-title", "picks", ["X"], ["x", "y"], "not-a-choice"),
    ("picks-object", "picks", {"x": True}, [], "wrong-type"),
    ("missing-name", "name", _ABSENT, "Ada", "missing"),
    ("missing-email", "email", _ABSENT, "ada@example.com", "missing"),
    ("missing-age", "age", _ABSENT, 36, "missing"),
    ("unknown-key", "nickname", "ada", _ABSENT, "unknown-field"),
    ("unknown-key-case", "Name", "Ada", _ABSENT, "unknown-field"),
]


def answer(field: str, value: Any) -> dict[str, Any]:
    content = copy.deepcopy(VALID)
    content.pop(field, None)
    if value is not _ABSENT:
        content[field] = value
    return content


def test_there_are_at_least_forty_cases() -> None:
    assert len(CASES) >= 40
    assert len({c[0] for c in CASES}) == len(CASES)


def test_the_base_answer_is_valid() -> None:
    assert validate(FORM, VALID) == []


@pytest.mark.parametrize(
    ("field", "bad", "code"), [(c[1], c[2], c[4]) for c in CASES], ids=[c[0] for c in CASES]
)
def test_invalid_answer_is_caught_naming_the_field(field: str, bad: Any, code: str) -> None:
    problems = validate(FORM, answer(field, bad))
    assert [(p.field, p.code) for p in problems] == [(field, code)], problems
    assert repr(field) in problems[0].message and problems[0].message.endswith(".")


@pytest.mark.parametrize(("field", "good"), [(c[1], c[3]) for c in CASES], ids=[c[0] for c in CASES])
def test_valid_twin_is_accepted(field: str, good: Any) -> None:
    assert validate(FORM, answer(field, good)) == []


def test_every_problem_is_reported_at_once() -> None:
    content = {**VALID, "age": "5", "email": "nope", "tags": ["a", "a"], "extra": 1}
    del content["name"]
    problems = validate(FORM, content)
    assert {(p.field, p.code) for p in problems} == {
        ("name", "missing"),
        ("age", "wrong-type"),
        ("email", "format"),
        ("tags", "duplicate"),
        ("extra", "unknown-field"),
    }


def test_optional_fields_may_be_left_out() -> None:
    assert validate(FORM, {"name": "Ada", "email": "ada@example.com", "age": 1}) == []


def test_messages_say_what_to_do() -> None:
    (problem,) = validate(FORM, answer("age", 151))
    assert problem == ValidationProblem("age", "too-large", "'age' must be at most 150, not 151.")
    (problem,) = validate(FORM, answer("nickname", "x"))
    assert "remove it" in problem.message and "'name'" in problem.message


@pytest.mark.parametrize("content", [None, [], "x", 5, True, [VALID]])
def test_an_answer_that_is_not_an_object(content: Any) -> None:
    assert [(p.field, p.code) for p in validate(FORM, content)] == [(None, "not-an-object")]


@pytest.mark.parametrize(
    ("schema", "field"),
    [
        ([], None),
        ({"type": "array"}, None),
        ({"type": "object", "properties": []}, None),
        ({"type": "object", "properties": {"a": {"type": "object"}}}, "a"),
        ({"type": "object", "properties": {"a": {"type": "number", "exclusiveMinimum": 0}}}, "a"),
        ({"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}}, "a"),
        ({"type": "object", "properties": {"a": {"type": "string", "format": "ipv4"}}}, "a"),
        ({"type": "object", "properties": {"a": {"type": "string", "enum": [1]}}}, "a"),
        ({"type": "object", "properties": {"a": {"type": "string", "minLength": -1}}}, "a"),
        ({"type": "object", "properties": {}, "required": ["a"]}, "a"),
        ({"type": "object", "properties": {"a": {"type": "number", "minimum": float("nan")}}}, None),
        ({"type": "object", "properties": {("a",): {"type": "string"}}}, None),
        ({"type": "object", "properties": {"a": {"type": "string", "enum": {"x", "y"}}}}, None),
    ],
)
def test_a_schema_outside_the_subset_is_a_problem_not_an_exception(schema: Any, field: str | None) -> None:
    problems = validate(schema, {"a": 1})
    assert [(p.field, p.code) for p in problems] == [(field, "invalid-schema")]
    assert "elicitkit schema lint" in problems[0].message


def test_annotations_do_not_stop_validation() -> None:
    schema = {"type": "object", "properties": {"a": {"type": "string", "examples": ["x"], "$comment": "c"}}}
    assert validate(schema, {"a": "x"}) == []


def test_integer_accepts_whole_floats_only_and_big_ints() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert validate(schema, {"n": 10**40}) == []
    assert validate(schema, {"n": 3.0}) == []
    assert [p.code for p in validate(schema, {"n": float("inf")})] == ["wrong-type"]


def test_a_bound_too_large_for_a_float_still_checks() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 10**400}}}
    assert validate(schema, {"n": 10**400}) == []
    assert [p.code for p in validate(schema, {"n": 10**400 + 1})] == ["too-large"]


def test_number_refuses_nan() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "number"}}}
    assert [p.code for p in validate(schema, {"n": float("nan")})] == ["wrong-type"]


class _Small(enum.IntEnum):
    ONE = 1


class _Float(float):
    pass


_BOUNDS: list[int | float | None] = [None, 0, 1, 150, -1.5, 0.5, 2**53, 2**70, 1e300]


def _near(bound: int | float) -> list[Any]:
    """Values on and around a bound: one less and more, the floats either side, the float."""
    out: list[Any] = [bound, bound - 1, bound + 1, float(bound), math.nextafter(float(bound), -math.inf)]
    return [*out, math.nextafter(float(bound), math.inf), int(bound) if math.isfinite(bound) else 0]


_ODD: list[Any] = [
    *[math.inf, -math.inf, math.nan, -0.0, 3.0, 3.5, 2**53 + 1, 10**400, -(10**400)],
    *[True, False, None, "5", [], {}, _Small.ONE, _Float(1.0), _Float(1.5)],
]


@pytest.mark.parametrize("integer", [True, False])
def test_the_number_check_refuses_exactly_what_its_problem_names(integer: bool) -> None:
    """The check pydantic-core calls says only yes or no; `_explain` asks `number_problem` why.
    They are two functions (the check is the hot path), so they must agree on every value."""
    values = _ODD + [v for b in _BOUNDS if b is not None for v in _near(b)]
    for low in _BOUNDS:
        for high in _BOUNDS:
            check = checks.number_check(integer, low, high)
            problem = checks.number_problem(integer, low, high)
            for value in values:
                try:
                    accepted = check(value) is value
                except PydanticCustomError:
                    accepted = False
                assert accepted == (problem(value) is None), (integer, low, high, value, problem(value))


@given(
    st.booleans(),
    st.one_of(st.integers(-(2**60), 2**60), st.floats()),
    st.one_of(st.integers(-(2**60), 2**60), st.floats()),
    st.floats(),
)
def test_the_number_check_agrees_on_any_float(
    integer: bool, lowest: float, highest: float, value: float
) -> None:
    low, high = (b if math.isfinite(b) else None for b in (lowest, highest))
    try:
        accepted = checks.number_check(integer, low, high)(value) is value
    except PydanticCustomError:
        accepted = False
    assert accepted == (checks.number_problem(integer, low, high)(value) is None)


@pytest.mark.parametrize("integer", [True, False])
def test_a_number_field_refuses_exactly_what_its_problem_names(integer: bool) -> None:
    """`validate` tries pydantic-core's own int and float checks before ours (`_checks.number`): the
    verdict must still be exactly `number_problem`'s, with its sentence, for every value."""
    bounds = [*_BOUNDS, 2**53 + 1]  # an int a float cannot hold: no float comparison with it
    values = _ODD + [v for b in bounds if b is not None for v in _near(b)]
    for low in bounds:
        for high in bounds:
            prop: dict[str, Any] = {"type": "integer" if integer else "number"}
            prop.update({k: b for k, b in (("minimum", low), ("maximum", high)) if b is not None})
            schema = {"type": "object", "properties": {"n": prop}}
            problem = checks.number_problem(integer, low, high)
            for value in values:
                expected = problem(value)
                got = validate(schema, {"n": value})
                assert [p.code for p in got] == ([] if expected is None else [expected[0]]), (prop, value)


def test_subclasses_of_int_and_float_are_the_numbers_they_hold() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 1}}}
    assert validate(schema, {"n": _Small.ONE}) == []
    assert [p.code for p in validate(schema, {"n": _Float(1.5)})] == ["wrong-type"]
    assert [p.code for p in validate(schema, {"n": _Float(2.0)})] == ["too-large"]


def test_a_problem_reads_and_copies_like_any_dataclass() -> None:
    """`validate` writes a problem's English `message` on first read; nothing else may notice."""
    import dataclasses
    import pickle

    (problem,) = validate(FORM, answer("age", 151))
    made = ValidationProblem("age", "too-large", "'age' must be at most 150, not 151.")
    assert hash(problem) == hash(made) and problem == made
    assert repr(problem) == repr(made)
    for twin in (pickle.loads(pickle.dumps(problem)), copy.deepcopy(problem), copy.copy(problem)):
        assert twin == made and twin.say(str) == made.message
    assert dataclasses.asdict(problem)["message"] == made.message
    assert dataclasses.replace(problem, code="x").message == made.message
    with pytest.raises(AttributeError):
        problem.nonsense  # noqa: B018
    with pytest.raises(dataclasses.FrozenInstanceError):
        problem.message = "changed"  # type: ignore[misc]


def test_unknown_keys_are_named_beside_every_other_problem() -> None:
    """A valid answer is checked by a validator that lets unknown keys pass; one with an unknown
    key, valid or not, or with a key that is not a string, must still be refused for it."""
    assert [(p.field, p.code) for p in validate(FORM, {**VALID, "extra": 1})] == [("extra", "unknown-field")]
    assert {(p.field, p.code) for p in validate(FORM, {**VALID, "age": -1, "zz": 1})} == {
        ("age", "too-small"),
        ("zz", "unknown-field"),
    }
    assert [p.code for p in validate(FORM, {**VALID, 1: "x"})] == ["unknown-field"]
    assert validate(FORM, dict(VALID)) == []


def test_an_equal_schema_gets_the_same_answer() -> None:
    """The same form built anew, read from JSON, or held in another Mapping is the same form."""
    answers = [VALID, answer("age", 151), answer("nickname", "x"), answer("email", "nope"), [VALID]]
    for twin in (copy.deepcopy(FORM), json.loads(json.dumps(FORM)), MappingProxyType(copy.deepcopy(FORM))):
        for content in answers:
            assert validate(twin, content) == validate(FORM, content)


def test_schemas_that_differ_deep_down_each_get_their_own_verdict() -> None:
    """Two schemas alike but for one bound, checked in turn, never borrow each other's validator."""
    strict = {
        "type": "object",
        "properties": {"n": {"type": "integer", "maximum": 3}, "s": {"type": "string"}},
    }
    loose = copy.deepcopy(strict)
    loose["properties"]["n"]["maximum"] = 5
    for _ in range(3):
        assert [p.code for p in validate(strict, {"n": 4})] == ["too-large"]
        assert validate(loose, {"n": 4}) == []


def test_an_edited_schema_is_checked_against_its_new_content() -> None:
    """Whatever is edited in place, and however often the schema was checked before, the next
    answer meets the schema as it is now."""
    schema: dict[str, Any] = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 5}}}
    assert validate(schema, {"n": 4}) == []
    schema["properties"]["n"]["maximum"] = 3  # right after its first check
    for _ in range(3):
        assert [p.code for p in validate(schema, {"n": 4})] == ["too-large"]
    schema["properties"]["n"]["maximum"] = 9  # after many
    assert validate(schema, {"n": 4}) == []
    schema["required"] = []
    assert validate(schema, {}) == []
    schema["required"].append("n")  # a list edited in place
    assert [p.code for p in validate(schema, {})] == ["missing"]
    schema["properties"]["s"] = {"type": "string", "minLength": 1}
    for _ in range(3):
        assert validate(schema, {"n": 1, "s": "x"}) == []
    schema["properties"]["s"]["minLength"] = True  # equal to 1 in Python, not in JSON: no bound
    assert [(p.field, p.code) for p in validate(schema, {"n": 1, "s": "x"})] == [("s", "invalid-schema")]


def test_each_schema_keeps_its_own_order_of_fields() -> None:
    """Two schemas equal but for the order of their fields are two forms: each answer's problems,
    and the fields an unknown key is told about, come in that form's own order."""
    first: dict[str, Any] = {
        "type": "object",
        "properties": {"b": {"type": "integer"}, "a": {"type": "integer"}},
        "required": ["a", "b"],
    }
    second = {**first, "properties": dict(reversed(first["properties"].items()))}
    assert first == second
    assert [p.field for p in validate(first, {})] == ["b", "a"]
    assert [p.field for p in validate(second, {})] == ["a", "b"]
    assert "the form asks for 'b', 'a'" in validate(first, {"a": 1, "b": 2, "c": 3})[0].message
    assert "the form asks for 'a', 'b'" in validate(second, {"a": 1, "b": 2, "c": 3})[0].message


def test_cache_is_bounded() -> None:
    """A server that checks answers against ever new schemas keeps only so many validators:
    a thousand more large schemas, once checked, leave the memory in use where it was."""
    large = "x" * 20_000

    def check(count: int, start: int) -> int:
        for i in range(start, start + count):
            schema = {
                "type": "object",
                "properties": {"n": {"type": "integer", "maximum": i, "description": large}},
            }
            validate(schema, {"n": 0})
        gc.collect()
        return tracemalloc.get_traced_memory()[0]

    tracing = tracemalloc.is_tracing()  # already traced (python -X tracemalloc): leave it on
    tracemalloc.start()
    try:
        settled = check(600, 0)  # past any cache's size
        after = check(1000, 10_000)
    finally:
        if not tracing:
            tracemalloc.stop()
    assert after - settled < 2_000_000, after - settled  # unbounded: 1000 x 20 kB more


def test_spec_structured_example_response_is_valid() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Your full name"},
            "email": {"type": "string", "format": "email", "description": "Your email address"},
            "age": {"type": "number", "minimum": 18, "description": "Your age"},
        },
        "required": ["name", "email"],
    }
    # The translated page redacts the address as "[e-mail]"; the English page has a real one.
    assert validate(schema, {"name": "Monalisa Octocat", "email": "octocat@github.com", "age": 30}) == []
    assert [p.code for p in validate(schema, {"name": "Monalisa Octocat", "email": "[e-mail]"})] == ["format"]
    assert [p.code for p in validate(schema, {"name": "M", "email": "octocat@github.com", "age": 17})] == [
        "too-small"
    ]


def test_spec_simple_example_response_is_valid() -> None:
    schema = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
    assert validate(schema, {"name": "octocat"}) == []
    assert [p.code for p in validate(schema, {})] == ["missing"]
