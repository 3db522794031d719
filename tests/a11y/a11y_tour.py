"""A walk through every page elicitkit can show, in the real Chromium, calling `visit` at each.

Three tours, all real HTTP on 127.0.0.1: the server's URL-mode pages for a `Secret` (the
demo authorization server's sign-in is the identity check), the OAuth connection's pages (the
demo provider is the third party), and the web client's pages (`WebUI`). The accessibility
tests audit each page the tours stop at; `scripts/screenshots` photographs some of them.

Run as a script it takes the screenshots of docs/accessibility.md:
`scripts/screenshots` (`python a11y_tour.py OUT_DIR`).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

from mcp.shared.exceptions import MCPError
from playwright.async_api import Browser, BrowserContext, Page, Route, async_playwright, expect
from support.chromium import CHROMIUM, CHROMIUM_ARGS
from support.oauth_harness import agenda_with, url_required
from support.url_harness import SECRET, Weather, build_weather, mcp_session, serve

from elicitkit.client._ui import FormQuestion, UrlQuestion, Waiting
from elicitkit.client._web import WebUI
from elicitkit.demo.auth_server import DEMO_PASSWORDS, DemoAuthServer
from elicitkit.demo.provider import DemoProvider
from elicitkit.schema import defaults
from elicitkit.server._vault import KeyRing
from elicitkit.server.store import ACTIVE, MemoryStore
from elicitkit.urls import examine as inspect_url

Visit = Callable[[str, Page], Awaitable[None]]

DESKTOP = {"width": 1280, "height": 800}

# A form with every widget kind: text with a pattern, email, number, date, a select, radios,
# yes/no, checkboxes; some required.
FORM: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Name on the booking", "minLength": 2},
        "code": {
            "type": "string",
            "title": "Voucher code",
            "description": "Three capital letters, from your voucher.",
            "pattern": "^[A-Z]{3}$",
        },
        "email": {"type": "string", "title": "Email for the confirmation", "format": "email"},
        "day": {"type": "string", "title": "Day", "format": "date"},
        "party": {"type": "integer", "title": "Party size", "minimum": 1, "maximum": 12},
        "seating": {
            "type": "string",
            "title": "Seating",
            "oneOf": [
                {"const": "inside", "title": "Inside, by the window"},
                {"const": "terrace", "title": "On the terrace"},
            ],
        },
        "occasion": {
            "type": "string",
            "title": "Occasion",
            "enum": ["none", "birthday", "anniversary", "business", "date-night", "farewell", "other"],
        },
        "diet": {
            "type": "array",
            "title": "Dietary needs",
            "items": {"type": "string", "enum": ["vegetarian", "vegan", "gluten-free"]},
            "maxItems": 2,
        },
        "reminder": {"type": "boolean", "title": "Send me a reminder", "default": True},
    },
    "required": ["name", "code", "email", "party", "seating", "reminder"],
}


def accept_language(locale: str) -> str:
    """What the browser sends for a catalog locale: zh_CN -> zh-CN."""
    return locale.replace("_", "-")


async def new_context(browser: Browser, locale: str) -> BrowserContext:
    return await browser.new_context(locale=accept_language(locale), viewport=DESKTOP)  # type: ignore[arg-type]


@asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


async def sign_in(page: Page, person: str, password: str | None = None) -> None:
    """The demo sign-in page (the MCP server's authorization server, or the provider's)."""
    await page.wait_for_selector("input[name=username]")
    await page.fill("input[name=username]", person)
    await page.fill("input[name=password]", DEMO_PASSWORDS[person] if password is None else password)
    await page.click("button[name=decision][value=allow]")


# -- the server's pages for a Secret ------------------------------------------------------


@asynccontextmanager
async def weather_running(auth: DemoAuthServer) -> AsyncIterator[tuple[Weather, str]]:
    store = MemoryStore()
    built: list[Weather] = []

    def build(url: str) -> Any:
        built.append(
            build_weather(
                public_url=url,
                issuer=auth.issuer,
                verifier=auth.token_verifier(),
                keys=KeyRing.from_string(KeyRing.generate("k1")),
                store=store,
            )
        )
        return built[0].server.streamable_http_app()

    async with serve(build) as url:
        yield built[0], url


async def secret_tour(browser: Browser, locale: str, visit: Visit) -> None:
    """Sign-in (identity check), secret entry, its error, done, declined and every refusal."""
    async with (
        DemoAuthServer() as auth,
        weather_running(auth) as (weather, base),
        mcp_session(f"{base}/mcp", (await auth.token_for("alice")).access_token) as alice,
        mcp_session(f"{base}/mcp", (await auth.token_for("bob")).access_token) as bob,
    ):
        call = asyncio.create_task(alice.client.call_tool("forecast", {"city": "Paris"}))
        asked = await asyncio.wait_for(alice.urls.get(), 30)
        context = await new_context(browser, locale)
        page = await context.new_page()
        await page.goto(asked.url)
        await page.wait_for_selector("input[name=username]")
        await visit("sign-in (identity check)", page)
        await sign_in(page, "alice", "not-the-password")
        await page.wait_for_selector("[role=alert]")
        await visit("sign-in, wrong password", page)
        await sign_in(page, "alice")
        await page.wait_for_url(asked.url)
        await visit("secret entry", page)
        await page.fill("#secret", "not-a-key")
        await page.click("button[value=save]")
        await page.wait_for_selector("[role=alert]")
        await visit("secret entry, refused value", page)
        await page.fill("#secret", SECRET)
        await page.click("button[value=save]")
        await page.wait_for_selector(".done")
        await visit("done", page)
        await asyncio.wait_for(call, 30)
        await page.goto(asked.url)
        await visit("refusal: already completed", page)
        await page.goto(f"{base}/elicit/{'x' * 40}")
        await visit("refusal: link not valid", page)
        await page.goto(f"{base}/elicit/login/callback?state=stale&code=stale")
        await visit("refusal: sign-in not matched", page)

        # bob's link, opened by alice: not hers; bob's browser then declines it
        bobs_call = asyncio.create_task(bob.client.call_tool("forecast", {"city": "Oslo"}))
        bobs = await asyncio.wait_for(bob.urls.get(), 30)
        await page.goto(bobs.url)
        await visit("refusal: not yours", page)
        bob_context = await new_context(browser, locale)
        bob_page = await bob_context.new_page()
        await bob_page.goto(bobs.url)
        await sign_in(bob_page, "bob")
        await bob_page.wait_for_url(bobs.url)
        await bob_page.click("button[value=decline]")
        await bob_page.wait_for_selector(".done")
        await visit("done: declined", bob_page)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(bobs_call, 30)

        # bob asks again: a form sent with a stale token is refused; then the link expires
        bobs_call = asyncio.create_task(bob.client.call_tool("forecast", {"city": "Oslo"}))
        bobs = await asyncio.wait_for(bob.urls.get(), 30)
        await bob_page.goto(bobs.url)
        await bob_page.fill("#secret", "wk-whatever")
        await bob_page.evaluate(
            "() => { document.querySelector('input[name=csrf]').value = 'stale';"
            " document.querySelector('form').requestSubmit(document.querySelector('button[value=save]')); }"
        )
        await bob_page.wait_for_selector(".refusal")
        await visit("refusal: form not verified", bob_page)
        await weather.url_mode.store.transition(bobs.elicitation_id, from_states=ACTIVE, to="expired")
        await bob_page.goto(bobs.url)
        await visit("refusal: expired", bob_page)
        bobs_call.cancel()
        with contextlib.suppress(BaseException):
            await bobs_call
        await bob_context.close()
        await context.close()


# -- the OAuth connection's pages ---------------------------------------------------------


async def oauth_tour(browser: Browser, locale: str, visit: Visit) -> None:
    """Consent, the provider's error and a second try, the hand-off to the provider, the
    provider's sign-in, connected, a stale link."""
    async with (
        DemoAuthServer() as auth,
        DemoProvider(client_id="agenda-server", client_secret="agenda-s3cret") as provider,
        agenda_with(auth, provider) as (agenda, alice),
    ):
        try:
            await alice.client.call_tool("agenda", {})
        except MCPError as error:
            url = url_required(error)
        else:  # pragma: no cover - the harness's server always asks first
            raise AssertionError("the agenda tool did not ask for a connection")
        context = await new_context(browser, locale)
        page = await context.new_page()
        await page.goto(url)
        await sign_in(page, "alice")
        await page.wait_for_url(url)
        await visit("OAuth consent", page)

        # First the provider answers with an error (temporarily_unavailable, sent back to the
        # callback as a provider does); the person then opens the link again.
        async def unavailable(route: Route) -> None:
            state = parse_qs(urlsplit(route.request.url).query)["state"][0]
            answer = urlencode({"state": state, "error": "temporarily_unavailable"})
            back = f"{agenda.calendar.redirect_uri}?{answer}"
            await route.fulfill(status=302, headers={"location": back})

        await page.route(f"{provider.url}/**", unavailable)
        await page.click("button[value=connect]")
        await page.wait_for_url(f"{agenda.calendar.redirect_uri}?*")
        await expect(page.locator(".refusal")).to_contain_text("temporarily_unavailable")
        await visit("OAuth: the provider's error", page)
        await page.unroute(f"{provider.url}/**")
        await page.goto(url)
        await page.wait_for_selector("button[value=connect]")

        # The hand-off page sends the browser on at once; hold it there to look at it.
        await page.route(f"{provider.url}/**", lambda route: route.abort("aborted"))
        await page.click("button[value=connect]")
        await page.wait_for_selector("a.continue")
        onward = await page.get_attribute("a.continue", "href") or ""  # before it moves on by itself
        await visit("OAuth continue", page)
        await page.unroute(f"{provider.url}/**")
        await page.goto(onward)
        await page.wait_for_selector("input[name=username]")
        await visit("provider sign-in and consent", page)
        await sign_in(page, "alice")
        await page.wait_for_url(f"{agenda.calendar.redirect_uri}?*")
        await visit("done: connected", page)
        await page.goto(f"{provider.url}/login?request=stale")
        await visit("provider: sign-in link not valid", page)
        await context.close()


# -- the web client's pages ---------------------------------------------------------------


async def client_tour(browser: Browser, locale: str, visit: Visit) -> None:
    """Idle, a form, its problems, the review, URL consent (ok, warn, block), waiting, stopped."""
    context = await new_context(browser, locale)
    page = await context.new_page()
    async with WebUI(opener=page.goto, locale=locale) as ui:
        await page.goto(await ui.start())
        await expect(page.locator(".idle")).to_be_visible()
        await visit("client: idle", page)

        question = FormQuestion(
            "Bistro Lumière", "To book your table for Saturday, tell us who is coming.", FORM, defaults(FORM)
        )
        asked = asyncio.create_task(ui.ask_form(question))
        await expect(page.locator(".message")).to_be_visible()
        await visit("client: form", page)
        await page.fill("[name='f:name']", "Ada Lovelace")
        await page.fill("[name='f:code']", "ab1")  # breaks the pattern: the client's validation says so
        await page.fill("[name='f:email']", "ada@example.com")
        await page.fill("[name='f:party']", "4")
        await page.get_by_label("On the terrace").check()
        await page.click("button[value=review]")
        await expect(page.locator(".field .problem")).to_be_visible()
        await visit("client: form with problems", page)
        await page.fill("[name='f:code']", "SUN")
        await page.click("button[value=review]")
        await expect(page.locator("table.review")).to_be_visible()
        await visit("client: review", page)
        await page.click("button[value=submit]")
        await asyncio.wait_for(asked, 10)
        await expect(page.locator(".flash")).to_be_visible()
        await visit("client: idle, after an answer", page)

        for name, url in (
            (
                "client: URL consent",
                "https://accounts.lumiere-bistro.example.com/elicit/7Jq2xKp9?step=calendar",
            ),
            ("client: URL consent, warnings", "https://xn--pypal-4ve.com/login"),
            ("client: URL consent, blocked", "https://bank.example@evil.example/login"),
        ):
            report = inspect_url(url)
            asked = asyncio.create_task(
                ui.ask_url_consent(UrlQuestion("Bistro Lumière", "Connect your calendar.", report))
            )
            await expect(page.locator("#url")).to_be_visible()
            await expect(page.locator("#url")).to_have_text(report.url)
            await visit(name, page)
            await page.click("button[value=decline]")
            await asyncio.wait_for(asked, 10)

        for name, late in (("client: waiting", False), ("client: waiting, timed out", True)):
            waiting = Waiting(
                "Bistro Lumière", [("el-1", "Connect your calendar")], time.monotonic() - 65, late
            )
            asked = asyncio.create_task(ui.wait(waiting))
            await expect(page.locator("#elapsed")).to_be_visible()
            await expect(page.locator(".verdict.warn")).to_have_count(1 if late else 0)
            ui.notice("Bistro Lumière: an elicitation completed.")
            await expect(page.locator("#notices li").last).to_be_visible()
            await visit(name, page)
            await page.click("button[value=cancel]")
            await asyncio.wait_for(asked, 10)
    await expect(page.locator("#offline")).to_be_visible()
    await visit("client: stopped", page)
    await context.close()


TOURS = {"secret": secret_tour, "oauth": oauth_tour, "client": client_tour}

# -- screenshots --------------------------------------------------------------------------

SHOTS = {
    "secret entry": "secret",
    "OAuth consent": "oauth-consent",
    "done": "done",
    "client: form with problems": "client-form",
    "client: URL consent, warnings": "client-url-consent",
}


async def screenshots(out: Path, locales: tuple[str, ...] = ("en", "zh_CN")) -> list[Path]:
    """The main pages, in each locale, as small PNGs (a 720 px wide window)."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []

    for locale in locales:

        async def shoot(name: str, page: Page, locale: str = locale) -> None:
            if name not in SHOTS:
                return
            await page.set_viewport_size({"width": 720, "height": 800})
            # The window as tall as the page, so the web client's sticky buttons sit at the end.
            height = await page.evaluate(
                "Math.ceil(document.querySelector('main').getBoundingClientRect().bottom) + 24"
            )
            await page.set_viewport_size({"width": 720, "height": max(height, 320)})
            path = out / f"{SHOTS[name]}-{locale.replace('_', '-')}.png"
            await page.screenshot(path=path)
            await page.set_viewport_size(DESKTOP)
            written.append(path)

        async with chromium() as browser:
            for tour in TOURS.values():
                await tour(browser, locale, shoot)
    return written


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else Path("docs/screenshots")
    for path in asyncio.run(screenshots(out)):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
