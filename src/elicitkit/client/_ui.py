"""The seam between the protocol engine (`ServerElicitations`) and whatever a person looks at.

The engine owns every protocol rule; a UI only asks a person and reports the answer. A UI
never sees JSON-RPC, and the engine never draws. Implementations: terminal, web, scripted.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from elicitkit.results import AcceptedElicitation as AcceptedElicitation
from elicitkit.results import CancelledElicitation as CancelledElicitation
from elicitkit.results import DeclinedElicitation as DeclinedElicitation
from elicitkit.results import ElicitationResult as ElicitationResult
from elicitkit.schema import ValidationProblem
from elicitkit.urls import UrlReport

Reply = ElicitationResult[Mapping[str, Any] | None]
"""What a UI returns: the person's answer; `data` is the form's content as they gave it."""


class Notice(str):
    """A notice the client gives a person: its English text (it is a `str`, so a UI that speaks
    no other language shows it as is), and `say(gettext)` for a UI that does. `template` is a
    gettext message; a value with its own `say` (a URL warning), or a tuple of them, is said too."""

    template: str
    params: Mapping[str, Any]

    def __new__(cls, template: str, **params: Any) -> Notice:
        text = super().__new__(cls, _render(template, params, str))
        text.template, text.params = template, params
        return text

    def say(self, gettext: Callable[[str], str]) -> str:
        """The notice in `gettext`'s language: the template translated, and each value said in it too."""
        return _render(gettext(self.template), self.params, gettext)


def said(text: str, gettext: Callable[[str], str]) -> str:
    """`text` as a UI of `gettext`'s language shows it: a `Notice` translated, other text as is."""
    return text.say(gettext) if isinstance(text, Notice) else text


def _render(template: str, params: Mapping[str, Any], gettext: Callable[[str], str]) -> str:
    return template % {name: _value(value, gettext) for name, value in params.items()}


def _value(value: Any, gettext: Callable[[str], str]) -> str:
    if isinstance(value, tuple):
        return "; ".join(_value(v, gettext).rstrip(".。") for v in value)
    say = getattr(value, "say", None)
    return str(say(gettext)) if callable(say) else str(value)


@dataclass(frozen=True)
class FormQuestion:
    """A form to fill (C-10, C-11, C-30): who asks, what and why, and where to start from.

    `initial` holds the pre-filled answer (the schema's defaults, or the person's last try);
    `problems` is non-empty when the last answer was refused by validation and must be fixed.
    """

    server: str
    message: str
    schema: Mapping[str, Any]
    initial: Mapping[str, Any]
    problems: Sequence[ValidationProblem] = ()


@dataclass(frozen=True)
class UrlQuestion:
    """Consent to open a URL in the system browser (C-22, C-23, C-30)."""

    server: str
    message: str
    report: UrlReport


@dataclass(frozen=True)
class Waiting:
    """A tool call held by -32042 until URL elicitations complete (C-21).

    `pending` lists (elicitation id, message) pairs not yet completed; `started` is a
    `time.monotonic()` reading for the elapsed-time display; `timed_out` turns true when no
    completion came in time, after which the UI should press the choice on the person.
    """

    server: str
    pending: Sequence[tuple[str, str]]
    started: float
    timed_out: bool = False
    notes: Sequence[str] = field(default_factory=tuple)


class ElicitationUI(Protocol):
    """What the client needs from a person-facing UI."""

    async def ask_form(self, question: FormQuestion) -> Reply:
        """Show the form, let the person review and change answers, return their reply."""
        ...

    async def ask_url_consent(self, question: UrlQuestion) -> Reply:
        """Show the full URL with its domain highlighted and any warnings; Accept means open it."""
        ...

    async def wait(self, waiting: Waiting) -> Literal["retry", "cancel"]:
        """Show that a call waits for completion, with elapsed time; return when the person chooses.

        The client cancels this call when every elicitation completes, so it may run forever.
        """
        ...

    def notice(self, text: str) -> None:
        """Show a one-line, non-blocking notice (for example an elicitation completed)."""
        ...
