"""What the web page shows: the questions waiting for the person, in order, and the notices.

The person sees one question at a time, the oldest first. Every change bumps `version` and
wakes the pages watching (`wait_change`), so an open page moves on by itself when a question
arrives or is withdrawn, without a reload losing what the person is typing. `outcome` is what
the page says about the last answer: one sentence, which the next outcome replaces.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from elicitkit.client._ui import CancelledElicitation, FormQuestion, UrlQuestion, Waiting
from elicitkit.client._web._forms import Draft
from elicitkit.urls import UrlReport

Question = FormQuestion | UrlQuestion | Waiting

_SHOWN_NOTICES = 3
_KEPT_NOTICES = 50


@dataclass(frozen=True)
class Outcome:
    """What the page says about the person's last answer, in one sentence.

    `url` is the report of a URL the person agreed to open; with `by_hand`, no browser could
    open it, and the page draws it as a link for the person to open.
    """

    sentence: str
    url: UrlReport | None = None
    by_hand: bool = False


@dataclass(eq=False)
class Entry:
    """One question on the board, and the future its asker awaits."""

    question: Question
    future: asyncio.Future[Any]
    draft: Draft | None = None
    id: str = field(default_factory=lambda: secrets.token_urlsafe(12))
    problem: str | None = None

    @property
    def dismissal(self) -> Any:
        """The reply when the question can no longer be answered (the UI closed)."""
        return "cancel" if isinstance(self.question, Waiting) else CancelledElicitation()


class Board:
    """The questions in order, the notices, and a signal for the pages watching."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self.notices: deque[str] = deque(maxlen=_KEPT_NOTICES)
        self.outcome: Outcome | None = None
        self.told = 0  # bumped with each outcome, so that every open page shows the new one
        self.version = 0
        self.watchers = 0
        self.last_seen = -float("inf")
        self.closed = False
        self._changed = asyncio.Event()

    @property
    def current(self) -> Entry | None:
        return self.entries[0] if self.entries else None

    def add(self, question: Question) -> Entry:
        draft = Draft(question) if isinstance(question, FormQuestion) else None
        entry = Entry(question, asyncio.get_running_loop().create_future(), draft)
        if not self.entries and self.outcome is not None and not self.outcome.by_hand:
            self.outcome = None  # a new question, after a pause: the old answer is no news
        self.entries.append(entry)
        self.changed()
        return entry

    def find(self, entry_id: str) -> Entry | None:
        return next(
            (e for e in self.entries if secrets.compare_digest(e.id.encode(), entry_id.encode())), None
        )

    def answer(self, entry: Entry, reply: Any, outcome: Outcome) -> None:
        """Settle a question and take it off the board at once, so the next page shows what follows."""
        if not entry.future.done():
            entry.future.set_result(reply)
        self.outcome = outcome
        self.told += 1
        if entry in self.entries:
            self.entries.remove(entry)
        self.changed()

    def tell(self, outcome: Outcome) -> None:
        """Say `outcome` in place of the last one, on every open page."""
        self.outcome = outcome
        self.told += 1
        self.changed()

    def unopened(self, url: str, sentence: str) -> bool:
        """The URL the person just agreed to open could not be opened: say `sentence` with it as a
        link instead. False when the last outcome is not the agreement to open `url`."""
        agreed = self.outcome
        if agreed is None or agreed.url is None or agreed.by_hand or agreed.url.url != url:
            return False
        self.tell(Outcome(sentence, agreed.url, by_hand=True))
        return True

    def remove(self, entry: Entry) -> None:
        if entry in self.entries:
            self.entries.remove(entry)
            self.changed()

    def notice(self, text: str) -> None:
        self.notices.append(text)
        self.changed()

    def close(self) -> None:
        """Dismiss every open question and tell the pages that nothing more will come."""
        for entry in list(self.entries):
            if not entry.future.done():
                entry.future.set_result(entry.dismissal)
        self.entries.clear()
        self.closed = True
        self.changed()

    def changed(self) -> None:
        self.version += 1
        self._changed.set()
        self._changed = asyncio.Event()

    def seen(self) -> None:
        """A page asked for something: someone has the page open."""
        self.last_seen = time.monotonic()

    def watched(self, within: float) -> bool:
        """Whether a page is open now, or was seen `within` seconds ago."""
        return self.watchers > 0 or time.monotonic() - self.last_seen < within

    async def wait_change(self, since: int, seconds: float) -> None:
        """Return when the board differs from version `since`, or after `seconds`."""
        if self.version != since or self.closed:
            return
        changed = self._changed
        self.watchers += 1
        try:
            await asyncio.wait_for(changed.wait(), seconds)
        except TimeoutError:
            pass
        finally:
            self.watchers -= 1

    def recent_notices(self) -> list[str]:
        """The newest notices, newest first."""
        return list(self.notices)[-_SHOWN_NOTICES:][::-1]

    def state(self) -> dict[str, Any]:
        """What a watching page needs to know to keep up, as JSON-ready data."""
        current = self.current
        return {
            "version": self.version,
            "current": current.id if current else "",
            "queued": max(0, len(self.entries) - 1),
            "told": self.told,
            "notices": self.recent_notices(),
            "closed": self.closed,
        }
