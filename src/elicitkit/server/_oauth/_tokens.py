"""One connection's tokens for each user, sealed in the vault, and the store keys it uses.

Key names carry no personal data (a hash of issuer and subject), as in the vault.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from elicitkit.server._user import User
from elicitkit.server._vault import Vault

__all__ = ["StoredTokens"]


class StoredTokens:
    """The tokens of connection `name` per user: what `OAuthConnection` keeps between calls."""

    def __init__(self, vault: Vault, name: str) -> None:
        self.vault = vault
        self.name = name
        self.vault_name = f"oauth:{name}:tokens"

    async def load(self, user: User) -> dict[str, Any] | None:
        raw = await self.vault.get(user, self.vault_name)
        return None if raw is None else dict(json.loads(raw))

    async def save(self, user: User, tokens: Mapping[str, Any]) -> None:
        await self.vault.put(user, self.vault_name, json.dumps(dict(tokens)))

    async def delete(self, user: User) -> None:
        await self.vault.delete(user, self.vault_name)

    def refresh_key(self, user: User) -> str:
        """The store lock held while one replica refreshes this user's tokens."""
        who = hashlib.sha256(json.dumps([user.issuer, user.subject]).encode()).hexdigest()
        return f"oauth-refresh:{self.name}:{who}"

    def state_key(self, state: str) -> str:
        """The store key of an authorization request's `state` (single-use)."""
        return f"oauth-state:{self.name}:{hashlib.sha256(state.encode()).hexdigest()}"
