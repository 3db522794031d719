"""The URL-mode flows with the keyboard alone, in the real Chromium.

A person who cannot use a mouse opens the link (the one thing done for them, as the client
would) and then only presses keys: Tab to move, typing to fill in, Enter to submit. No
clicks, no `fill`. At every stop the focused control must show where it is (a visible
outline), and the elicitation must complete: the tool gets the secret, or the calendar.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio
from a11y_tour import chromium, new_context, weather_running
from mcp.shared.exceptions import MCPError
from playwright.async_api import Browser, Page
from support.oauth_harness import agenda_with, url_required
from support.url_harness import SECRET, fingerprint, mcp_session

from elicitkit.demo.auth_server import DEMO_PASSWORDS, DemoAuthServer
from elicitkit.demo.provider import DemoProvider

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.timeout(180)]
LOCALES = ("en", "zh_CN")

_FOCUSED = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const style = getComputedStyle(el);
  return {
    tag: el.tagName.toLowerCase(), id: el.id, name: el.getAttribute("name") || "",
    value: el.getAttribute("value") || "", text: el.textContent.trim(),
    outline: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 2,
    invalid: el.getAttribute("aria-invalid"),
    described: (el.getAttribute("aria-describedby") || "").split(" ").filter(Boolean)
      .map((id) => (document.getElementById(id) || {textContent: ""}).textContent.trim()),
  };
}"""


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def browser() -> AsyncIterator[Browser]:
    async with chromium() as launched:
        yield launched


async def tab_to(page: Page, *, name: str = "", value: str = "", text: str = "") -> dict[str, object]:
    """Press Tab until the control wanted has the focus; it must show a focus outline.

    Only once the page has loaded: the outline comes from the stylesheet, which a page that has
    just arrived (the refusal after a submit) may still be fetching."""
    await page.wait_for_load_state("load")
    for _ in range(25):
        await page.keyboard.press("Tab")
        focused = await page.evaluate(_FOCUSED)
        if focused is None:
            continue
        if (
            (not name or focused["name"] == name)
            and (not value or focused["value"] == value)
            and (not text or text in str(focused["text"]))
        ):
            assert focused["outline"], f"the focused {focused} shows no visible focus outline"
            return dict(focused)
    raise AssertionError(f"Tab never reached the control (name={name!r} value={value!r} text={text!r})")


async def sign_in_by_keyboard(page: Page, person: str, password: str) -> None:
    """The demo sign-in page: Tab to the user name, type, Tab, type, Enter."""
    await page.wait_for_selector("input[name=username]")
    await tab_to(page, name="username")
    await page.keyboard.type(person)
    await page.keyboard.press("Tab")
    assert (await page.evaluate(_FOCUSED))["name"] == "password"
    await page.keyboard.type(password)
    await page.keyboard.press("Enter")  # the form's first button: sign in


@pytest.mark.parametrize("locale", LOCALES)
async def test_secret_entry_by_keyboard_alone(browser: Browser, locale: str) -> None:
    async with (
        DemoAuthServer() as auth,
        weather_running(auth) as (_weather, base),
        mcp_session(f"{base}/mcp", (await auth.token_for("alice")).access_token) as alice,
    ):
        call = asyncio.create_task(alice.client.call_tool("forecast", {"city": "Paris"}))
        asked = await asyncio.wait_for(alice.urls.get(), 30)
        context = await new_context(browser, locale)
        page = await context.new_page()
        await page.goto(asked.url)  # the client opens the link; from here on, keys only

        await sign_in_by_keyboard(page, "alice", DEMO_PASSWORDS["alice"])  # the identity check
        await page.wait_for_url(asked.url)
        await page.wait_for_selector("#secret")
        await tab_to(page, name="secret")
        await page.keyboard.type("not-a-key")
        await page.keyboard.press("Enter")

        # The refusal is announced, and tied to the field it is about.
        await page.wait_for_selector("[role=alert]")
        field = await tab_to(page, name="secret")
        assert field["invalid"] == "true"
        assert "A weather API key starts with wk-." in field["described"]
        await page.keyboard.type(SECRET)
        await page.keyboard.press("Enter")
        await page.wait_for_selector(".done")

        result = await asyncio.wait_for(call, 30)
        assert not result.is_error and fingerprint(SECRET) in result.content[0].text  # type: ignore[union-attr]
        assert alice.notices == [asked.elicitation_id]
        await context.close()


@pytest.mark.parametrize("locale", LOCALES)
async def test_oauth_connect_by_keyboard_alone(browser: Browser, locale: str) -> None:
    async with (
        DemoAuthServer() as auth,
        DemoProvider(client_id="agenda-server", client_secret="agenda-s3cret") as provider,
        agenda_with(auth, provider) as (agenda, alice),
    ):
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("agenda", {})
        url = url_required(raised.value)
        context = await new_context(browser, locale)
        page = await context.new_page()
        await page.goto(url)

        await sign_in_by_keyboard(page, "alice", DEMO_PASSWORDS["alice"])
        await page.wait_for_url(url)
        await page.wait_for_selector("button[value=connect]")
        await tab_to(page, value="connect")
        await page.keyboard.press("Enter")

        await page.wait_for_url(f"{provider.url}/login*")  # the provider's own sign-in and consent
        await sign_in_by_keyboard(page, "alice", DEMO_PASSWORDS["alice"])
        await page.wait_for_url(f"{agenda.calendar.redirect_uri}?*")
        await page.wait_for_selector(".done")
        await context.close()

        await asyncio.wait_for(alice.notice_arrived.wait(), 15)
        assert len(alice.notices) == 1 and url.endswith(alice.notices[0])
        result = await alice.client.call_tool("agenda", {})
        assert not result.is_error, result
        calendar = json.loads(result.content[0].text)  # type: ignore[union-attr]
        assert calendar["owner"] == "alice"
