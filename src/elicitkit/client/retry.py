"""A call the server holds with -32042 until URL elicitations complete (C-21).

Each listed URL is shown for consent and opened; then the call waits for the completion
notices, showing the person the time elapsed and offering retry and cancel at any moment.
When every notice has come the call is retried by itself; when none comes within the
handler's `wait_timeout` the person is pressed to choose. A server that asks again for an id
that already completed would loop forever, so that stops with `ElicitationLoopError`.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Literal, TypeVar

import anyio
from mcp.shared.exceptions import MCPError, UrlElicitationRequiredError
from mcp_types import URL_ELICITATION_REQUIRED

from elicitkit.client.errors import ElicitationCancelledError, ElicitationDeclinedError, ElicitationLoopError
from elicitkit.client.handler import ServerElicitations
from elicitkit.client.ui import Waiting

T = TypeVar("T")
_Outcome = Literal["retry", "cancel", "changed", "timeout"]


async def until_urls_complete(answers: ServerElicitations, call: Callable[[], Awaitable[T]]) -> T:
    """Run `call`; while it fails with -32042, get consent, wait for completion, and run it again."""
    consented: dict[str, str] = {}
    while True:
        try:
            return await call()
        except MCPError as error:
            if error.code != URL_ELICITATION_REQUIRED or "url" not in answers.handler.modes:
                raise
            required = UrlElicitationRequiredError.from_error(error.error).elicitations
        server = answers.server_name()
        ids = [e.elicitation_id for e in required if e.elicitation_id]
        again = [i for i in ids if answers.completions.is_done(i)]
        if again:
            raise ElicitationLoopError(
                f"{server} asked again for elicitation {', '.join(map(repr, again))}, which already "
                "completed; the call was stopped because retrying it would never end."
            )
        if not ids or len(ids) != len(required):
            raise ElicitationDeclinedError(f"{server} asked for a URL elicitation without an id; not opened.")
        if len(required) > answers.handler.rate_limit.burst:
            raise ElicitationDeclinedError(
                f"{server} asked for {len(required)} URLs at once, more than this client allows; none opened."
            )
        for elicitation in required:
            elicitation_id = elicitation.elicitation_id or ""
            if elicitation_id in consented:
                continue
            if await answers.consent_and_open(elicitation.message, elicitation.url) != "accept":
                raise ElicitationDeclinedError(
                    f"The URL {server} needs was not opened ({elicitation.url}); the call was not retried."
                )
            consented[elicitation_id] = elicitation.message
            answers.completions.expect(elicitation_id, elicitation.message)
        if await _wait(answers, {i: consented[i] for i in ids}) == "cancel":
            raise ElicitationCancelledError(f"Stopped waiting for {server}; the call was not retried.")


async def _wait(answers: ServerElicitations, messages: dict[str, str]) -> Literal["retry", "cancel", "done"]:
    """Show the wait until every id completes ("done") or the person chooses retry or cancel."""
    ui = answers.handler.ui
    started = time.monotonic()
    deadline = started + answers.handler.wait_timeout
    timed_out = False
    while True:
        pending = answers.completions.pending_of(messages)
        if not pending:
            return "done"
        waiting = Waiting(answers.server_name(), [(i, messages[i]) for i in pending], started, timed_out)

        async def person(waiting: Waiting = waiting) -> _Outcome:
            try:
                return await ui.wait(waiting)
            except Exception:
                return "cancel"

        async def notice() -> _Outcome:
            await answers.completions.changed()
            return "changed"

        async def clock() -> _Outcome:
            await anyio.sleep(max(0.0, deadline - time.monotonic()))
            return "timeout"

        racers = [person, notice] if timed_out else [person, notice, clock]
        outcome = await _first(racers)
        if outcome == "timeout":
            timed_out = True
        elif outcome in ("retry", "cancel"):
            return "retry" if outcome == "retry" else "cancel"


async def _first(racers: Sequence[Callable[[], Awaitable[_Outcome]]]) -> _Outcome:
    """The outcome of whichever racer finishes first; the others are cancelled."""
    results: list[_Outcome] = []
    async with anyio.create_task_group() as tg:

        async def run(racer: Callable[[], Awaitable[_Outcome]]) -> None:
            outcome = await racer()
            if not results:
                results.append(outcome)
            tg.cancel_scope.cancel()

        for racer in racers:
            tg.start_soon(run, racer)
    return results[0]
