"""A scripted person at the demo sign-in page: what tests and the unattended demo use.

It does what a person in a browser does, over real HTTP: follow /authorize to the sign-in page,
read the form (hidden fields included, so CSRF is checked for real), fill it in and submit it.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import httpx

from elicitkit.errors import ElicitationError


class SignInError(ElicitationError):
    """The demo sign-in did not end in a redirect back to the client."""


def pkce_pair() -> tuple[str, str]:
    """A fresh PKCE (code_verifier, S256 code_challenge) pair (RFC 7636)."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).decode().rstrip("=")


class _FormReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.action = ""
        self.hidden: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        if tag == "form" and not self.action:
            self.action = values.get("action", "")
        elif tag == "input" and values.get("type") == "hidden" and "name" in values:
            self.hidden[values["name"]] = values.get("value", "")


def read_form(html: str) -> tuple[str, dict[str, str]]:
    """The first form's action and its hidden fields."""
    reader = _FormReader()
    reader.feed(html)
    return reader.action, reader.hidden


async def sign_in(
    browser: httpx.AsyncClient, authorize_url: str, username: str, password: str, *, approve: bool = True
) -> str:
    """Sign in at the page `authorize_url` leads to; return where the browser is sent next.

    That is the client's redirect_uri with `code` and `state` (or `error` when `approve` is
    False or the request was refused). `browser` must not follow redirects (httpx's default).
    """
    response = await browser.get(authorize_url)
    if not response.is_redirect:
        raise SignInError(
            f"The authorization endpoint answered HTTP {response.status_code} instead of a redirect: "
            f"{response.text[:300]}"
        )
    location = urljoin(authorize_url, response.headers["location"])
    server, target = urlsplit(authorize_url), urlsplit(location)
    if (target.scheme, target.netloc, target.path) != (server.scheme, server.netloc, "/login"):
        return location  # refused at once: the error goes straight back to the client
    page = await browser.get(location)
    if page.status_code != 200:
        raise SignInError(f"The sign-in page answered HTTP {page.status_code}.")
    action, fields = read_form(page.text)
    fields |= {"username": username, "password": password, "decision": "allow" if approve else "deny"}
    response = await browser.post(urljoin(location, action), data=fields)
    if not response.is_redirect:
        raise SignInError(
            f"The demo server did not accept the sign-in as {username!r} (HTTP {response.status_code})."
        )
    return urljoin(location, response.headers["location"])
