"""The headers on every page: no framing, no sniffing, no caching, no referrer, no opener."""

from __future__ import annotations

import secrets

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from elicitkit.errors import ConfigurationError

__all__ = ["SecurityHeaders", "csp_nonce"]

_NONCE = "elicitkit.csp_nonce"
"""The request scope's key for the nonce of this response's Content-Security-Policy."""

_FIXED = [
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-opener-policy", b"same-origin"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
_NAMES = frozenset({b"content-security-policy", *(name for name, _ in _FIXED)})


class SecurityHeaders:
    """ASGI middleware: every HTTP response of `app` goes out with the hardening headers, once
    each, in place of any the app set itself (a page cannot loosen them by mistake).

    `content_security_policy` is the page's policy; each `{nonce}` in it becomes a fresh nonce
    per request, which the page reads with `csp_nonce(request.scope)` for its inline style or
    script. Keep `frame-ancestors 'none'` in it: the policy is the modern twin of
    `X-Frame-Options: DENY`.
    """

    def __init__(self, app: ASGIApp, *, content_security_policy: str) -> None:
        self.app = app
        self.policy = content_security_policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = self.policy
        if "{nonce}" in policy:
            nonce = scope[_NONCE] = secrets.token_urlsafe(16)
            policy = policy.replace("{nonce}", nonce)
        added = [(b"content-security-policy", policy.encode("latin-1")), *_FIXED]

        async def send_hardened(message: Message) -> None:
            if message["type"] == "http.response.start":
                kept = [pair for pair in message.get("headers", []) if bytes(pair[0]).lower() not in _NAMES]
                message = {**message, "headers": kept + added}
            await send(message)

        await self.app(scope, receive, send_hardened)


def csp_nonce(scope: Scope) -> str:
    """The nonce `SecurityHeaders` put in this response's policy (its `{nonce}`)."""
    nonce = scope.get(_NONCE)
    if not isinstance(nonce, str):
        raise ConfigurationError(
            "This request has no CSP nonce: serve the app behind SecurityHeaders, "
            "with '{nonce}' in its policy."
        )
    return nonce
