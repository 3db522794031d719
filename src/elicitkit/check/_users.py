"""S-34 with `--browser`: the second user is refused at the first user's live URL, which stays pending.

For each tool that asked in URL mode (three at most), the checker, as the first user, calls it
again and takes the URL it is given while that call is still open. The second user's browser
(`--other-token` as a bearer header, sent to the URL's own origin only) opens it first: a page
served at that URL is a `warn`; a detour to sign in is not observed, as the checker cannot sign
in there. After a refusal the first user's elicitation must be untouched: no
`notifications/elicitation/complete` for its id may come (the attempt did not end it), and the
first user's browser (`--user-token`) still gets the page. When it does not, one more call
gives a fresh URL nobody else opened: if that one opens for the first user, the attempt
consumed theirs; if not, the server never lets this browser in and the checker cannot tell.

Every finding here is a `warn`, never a `fail`: the spec's MUST is to verify the person before
*accepting* anything, and the checker submits nothing, so what it sees (a page served, a
notice sent, a URL spent) is strong evidence for a person to read, not the broken MUST itself.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

import anyio

from elicitkit.check._browser import Visit, open_as
from elicitkit.check._observed import Asked, Call, Observations
from elicitkit.check._session import CheckSession

#: how long after the second user's attempt a completion notice would count as caused by it
GRACE = 1.0


async def check_users(
    browser: Any,
    tools: Sequence[tuple[str, dict[str, Any]]],
    session: Callable[[], CheckSession],
    tokens: tuple[str, str],
    seen: Observations,
    progress: Callable[[str], None],
) -> None:
    """Run the S-34 visits for each tool; `tokens` are (first user, second user)."""
    users = _Users(browser, tokens, seen)
    for name, args in tools[:3]:
        try:
            async with session() as first:
                progress(f"{first.connection.label}: tool {name} (the other user's browser)")
                seen.browser.append(await users.check(first, name, args))
        except Exception as error:  # a server that fails here leaves a note, not a crash
            seen.browser.append(("S-34", "not-observed", f"tool {name!r}: the check stopped: {error}"))


class _Users:
    def __init__(self, browser: Any, tokens: tuple[str, str], seen: Observations) -> None:
        self.browser = browser
        self.mine, self.other = tokens
        self.seen = seen

    async def check(self, first: CheckSession, name: str, args: dict[str, Any]) -> tuple[str, str, str]:
        async with _live(first, name, args) as asked:
            if asked is None:
                return ("S-34", "not-observed", f"tool {name!r} gave no URL when called again")
            url, eid = asked.params["url"], asked.params.get("elicitationId")
            before = self._notices(first, eid)
            other = await open_as(self.browser, url, self.other)
            if not other.refused:
                return _other_verdict(other)
            await anyio.sleep(GRACE)
            ended = self._notices(first, eid) > before
            again = None if ended else await open_as(self.browser, url, self.mine)
        refused = f"the other user's browser was refused at {url} (HTTP {other.status})"
        if ended:
            return (
                "S-34",
                "warn",
                f"{refused}, but notifications/elicitation/complete for {eid!r} reached the first "
                "user's session right after: the refused attempt ended the first user's elicitation",
            )
        assert again is not None
        if again.served:
            return (
                "S-34",
                "pass",
                f"{refused}; the first user's elicitation stayed pending: no completion notice for "
                f"{eid!r} came after it, and the first user's browser still gets the page "
                f"(HTTP {again.status})",
            )
        if again.refused:
            return await self._consumed(first, name, args, refused, again)
        return (
            "S-34",
            "pass",
            f"{refused}; whether the first user's elicitation stayed pending could not be seen: "
            f"the first user's browser {again.said()}",
        )

    async def _consumed(
        self, first: CheckSession, name: str, args: dict[str, Any], refused: str, again: Visit
    ) -> tuple[str, str, str]:
        """The first user is refused at their own URL after the attempt: is it the attempt, or always so?"""
        async with _live(first, name, args) as asked:
            fresh = await open_as(self.browser, asked.params["url"], self.mine) if asked else None
        if fresh is not None and fresh.served:
            return (
                "S-34",
                "warn",
                f"{refused}, and then the first user's browser was refused there too (HTTP "
                f"{again.status}), while a fresh URL nobody else opened serves them (HTTP {fresh.status}): "
                "the refused attempt consumed or cancelled the first user's elicitation",
            )
        said = fresh.said() if fresh is not None else "was not given"
        return (
            "S-34",
            "pass",
            f"{refused}; whether the first user's elicitation stayed pending could not be seen: the "
            f"first user's browser was refused too (HTTP {again.status}), and at a fresh URL {said}",
        )

    def _notices(self, session: CheckSession, elicitation_id: Any) -> int:
        mine = (n for n in self.seen.notices if n.connection is session.connection)
        return sum(1 for n in mine if n.elicitation_id == elicitation_id)


def _other_verdict(other: Visit) -> tuple[str, str, str]:
    if other.served:
        return (
            "S-34",
            "warn",
            f"the other user's browser was served the first user's page {other.url} (HTTP {other.status})",
        )
    if other.error:
        return ("S-34", "not-observed", f"{other.url} did not load for the other user: {other.error}")
    return (
        "S-34",
        "not-observed",
        f"the other user was sent to sign in ({other.landed}); the checker cannot sign in there",
    )


@contextlib.asynccontextmanager
async def _live(session: CheckSession, name: str, args: dict[str, Any]) -> AsyncIterator[Asked | None]:
    """Call `name` and yield its first URL-mode elicitation while the call is still open."""
    call = Call(session.connection, name, "valid")
    async with anyio.create_task_group() as tasks:
        tasks.start_soon(lambda: session.call(name, args, call=call))
        asked = None
        with anyio.move_on_after(session.timeout):
            while asked is None:
                asked = next(
                    (a for a in call.asked if a.mode == "url" and isinstance(a.params.get("url"), str)), None
                )
                if asked is None and call.outcome != "pending":
                    break
                await anyio.sleep(0.05)
        try:
            yield asked
        finally:
            tasks.cancel_scope.cancel()
