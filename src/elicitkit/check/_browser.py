"""The `--browser` checks (S-34, S-35): open the URLs the server gave in headless Chromium.

Only with `--browser`. S-35 loads each distinct URL-mode page and reads what a browser would
enforce: framing headers (`X-Frame-Options` or CSP `frame-ancestors`) on every HTML page the
URL leads to, and the flags of every cookie set (`__Host-`, Secure, HttpOnly, SameSite): a
page that can be framed or a cookie without those flags is a `warn` (hardening the project
asks for, not a MUST of the spec). S-34 (with `--other-token`) opens the first user's URL as
the second user (the token as a bearer header): a page served to them at that URL is a `warn`;
a refusal passes; a detour to a sign-in page is reported as not observed, since the checker
cannot sign in there.
"""

from __future__ import annotations

import contextlib
import importlib.util
import urllib.parse
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from elicitkit.check._observed import Observations

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


Users = Callable[[Any], Awaitable[None]]


async def visit(seen: Observations, progress: Callable[[str], None], users: Users | None = None) -> None:
    """Load each distinct URL the server asked to open (S-35), then hand the browser to `users` (S-34)."""
    if importlib.util.find_spec("playwright") is None:
        seen.browser.append(
            ("S-35", "not-observed", "--browser needs the playwright package (pip install playwright)")
        )
        return
    urls = list(
        dict.fromkeys(
            a.params["url"] for a in seen.asked if a.mode == "url" and isinstance(a.params.get("url"), str)
        )
    )[:3]
    if not urls:
        return
    try:
        async with chromium() as browser:
            for url in urls:
                progress(f"browser: {url}")
                await _pages(browser, url, seen)
            if users is not None:
                await users(browser)
    except Exception as error:  # the browser is an extra: its failure is a note in the report
        seen.browser.append(("S-35", "not-observed", f"the browser could not run: {error}"))


@contextlib.asynccontextmanager
async def chromium() -> AsyncIterator[Any]:
    """Headless Debian Chromium through playwright, closed on the way out."""
    from playwright.async_api import async_playwright

    async with async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield browser
        finally:
            await browser.close()


@dataclass
class Visit:
    """One person's browser at one URL: the HTTP status and where it ended up."""

    url: str
    status: int = 0
    landed: str = ""
    error: str = ""

    @property
    def refused(self) -> bool:
        return not self.error and self.status >= 400

    @property
    def served(self) -> bool:
        """The page at that very URL was shown (not a refusal, not a detour to sign in)."""
        return not self.error and self.status < 400 and self.landed.split("#")[0] == self.url.split("#")[0]

    def said(self) -> str:
        if self.error:
            return f"did not load: {self.error}"
        if self.refused:
            return f"was refused (HTTP {self.status})"
        if self.served:
            return f"was served the page (HTTP {self.status})"
        return f"was sent to sign in ({self.landed})"


async def open_as(browser: Any, url: str, token: str) -> Visit:
    """Open `url` in a fresh browser whose requests to the URL's own origin carry `token` as a bearer.

    The token goes to that origin only: a redirect to a sign-in page elsewhere never sees it.
    """
    origin = _origin(url)
    context = await browser.new_context()

    async def bearer(route: Any) -> None:
        if _origin(route.request.url) != origin:
            await route.continue_()
            return
        headers = {**route.request.headers, "authorization": f"Bearer {token}"}
        await route.continue_(headers=headers)

    visit = Visit(url)
    try:
        await context.route("**/*", bearer)
        page = await context.new_page()
        response = await page.goto(url, wait_until="load", timeout=15_000)
        visit.status = response.status if response is not None else 0
        visit.landed = page.url
    except Exception as error:  # a page that does not load is a note, not a crash
        visit.error = str(error).splitlines()[0] if str(error) else type(error).__name__
    finally:
        await context.close()
    return visit


async def _pages(browser: Any, url: str, seen: Observations) -> None:
    """Framing headers and cookie flags on the pages of the URL's own origin (not a sign-in detour)."""
    origin = _origin(url)
    context = await browser.new_context()
    responses: list[Any] = []
    page = await context.new_page()
    page.on("response", lambda response: responses.append(response))
    try:
        await page.goto(url, wait_until="load", timeout=15_000)
    except Exception as error:  # a page that does not load is a note, not a crash
        seen.browser.append(("S-35", "not-observed", f"{url} did not load: {error}"))
        await context.close()
        return
    for response in responses:
        if _origin(response.url) != origin:
            continue
        headers = await response.headers_array()
        for header in headers:
            if header["name"].lower() == "set-cookie":
                _cookie(header["value"], response.url, seen)
        if response.request.resource_type != "document":
            continue
        named = {h["name"].lower(): h["value"] for h in headers}
        if "html" not in named.get("content-type", ""):
            continue
        framing = named.get("x-frame-options", "").upper() in ("DENY", "SAMEORIGIN")
        if framing or "frame-ancestors" in named.get("content-security-policy", ""):
            seen.browser.append(("S-35", "pass", f"{response.url} refuses to be framed"))
        else:
            seen.browser.append(
                (
                    "S-35",
                    "warn",
                    f"{response.url} can be framed: no X-Frame-Options and no CSP frame-ancestors",
                )
            )
    await context.close()


def _cookie(header: str, where: str, seen: Observations) -> None:
    name = header.split("=", 1)[0].strip()
    flags = {part.strip().lower() for part in header.split(";")[1:]}
    problems = [
        text
        for ok, text in (
            (name.startswith("__Host-"), "no __Host- prefix"),
            ("secure" in flags, "not Secure"),
            ("httponly" in flags, "not HttpOnly"),
            (bool(flags & {"samesite=lax", "samesite=strict"}), "not SameSite=Lax or Strict"),
        )
        if not ok
    ]
    verdict = "warn" if problems else "pass"  # hardening the spec advises, not a MUST
    seen.browser.append(
        ("S-35", verdict, f"cookie {name!r} set by {where}: {', '.join(problems) or 'flags as required'}")
    )


def _origin(url: str) -> tuple[str, str, int | None]:
    split = urllib.parse.urlsplit(url)
    return split.scheme, split.hostname or "", split.port
