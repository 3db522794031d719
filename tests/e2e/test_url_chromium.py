"""URL mode in a real browser: Chromium driven by Playwright, on http://127.0.0.1.

Also checks what the scripted browser cannot: Chromium treats http://127.0.0.1 as a secure
context, so it accepts and sends the `__Host-`/Secure session cookie there, and it refuses to
show the page inside a frame.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from playwright.async_api import async_playwright
from support.chromium import CHROMIUM_ARGS
from support.url_harness import SECRET, fingerprint, mcp_session
from test_url_secret import auth, token, weather_running

from elicitkit.demo.auth_server import DEMO_PASSWORDS, DemoAuthServer
from elicitkit.server._web.site import COOKIE

__all__ = ["auth"]
pytestmark = pytest.mark.timeout(120)


async def test_alice_in_chromium(auth: DemoAuthServer, tmp_path: Path) -> None:
    async with (
        weather_running(auth, tmp_path) as (_weather, base),
        mcp_session(f"{base}/mcp", await token(auth, "alice")) as alice,
    ):
        call = asyncio.create_task(alice.client.call_tool("forecast", {"city": "Paris"}))
        asked = await asyncio.wait_for(alice.urls.get(), 30)
        async with async_playwright() as playwright:
            chromium = await playwright.chromium.launch(
                executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS
            )
            context = await chromium.new_context()
            page = await context.new_page()
            await page.goto(asked.url)
            assert page.url.startswith(f"{auth.url}/login")  # sent to sign in at the same AS
            await page.fill("input[name=username]", "alice")
            await page.fill("input[name=password]", DEMO_PASSWORDS["alice"])
            await page.click("button[value=allow]")
            await page.wait_for_url(asked.url)
            assert await page.locator("text=Signed in as").count() == 1
            assert "alice" in await page.inner_text("p.who")
            assert await page.get_attribute("#secret", "type") == "password"

            cookies = {c["name"]: c for c in await context.cookies(base)}
            session = cookies[COOKIE]
            assert session["secure"] and session["httpOnly"] and session["sameSite"] == "Lax"
            assert session["path"] == "/" and session["domain"] == "127.0.0.1"

            # framing is refused: the pages (even a plain refusal page, no redirect) never render in a frame
            framer = await context.new_page()
            refusal_url = f"{base}/elicit/{'x' * 40}"
            await framer.set_content(
                f'<iframe src="{asked.url}"></iframe><iframe src="{refusal_url}"></iframe>'
            )
            await asyncio.sleep(1.5)
            children = framer.frames[1:]
            assert len(children) == 2
            for child in children:
                assert child.url == "chrome-error://chromewebdata/"
                assert await child.locator("#secret").count() == 0
            standalone = await context.new_page()
            shown = await standalone.goto(refusal_url)
            assert shown is not None and shown.status == 404
            assert "Link not valid" in await standalone.content()  # the same page renders on its own

            # bob, signed in as bob in his own browser, opens alice's link: refused, nothing to fill in
            bobs = await chromium.new_context()
            bob_page = await bobs.new_page()
            await bob_page.goto(asked.url)
            await bob_page.fill("input[name=username]", "bob")
            await bob_page.fill("input[name=password]", DEMO_PASSWORDS["bob"])
            await bob_page.click("button[value=allow]")
            await bob_page.wait_for_url(asked.url)
            assert "This link is not for you" in await bob_page.inner_text("h1")
            assert await bob_page.locator("#secret").count() == 0
            await bobs.close()

            await page.fill("#secret", SECRET)
            await page.click("button[value=save]")
            await page.wait_for_selector("text=Saved")
            await chromium.close()
        result = await asyncio.wait_for(call, 30)
        assert not result.is_error and fingerprint(SECRET) in result.content[0].text  # type: ignore[union-attr]
        assert alice.notices == [asked.elicitation_id]
        assert SECRET.encode() not in alice.wire.everything()
