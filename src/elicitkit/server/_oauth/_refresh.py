"""A user's stored access token kept usable: refreshed when it expired or the API refused it.

Rotated refresh tokens are single-use, and a provider with reuse detection revokes the whole
grant when one is spent twice; so one refresh runs at a time per user, in this process (a lock
that lives only while someone uses it) and across replicas sharing the store (its lock).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import anyio

from elicitkit.server._oauth._client import ProviderClient
from elicitkit.server._oauth._tokens import StoredTokens
from elicitkit.server._oauth.errors import OAuthProviderError
from elicitkit.server._user import User
from elicitkit.server.store import LockStore, holding

__all__ = ["FreshTokens"]

_REFRESH_HOLD = 60.0
"""Seconds the store's refresh lock lasts: well past a refresh's worst case (the request's 10 s
overall deadline, plus the vault read and write), so only a dead holder's lock runs out."""
_REFRESH_WAIT = 10.0
"""Seconds a replica waits for another one's refresh before it gives up with an error."""


class FreshTokens:
    """One connection's access tokens, refreshed once across tasks and replicas when needed;
    `clock` tells when one expired (the `UrlMode`'s, which stamped it)."""

    def __init__(
        self, tokens: StoredTokens, store: LockStore, service: str, clock: Callable[[], float]
    ) -> None:
        self.tokens = tokens
        self.store = store
        self.service = service
        self.clock = clock
        self.locks: dict[User, anyio.Lock] = {}
        """Per-user locks of this process, each kept only while a task holds or waits for it."""

    async def access(
        self, user: User, provider: Callable[[], ProviderClient], rejected: str | None, leeway: float
    ) -> str | None:
        """The stored access token, refreshed first if it expired (`leeway` seconds early) or is
        `rejected`; None when there is none or the grant is over: the person connects again."""
        lock = self.locks.setdefault(user, anyio.Lock())
        try:
            async with lock:
                return await self._fresh(user, provider, rejected, leeway)
        finally:
            if not lock.locked() and not lock.statistics().tasks_waiting:
                self.locks.pop(user, None)

    async def _fresh(
        self, user: User, provider: Callable[[], ProviderClient], rejected: str | None, leeway: float
    ) -> str | None:
        tokens = await self.tokens.load(user)
        if tokens is None:
            return None
        if _usable(tokens, rejected, leeway, self.clock()):
            return str(tokens["access_token"])
        async with holding(
            self.store, self.tokens.refresh_key(user), ttl=_REFRESH_HOLD, wait=_REFRESH_WAIT
        ) as held:
            if not held:
                raise OAuthProviderError(
                    f"Another server is refreshing the {self.service} access token and has not "
                    "finished; try again in a moment."
                )
            tokens = await self.tokens.load(user)  # another replica may have refreshed meanwhile
            if tokens is None:
                return None
            if _usable(tokens, rejected, leeway, self.clock()):
                return str(tokens["access_token"])
            refresh = tokens.get("refresh_token")
            fresh = await provider().refresh(refresh) if refresh else None
            if fresh is None:  # no refresh token, or the grant is over: the person connects again
                await self.tokens.delete(user)
                return None
            await self.tokens.save(user, fresh)
            return str(fresh["access_token"])


def _usable(tokens: Mapping[str, Any], rejected: str | None, leeway: float, now: float) -> bool:
    expires_at = tokens.get("expires_at")
    expired = isinstance(expires_at, int | float) and now >= expires_at - leeway
    return str(tokens["access_token"]) != rejected and not expired
