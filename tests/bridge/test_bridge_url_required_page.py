"""-32042 for a host over HTTP that declared no elicitation: the host (the SDK's `mcp.Client`)
calls a tool the server holds with -32042 (C-21); the bridge gets the person's consent in its
own page, waits for the server's completion notice, retries, and the host gets the result.

Chromium plays the person; every URL the bridge opens goes through $BROWSER (a recorder), as
in test_bridge_browser.py.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2
import pytest
from bridge_harness import PY, BrowserRecord, bridge_http, environment, http_process, text_of
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR, CallToolResult
from playwright.async_api import Browser, expect
from support.url_harness import SECRET, Wire, fingerprint

pytestmark = pytest.mark.timeout(300)


@dataclass
class Stage:
    """The weather server holding calls with -32042, `elicitkit bridge --listen` in front of it."""

    upstream: str
    bridge: str
    browser: BrowserRecord


@pytest.fixture
def stage(tmp_path: Path) -> Iterator[Stage]:
    browser = BrowserRecord(tmp_path)
    server = [PY, "-m", "tests.bridge.upstream_url_required", "PORT", str(tmp_path / "weather.db")]
    with (
        http_process(server, tmp_path / "weather.log") as upstream,
        bridge_http([upstream], tmp_path / "bridge.log", "auto", env=environment(**browser.env)) as url,
    ):
        yield Stage(upstream, url, browser)


@dataclass
class Host:
    """`mcp.Client` as a host that declared no elicitation, every byte it exchanged kept, and the
    content type of each answer to its `tools/call` POSTs."""

    client: Client
    wire: Wire
    calls: list[str] = field(default_factory=list)

    async def call(self) -> CallToolResult:
        return await self.client.call_tool("forecast", {"city": "Oslo"})


@asynccontextmanager
async def host(url: str) -> AsyncIterator[Host]:
    wire = Wire()
    calls: list[str] = []

    async def answered(response: httpx2.Response) -> None:
        request = response.request
        if request.method == "POST" and json.loads(request.content).get("method") == "tools/call":
            calls.append(response.headers.get("content-type", "").split(";")[0])

    http = httpx2.AsyncClient(
        transport=wire, event_hooks={"response": [answered]}, timeout=httpx2.Timeout(30, read=180)
    )
    client = Client(streamable_http_client(url, http_client=http), mode="legacy")  # no elicitation
    async with http, client:
        await client.list_tools()  # as a host does first; the host session's upstream session opens
        yield Host(client, wire, calls)


async def test_a_call_held_with_32042_is_completed_in_the_bridges_page_and_retried(
    stage: Stage, chromium: Browser
) -> None:
    async def person() -> None:
        page = await chromium.new_page()
        await page.goto(await asyncio.to_thread(stage.browser.next_url, 0))  # the bridge's own page
        await expect(page.get_by_text("127.0.0.1")).not_to_have_count(0)  # the server's page, shown
        assert len(stage.browser.opened()) == 1  # nothing opened before consent
        await page.get_by_role("button", name="Open in my browser").click()
        landing = await chromium.new_page()
        await landing.goto(await asyncio.to_thread(stage.browser.next_url, 1))  # the server's page
        await landing.fill("#secret", SECRET)
        await landing.click("button[value=save]")

    async with host(stage.bridge) as person_host:
        played = asyncio.create_task(person())
        result = await person_host.call()
        await played
        calls = person_host.calls
    assert len(calls) == 1  # one call from the host
    assert not result.is_error, text_of(result)
    assert text_of(result) == f"Sunny in Oslo (key {fingerprint(SECRET)})"
    assert SECRET.encode() not in person_host.wire.everything()  # the secret never passed the host
    opened = stage.browser.opened()
    assert len(opened) == 2 and opened[1].startswith(stage.upstream.removesuffix("/mcp"))


async def test_a_declined_32042_url_is_a_json_rpc_error_for_the_host(stage: Stage, chromium: Browser) -> None:
    """docs/bridge.md, "Results the bridge's client stops": -32603 with one sentence."""

    async def person() -> None:
        page = await chromium.new_page()
        await page.goto(await asyncio.to_thread(stage.browser.next_url, 0))
        await page.get_by_role("button", name="Decline").click()

    async with host(stage.bridge) as person_host:
        played = asyncio.create_task(person())
        with pytest.raises(MCPError) as raised:
            await person_host.call()
        await played
        calls = person_host.calls
    assert len(calls) == 1
    assert raised.value.code == INTERNAL_ERROR
    said: Any = raised.value.message
    assert "was not opened" in said and "not retried" in said, said
    assert len(stage.browser.opened()) == 1  # the server's page never opened


async def test_a_host_that_cancels_a_call_held_with_32042_takes_the_question_off_the_page(
    stage: Stage, chromium: Browser
) -> None:
    """A host's cancel reaches the wait for the URL (the upstream call itself has ended with
    -32042): the bridge's page stops asking, and the next call is asked afresh."""
    async with host(stage.bridge) as person_host:
        call = asyncio.create_task(person_host.call())
        page = await chromium.new_page()
        await page.goto(await asyncio.to_thread(stage.browser.next_url, 0))
        await expect(page.get_by_role("button", name="Open in my browser")).to_be_visible()
        call.cancel()
        with pytest.raises(asyncio.CancelledError):
            await call
        await expect(page.get_by_text("Nothing to answer right now")).to_be_visible(timeout=30_000)
        again = asyncio.create_task(person_host.call())
        await page.get_by_role("button", name="Decline").click(timeout=60_000)
        with pytest.raises(MCPError) as raised:
            await again
    assert raised.value.code == INTERNAL_ERROR
    assert len(stage.browser.opened()) == 1  # the page was opened once; no server page ever was
