"""What a provider granted, as opposed to what a connection asked for, and sending it.

A provider may grant fewer scopes than asked (the person unticked one, or policy said no);
RFC 6749 section 5.1 then lists the granted ones in the token response's `scope`. That grant
is kept with the tokens, shown to the person when they connect, and available to tools
(`OAuthConnection.granted_scopes`) instead of surfacing later as a puzzling API error.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping, Sequence
from typing import Any

import httpx

__all__ = ["OIDC_SCOPES", "BearerAuth", "granted", "not_granted", "partly_granted"]

OIDC_SCOPES = frozenset({"openid", "offline_access", "profile", "email", "address", "phone"})
"""Scopes about the sign-in itself; providers using resource indicators leave them out of `scope`."""


def granted(tokens: Mapping[str, Any], asked: Sequence[str]) -> list[str]:
    """The scopes the provider granted: its `scope` answer or, when it gave none, what was asked."""
    scope = tokens.get("scope")
    if not isinstance(scope, str):
        return list(asked)
    given = scope.split()
    if "offline_access" in asked and tokens.get("refresh_token"):
        given.append("offline_access")
    return list(dict.fromkeys(given))


def not_granted(tokens: Mapping[str, Any], asked: Sequence[str]) -> list[str]:
    """The scopes asked for that the grant lacks (offline access counts only by its refresh token)."""
    given = set(granted(tokens, asked))
    missing = [s for s in asked if s not in given and s not in OIDC_SCOPES]
    if "offline_access" in asked and not tokens.get("refresh_token"):
        missing.append("offline_access")
    return missing


def partly_granted(
    service: str,
    missing: Sequence[str],
    descriptions: Mapping[str, str],
    gettext: Callable[[str], str] = lambda message: message,
) -> str:
    """What the "Connected" page adds when the grant is smaller than asked ("" when it is not),
    in the language of `gettext` (the page's)."""
    if not missing:
        return ""
    words = gettext(", ").join(descriptions.get(scope, scope) for scope in missing)
    said = gettext(
        "%(service)s did not grant everything asked for; not granted: %(scopes)s. "
        "What needs it will tell you, and you can connect again to grant it."
    )
    return said % {"service": service, "scopes": words}


class BearerAuth(httpx.Auth):
    """Sends the user's token; on a 401 gets a refreshed one once and retries."""

    def __init__(self, token: Callable[..., Awaitable[str]]) -> None:
        self.token = token

    async def async_auth_flow(self, request: httpx.Request) -> AsyncGenerator[httpx.Request, httpx.Response]:
        token = await self.token()
        request.headers["Authorization"] = f"Bearer {token}"
        response = yield request
        if response.status_code == 401:
            token = await self.token(rejected=token)
            request.headers["Authorization"] = f"Bearer {token}"
            yield request
