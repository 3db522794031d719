"""Which URL elicitations this client knows of, and which are done (C-20).

A completion notice counts only for an id this client was shown and that is still pending;
any other notice (unknown id, repeated id) is ignored. Both sets are bounded.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable

import anyio

_MAX_IDS = 1024


class UrlCompletions:
    """Pending and completed elicitation ids for one server, with a way to wait for a change."""

    def __init__(self, max_ids: int = _MAX_IDS) -> None:
        self._max = max_ids
        self._pending: OrderedDict[str, str] = OrderedDict()
        self._done: OrderedDict[str, None] = OrderedDict()
        self._changed = anyio.Event()

    def expect(self, elicitation_id: str, message: str = "") -> None:
        """Start waiting for `elicitation_id` (a URL the person agreed to open)."""
        if elicitation_id in self._done:
            return
        self._pending[elicitation_id] = message
        self._pending.move_to_end(elicitation_id)
        while len(self._pending) > self._max:
            self._pending.popitem(last=False)

    def complete(self, elicitation_id: str) -> bool:
        """Record a completion notice; False (and no effect) for an unknown or already completed id."""
        if elicitation_id not in self._pending:
            return False
        del self._pending[elicitation_id]
        self._done[elicitation_id] = None
        while len(self._done) > self._max:
            self._done.popitem(last=False)
        self._changed.set()
        self._changed = anyio.Event()
        return True

    def is_done(self, elicitation_id: str) -> bool:
        """Whether this id's completion notice was accepted: a -32042 that lists it again is a
        loop, and the retry stops there."""
        return elicitation_id in self._done

    def is_pending(self, elicitation_id: str) -> bool:
        """Whether this id is expected and not completed yet: only then does a notice count."""
        return elicitation_id in self._pending

    def pending_of(self, ids: Iterable[str]) -> list[str]:
        """The ids in `ids` not completed yet."""
        return [i for i in ids if i not in self._done]

    async def changed(self) -> None:
        """Return after the next accepted completion notice."""
        await self._changed.wait()
