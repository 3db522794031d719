"""Form mode: S-10 (the schema subset), S-11 (nothing sensitive), S-12 (no URLs), S-13 (validation).

A `fail` here is a MUST broken with evidence: a schema that is not a flat object of primitive
fields (S-10), a field whose key or title names a credential, or whose `format` is
"password", that the person types in (S-11: `credentials` says what names one). Everything
else is a `warn` with its evidence: the lint's finer points of the subset, a secret named only
in prose (a description or the message: a word match cannot tell "your PIN" from "not your
PIN"), a URL in the text (a SHOULD NOT) and an invalid answer taken (a SHOULD).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from elicitkit.check._findings import Findings
from elicitkit.check._observed import Asked, Call, Observations, short
from elicitkit.check._rules.credentials import credential_in_name, credential_in_title
from elicitkit.schema import lint

#: lint codes that show a schema the spec's form mode cannot express at all: not a flat object
#: of primitive fields with the spec's own formats (S-10's MUST). The other lint errors are
#: elicitkit's stricter reading of the subset, reported as `warn`.
_OUTSIDE_THE_SUBSET = frozenset(
    {
        "not-an-object",
        "not-type-object",
        "no-properties",
        "ref",
        "union",
        "nested-object",
        "no-type",
        "unknown-type",
        "items-not-enumerated",
        "enum-not-strings",
        "unknown-format",
    }
)


def judge(seen: Observations, findings: Findings) -> None:
    forms = [a for a in seen.asked if a.source != "-32042" and a.mode == "form"]
    for a in forms:
        _schema(a, findings)
    if forms:
        for rule, what in (
            ("S-10", "every requestedSchema is inside the form subset"),
            ("S-11", "no field reads as asking for a password, key, token or card"),
            ("S-12", "no URL in a message, title, description or default"),
        ):
            findings.add(rule, "pass", f"{len(forms)} form requests: {what}")
    else:
        for rule in ("S-10", "S-11", "S-12", "S-13"):
            findings.note(rule, "no form-mode elicitation was seen")
    for call in seen.calls:
        if call.strategy == "invalid":
            _invalid(call, seen.calls, findings)


def _schema(a: Asked, findings: Findings) -> None:
    schema = a.params.get("requestedSchema")
    if not isinstance(schema, dict):
        findings.add("S-10", "fail", f"a form request without a requestedSchema object: {a.quote()}")
        return
    message = a.params.get("message")
    found = lint(schema, message=message if isinstance(message, str) else None)
    errors = [f for f in found if f.severity == "error" and f.code != "sensitive-field"]
    outside = [f for f in errors if f.code in _OUTSIDE_THE_SUBSET]
    stricter = [f for f in errors if f.code not in _OUTSIDE_THE_SUBSET]
    sensitive = [f for f in found if f.code == "sensitive-field"]
    urls = [f for f in found if f.code == "url-in-text"]
    if outside:
        listed = "; ".join(f"{f.pointer or '/'} {f.code}: {f.message}" for f in outside[:4])
        findings.add("S-10", "fail", f"{listed} -- in {a.quote()}")
    if stricter:
        listed = "; ".join(f"{f.pointer or '/'} {f.code}: {f.message}" for f in stricter[:4])
        findings.add(
            "S-10",
            "warn",
            f"elicitkit's stricter reading of the subset (a client may refuse or ignore it): {listed} "
            f"-- in {a.quote()}",
        )
    asking = list(_credentials(schema))
    if asking:
        findings.add(
            "S-11",
            "fail",
            f"a form asks for a credential, which only URL mode may: {'; '.join(asking)} -- in {a.quote()}",
        )
    if sensitive:
        listed = "; ".join(f"{f.pointer}: {f.message}" for f in sensitive[:3])
        findings.add(
            "S-11",
            "warn",
            f"a word match, not proof (read the field: a sentence that says *not* to give a secret "
            f"matches too): {listed} -- in {a.quote()}",
        )
    if urls:
        listed = "; ".join(f"{f.pointer or 'the message'}: {f.message}" for f in urls[:3])
        findings.add("S-12", "warn", f"a SHOULD NOT: {listed} -- in {a.quote()}")


def _credentials(schema: dict[str, Any]) -> Iterator[str]:
    """Each field the person types into whose key, title or format names a credential, and why."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for name, prop in properties.items():
        if not isinstance(prop, dict) or not _typed_in(prop):
            continue
        at = f"/properties/{name}"
        title = prop.get("title")
        if isinstance(prop.get("format"), str) and prop["format"].lower() == "password":
            yield f'{at}: its format is "password"'
        elif found := credential_in_name(str(name)):
            yield f"{at}: its key {name!r} names a credential ({found!r})"
        elif isinstance(title, str) and (found := credential_in_title(title)):
            yield f"{at}: its title {title!r} names a credential ({found!r})"


def _typed_in(prop: dict[str, Any]) -> bool:
    """Does the person type this field's value (not a yes/no, not one of the server's choices)?"""
    if any(key in prop for key in ("enum", "oneOf", "anyOf", "const", "items")):
        return False
    declared = prop.get("type")
    types = declared if isinstance(declared, list) else [declared]
    return any(t in (None, "string", "number", "integer") for t in types)


def _invalid(call: Call, calls: list[Call], findings: Findings) -> None:
    forms = [a for a in call.asked if a.mode == "form"]
    sent = f"sent {short(call.invalid, 200)} ({'; '.join(call.problems)[:200]})"
    if len(forms) >= 2:
        findings.add("S-13", "pass", f"{sent}; the server asked again: {call.quote()}")
    elif call.outcome == "error" or (call.outcome == "result" and call.is_error):
        findings.add("S-13", "pass", f"{sent}; the server refused it: {call.quote()}")
    elif call.outcome == "result":
        refusals = _refusal_texts(call, calls)
        if call.text in refusals:
            findings.add("S-13", "pass", f"{sent}; the server treated it as a refusal: {call.quote()}")
        else:
            findings.add(
                "S-13",
                "warn",
                f"a SHOULD: {sent}; the server went on as if it were valid: {call.quote()}",
            )
    else:
        findings.note("S-13", f"{sent}; the call ended with {call.outcome}: {call.quote()}")


def _refusal_texts(call: Call, calls: list[Call]) -> set[Any]:
    return {
        c.text
        for c in calls
        if c.tool == call.tool and c.connection is call.connection and c.strategy in ("decline", "cancel")
    }
