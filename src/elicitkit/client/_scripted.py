"""A UI with no person: replies come from a script, and everything shown is recorded.

For tests and automation. Each question takes the next queued reply (a `Reply`, or a function
of the question returning one); when the queue is empty, `otherwise` answers. While a call
waits for URL completion it waits like a patient person; once the wait times out it takes the
next queued wait choice ("retry" or "cancel"; "cancel" when none is left).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Literal

import anyio

from elicitkit.client._ui import (
    AcceptedElicitation,
    CancelledElicitation,
    FormQuestion,
    Reply,
    UrlQuestion,
    Waiting,
)

Question = FormQuestion | UrlQuestion
Script = Reply | Callable[[Question], Reply]
_CANCEL = CancelledElicitation()


def accept_prefilled(question: Question) -> Reply:
    """Accept what the form starts from (the schema's defaults); accept a URL consent."""
    if isinstance(question, FormQuestion):
        return AcceptedElicitation(dict(question.initial))
    return AcceptedElicitation()


class ScriptedUI:
    """An `ElicitationUI` answering from a queue and recording questions, waits and notices."""

    def __init__(
        self,
        *replies: Script,
        otherwise: Script = _CANCEL,
        waits: Iterable[Literal["retry", "cancel"]] = (),
    ) -> None:
        self.replies: deque[Script] = deque(replies)
        self.otherwise = otherwise
        self.waits: deque[Literal["retry", "cancel"]] = deque(waits)
        self.shown: list[Question] = []
        self.waited: list[Waiting] = []
        self.notices: list[str] = []

    async def ask_form(self, question: FormQuestion) -> Reply:
        """Record the form in `shown` and answer with the next queued reply (else `otherwise`)."""
        return self._answer(question)

    async def ask_url_consent(self, question: UrlQuestion) -> Reply:
        """Record the URL question in `shown` and answer with the next queued reply (else
        `otherwise`): an accepted reply is consent to open it."""
        return self._answer(question)

    async def wait(self, waiting: Waiting) -> Literal["retry", "cancel"]:
        """Record the wait in `waited`; wait until the client ends it, or, once it timed out,
        take the next queued choice ("cancel" when none is left)."""
        self.waited.append(waiting)
        if not waiting.timed_out:
            await anyio.sleep_forever()
        return self.waits.popleft() if self.waits else "cancel"

    def notice(self, text: str) -> None:
        """Record the notice in `notices`."""
        self.notices.append(text)

    def _answer(self, question: Question) -> Reply:
        self.shown.append(question)
        script = self.replies.popleft() if self.replies else self.otherwise
        return script(question) if callable(script) else script
