"""`lint`: say everything in a schema that the form-mode subset does not allow.

Each finding has an RFC 6901 pointer into the schema (findings about the request `message`
point at ""), a severity, a stable code and a sentence. Codes:

errors (outside the subset, REQUIREMENTS S-10)
    `not-an-object`      the schema or a property is not a JSON object
    `not-type-object`    the schema's `type` is not "object"
    `no-properties`      `properties` is missing or not an object
    `bad-required`       `required` is not a list of defined field names
    `ref`                `$ref`, `$defs` or `definitions`: inline the field instead
    `union`              `anyOf`, `allOf`, `not`, a list of types, or `oneOf` off a string
    `nested-object`      a property that is itself an object
    `no-type`            a property without `type`
    `unknown-type`       a `type` that is not string, number, integer, boolean or array
    `enum-not-strings`   an enum (or choice `const`) that is not a string
    `empty-choices`      an enum or option list with nothing in it
    `duplicate-choice`   the same choice offered twice
    `bad-option`         a titled option that is not `{"const": str, "title": str}`
    `exclusive-bound`    `exclusiveMinimum` / `exclusiveMaximum`
    `unique-items`       `uniqueItems` (a multi-select picks each choice once anyway)
    `items-not-enumerated`  an array whose items are not a fixed list of choices
    `unknown-format`     a `format` with no row in `FORMATS` (email, uri, date, date-time)
    `unknown-keyword`    a keyword that primitive does not have
    `bad-value`          a keyword with a value of the wrong type or range
    `min-above-max`      a lower limit above its upper limit
    `bad-pattern`        a `pattern` the linear-time engine (RE2) cannot run: not a regular
                         expression, or one with backreferences or lookaround
    `bad-default`        a `default` that breaks the field's own rules
    `enum-names-length`  legacy `enumNames` not one per `enum` value (`enumNames` itself is fine)
errors (S-11)
    `sensitive-field`    a field that asks for a password, key, token, card... (use URL mode,
                         or pass `allow_sensitive={field: reason}`)
warnings (S-12)
    `url-in-text`        a URL in the message, a title, a description or a default
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from elicitkit.schema._patterns import pattern_problem
from elicitkit.schema._subset import FORMATS, KEYWORDS, TOP_KEYWORDS, Kind, kind_of, pointer
from elicitkit.schema._validate import validate

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class LintFinding:
    """One problem in a schema: where (JSON pointer), how bad, a stable code, and a sentence."""

    pointer: str
    severity: Severity
    code: str
    message: str


def lint(
    schema: Mapping[str, Any],
    *,
    message: str | None = None,
    allow_sensitive: Mapping[str, str] | None = None,
) -> list[LintFinding]:
    """Return every finding for `schema` (and the request `message`, if given).

    `allow_sensitive` maps a field name to the reason it may look sensitive (S-11).
    """
    findings = list(_schema(schema, allow_sensitive or {}))
    if message is not None:
        findings.extend(_text("", "the message", message))
    return findings


def _error(at: str, code: str, message: str) -> LintFinding:
    return LintFinding(at, "error", code, message)


# -- the top level -------------------------------------------------------------------------------


def _schema(schema: Any, allowed: Mapping[str, str]) -> Iterator[LintFinding]:
    if not isinstance(schema, Mapping):
        yield _error(
            "", "not-an-object", "The schema must be a JSON object with type, properties and required."
        )
        return
    if schema.get("type") != "object":
        yield _error("/type", "not-type-object", 'A form schema must have "type": "object".')
    for keyword in schema:
        if keyword in ("$ref", "$defs", "definitions"):
            yield _error(
                pointer(keyword), "ref", f"{keyword} is not allowed in a form; write every field inline."
            )
        elif keyword not in TOP_KEYWORDS:
            yield _error(
                pointer(keyword), "unknown-keyword", f"A form schema cannot have {keyword!r} at the top."
            )
    if schema.get("additionalProperties", False) is not False:
        yield _error(
            "/additionalProperties", "bad-value", "A form cannot allow additional properties; drop it."
        )
    for keyword in ("title", "description"):
        yield from _text(pointer(keyword), f"the form's {keyword}", schema.get(keyword))
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        yield _error("/properties", "no-properties", 'A form schema needs "properties": an object of fields.')
        properties = {}
    yield from _required(schema.get("required", []), properties)
    for name, prop in properties.items():
        yield from _property(str(name), prop)
        yield from _sensitive(str(name), prop, allowed)


def _required(required: Any, properties: Mapping[str, Any]) -> Iterator[LintFinding]:
    if not isinstance(required, list):
        yield _error("/required", "bad-required", '"required" must be a list of field names.')
        return
    seen: set[str] = set()
    for i, name in enumerate(required):
        if not isinstance(name, str) or name not in properties:
            yield _error(pointer("required", i), "bad-required", f"{name!r} is required but is not a field.")
        elif name in seen:
            yield _error(pointer("required", i), "bad-required", f"{name!r} is listed twice in required.")
        else:
            seen.add(name)


# -- one property --------------------------------------------------------------------------------

_KNOWN_TYPES = ("string", "number", "integer", "boolean", "array")
_SPECIAL = {
    "exclusiveMinimum": ("exclusive-bound", "use minimum (inclusive)"),
    "exclusiveMaximum": ("exclusive-bound", "use maximum (inclusive)"),
    "uniqueItems": ("unique-items", "a multi-select already picks each choice once; drop it"),
}


def _property(name: str, prop: Any) -> Iterator[LintFinding]:
    at = pointer("properties", name)
    if not isinstance(prop, Mapping):
        yield _error(at, "not-an-object", f"Field {name!r} must be a JSON object describing one primitive.")
        return
    structural = list(_structure(name, at, prop))
    yield from structural
    if structural:
        return
    kind = kind_of(prop)
    assert kind is not None
    for keyword in prop:
        if keyword in KEYWORDS[kind]:
            continue
        code, advice = _SPECIAL.get(keyword, ("unknown-keyword", "drop it"))
        yield _error(
            f"{at}/{keyword}",
            code,
            f"Field {name!r} is a field of kind {kind!r}, which cannot have {keyword!r}; {advice}.",
        )
    for keyword in ("title", "description"):
        if keyword in prop and not isinstance(prop[keyword], str):
            yield _error(
                f"{at}/{keyword}", "bad-value", f"Field {name!r} has a {keyword} that is not a string."
            )
        yield from _text(f"{at}/{keyword}", f"the {keyword} of {name!r}", prop.get(keyword))
    findings = list(_limits(name, at, prop, kind))
    yield from findings
    if "default" in prop:
        yield from _text(f"{at}/default", f"the default of {name!r}", prop["default"])
        if not any(f.severity == "error" for f in findings):
            yield from _default(name, at, prop)


def _structure(name: str, at: str, prop: Mapping[str, Any]) -> Iterator[LintFinding]:
    """Findings that make the property no primitive at all (then nothing else is checked)."""
    for keyword in ("$ref", "$defs", "definitions"):
        if keyword in prop:
            yield _error(f"{at}/{keyword}", "ref", f"Field {name!r} uses {keyword}; write the field inline.")
    for keyword in ("anyOf", "allOf", "not", "if"):
        if keyword in prop:
            yield _error(
                f"{at}/{keyword}",
                "union",
                f"Field {name!r} uses {keyword}; a form field has exactly one type.",
            )
    kind = prop.get("type")
    if "oneOf" in prop and kind != "string":
        yield _error(f"{at}/oneOf", "union", f"Field {name!r} uses oneOf; only titled string choices may.")
    if isinstance(kind, list):
        yield _error(f"{at}/type", "union", f"Field {name!r} has several types {kind}; a form field has one.")
    elif kind == "object" or "properties" in prop:
        yield _error(
            at, "nested-object", f"Field {name!r} is a nested object; a form holds flat fields only."
        )
    elif kind is None:
        yield _error(at, "no-type", f"Field {name!r} has no type; give it one of {', '.join(_KNOWN_TYPES)}.")
    elif kind not in _KNOWN_TYPES:
        yield _error(
            f"{at}/type", "unknown-type", f"Field {name!r} has type {kind!r}; use one of {_KNOWN_TYPES}."
        )
    elif "enum" in prop and kind != "string":
        yield _error(
            f"{at}/enum", "enum-not-strings", f"Field {name!r} offers {kind} choices; choices are strings."
        )


def _limits(name: str, at: str, prop: Mapping[str, Any], kind: Kind) -> Iterator[LintFinding]:
    counts = {"string": ("minLength", "maxLength"), "multi": ("minItems", "maxItems")}
    counts["titled-multi"] = counts["multi"]
    if kind in counts:
        low, high = counts[kind]
        for keyword in (low, high):
            value = prop.get(keyword)
            if value is not None and (type(value) is not int or value < 0):
                yield _error(
                    f"{at}/{keyword}",
                    "bad-value",
                    f"Field {name!r}: {keyword} must be a whole number, 0 or more.",
                )
        yield from _ordered(name, at, prop, low, high, int)
    if kind in ("number", "integer"):
        for keyword in ("minimum", "maximum"):
            value = prop.get(keyword)
            if value is not None and type(value) not in (int, float):
                yield _error(f"{at}/{keyword}", "bad-value", f"Field {name!r}: {keyword} must be a number.")
        yield from _ordered(name, at, prop, "minimum", "maximum", (int, float))
    if kind == "string":
        yield from _string(name, at, prop)
    if kind in ("enum", "titled-enum", "multi", "titled-multi"):
        yield from _choices(name, at, prop, kind)


def _ordered(
    name: str, at: str, prop: Mapping[str, Any], low: str, high: str, kinds: type | tuple[type, ...]
) -> Iterator[LintFinding]:
    a: Any = prop.get(low)
    b: Any = prop.get(high)
    numbers = isinstance(a, kinds) and isinstance(b, kinds)
    if numbers and not isinstance(a, bool) and not isinstance(b, bool) and a > b:
        yield _error(f"{at}/{low}", "min-above-max", f"Field {name!r} has {low} {a} above {high} {b}.")


def _string(name: str, at: str, prop: Mapping[str, Any]) -> Iterator[LintFinding]:
    fmt = prop.get("format")
    if fmt is not None and (not isinstance(fmt, str) or fmt not in FORMATS):
        yield _error(
            f"{at}/format",
            "unknown-format",
            f"Field {name!r} has format {fmt!r}; a form knows {', '.join(sorted(FORMATS))}.",
        )
    pattern = prop.get("pattern")
    if pattern is not None:
        if not isinstance(pattern, str):
            yield _error(f"{at}/pattern", "bad-value", f"Field {name!r} has a pattern that is not a string.")
        elif (problem := pattern_problem(pattern)) is not None:
            yield _error(f"{at}/pattern", "bad-pattern", f"Field {name!r} cannot be checked: {problem}.")


def _choices(name: str, at: str, prop: Mapping[str, Any], kind: Kind) -> Iterator[LintFinding]:
    if kind in ("multi", "titled-multi"):
        items = prop.get("items")
        where = f"{at}/items"
        if not isinstance(items, Mapping) or not ({"enum", "anyOf"} & set(items)):
            yield _error(
                where if "items" in prop else at,
                "items-not-enumerated",
                f"Field {name!r} is an array whose items are not fixed choices; give items an enum or anyOf.",
            )
            return
        allowed = {"type", "enum"} if kind == "multi" else {"type", "anyOf"}
        for keyword in items:
            if keyword not in allowed:
                yield _error(
                    f"{where}/{keyword}", "unknown-keyword", f"Items of {name!r} cannot have {keyword!r}."
                )
        if items.get("type", "string") != "string":
            yield _error(f"{where}/type", "enum-not-strings", f"Items of {name!r} must be strings.")
        options_at, options = (
            (f"{where}/enum", items["enum"]) if kind == "multi" else (f"{where}/anyOf", items["anyOf"])
        )
    else:
        keyword = "enum" if kind == "enum" else "oneOf"
        options_at, options = f"{at}/{keyword}", prop[keyword]
    if not isinstance(options, list) or not options:
        yield _error(options_at, "empty-choices", f"Field {name!r} must offer a non-empty list of choices.")
        return
    titled = kind in ("titled-enum", "titled-multi")
    seen: set[Any] = set()
    for i, option in enumerate(options):
        value = option
        if titled:
            if not (
                isinstance(option, Mapping)
                and set(option) == {"const", "title"}
                and isinstance(option["title"], str)
            ):
                yield _error(
                    f"{options_at}/{i}",
                    "bad-option",
                    f'Choice {i} of {name!r} must be exactly {{"const", "title"}}.',
                )
                continue
            value = option["const"]
            yield from _text(f"{options_at}/{i}/title", f"a choice title of {name!r}", option["title"])
        if not isinstance(value, str):
            yield _error(
                f"{options_at}/{i}", "enum-not-strings", f"Choice {value!r} of {name!r} is not a string."
            )
        elif value in seen:
            yield _error(
                f"{options_at}/{i}", "duplicate-choice", f"Choice {value!r} of {name!r} is offered twice."
            )
        else:
            seen.add(value)
    if "enumNames" in prop:
        names = prop["enumNames"]
        if (
            not isinstance(names, list)
            or len(names) != len(options)
            or not all(isinstance(n, str) for n in names)
        ):
            yield _error(
                f"{at}/enumNames",
                "enum-names-length",
                f"Field {name!r} must give one enumNames string per enum value ({len(options)}).",
            )


def _default(name: str, at: str, prop: Mapping[str, Any]) -> Iterator[LintFinding]:
    single = {"type": "object", "properties": {name: dict(prop)}}
    for problem in validate(single, {name: prop["default"]}):
        yield _error(
            f"{at}/default", "bad-default", f"The default of {name!r} breaks its own rules: {problem.message}"
        )


# -- S-11: sensitive fields ------------------------------------------------------------------------

# fmt: off
_SENSITIVE = (
    "password", "passwd", "passphrase", "passcode", "pwd", "pw", "pin", "pin code",          # passwords
    "secret", "secret key", "private key", "credential", "credentials", "seed phrase", "mnemonic",
    "api key", "apikey", "token", "access token", "accesstoken",                              # keys, tokens
    "otp", "one time password", "one time code", "2fa", "mfa", "totp", "recovery code",       # second factors
    "card number", "cardnumber", "credit card", "creditcard", "debit card", "cvv", "cvc",     # payment
    "cvv2", "security code", "card verification", "iban", "routing number", "bank account",
    "ssn", "social security",                                                                 # identity
)
# fmt: on
_WORDS = re.compile(r"[a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def _sensitive_phrase(text: str) -> str | None:
    words = " " + " ".join(_WORDS.findall(_CAMEL.sub(" ", text).lower())) + " "
    return next((p for p in _SENSITIVE if f" {p} " in words), None)


def _sensitive(name: str, prop: Any, allowed: Mapping[str, str]) -> Iterator[LintFinding]:
    texts = [name]
    if isinstance(prop, Mapping):
        texts += [t for t in (prop.get("title"), prop.get("description")) if isinstance(t, str)]
    phrase = next((p for p in map(_sensitive_phrase, texts) if p), None)
    if phrase is None:
        return
    reason = allowed.get(name)
    if isinstance(reason, str) and reason.strip():
        return
    yield _error(
        pointer("properties", name),
        "sensitive-field",
        f"Field {name!r} looks like it asks for {_article(phrase)} {phrase}; "
        "form mode must not collect secrets or credentials. "
        f"Use URL mode, or if it is not sensitive pass allow_sensitive={{{name!r}: 'why'}}.",
    )


# -- S-12: URLs in text ------------------------------------------------------------------------------

_URL = re.compile(r"(?i)\b(?:[a-z][a-z0-9+.\-]*://|www\.|mailto:|javascript:)[^\s<>\"']+")


def _text(at: str, what: str, value: Any) -> Iterator[LintFinding]:
    texts = value if isinstance(value, list) else [value]
    for text in texts:
        if isinstance(text, str) and (found := _URL.search(text)):
            yield LintFinding(
                at,
                "warning",
                "url-in-text",
                f"{what[0].upper()}{what[1:]} contains a URL ({found.group()}); "
                "a client may render it as a link. "
                "Put links only in a URL-mode request.",
            )
            return


def _article(phrase: str) -> str:
    return "an" if phrase[:1].lower() in "aeiou" else "a"
