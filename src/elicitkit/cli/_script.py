"""The replies of `elicitkit client --answers`, in order, and what went wrong with them.

A scripted run must not end as if the person chose cancel when the script itself is wrong: an
answer the form refuses, or a question the script has no answer for, is remembered here as
one sentence (which answer, and why), the question is cancelled so nothing invalid is sent,
and the command exits non-zero with that sentence.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from elicitkit.client import Cancel, FormQuestion, Reply
from elicitkit.i18n import gettext as _

__all__ = ["Script"]


class Script:
    """A callable for `ScriptedUI(otherwise=...)`: the next reply, or a cancel and a `problem`."""

    def __init__(self, replies: Sequence[Reply | Callable[[Any], Reply]]) -> None:
        self.replies = list(replies)
        self.used = 0
        self.problem: str | None = None
        """What was wrong with the script, in one sentence; None while all is well."""

    def __call__(self, question: Any) -> Reply:
        if self.problem is not None:
            return Cancel()
        asked = {"number": self.used, "message": _brief(getattr(question, "message", ""))}
        if isinstance(question, FormQuestion) and question.problems:
            why = "; ".join(p.say(_).rstrip(".") for p in question.problems)
            not_valid = _('Answer %(number)d of --answers is not valid for "%(message)s": %(why)s.')
            self.problem = not_valid % {**asked, "why": why}
            return Cancel()
        if self.used >= len(self.replies):
            missing = _('--answers has no answer %(number)d, for "%(message)s"; add one to the list.')
            self.problem = missing % {**asked, "number": self.used + 1}
            return Cancel()
        reply = self.replies[self.used]
        self.used += 1
        return reply(question) if callable(reply) else reply


def _brief(message: str, limit: int = 80) -> str:
    line = " ".join(message.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"
