"""The `--browser` checks (S-34, S-35): open the URLs the server gave in headless Chromium.

Only with `--browser`. S-35 loads each distinct URL-mode page and reads what a browser would
enforce: framing headers (`X-Frame-Options` or CSP `frame-ancestors`) on every HTML page the
URL leads to, and the flags of every cookie set (`__Host-`, Secure, HttpOnly, SameSite).
S-34 (with `--other-token`) opens the first user's URL as the second user (the token as a
bearer header): a page served to them at that URL is a failure; a refusal passes; a detour
to a sign-in page is reported as not observed, since the checker cannot sign in there.
"""

from __future__ import annotations

import importlib.util
import urllib.parse
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from elicitkit.check.observed import Observations

if TYPE_CHECKING:
    from elicitkit.check.runner import Options
    from elicitkit.check.target import Target

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


async def visit(
    seen: Observations, target: Target, options: Options, progress: Callable[[str], None]
) -> None:
    """Load each distinct URL the server asked to open, once per identity, and record findings."""
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
        await _visit(urls, seen, target, options, progress)
    except Exception as error:  # the browser is an extra: its failure is a note in the report
        seen.browser.append(("S-35", "not-observed", f"the browser could not run: {error}"))


async def _visit(
    urls: list[str], seen: Observations, target: Target, options: Options, progress: Callable[[str], None]
) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            for url in urls:
                progress(f"browser: {url}")
                await _pages(browser, url, seen)
                if options.other_token and target.token:
                    await _other_user(browser, url, options.other_token, seen)
        finally:
            await browser.close()


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
                    "fail",
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
    verdict = "fail" if problems else "pass"
    seen.browser.append(
        ("S-35", verdict, f"cookie {name!r} set by {where}: {', '.join(problems) or 'flags as required'}")
    )


def _origin(url: str) -> tuple[str, str, int | None]:
    split = urllib.parse.urlsplit(url)
    return split.scheme, split.hostname or "", split.port


async def _other_user(browser: Any, url: str, token: str, seen: Observations) -> None:
    context = await browser.new_context(extra_http_headers={"Authorization": f"Bearer {token}"})
    page = await context.new_page()
    try:
        response = await page.goto(url, wait_until="load", timeout=15_000)
    except Exception as error:  # a page that does not load is a note, not a crash
        seen.browser.append(("S-34", "not-observed", f"{url} did not load for the other user: {error}"))
        await context.close()
        return
    status = response.status if response is not None else 0
    if status >= 400:
        seen.browser.append(
            ("S-34", "pass", f"the other user's browser was refused at {url} (HTTP {status})")
        )
    elif page.url.split("#")[0] == url.split("#")[0]:
        seen.browser.append(
            (
                "S-34",
                "fail",
                f"the other user's browser was served the first user's page {url} (HTTP {status})",
            )
        )
    else:
        seen.browser.append(
            (
                "S-34",
                "not-observed",
                f"the other user was sent to sign in ({page.url}); the checker cannot sign in there",
            )
        )
    await context.close()
