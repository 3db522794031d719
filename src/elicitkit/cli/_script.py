"""The replies of `elicitkit client --answers`, in order, and what went wrong with them.

A scripted run must not end as if the person chose cancel when the script itself is wrong: an
answer the form refuses, or a question the script has no answer for, is remembered here as
one sentence (which answer, and why), the question is cancelled so nothing invalid is sent,
and the command exits non-zero with that sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from elicitkit.client import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    FormQuestion,
    Reply,
)
from elicitkit.i18n import gettext as _

__all__ = ["AnswersError", "Script", "read_answers", "read_waits"]


class AnswersError(ValueError):
    """The --answers file is not a list of replies; the message says where."""


class Script:
    """A callable for `ScriptedUI(otherwise=...)`: the next reply, or a cancel and a `problem`."""

    def __init__(self, replies: Sequence[Reply | Callable[[Any], Reply]]) -> None:
        self.replies = list(replies)
        self.used = 0
        self.problem: str | None = None
        """What was wrong with the script, in one sentence; None while all is well."""

    def __call__(self, question: Any) -> Reply:
        if self.problem is not None:
            return CancelledElicitation()
        asked = {"number": self.used, "message": _brief(getattr(question, "message", ""))}
        if isinstance(question, FormQuestion) and question.problems:
            why = "; ".join(p.say(_).rstrip(".") for p in question.problems)
            not_valid = _('Answer %(number)d of --answers is not valid for "%(message)s": %(why)s.')
            self.problem = not_valid % {**asked, "why": why}
            return CancelledElicitation()
        if self.used >= len(self.replies):
            missing = _('--answers has no answer %(number)d, for "%(message)s"; add one to the list.')
            self.problem = missing % {**asked, "number": self.used + 1}
            return CancelledElicitation()
        reply = self.replies[self.used]
        self.used += 1
        return reply(question) if callable(reply) else reply


def _brief(message: str, limit: int = 80) -> str:
    line = " ".join(message.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def read_waits(data: Any) -> list[Literal["retry", "cancel"]]:
    """The `{"wait": "retry" | "cancel"}` entries of the --answers JSON, in order."""
    entries = data if isinstance(data, list) else []
    return [e["wait"] for e in entries if isinstance(e, dict) and e.get("wait") in ("retry", "cancel")]


def read_answers(data: Any) -> list[Reply | Callable[[Any], Reply]]:
    """Replies from the --answers JSON: a list of `{"action": ..., "content": {...}}`.

    `{"wait": "retry" | "cancel"}` entries are what to do when a held call's wait times out
    (see `read_waits`); they are not replies to questions."""
    if not isinstance(data, list):
        raise AnswersError("The answers must be a JSON list, one reply per question, in order.")
    replies: list[Reply | Callable[[Any], Reply]] = []
    for number, entry in enumerate(data, 1):
        if isinstance(entry, dict) and set(entry) == {"wait"} and entry["wait"] in ("retry", "cancel"):
            continue
        action = entry.get("action") if isinstance(entry, dict) else None
        content = entry.get("content") if isinstance(entry, dict) else None
        if action == "decline":
            replies.append(DeclinedElicitation())
        elif action == "cancel":
            replies.append(CancelledElicitation())
        elif action == "accept" and (content is None or isinstance(content, dict)):
            replies.append(_accept(content or {}))
        else:
            raise AnswersError(
                f'Answer {number} must be {{"action": "accept" | "decline" | "cancel"}}, with an '
                'optional "content" object for a form.'
            )
    return replies


def _accept(content: Mapping[str, Any]) -> Callable[[Any], Reply]:
    def reply(question: Any) -> Reply:
        if isinstance(question, FormQuestion):
            return AcceptedElicitation(dict(question.initial) | dict(content))
        return AcceptedElicitation()

    return reply
