"""Third-party OAuth: `OAuthConnection` (needs the `oauth` extra, imported on first use) and
the errors it raises (always importable)."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from elicitkit.extras import needs
from elicitkit.server._oauth.errors import OAuthConfigError, OAuthConnectionError, OAuthProviderError

if TYPE_CHECKING:
    from elicitkit.server._oauth.connection import OAuthConnection

__all__ = ["OAuthConfigError", "OAuthConnection", "OAuthConnectionError", "OAuthProviderError"]


def __getattr__(name: str) -> Any:
    if name != "OAuthConnection":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    with needs("oauth"):
        return importlib.import_module("elicitkit.server._oauth.connection").OAuthConnection
