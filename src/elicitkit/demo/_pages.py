"""The demo servers' HTML pages: autoescaped templates, anti-framing headers, CSRF tokens.

A sign-in page is the page an attacker most wants to frame or to post to from elsewhere, so
every page goes out with `X-Frame-Options: DENY` and a CSP without framing (the demo apps sit
behind `elicitkit.asgi.SecurityHeaders`, with `PAGE_POLICY`), and every form
carries a token that only this browser can have (HMAC of a random cookie and the request the
form is about: the "signed double-submit cookie" pattern).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Any

from jinja2 import PackageLoader
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from elicitkit.asgi import csp_nonce
from elicitkit.i18n import environment, negotiate, noop, translator

_templates = environment(PackageLoader("elicitkit.demo", "templates"))

DEMO_BANNER = noop(
    "This is <strong>%(name)s</strong>, a demo server from elicitkit. It runs only on this machine."
)
"""The banner on every demo page (the transcript leaves it out)."""
DEMO_PEOPLE = noop("Demo people:")
PAGE_POLICY = "default-src 'none'; style-src 'nonce-{nonce}'; frame-ancestors 'none'; base-uri 'none'"
"""The demo pages' Content-Security-Policy (`SecurityHeaders` makes the nonce): one inline style."""


def render(template: str, status_code: int = 200, *, request: Request, **context: Any) -> HTMLResponse:
    """A page in the language the browser asks for; the app's `SecurityHeaders` keeps it from
    being framed, cached, sniffed, or leaking its URL as a referrer."""
    words = translator(negotiate(request.headers.get("accept-language")))
    html = _templates.get_template(template).render(
        csp_nonce=csp_nonce(request.scope),
        banner=DEMO_BANNER,
        people_label=DEMO_PEOPLE,
        **words.jinja,
        **context,
    )
    return HTMLResponse(html, status_code=status_code)


class Csrf:
    """CSRF tokens bound to one browser (by a cookie) and to one thing (a pending request)."""

    def __init__(self, cookie_name: str) -> None:
        self.cookie_name = cookie_name
        self._key = secrets.token_bytes(32)

    def browser_id(self, request: Request) -> str:
        """The browser's id from its cookie, or a fresh one to set with `remember`."""
        return request.cookies.get(self.cookie_name) or secrets.token_urlsafe(32)

    def remember(self, response: Response, browser_id: str) -> None:
        response.set_cookie(self.cookie_name, browser_id, httponly=True, samesite="strict", path="/")

    def token(self, browser_id: str, bound_to: str) -> str:
        message = f"{browser_id}\n{bound_to}".encode()
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def check(self, request: Request, submitted: str, bound_to: str) -> bool:
        """True only when the form's token was made for this browser and this request."""
        browser_id = request.cookies.get(self.cookie_name)
        if not browser_id or not submitted:
            return False
        return hmac.compare_digest(self.token(browser_id, bound_to), submitted)
