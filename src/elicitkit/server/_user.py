"""Who the MCP user is: the one `User` concept of the server side.

The MCP user is the verified access token's issuer and subject, never anything the client
says about itself (S-31). The person in the browser is learned by a `BrowserIdentity`
(`elicitkit.server._web.identity`); URL mode compares the two before it accepts anything at
the URL (S-34).
"""

from __future__ import annotations

from dataclasses import dataclass

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken

from elicitkit.server._errors import IdentityRequiredError

__all__ = [
    "LOCAL_ISSUER",
    "Caller",
    "McpUsers",
    "User",
    "user_from_token",
]

LOCAL_ISSUER = "urn:elicitkit:single-user-local"
"""The issuer of the one user in single-user local mode (a stdio server on someone's machine)."""


@dataclass(frozen=True)
class User:
    """A person as an authorization server knows them: `subject` is unique only per `issuer`."""

    issuer: str
    subject: str

    def __str__(self) -> str:
        return self.subject


@dataclass(frozen=True)
class Caller:
    """The user behind the current MCP request and the OAuth client they came through."""

    user: User
    client_id: str
    client_name: str | None = None
    """The name the OAuth client registered (from the token's `client_name` claim, when the
    verifier gives one): what a person reads. `client_id` is an identifier, never shown."""


def user_from_token(token: AccessToken, *, default_issuer: str | None = None) -> User | None:
    """The user a verified token stands for, or None when the verifier gave no subject.

    The issuer is the token's `iss` claim or, when the verifier does not report one, the
    issuer this server trusts (`default_issuer`).
    """
    issuer = (token.claims or {}).get("iss") or default_issuer
    if not token.subject or not issuer:
        return None
    return User(issuer=str(issuer), subject=token.subject)


class McpUsers:
    """Finds the `Caller` of the current request from the SDK's verified access token.

    `McpUsers.single_user_local()` is the one exception: for a stdio server run by one
    person on their own machine, with no MCP authorization at all, every request is that
    person. Choose it only there: `elicitkit.server._url_mode` states that mode's threat model.
    """

    def __init__(self, *, issuer: str | None = None, local_user: User | None = None) -> None:
        self.issuer = issuer
        self.local_user = local_user

    @classmethod
    def single_user_local(cls, subject: str = "local-user") -> McpUsers:
        """Every request is the one person of this machine (`subject`): for a stdio server without MCP
        authorization only."""
        return cls(local_user=User(issuer=LOCAL_ISSUER, subject=subject))

    def caller(self) -> Caller:
        """The user and client of the current request; `IdentityRequiredError` when there is no verified
        user."""
        token = get_access_token()
        if token is not None:
            user = user_from_token(token, default_issuer=self.issuer)
            if user is None:
                raise IdentityRequiredError(
                    "The access token carries no subject (or no issuer), so URL mode cannot tell which "
                    "user this is. Make the TokenVerifier set AccessToken.subject and the `iss` claim, "
                    "or pass McpUsers(issuer=...)."
                )
            name = (token.claims or {}).get("client_name")
            return Caller(
                user=user,
                client_id=token.client_id,
                client_name=name if isinstance(name, str) and name else None,
            )
        if self.local_user is not None:
            return Caller(user=self.local_user, client_id="local")
        raise IdentityRequiredError(
            "URL mode needs a verified user: run the server with MCP authorization (auth= and a "
            "token_verifier), or, for a stdio server used by one person, McpUsers.single_user_local()."
        )
