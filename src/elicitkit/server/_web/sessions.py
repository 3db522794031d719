"""The browser session cookie: one sealed cookie per browser, opened once per browser session.

The cookie is `__Host-`, Secure, HttpOnly, SameSite=Lax, and sealed (AES-GCM) with the vault's
key ring, under the ring's key for browser sessions; it holds a random session id, the CSRF
token of the session's forms, its expiry and, once known, the person (issuer and subject).
Nothing else about the person is kept server-side. A cookie sealed under a key that no longer
seals is sealed again on the page that opens it, so retiring a key logs no one out who came
back within the cookie's 12 hours.
"""

from __future__ import annotations

import base64
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from elicitkit.server._errors import VaultDecryptError
from elicitkit.server._user import User

if TYPE_CHECKING:
    from starlette.responses import Response

    from elicitkit.server._vault import KeyRing

__all__ = ["COOKIE", "BrowserSession", "SessionCookies"]

COOKIE = "__Host-elicitkit"
_AAD = b"elicitkit/browser-session/v1"
_PURPOSE = "browser-session"
_TTL = 12 * 3600
_OPENED = 1024
"""Opened cookies kept at most (see `SessionCookies.open`)."""


@dataclass
class BrowserSession:
    """One browser's session: a random id, its CSRF token, and the person once known."""

    sid: str
    csrf: str
    user: User | None = None
    expires_at: float = 0.0
    dirty: bool = False


class SessionCookies:
    """Makes sessions, seals them into cookies and opens them, keeping the cookies that opened lately.

    `clock` is the wall clock a session's 12 hours are counted by (the `UrlMode`'s, its store's).

    A browser sends the same cookie with every page, so a cookie that opened is kept, by its
    sealed text, for that browser's next pages (at most `_OPENED` of them, the oldest go
    first): only cookies sealed under the key ring get in, and the expiry is checked on every
    page. What stays in memory is what those cookies hold (session id, CSRF token, person),
    which this process can read from any of its cookies anyway with the key ring it holds; a
    different key ring starts afresh. Nothing can revoke one cookie, with or without this.
    """

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._opened: dict[str, tuple[str, str, float, User | None, bool]] = {}
        self._keys: KeyRing | None = None

    def new(self, user: User | None = None) -> BrowserSession:
        """A new session (its own id and CSRF token) for 12 hours, to be saved on the response."""
        return BrowserSession(
            sid=secrets.token_urlsafe(24),
            csrf=secrets.token_urlsafe(24),
            user=user,
            expires_at=self.clock() + _TTL,
            dirty=True,
        )

    @property
    def kept(self) -> int:
        """How many opened cookies this process keeps (a health and leak figure, bounded)."""
        return len(self._opened)

    def open(self, raw: str, keys: KeyRing) -> BrowserSession | None:
        """The session in cookie value `raw`; None when it does not open under `keys` or expired."""
        if self._keys is not keys:
            self._opened, self._keys = {}, keys
        opened = self._opened.get(raw)
        if opened is None:
            try:
                blob = _b64d(raw)
                data = json.loads(keys.open(blob, _AAD, purpose=_PURPOSE))
                user = (
                    User(issuer=data["iss"], subject=data["sub"])
                    if data.get("iss") and data.get("sub")
                    else None
                )
                opened = (data["sid"], data["csrf"], float(data["exp"]), user, not keys.is_current(blob))
            except (VaultDecryptError, ValueError, KeyError, TypeError):
                return None
            if len(self._opened) >= _OPENED:
                del self._opened[next(iter(self._opened))]
            self._opened[raw] = opened
        sid, csrf, expires_at, user, stale = opened
        if expires_at <= self.clock():
            del self._opened[raw]
            return None
        # dirty when sealed under a key that no longer seals: the page seals it anew
        return BrowserSession(sid=sid, csrf=csrf, user=user, expires_at=expires_at, dirty=stale)

    def save(self, response: Response, session: BrowserSession, keys: KeyRing) -> None:
        """Set the cookie of `session` on `response`, sealed under `keys`."""
        data: dict[str, Any] = {"sid": session.sid, "csrf": session.csrf, "exp": session.expires_at}
        if session.user is not None:
            data["iss"], data["sub"] = session.user.issuer, session.user.subject
        sealed = _b64e(keys.seal(json.dumps(data).encode(), _AAD, purpose=_PURPOSE))
        response.set_cookie(
            COOKIE,
            sealed,
            max_age=max(0, int(session.expires_at - self.clock())),
            path="/",
            secure=True,
            httponly=True,
            samesite="lax",
        )


def _b64e(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _b64d(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
