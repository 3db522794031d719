"""Who the MCP user is, and who the person in the browser is.

The MCP user is the verified access token's issuer and subject, never anything the client
says about itself (S-31). The person in the browser is learned by a `BrowserIdentity`: a
login against the same authorization server (`elicitkit.server.web.login.OAuthLogin`) or a
hook the author supplies (`HookIdentity`). URL mode compares the two before it accepts
anything at the URL (S-34).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken

from elicitkit.server.errors import IdentityRequiredError

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import BaseRoute

    from elicitkit.server.web.site import BrowserSession, Site

__all__ = [
    "LOCAL_ISSUER",
    "BrowserIdentity",
    "Caller",
    "HookIdentity",
    "LocalUserIdentity",
    "McpIdentity",
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


def user_from_token(token: AccessToken, *, default_issuer: str | None = None) -> User | None:
    """The user a verified token stands for, or None when the verifier gave no subject.

    The issuer is the token's `iss` claim or, when the verifier does not report one, the
    issuer this server trusts (`default_issuer`).
    """
    issuer = (token.claims or {}).get("iss") or default_issuer
    if not token.subject or not issuer:
        return None
    return User(issuer=str(issuer), subject=token.subject)


class McpIdentity:
    """Finds the `Caller` of the current request from the SDK's verified access token.

    `McpIdentity.single_user_local()` is the one exception: for a stdio server run by one
    person on their own machine, with no MCP authorization at all, every request is that
    person. Choose it only there: `elicitkit.server.url_mode` states that mode's threat model.
    """

    def __init__(self, *, issuer: str | None = None, local_user: User | None = None) -> None:
        self.issuer = issuer
        self.local_user = local_user

    @classmethod
    def single_user_local(cls, subject: str = "local-user") -> McpIdentity:
        return cls(local_user=User(issuer=LOCAL_ISSUER, subject=subject))

    def caller(self) -> Caller:
        token = get_access_token()
        if token is not None:
            user = user_from_token(token, default_issuer=self.issuer)
            if user is None:
                raise IdentityRequiredError(
                    "The access token carries no subject (or no issuer), so URL mode cannot tell which "
                    "user this is. Make the TokenVerifier set AccessToken.subject and the `iss` claim, "
                    "or pass McpIdentity(issuer=...)."
                )
            return Caller(user=user, client_id=token.client_id)
        if self.local_user is not None:
            return Caller(user=self.local_user, client_id="local")
        raise IdentityRequiredError(
            "URL mode needs a verified user: run the server with MCP authorization (auth= and a "
            "token_verifier), or, for a stdio server used by one person, McpIdentity.single_user_local()."
        )


class BrowserIdentity(Protocol):
    """How the page a URL opens learns who the person in the browser is."""

    def routes(self, site: Site) -> Sequence[BaseRoute]:
        """Extra routes this identity needs (a login callback), mounted with the pages."""
        ...

    async def identify(self, request: Request, session: BrowserSession) -> User | None:
        """The person in this browser, or None if not known yet."""
        ...

    async def login(self, request: Request, session: BrowserSession, return_to: str) -> Response:
        """Start a login that comes back to `return_to` (a path on this site)."""
        ...


IdentityHook = Callable[["Request"], Awaitable[User | None]]


class HookIdentity:
    """A `BrowserIdentity` from the author's own code, for apps that already know who is signed in.

    `hook(request)` returns the signed-in `User` (same issuer and subject as the MCP tokens) or
    None; `login_url(return_to)`, when given, is where a stranger is sent to sign in.
    """

    def __init__(self, hook: IdentityHook, *, login_url: Callable[[str], str] | None = None) -> None:
        self._hook = hook
        self._login_url = login_url
        self._site: Site | None = None

    def routes(self, site: Site) -> Sequence[BaseRoute]:
        self._site = site
        return ()

    async def identify(self, request: Request, session: BrowserSession) -> User | None:
        return await self._hook(request)

    async def login(self, request: Request, session: BrowserSession, return_to: str) -> Response:
        from starlette.responses import RedirectResponse

        if self._login_url is not None:
            return RedirectResponse(self._login_url(return_to), status_code=303)
        assert self._site is not None, "HookIdentity is used before its routes were mounted"
        return self._site.refusal(
            request,
            "Sign in first",
            "This page needs to know who you are. Sign in to the application, then open the link again.",
            status_code=401,
        )


class LocalUserIdentity:
    """The browser person of single-user local mode: always the machine's one user.

    Only for `McpIdentity.single_user_local()` (a stdio server with no MCP authorization): every
    record there belongs to that one user, so no link can lead one person into another's
    elicitation. See the threat model in `elicitkit.server.url_mode`.
    """

    def __init__(self, user: User) -> None:
        self.user = user

    def routes(self, site: Site) -> Sequence[BaseRoute]:
        return ()

    async def identify(self, request: Request, session: BrowserSession) -> User | None:
        return self.user

    async def login(self, request: Request, session: BrowserSession, return_to: str) -> Response:
        raise AssertionError("the local user is always known")  # pragma: no cover
