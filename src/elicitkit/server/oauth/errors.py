"""What can go wrong with a third-party OAuth connection, each with a sentence for the author."""

from __future__ import annotations

from mcp.server.mcpserver.exceptions import ToolError

from elicitkit.server.errors import UrlModeError

__all__ = ["OAuthConfigError", "OAuthConnectionError", "OAuthProviderError", "explain"]


class OAuthConnectionError(UrlModeError, ToolError):
    """A third-party connection could not give a token. Left uncaught in a tool, the call ends as
    a tool error carrying this message (never a token, never a stack trace)."""


class OAuthConfigError(OAuthConnectionError):
    """The connection is configured in a way that cannot work or is not safe (S-32 included)."""


class OAuthProviderError(OAuthConnectionError):
    """The provider could not be reached, or answered in a way we cannot use."""


_SAID = {
    "invalid_client": "did not accept this server's client credentials; the server's administrator "
    "must check the client id and secret or key registered there",
    "unauthorized_client": "does not allow this server's client to connect accounts this way; the "
    "server's administrator must check the client's registration",
    "invalid_scope": "does not allow the access this tool asks for",
    "invalid_target": "does not know the API this tool asks access to",
    "unsupported_grant_type": "does not support the kind of sign-in this server uses",
    "invalid_request": "rejected the request as malformed; the server's administrator should check the "
    "connection's settings",
    "server_error": "had an internal error",
    "temporarily_unavailable": "is temporarily unavailable",
    "login_required": "needs you to sign in there first",
    "consent_required": "needs your consent there first",
    "interaction_required": "needs you to finish something on its own pages first",
    "account_selection_required": "needs you to choose an account there first",
}
_AGAIN = {
    "authorize": "Open the link from your application again to retry.",
    "token": "Open the link from your application again to retry.",
    "refresh": "Try again later, or connect the account again.",
}


def explain(service: str, code: str, when: str) -> str:
    """A sentence for the person about `code` (an OAuth error code), and what to do next.

    `when` is "authorize", "token" (the code exchange) or "refresh". Only the code is shown,
    never the provider's description, and never a token, code or secret.
    """
    if code == "invalid_grant":
        said = (
            "refused the sign-in: it has expired, was already used or was meant for another address"
            if when != "refresh"
            else "no longer accepts this server's access (it was revoked or has run out)"
        )
    else:
        said = _SAID.get(code, "answered with an error")
    again = _AGAIN.get(when, _AGAIN["token"])
    if code in ("server_error", "temporarily_unavailable"):
        again = "Try again in a few minutes."
    kept = "" if when == "refresh" else " Nothing was stored."
    return f"{service} {said} ({code}).{kept} {again}"
