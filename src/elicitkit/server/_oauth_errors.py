"""What can go wrong with a third-party OAuth connection, each with a sentence for the author."""

from __future__ import annotations

from mcp.server.mcpserver.exceptions import ToolError

from elicitkit.server.errors import UrlModeError

__all__ = ["OAuthConfigError", "OAuthConnectionError", "OAuthProviderError"]


class OAuthConnectionError(UrlModeError, ToolError):
    """A third-party connection could not give a token. Left uncaught in a tool, the call ends as
    a tool error carrying this message (never a token, never a stack trace)."""


class OAuthConfigError(OAuthConnectionError):
    """The connection is configured in a way that cannot work or is not safe (S-32 included)."""


class OAuthProviderError(OAuthConnectionError):
    """The provider could not be reached, or answered in a way we cannot use."""
