"""Who the person in the browser is: the `BrowserIdentity` kinds the pages use.

A login against the same authorization server (`elicitkit.server._web.login.OAuthLogin`), a
hook the author supplies (`HookIdentity`), or the one local user (`LocalUserIdentity`). URL
mode compares the person found here with the MCP user before it accepts anything (S-34).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from elicitkit.errors import LifecycleError
from elicitkit.server._user import User

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import BaseRoute

    from elicitkit.server._web.site import BrowserSession, Site

__all__ = ["BrowserIdentity", "HookIdentity", "IdentityHook", "LocalUserIdentity"]


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
        """No routes of its own: the sign-in is the app's."""
        self._site = site
        return ()

    async def identify(self, request: Request, session: BrowserSession) -> User | None:
        """Whoever the app's hook says is signed in, or None."""
        return await self._hook(request)

    async def login(self, request: Request, session: BrowserSession, return_to: str) -> Response:
        """Send the person to the app's own sign-in (`login_url`), or refuse with 401 without one."""
        from starlette.responses import RedirectResponse

        if self._login_url is not None:
            return RedirectResponse(self._login_url(return_to), status_code=303)
        if self._site is None:
            raise LifecycleError(
                "HookIdentity signs a person in only once URL mode has mounted its pages; give it "
                "to UrlMode(browser=...) and serve the app UrlMode is installed on."
            )
        _ = self._site.translator(request).gettext
        return self._site.refusal(
            request,
            _("Sign in first"),
            _("This page needs to know who you are. Sign in to the application, then open the link again."),
            status_code=401,
        )


class LocalUserIdentity:
    """The browser person of single-user local mode: always the machine's one user.

    Only for `McpUsers.single_user_local()` (a stdio server with no MCP authorization): every
    record there belongs to that one user, so no link can lead one person into another's
    elicitation. See the threat model in `elicitkit.server._url_mode`.
    """

    def __init__(self, user: User) -> None:
        self.user = user

    def routes(self, site: Site) -> Sequence[BaseRoute]:
        """No routes: there is no sign-in."""
        return ()

    async def identify(self, request: Request, session: BrowserSession) -> User | None:
        """The machine's one user, always."""
        return self.user

    async def login(self, request: Request, session: BrowserSession, return_to: str) -> Response:
        """Never called: `identify` always knows the person."""
        raise AssertionError("the local user is always known")  # pragma: no cover
