"""A call the server holds with -32042 until URL elicitations complete (C-21).

Each listed URL is shown for consent and opened; then the call waits for the completion
notices, showing the person the time elapsed and offering retry and cancel at any moment.
When every notice has come the call is retried by itself; when none comes within the
config's `wait_timeout` the person is pressed to choose. A server that asks again for an id
that already completed would loop forever, so that stops with `ElicitationLoopError`.

Every consent and every waiting screen passes the server's `PromptGate`, and a call is retried
at most `Sizes.held_rounds` times, so a server answering each retry with a fresh -32042 ends
the call with `ElicitationRateLimitedError`. A -32042 whose `data` breaks the protocol ends it
with `ElicitationProtocolError`: the list is read here, bounded, before anything is built.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Literal, TypeVar

import anyio
from mcp.shared.exceptions import MCPError
from mcp_types import URL_ELICITATION_REQUIRED, ElicitRequestURLParams
from pydantic import ValidationError

from elicitkit.client._connection import ServerElicitations
from elicitkit.client._errors import (
    ElicitationCancelledError,
    ElicitationDeclinedError,
    ElicitationLoopError,
    ElicitationProtocolError,
    ElicitationRateLimitedError,
)
from elicitkit.client._limits import Sizes, cut
from elicitkit.client._ui import Waiting

T = TypeVar("T")
_Outcome = Literal["retry", "cancel", "changed", "timeout"]


async def until_urls_complete(answers: ServerElicitations, call: Callable[[], Awaitable[T]]) -> T:
    """Run `call`; while it fails with -32042, get consent, wait for completion, and run it again."""
    consented: dict[str, str] = {}
    sizes = answers.sizes
    for _ in range(sizes.held_rounds + 1):
        try:
            return await call()
        except ValidationError as error:
            # The SDK checks each result against its model and lets pydantic's error escape.
            raise malformed_result(answers.server_name(), error) from None
        except MCPError as error:
            config = answers.config
            if (
                error.code != URL_ELICITATION_REQUIRED
                or "url" not in config.modes
                or config.url_required == "pass"
            ):
                raise
            data = error.error.data
        server = answers.server_name()
        required = listed_elicitations(server, data, sizes)
        ids = [e.elicitation_id or "" for e in required]
        again = [i for i in ids if answers.completions.is_done(i)]
        if again:
            raise ElicitationLoopError(
                f"{server} asked again for elicitation {', '.join(repr(cut(i, 60)) for i in again)}, which "
                "already completed; the call was stopped because retrying it would never end."
            )
        if len(required) > answers.config.rate_limit.burst:
            raise ElicitationDeclinedError(
                f"{server} asked for {len(required)} URLs at once, more than this client allows; none opened."
            )
        for elicitation in required:
            elicitation_id = elicitation.elicitation_id or ""
            if elicitation_id in consented:
                continue
            if await answers.consent_and_open(elicitation.message, elicitation.url) != "accept":
                raise ElicitationDeclinedError(
                    f"The URL {server} needs was not opened ({cut(elicitation.url, 200)}); "
                    "the call was not retried."
                )
            consented[elicitation_id] = elicitation.message
            answers.completions.expect(elicitation_id, elicitation.message)
        with answers.gate.prompt():
            outcome = await _wait(answers, {i: consented[i] for i in ids})
        if outcome == "cancel":
            raise ElicitationCancelledError(f"Stopped waiting for {server}; the call was not retried.")
    raise ElicitationRateLimitedError(
        f"{answers.server_name()} held the call with -32042 {sizes.held_rounds + 1} times; "
        "it was stopped because retrying it might never end."
    )


def malformed_result(server: str, error: ValidationError) -> ElicitationProtocolError:
    """A result (a tool's, or a 2026-07-28 round's) that does not fit the protocol, in a sentence."""
    first = error.errors(include_url=False)[0] if error.error_count() else {"loc": (), "msg": "?"}
    where = "/".join(str(part) for part in first["loc"]) or "the result"
    return ElicitationProtocolError(
        f"{server} sent a result that breaks the protocol ({error.error_count()} problem(s); "
        f"{cut(where, 80)}: {cut(str(first['msg']), 120)}); the call was stopped."
    )


def listed_elicitations(server: str, data: object, sizes: Sizes) -> list[ElicitRequestURLParams]:
    """The URL elicitations a -32042 error lists, or `ElicitationProtocolError` with a sentence.

    Checked before anything is built: `data` must be an object whose `elicitations` is a short
    list of distinct URL-mode requests, each with an id and a URL within `sizes`.
    """

    def broken(why: str) -> ElicitationProtocolError:
        return ElicitationProtocolError(f"{server} answered -32042 but {why}; the call was stopped.")

    listed = data.get("elicitations") if isinstance(data, dict) else None
    if not isinstance(listed, list) or not listed:
        raise broken("its error data lists no URL elicitations (data.elicitations must be a non-empty list)")
    if len(listed) > sizes.listed:
        raise broken(f"it lists {len(listed)} elicitations, more than the {sizes.listed} this client reads")
    required: list[ElicitRequestURLParams] = []
    for i, entry in enumerate(listed):
        if not isinstance(entry, dict) or entry.get("mode") != "url":
            raise broken(f"entry {i} of its list is not a URL-mode elicitation")
        try:
            elicitation = ElicitRequestURLParams.model_validate(entry)
        except ValidationError as exc:
            raise broken(f"entry {i} of its list is malformed ({exc.error_count()} problem(s))") from None
        if not elicitation.elicitation_id:
            raise broken(f"entry {i} of its list has no elicitationId")
        if len(elicitation.url) > sizes.url or len(elicitation.elicitation_id) > sizes.title:
            raise broken(f"entry {i} of its list has a URL or id longer than this client accepts")
        if any(e.elicitation_id == elicitation.elicitation_id for e in required):
            raise broken(f"it lists elicitation {cut(elicitation.elicitation_id, 60)!r} twice")
        required.append(elicitation)
    return required


async def _wait(answers: ServerElicitations, messages: dict[str, str]) -> Literal["retry", "cancel", "done"]:
    """Show the wait until every id completes ("done") or the person chooses retry or cancel."""
    started = time.monotonic()
    deadline = started + answers.config.wait_timeout
    timed_out = False
    while True:
        pending = answers.completions.pending_of(messages)
        if not pending:
            return "done"
        waiting = Waiting(answers.server_name(), [(i, messages[i]) for i in pending], started, timed_out)

        async def person(waiting: Waiting = waiting) -> _Outcome:
            return await answers.wait(waiting)

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
