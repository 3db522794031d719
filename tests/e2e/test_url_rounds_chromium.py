"""A 2026-07-28 URL round with the person in a real browser: Chromium (Playwright) on 127.0.0.1.

The SDK's stock `mcp.Client` drives the rounds; its elicitation callback opens the link in
Chromium, where alice signs in and types her key while the client's retry is held by the
server. One handler call, one page, the tool's result.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ElicitRequestURLParams, ElicitResult
from playwright.async_api import async_playwright
from support.chromium import CHROMIUM_ARGS
from support.interop_harness import SECRET, auth, briefing_running, fingerprint, provider, token

from elicitkit.demo.auth_server import DEMO_PASSWORDS, DemoAuthServer
from elicitkit.demo.provider import DemoProvider

__all__ = ["auth", "provider"]
pytestmark = pytest.mark.timeout(120)


async def test_stock_client_rounds_with_alice_in_chromium(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    urls: list[str] = []
    typed = asyncio.Event()

    async with async_playwright() as playwright, briefing_running(auth, provider) as briefing:
        chromium = await playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)

        async def in_chromium(url: str) -> None:
            page = await (await chromium.new_context()).new_page()
            await page.goto(url)
            await page.fill("input[name=username]", "alice")
            await page.fill("input[name=password]", DEMO_PASSWORDS["alice"])
            await page.click("button[value=allow]")
            await page.wait_for_url(url)
            await page.fill("#secret", SECRET)
            await page.click("button[value=save]")
            await page.wait_for_selector("text=Saved")
            typed.set()

        steps: list[asyncio.Task[None]] = []

        async def on_elicit(context: Any, params: Any) -> ElicitResult:
            assert isinstance(params, ElicitRequestURLParams), params
            urls.append(params.url)
            steps.append(asyncio.create_task(in_chromium(params.url)))
            return ElicitResult(action="accept")

        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {await token(auth, 'alice')}"})
        async with (
            http,
            Client(
                streamable_http_client(briefing.mcp_url, http_client=http),
                mode="2026-07-28",
                elicitation_callback=on_elicit,
                cache=None,
            ) as client,
        ):
            result = await asyncio.wait_for(client.call_tool("forecast", {}), 90)
        await asyncio.gather(*steps)
        await chromium.close()
    assert typed.is_set() and len(urls) == 1
    assert not result.is_error, result
    assert fingerprint(SECRET) in result.content[0].text  # type: ignore[union-attr]
