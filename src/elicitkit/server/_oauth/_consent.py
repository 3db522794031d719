"""Which MCP clients a person approved for a connection: the confused-deputy defence.

With one static client id at the provider, a per-user record of which MCP client the person
approved, for which scopes, is written by the consent POST, shown on the consent page and
checked before anyone is sent on, and before a stored token serves a request from any MCP
client. It lives in the vault, sealed, under `oauth:<connection>:consent`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from elicitkit.server._user import User
from elicitkit.server._vault import Vault

__all__ = ["Consents"]


class Consents:
    """One connection's consent records, per user and MCP client, dated by `clock` (the `UrlMode`'s)."""

    def __init__(
        self, vault: Vault, connection: str, scopes: Sequence[str], clock: Callable[[], float]
    ) -> None:
        self.vault = vault
        self.name = f"oauth:{connection}:consent"
        self.scopes = list(scopes)
        self.clock = clock

    async def given(self, user: User) -> dict[str, dict[str, Any]]:
        raw = await self.vault.get(user, self.name)
        return {} if raw is None else dict(json.loads(raw))

    async def covers(self, user: User, client_id: str) -> bool:
        """Whether `user` approved `client_id` for every scope the connection asks for."""
        given = (await self.given(user)).get(client_id)
        return given is not None and set(self.scopes) <= set(given.get("scopes", ()))

    async def remember(self, user: User, client_id: str) -> None:
        consents = await self.given(user)
        consents[client_id] = {"scopes": self.scopes, "at": self.clock()}
        await self.vault.put(user, self.name, json.dumps(consents))

    async def forget(self, user: User) -> None:
        await self.vault.delete(user, self.name)

    async def when(self, user: User, client_id: str) -> float | None:
        """When `user` last approved `client_id` (seconds since the epoch), for the consent page,
        which writes it in the reader's language."""
        given = (await self.given(user)).get(client_id)
        at = given.get("at") if given else None
        return float(at) if isinstance(at, int | float) else None
