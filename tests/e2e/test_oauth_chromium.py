"""The third-party OAuth connection in a real browser: Chromium, driven by Playwright.

alice's tool needs Demo Calendar; the call lists a URL (-32042); Chromium opens it, alice
signs in to the MCP server's authorization server, consents on our page, signs in and allows
at the provider, and comes back to the callback; the tokens go to the vault, the completion
notice reaches her MCP session, and the retried tool returns her calendar.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
from mcp.shared.exceptions import MCPError
from playwright.async_api import Browser, Page, async_playwright
from support.chromium import CHROMIUM_ARGS
from support.oauth_harness import agenda_with, auth, provider, url_required

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import DEMO_PASSWORDS, DemoProvider
from elicitkit.server._user import User

__all__ = ["auth", "provider"]
pytestmark = pytest.mark.timeout(120)


@pytest.fixture
async def chromium() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


async def sign_in(page: Page, person: str) -> None:
    """Fill the demo sign-in page (the MCP server's AS, or the provider's) as `person`."""
    await page.wait_for_selector("input[name=username]")
    await page.fill("input[name=username]", person)
    await page.fill("input[name=password]", DEMO_PASSWORDS[person])
    await page.click("button[value=allow]")


async def test_alice_connects_demo_calendar_in_chromium(
    auth: DemoAuthServer, provider: DemoProvider, chromium: Browser
) -> None:
    async with agenda_with(auth, provider, sqlite=True) as (agenda, alice):
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("agenda", {})
        url = url_required(raised.value)

        context = await chromium.new_context()
        page = await context.new_page()
        await page.goto(url)
        assert page.url.startswith(auth.url)  # not signed in on our site yet: the MCP AS asks
        await sign_in(page, "alice")

        await page.wait_for_url(url)  # back on the landing page, recognized as alice
        body = await page.text_content("main") or ""
        assert "Signed in as alice" in body and "read your calendar" in body
        assert "have not allowed this application" in body
        await page.click("button[value=connect]")

        await page.wait_for_url(f"{provider.url}/login*")  # the provider's own sign-in and consent
        assert "Demo Calendar" in (await page.text_content("body") or "")
        await sign_in(page, "alice")

        await page.wait_for_url(f"{agenda.calendar.redirect_uri}?*")
        assert "account is connected" in (await page.text_content("main") or "")
        await context.close()

        await asyncio.wait_for(alice.notice_arrived.wait(), 15)
        assert len(alice.notices) == 1 and url.endswith(alice.notices[0])

        result = await alice.client.call_tool("agenda", {})
        assert not result.is_error, result
        calendar = json.loads(result.content[0].text)  # type: ignore[union-attr]
        assert calendar["owner"] == "alice" and calendar["events"][0]["title"] == "Dentist"

        raw = await agenda.url_mode.vault.get(User(auth.issuer, "alice"), "oauth:calendar:tokens")
        assert raw is not None
        tokens = json.loads(raw)
        assert tokens["access_token"].encode() not in alice.wire.everything()
        assert tokens["refresh_token"].encode() not in alice.wire.everything()
        assert f"Bearer {tokens['access_token']}" in provider.authorization_headers
