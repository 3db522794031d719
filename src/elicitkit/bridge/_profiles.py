"""Host profiles: what a host can answer, so the bridge asks it only that.

A host declares its elicitation modes, not which fields it draws: some render strings and
booleans but fall back to approve/decline for a number, some declare elicitation and decline
everything unseen. A `HostProfile` says what a host really answers (its modes, the field kinds
of `elicitkit.schema.fields` it renders, whether it answers at all), named (`PROFILES`, the
behaviours docs/hosts.md documents with their public sources) or read from the JSON report of
`elicitkit check --host` (`from_report`). The bridge sends a form the host cannot render to its
own page, or, where a field can be offered in a kind the host renders exactly and read back
(`adapt`), offers it so.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, get_args

from elicitkit.errors import ConfigurationError
from elicitkit.schema import FieldKind, fields, validate

__all__ = ["PROFILES", "Adapted", "HostProfile", "adapt", "from_report", "host_profile"]

EVERY_KIND: frozenset[str] = frozenset(get_args(FieldKind))
_TOLD_INVALID = "json-mode"
"""The audit's question whose person is told to send an invalid answer as raw JSON: what comes
back says how the host checks JSON, not which fields it renders."""
_INTEGER = "^-?(0|[1-9][0-9]*)$"
"""A string that is an integer written one way only, so it converts back exactly."""


@dataclass(frozen=True)
class HostProfile:
    """What one host answers: its `modes`, the field `kinds` it renders, and whether it
    `answers` at all (a host that declares elicitation and declines every request unseen does not)."""

    name: str
    modes: frozenset[str] = frozenset({"form", "url"})
    kinds: frozenset[str] = EVERY_KIND
    answers: bool = True

    def asks(self, mode: str) -> bool:
        """Can this host be given a question in `mode`?"""
        return self.answers and mode in self.modes

    def renders(self, schema: Any) -> bool:
        """Does it draw every field of `schema` as the schema asks?"""
        return all(field.kind in self.kinds for field in fields(schema))


def _named(name: str, modes: set[str], kinds: set[str] | frozenset[str] = EVERY_KIND) -> HostProfile:
    return HostProfile(name, frozenset(modes), frozenset(kinds))


PROFILES: Mapping[str, HostProfile] = {
    profile.name: profile
    for profile in (
        # The behaviours public reports describe (docs/hosts.md, "Host profiles", cites each).
        _named("form-only", {"form"}),
        _named("empty-form-object", {"form"}),
        HostProfile("declines-unseen", answers=False),
        _named("no-numbers-or-multiselect", {"form"}, {"string", "boolean", "single-select"}),
        # The hosts of docs/hosts.md's matrix, as the audit found them.
        _named("elicitkit", {"form", "url"}),
        _named("mcp-client", {"form", "url"}),
        _named("fastmcp-client", {"form", "url"}),
        _named("typescript-sdk-v1", {"form"}),
        _named("typescript-sdk-v2", {"form"}),
    )
}
"""The named profiles `--host-profile NAME` knows."""


def host_profile(given: str | os.PathLike[str]) -> HostProfile:
    """The profile `given` names, or the one read from an audit report (a path ending in .json)."""
    text = os.fspath(given)
    if text in PROFILES:
        return PROFILES[text]
    if not text.endswith(".json"):
        known = ", ".join(PROFILES)
        raise ConfigurationError(
            f"There is no host profile {text!r}; give one of {known}, or the JSON report of "
            "`elicitkit check --host --json`."
        )
    try:
        with open(text, encoding="utf-8") as file:
            data = json.load(file)
        return from_report(data, name=text)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        why = getattr(error, "strerror", None) or "not a report of `elicitkit check --host --json`"
        raise ConfigurationError(f"Cannot read the host audit report {text} ({why}).") from None


def from_report(data: Mapping[str, Any], *, name: str = "report") -> HostProfile:
    """The profile an audit report shows: the modes the host declared, the field kinds it sent
    back a valid value for (and never an invalid one: a host that approves a form it cannot draw
    sends its fields back empty, so they never count), and, when no form came back accepted,
    that it does not answer at all."""
    declared = data["elicitation"]
    modes = frozenset(str(mode) for mode in declared or ())
    good: set[str] = set()
    bad: set[str] = set()
    accepted = False
    for asked in data["asked"]:
        sent, answer = asked["sent"], asked.get("answer")
        if asked.get("key") == _TOLD_INVALID:
            continue
        if sent.get("mode") != "form" or not isinstance(answer, Mapping) or answer.get("action") != "accept":
            continue
        accepted = True
        schema = sent.get("requestedSchema", {})
        given = answer.get("content")
        content: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
        for field in fields(schema):
            one = {"type": "object", "properties": {field.name: dict(field.schema)}}
            if field.name in content:  # a field left out says nothing: the person may have skipped it
                fits = not validate(one, {field.name: content[field.name]})
                (good if fits else bad).add(field.kind)
    return HostProfile(name, modes, frozenset(good - bad), answers=bool(modes) and accepted)


@dataclass(frozen=True)
class Adapted:
    """A form offered in kinds the host renders, and the way its answer reads back."""

    schema: dict[str, Any]
    original: Mapping[str, Any]
    integers: frozenset[str]

    def restore(self, content: Mapping[str, Any]) -> dict[str, Any] | None:
        """The host's answer as the original form's answer; None when it is not a valid one."""
        restored = dict(content)
        for name in self.integers & restored.keys():
            value = restored[name]
            if not isinstance(value, str) or re.fullmatch(_INTEGER, value) is None:
                return None
            restored[name] = int(value)
        return None if validate(self.original, restored) else restored


def adapt(schema: Mapping[str, Any], profile: HostProfile) -> Adapted | None:
    """`schema` with each field the host cannot render offered as one it can, where that is exact
    and reversible; None when some field is not. Only an integer without bounds is (a string
    matching one integer pattern, read back with `int`): a pattern cannot carry a bound, a
    number's text does not read back to the same float, a multi-select has no exact string."""
    if "string" not in profile.kinds:
        return None
    properties = dict(schema.get("properties") or {})
    integers: set[str] = set()
    for field in fields(schema):
        if field.kind in profile.kinds:
            continue
        if field.kind != "integer" or field.minimum is not None or field.maximum is not None:
            return None
        prop = {key: value for key, value in field.schema.items() if key not in ("type", "default")}
        said = field.description
        prop.update(type="string", pattern=_INTEGER, description=f"{said} (a whole number)".lstrip())
        if isinstance(field.default, int) and not isinstance(field.default, bool):
            prop["default"] = str(field.default)
        properties[field.name] = prop
        integers.add(field.name)
    return Adapted({**schema, "properties": properties}, schema, frozenset(integers))
