"""The `--browser` checks (S-34, S-35): open the URLs the server gave in headless Chromium.

Only with `--browser`. S-35 loads each distinct URL-mode page and reads what a browser would
enforce: framing headers (`X-Frame-Options` or CSP `frame-ancestors`) on every HTML page the
URL leads to, and the flags of every cookie set (`__Host-`, Secure, HttpOnly, SameSite).
S-34 (with `--other-token`) opens the first user's URL as the second user (the token as a
bearer header): a page served to them at that URL is a failure; a refusal passes; a detour
to a sign-in page is reported as not observed, since the checker cannot sign in there.
"""

from __future__ import annotations

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
    try:
        from playwright.async_api import async_playwright
    except ImportError:
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
    context = await browser.new_context()
    documents: list[Any] = []
    page = await context.new_page()
    page.on("response", lambda r: documents.append(r) if r.request.resource_type == "document" else None)
    try:
        await page.goto(url, wait_until="load", timeout=15_000)
    except Exception as error:  # a page that does not load is a note, not a crash
        seen.browser.append(("S-35", "not-observed", f"{url} did not load: {error}"))
        await context.close()
        return
    for response in documents:
        headers = {k.lower(): v for k, v in (await response.all_headers()).items()}
        if "html" not in headers.get("content-type", ""):
            continue
        framing = headers.get("x-frame-options", "").upper() in (
            "DENY",
            "SAMEORIGIN",
        ) or "frame-ancestors" in headers.get("content-security-policy", "")
        if framing:
            seen.browser.append(("S-35", "pass", f"{response.url} refuses framing"))
        else:
            seen.browser.append(
                (
                    "S-35",
                    "fail",
                    f"{response.url} can be framed: no X-Frame-Options and no CSP frame-ancestors",
                )
            )
    for cookie in await context.cookies():
        problems = [
            text
            for ok, text in (
                (cookie["name"].startswith("__Host-"), "no __Host- prefix"),
                (cookie.get("secure"), "not Secure"),
                (cookie.get("httpOnly"), "not HttpOnly"),
                (cookie.get("sameSite") in ("Lax", "Strict"), f"SameSite={cookie.get('sameSite')}"),
            )
            if not ok
        ]
        verdict = "fail" if problems else "pass"
        seen.browser.append(
            (
                "S-35",
                verdict,
                f"cookie {cookie['name']!r} from {url}: {', '.join(problems) or 'flags as required'}",
            )
        )
    await context.close()


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
