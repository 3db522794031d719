"""Helpers for the demo servers' tests: the parts of a browser and a client a test plays."""

from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx

from elicitkit.demo._scripted import read_form

CALLBACK = "http://127.0.0.1:9/callback"


def authorize_url(base: str, client_id: str, challenge: str, **extra: str) -> str:
    query = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": CALLBACK,
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "state": "state-123",
        **extra,
    }
    return f"{base}/authorize?{urlencode({k: v for k, v in query.items() if v})}"


def query_of(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query))


async def open_login(browser: httpx.AsyncClient, url: str) -> tuple[httpx.Response, dict[str, str]]:
    """Follow /authorize to the sign-in page; return the page and its hidden fields."""
    redirect = await browser.get(url)
    assert redirect.status_code == 302, redirect.text
    page = await browser.get(redirect.headers["location"])
    _, hidden = read_form(page.text)
    return page, hidden
