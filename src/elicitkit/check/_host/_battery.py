"""The battery: the questions the host audit asks, each labelled with what it tests and what to do.

A question is data: its message (which ends with a `To do:` line telling the person what to do),
its form or URL, what the person is told to answer, and the rule IDs its answer informs. The
same `To do:` line is the policy a driver without a person follows (`policy_answer`), so an
unattended host and a person following the instructions send the same answers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from elicitkit.schema import FORMATS, fields

Kind = Literal["form", "url", "url-undeclared", "rounds", "task", "task-tool"]
Action = Literal["accept", "decline", "cancel"]

LOOKALIKE_URL = "https://xn--80ak6aa92e.example/sign-in"
"""Punycode for a name in Cyrillic letters that reads as "apple.example"; `.example` never resolves."""

PLAIN_URL = "https://example.com/elicitkit-host-audit"
"""A plain https URL on a domain reserved for documentation: opening it is harmless."""

TASK_TTL_MS = 300_000
"""The lifetime the task-augmented question asks for (five minutes: longer than any audit run here)."""

CLAMP_TRY = 150
"""The out-of-range number the person types first in the bounds question (its maximum is 100)."""

RAW_JSON = '{"guests": 150, "age": -5}'
"""The answer the person sends through a raw JSON mode, if the host has one: both values out of bounds."""


@dataclass(frozen=True)
class Question:
    """One question of the battery: what it tests (`label`), what it asks, what the person should do."""

    key: str
    label: str
    to_do: str
    kind: Kind = "form"
    schema: Mapping[str, Any] = field(default_factory=dict)
    url: str = ""
    told: Action = "accept"
    rules: tuple[str, ...] = ()
    intro: str = ""

    @property
    def tool(self) -> str:
        """The name of the audit server's tool that asks this question."""
        return f"audit_{self.key.replace('-', '_')}"

    @property
    def message(self) -> str:
        """The elicitation's message: what it tests, then the `To do:` line."""
        return f"{self.intro or 'Host audit: ' + self.label + '.'}\n\nTo do: {self.to_do}"


def _form(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        schema["required"] = required
    return schema


_LONG = " ".join(
    f"Paragraph {n}: this message is long on purpose, to see whether the host shows all of it or "
    "cuts it short; a person must be able to read everything a server says before answering."
    for n in range(1, 31)
)

BATTERY: tuple[Question, ...] = (
    Question(
        key="types",
        label="every field type: text, integer, number, yes/no",
        to_do="Fill every field with any valid value and submit.",
        schema=_form(
            {
                "text": {"type": "string", "title": "Text"},
                "whole": {"type": "integer", "title": "Whole number"},
                "number": {"type": "number", "title": "Number"},
                "yes": {"type": "boolean", "title": "Yes or no"},
            },
            ["text", "whole", "number", "yes"],
        ),
        rules=("R-01", "C-12"),
    ),
    Question(
        key="formats",
        label=f"every string format: {', '.join(FORMATS)}",
        to_do="Fill every field with a valid value of its format (an email address, a full web "
        "address, a date, a date and time with its offset) and submit.",
        schema=_form(
            {
                name.replace("-", "_"): {"type": "string", "format": name, "title": f"A {name}"}
                for name in FORMATS
            },
            [name.replace("-", "_") for name in FORMATS],
        ),
        rules=("R-01", "C-12"),
    ),
    Question(
        key="defaults",
        label="defaults of every kind pre-filled",
        to_do="Change nothing: submit the form as it opened.",
        schema=_form(
            {
                "name": {"type": "string", "title": "Name", "default": "Ada"},
                "count": {"type": "integer", "title": "Count", "default": 3},
                "ratio": {"type": "number", "title": "Ratio", "default": 1.5},
                "agree": {"type": "boolean", "title": "Agree", "default": True},
                "size": {"type": "string", "title": "Size", "enum": ["S", "M", "L"], "default": "M"},
                "tags": {
                    "type": "array",
                    "title": "Tags",
                    "items": {"type": "string", "enum": ["red", "green", "blue"]},
                    "default": ["green", "blue"],
                },
            }
        ),
        rules=("C-11", "R-01"),
    ),
    Question(
        key="single-select",
        label="single-select choices, plain and with titles",
        to_do="Pick any option in each field and submit.",
        schema=_form(
            {
                "plain": {"type": "string", "title": "Plain choice", "enum": ["north", "south", "east"]},
                "titled": {
                    "type": "string",
                    "title": "Titled choice",
                    "oneOf": [
                        {"const": "t1", "title": "First (sends t1)"},
                        {"const": "t2", "title": "Second (sends t2)"},
                    ],
                },
            },
            ["plain", "titled"],
        ),
        rules=("R-01", "C-12"),
    ),
    Question(
        key="multi-select",
        label="multi-select choices, plain and with titles, one to two picks",
        to_do="Pick one or two options in each field and submit.",
        schema=_form(
            {
                "plain": {
                    "type": "array",
                    "title": "Plain picks",
                    "items": {"type": "string", "enum": ["tea", "coffee", "water"]},
                    "minItems": 1,
                    "maxItems": 2,
                },
                "titled": {
                    "type": "array",
                    "title": "Titled picks",
                    "items": {
                        "anyOf": [
                            {"const": "m1", "title": "Morning (sends m1)"},
                            {"const": "m2", "title": "Evening (sends m2)"},
                        ]
                    },
                    "minItems": 1,
                    "maxItems": 2,
                },
            },
            ["plain", "titled"],
        ),
        rules=("R-01", "C-12"),
    ),
    Question(
        key="bounds",
        label="bounds: minimum and maximum, minLength and maxLength",
        to_do=f"Type {CLAMP_TRY} in Guests first: the host should refuse it and say why. "
        "Then set Guests to 42, Code to abc, Ratio to 0.5, and submit.",
        schema=_form(
            {
                "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 100, "default": 42},
                "code": {"type": "string", "title": "Code", "minLength": 2, "maxLength": 5, "default": "abc"},
                "ratio": {"type": "number", "title": "Ratio", "minimum": 0, "maximum": 1, "default": 0.5},
            },
            ["guests", "code", "ratio"],
        ),
        rules=("R-01", "C-12"),
    ),
    Question(
        key="required",
        label="a required field beside optional ones",
        to_do="Fill Name only; leave the optional fields empty; submit.",
        schema=_form(
            {
                "name": {"type": "string", "title": "Name", "minLength": 1},
                "nickname": {"type": "string", "title": "Nickname (optional)"},
                "age": {"type": "integer", "title": "Age (optional)", "minimum": 0},
            },
            ["name"],
        ),
        rules=("R-01", "C-12"),
    ),
    Question(
        key="json-mode",
        label="an answer written as raw JSON, checked against the schema like the form",
        to_do=f"If your host lets you write the answer as raw JSON, send {RAW_JSON} that way "
        "(Guests' maximum is 100, Age's minimum is 0): the host should refuse it and say why. "
        "Then, or if your host has no such mode, submit the form as it opened.",
        schema=_form(
            {
                "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 100, "default": 42},
                "age": {"type": "integer", "title": "Age", "minimum": 0, "default": 30},
            },
            ["guests", "age"],
        ),
        rules=("R-01", "C-12"),
    ),
    Question(
        key="long-message",
        label="a long message, shown in full",
        intro=f"Host audit: a long message, shown in full. {_LONG} The last word is LANTERN.",
        to_do="Tick the box only if you could read the message up to the word LANTERN; submit.",
        schema=_form({"saw_end": {"type": "boolean", "title": "I could read it all"}}, ["saw_end"]),
        rules=("C-30", "R-01"),
    ),
    Question(
        key="decline",
        label="decline at hand",
        to_do="Press Decline (not Cancel).",
        schema=_form({"note": {"type": "string", "title": "Anything", "default": "typed before declining"}}),
        told="decline",
        rules=("C-30", "R-01"),
    ),
    Question(
        key="cancel",
        label="cancel at hand",
        to_do="Press Cancel (dismiss the question without deciding).",
        schema=_form({"note": {"type": "string", "title": "Anything", "default": "typed before cancelling"}}),
        told="cancel",
        rules=("C-30", "R-01"),
    ),
    Question(
        key="url-consent",
        label="a URL-mode request: full URL shown, consent asked",
        kind="url",
        url=PLAIN_URL,
        to_do="Your host should show the full URL and ask before opening it. Press Accept "
        "(it opens a page of example.com, which is harmless).",
        rules=("C-01", "R-01"),
    ),
    Question(
        key="url-lookalike",
        label="a URL-mode request to a look-alike domain",
        kind="url",
        url=LOOKALIKE_URL,
        to_do="This address imitates another with look-alike letters. If your host warned you "
        "or refused, press Decline; if it showed no warning, press Accept (the address cannot resolve).",
        rules=("C-23", "R-01"),
    ),
    Question(
        key="url-undeclared",
        label="a URL-mode request to a host that did not declare URL mode",
        kind="url-undeclared",
        url=PLAIN_URL,
        to_do="Nothing: a host that did not declare URL mode must refuse this with error -32602.",
        rules=("C-02",),
    ),
    Question(
        key="rounds",
        label="two questions in one call (on 2026-07-28: two input-required rounds)",
        kind="rounds",
        to_do="Submit the form as it opened.",
        schema=_form({"ready": {"type": "boolean", "title": "Ready", "default": True}}),
        rules=("M-01", "R-01"),
    ),
    Question(
        key="task-question",
        label="a task-augmented question (2025-11-25 tasks): answered as a task by a host that "
        "declared tasks for elicitation, as a plain question by any other",
        kind="task",
        to_do="Take a moment (a host that runs this as a task shows it waiting for you), then "
        "submit the form as it opened.",
        schema=_form(
            {"note": {"type": "string", "title": "Note", "default": "answered in a task"}}, ["note"]
        ),
        rules=("T-10", "T-11", "T-12", "T-13", "T-14", "T-15", "T-17", "T-18", "R-01"),
    ),
    Question(
        key="task-tool",
        label="a question inside a tool that runs only as a task (execution.taskSupport required)",
        kind="task-tool",
        to_do="Submit the form as it opened (it comes from the tool's task).",
        schema=_form({"go": {"type": "boolean", "title": "Go on", "default": True}}, ["go"]),
        rules=("T-20", "T-22", "T-23", "T-24", "R-01"),
    ),
)


def policy_answer(message: str, schema: Mapping[str, Any] | None) -> tuple[Action, dict[str, Any] | None]:
    """What a host without a person answers when it follows the `To do:` line (and the policy
    a driver uses): decline or cancel when the line starts "Press Decline" or "Press Cancel";
    otherwise accept with every default, and for a required field without one its first option
    or a plain valid value (optional fields without a default are left out)."""
    to_do = message.rpartition("To do:")[2].strip()
    if to_do.startswith("Press Decline"):
        return "decline", None
    if to_do.startswith("Press Cancel"):
        return "cancel", None
    if schema is None:
        return "accept", None
    content: dict[str, Any] = {}
    for one in fields(schema):
        if one.default is not None:
            content[one.name] = one.default
        elif one.required:
            content[one.name] = _plain(one.kind, one.format, one.minimum, [o.const for o in one.options])
    return "accept", content


def _plain(kind: str, format: str | None, minimum: float | None, options: list[Any]) -> Any:
    if kind == "single-select":
        return options[0]
    if kind == "multi-select":
        return options[:1]
    if kind == "boolean":
        return True
    if kind in ("integer", "number"):
        return minimum if minimum is not None else 1
    known = FORMATS.get(format or "")
    return known.example if known is not None else "ok"
