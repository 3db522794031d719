"""`Secret` and `OAuthConnection` typed for FastMCP's `Context` as well as the SDK's.

They are `elicitkit.server`'s own classes; only the signatures change, so that a FastMCP tool
passing its `ctx` type-checks. At run time either context works with either class.
"""

from __future__ import annotations

from typing import Any

import httpx
from fastmcp.server.context import Context as FastMCPContext
from mcp.server.mcpserver import Context as SdkContext

from elicitkit.server import OAuthConnection as _OAuthConnection
from elicitkit.server import Secret as _Secret

AnyContext = FastMCPContext | SdkContext[Any, Any]
"""What a FastMCP tool, prompt or resource (or an SDK one) passes as `ctx`."""


class Secret(_Secret):
    """`elicitkit.server.Secret`, taking FastMCP's `Context` too."""

    async def get(self, ctx: AnyContext) -> str:
        """The current user's value, asking for it in URL mode when there is none yet."""
        return await super().get(ctx)  # type: ignore[arg-type]  # turned into the SDK's by the bridge

    async def forget(self, ctx: AnyContext) -> None:
        """Delete the current user's value (for example after the service rejected it)."""
        await super().forget(ctx)  # type: ignore[arg-type]


class OAuthConnection(_OAuthConnection):
    """`elicitkit.server.OAuthConnection`, taking FastMCP's `Context` too."""

    async def token(self, ctx: AnyContext, *, rejected: str | None = None) -> str:
        """A valid access token for the current user, connecting them first when needed; pass
        `rejected=` the token the provider's API just refused (HTTP 401) to get a refreshed one."""
        return await super().token(ctx, rejected=rejected)  # type: ignore[arg-type]

    def auth(self, ctx: AnyContext) -> httpx.Auth:
        """An `httpx.Auth` for the provider's API: sends the user's token, and on a 401 refreshes
        it once and retries."""
        return super().auth(ctx)  # type: ignore[arg-type]

    async def disconnect(self, ctx: AnyContext) -> bool:
        """Revoke the current user's tokens at the provider and delete them and the consent record;
        True when the provider confirmed the revocation (the local copies go either way)."""
        return await super().disconnect(ctx)  # type: ignore[arg-type]
