"""elicitkit's server on 2026-07-28, driven round by round by hand (the SDK's session, no driver).

The URL is asked once; a retry while the page is open is held up to `hold` seconds and then
answered "still waiting" (an input-required result with `requestState` and no `inputRequests`);
the newest answer counts, so a decline or cancel sent after the accept ends the flow with it;
and the rounds one URL may take are bounded.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ElicitResult, InputRequiredResult
from support.interop_harness import SECRET, Briefing, auth, briefing_running, fingerprint, provider, token

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import DemoProvider

__all__ = ["auth", "provider"]


@asynccontextmanager
async def by_hand(briefing: Briefing) -> AsyncIterator[Client]:
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {await token(briefing.auth, 'alice')}"},
        timeout=httpx2.Timeout(30, read=120),
    )

    async def never(context: Any, params: Any) -> ElicitResult:
        raise AssertionError("the rounds are driven by hand here")

    async with (
        http,
        Client(
            streamable_http_client(briefing.mcp_url, http_client=http),
            mode="2026-07-28",
            elicitation_callback=never,
            cache=None,
        ) as client,
    ):
        yield client


async def retry(client: Client, tool: str, state: str | None, action: str | None = None) -> Any:
    responses = {"elicitkit.url.weather-api-key": ElicitResult(action=action)} if action else None  # type: ignore[arg-type]
    return await client.session.call_tool(
        tool,
        {},
        input_responses=responses,
        request_state=state,
        allow_input_required=True,
    )


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_a_decline_or_cancel_after_the_accept_ends_the_flow_with_it(
    auth: DemoAuthServer, provider: DemoProvider, action: str
) -> None:
    async with briefing_running(auth, provider, hold=0.2) as briefing, by_hand(briefing) as client:
        first = await retry(client, "forecast", None)
        assert isinstance(first, InputRequiredResult) and first.input_requests
        (request,) = first.input_requests.values()
        url = request.params.url  # type: ignore[union-attr]
        waiting = await retry(client, "forecast", first.request_state, "accept")
        assert isinstance(waiting, InputRequiredResult) and not waiting.input_requests
        ended = await retry(client, "forecast", waiting.request_state, action)
        assert not isinstance(ended, InputRequiredResult)
        state = {"decline": "declined", "cancel": "cancelled"}[action]
        assert ended.is_error and f"'{state}'" in ended.content[0].text  # type: ignore[union-attr]
        assert await briefing.record_state(url) == state


async def test_a_retry_is_held_then_told_still_waiting_and_the_url_is_never_asked_again(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    async with briefing_running(auth, provider, hold=1.0) as briefing, by_hand(briefing) as client:
        first = await retry(client, "forecast", None)
        assert isinstance(first, InputRequiredResult)
        (request,) = first.input_requests.values()  # type: ignore[union-attr]
        url = request.params.url  # type: ignore[union-attr]
        state = first.request_state
        for action in ("accept", None, None):
            started = time.monotonic()
            waiting = await retry(client, "forecast", state, action)
            held = time.monotonic() - started
            assert isinstance(waiting, InputRequiredResult), waiting
            assert not waiting.input_requests and waiting.request_state  # "still waiting"
            assert 0.9 <= held < 10, held  # held for `hold`, and bounded
            state = waiting.request_state
        briefing.complete_soon(url)
        started = time.monotonic()
        done = await briefing.run(retry(client, "forecast", state))  # held until the page is done
        while isinstance(done, InputRequiredResult) and time.monotonic() - started < 30:
            # A page slower than one hold (a loaded machine) is one more "still waiting", never
            # the URL asked again.
            assert not done.input_requests and done.request_state, done
            done = await briefing.run(retry(client, "forecast", done.request_state))
        assert not isinstance(done, InputRequiredResult) and not done.is_error, done
        assert fingerprint(SECRET) in done.content[0].text
        assert time.monotonic() - started < 30


async def test_rounds_past_the_bound_end_the_call_with_a_clear_error(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    async with (
        briefing_running(auth, provider, hold=0.0, max_rounds=3) as briefing,
        by_hand(briefing) as client,
    ):
        first = await retry(client, "forecast", None)
        assert isinstance(first, InputRequiredResult)
        (request,) = first.input_requests.values()  # type: ignore[union-attr]
        state = first.request_state
        for _ in range(3):
            waiting = await retry(client, "forecast", state)
            assert isinstance(waiting, InputRequiredResult) and not waiting.input_requests
            state = waiting.request_state
        ended = await retry(client, "forecast", state)
        assert not isinstance(ended, InputRequiredResult) and ended.is_error
        assert "still not finished after 3 retries" in ended.content[0].text  # type: ignore[union-attr]
        assert await briefing.record_state(request.params.url) == "expired"  # type: ignore[union-attr]


async def test_a_first_call_that_brings_an_answer_along_still_gets_the_link(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    """An "accept" for a link the client was never shown is no consent: the link is asked."""
    async with briefing_running(auth, provider, hold=0.2) as briefing, by_hand(briefing) as client:
        first = await client.session.call_tool(
            "forecast",
            {},
            input_responses={"elicitkit.url.weather-api-key": ElicitResult(action="accept")},
            allow_input_required=True,
        )
        assert isinstance(first, InputRequiredResult) and first.input_requests, first
        (request,) = first.input_requests.values()
        assert request.params.url.startswith(f"{briefing.base}/elicit/")  # type: ignore[union-attr]
