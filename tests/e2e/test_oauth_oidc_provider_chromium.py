"""A third-party connection at panva's oidc-provider, in a real browser: Chromium (Playwright).

alice's tool needs Peer Calendar; the call lists a URL (-32042); Chromium opens it, alice signs
in to the MCP server's authorization server, consents on our page, then signs in and
continues on oidc-provider's own login and consent pages (a provider none of us wrote), and
is sent back to our callback; the retried tool gets a token the provider confirms is hers.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from mcp.shared.exceptions import MCPError
from playwright.async_api import Browser, async_playwright
from support.chromium import CHROMIUM_ARGS
from support.oauth_harness import auth, mcp_session, token, url_required
from support.oidc_harness import CAL, introspect, running, stored, use

from elicitkit.demo.auth_server import DEMO_PASSWORDS, DemoAuthServer

__all__ = ["auth"]
pytestmark = pytest.mark.timeout(120)


@pytest.fixture
async def chromium() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


@pytest.mark.parametrize("name", ["basic", "jwt"])
async def test_alice_connects_at_oidc_provider_in_chromium(
    auth: DemoAuthServer, chromium: Browser, name: str
) -> None:
    async with running(auth) as run, mcp_session(f"{run.base}/mcp", await token(auth, "alice")) as alice:
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("use", {"name": name})
        url = url_required(raised.value)

        context = await chromium.new_context()
        page = await context.new_page()
        await page.goto(url)
        assert page.url.startswith(auth.url)  # the MCP server's AS signs her in to our pages
        await page.fill("input[name=username]", "alice")
        await page.fill("input[name=password]", DEMO_PASSWORDS["alice"])
        await page.click("button[value=allow]")
        await page.wait_for_url(url)
        assert "Peer Calendar" in (await page.text_content("main") or "")
        await page.click("button[value=connect]")  # our consent POST: same-origin, so it passes

        await page.wait_for_url(f"{run.peer.issuer}/interaction/*")  # oidc-provider's login page
        await page.fill("input[name=login]", "alice")
        await page.fill("input[name=password]", "anything")
        await page.click("button[type=submit]")
        await page.wait_for_selector("text=Authorize")  # its consent page
        await page.click("button[type=submit]")

        await page.wait_for_url(f"{run.base}/elicit/callback/{name}?*")
        assert "account is connected" in (await page.text_content("main") or "")
        await context.close()

        await asyncio.wait_for(alice.notice_arrived.wait(), 15)
        answer = await use(alice, name)
        checked = await introspect(run.peer, answer["token"])
        assert checked["active"] is True and checked["sub"] == "alice" and checked["aud"] == CAL
        assert (await stored(run, name))["refresh_token"]  # offline access, granted through the consent page
        # (the test tool returns the access token itself; the refresh token must never cross the wire)
        assert (await stored(run, name))["refresh_token"].encode() not in alice.wire.everything()
