"""The demo "third-party" service: Demo Calendar, with its own OAuth server and one API.

An MCP server that calls a third-party API for its user must get the user's authorization
from that third party directly. This is such a third party, on its own port on 127.0.0.1:
a sign-in and consent page for the demo people, RFC 8414 discovery, authorization code +
PKCE (S256), refresh tokens with rotation, revocation (RFC 7009), one confidential client
registered by configuration, and `GET /api/calendar`, which needs a bearer token it issued.

For tests it can shorten or end access tokens' lives, refuse refreshes, and it records every
Authorization header it receives, so a test can prove no MCP access token ever reached it.

Built on the SDK's `mcp.server.auth` routes rather than authlib's server classes: they are
Starlette-native and typed, and already enforce PKCE S256 and exact redirect URIs; authlib
has no Starlette server integration, so it would need an adapter of our own.

Run it alone with `python -m elicitkit.demo.provider [--port N] [--redirect-uri URL]`.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.provider import ProviderTokenVerifier
from mcp.shared.auth import OAuthClientInformationFull
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, request_response
from starlette.types import ASGIApp, Receive, Scope, Send

from ._oauth_server import DemoOAuthServer
from ._people import DEMO_PASSWORDS, DEMO_SERVER_NAME
from ._scripted import SignInError
from ._serve import serve_forever

__all__ = ["CALENDAR_SCOPE", "DEMO_EVENTS", "DEMO_PASSWORDS", "DemoProvider", "SignInError"]

CALENDAR_SCOPE = "calendar.read"

DEMO_EVENTS: dict[str, list[dict[str, str]]] = {
    "alice": [
        {"title": "Dentist", "start": "2026-12-03T09:00:00Z", "end": "2026-12-03T09:30:00Z"},
        {"title": "Lunch with Carol", "start": "2026-12-04T12:00:00Z", "end": "2026-12-04T13:00:00Z"},
    ],
    "bob": [
        {"title": "Team retrospective", "start": "2026-12-03T15:00:00Z", "end": "2026-12-03T16:00:00Z"},
    ],
}


class _RecordAuthorization:
    """Remember every Authorization header that reaches the app, whatever the path."""

    def __init__(self, app: ASGIApp, record: list[str]) -> None:
        self.app = app
        self.record = record

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self.record.extend(
                value.decode("latin-1") for name, value in scope["headers"] if name == b"authorization"
            )
        await self.app(scope, receive, send)


class DemoProvider(DemoOAuthServer):
    """Demo Calendar, a third-party service: `async with DemoProvider(...) as calendar: ...`.

    One confidential client is registered from the arguments (a secret is generated when none
    is given); more can be added with `register_client`. There is no dynamic registration.
    """

    service_name = "Demo Calendar"
    scope_descriptions = {CALENDAR_SCOPE: "read your calendar"}
    consent = True
    csrf_cookie = "elicitkit_demo_provider_csrf"

    def __init__(
        self,
        *,
        client_id: str = "elicitkit-demo",
        client_secret: str | None = None,
        redirect_uris: Sequence[str] = (),
        port: int = 0,
        access_token_lifetime: int = 3600,
        passwords: Mapping[str, str] = DEMO_PASSWORDS,
        events: Mapping[str, list[dict[str, str]]] = DEMO_EVENTS,
    ) -> None:
        super().__init__(port=port, access_token_lifetime=access_token_lifetime, passwords=passwords)
        self.events = dict(events)
        self.authorization_headers: list[str] = []
        """Every Authorization header value received, in order, on any path."""
        client = self.register_client(
            client_id=client_id,
            client_secret=client_secret,
            redirect_uris=redirect_uris,
            client_name=DEMO_SERVER_NAME,
        )
        self.client_id = client.client_id
        self.client_secret: str = client.client_secret or ""

    @property
    def api_url(self) -> str:
        """The protected API: `GET` it with `Authorization: Bearer <access token>`."""
        return f"{self.url}/api/calendar"

    def _default_client(self) -> OAuthClientInformationFull:
        return self.authority.clients[self.client_id]

    def routes(self) -> list[BaseRoute]:
        api = RequireAuthMiddleware(request_response(self._calendar), [CALENDAR_SCOPE])
        return [*super().routes(), Route("/api/calendar", api, methods=["GET"])]

    def middleware(self) -> list[Middleware]:
        backend = BearerAuthBackend(ProviderTokenVerifier(self.authority))
        return [
            Middleware(_RecordAuthorization, record=self.authorization_headers),
            *super().middleware(),
            Middleware(AuthenticationMiddleware, backend=backend),
        ]

    async def _calendar(self, request: Request) -> Response:
        user = request.user
        assert isinstance(user, AuthenticatedUser)
        owner = user.access_token.subject or ""
        return JSONResponse({"owner": owner, "events": self.events.get(owner, [])})


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m elicitkit.demo.provider", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    parser.add_argument("--client-id", default="elicitkit-demo")
    parser.add_argument("--client-secret", default=None, help="default: a random one, printed")
    parser.add_argument(
        "--redirect-uri", action="append", default=[], help="the client's redirect URI (repeatable)"
    )
    args = parser.parse_args(argv)
    provider = DemoProvider(
        port=args.port,
        client_id=args.client_id,
        client_secret=args.client_secret,
        redirect_uris=args.redirect_uri,
    )
    people = ", ".join(f"{name} / {password}" for name, password in DEMO_PASSWORDS.items())
    serve_forever(
        provider,
        lambda url: (
            f"Demo Calendar (third-party provider) at {url}\n"
            f"  discovery: {url}/.well-known/oauth-authorization-server\n"
            f"  API: {url}/api/calendar\n"
            f"  client: {provider.client_id} / {provider.client_secret}\n"
            f"  redirect URIs: {', '.join(args.redirect_uri) or '(none yet)'}\n"
            f"  demo people: {people}\n"
            "Press Ctrl-C to stop."
        ),
    )


if __name__ == "__main__":
    main()
