"""The demo authorization server for the demo MCP server's users, alice and bob.

A real OAuth 2.1 server on 127.0.0.1 (authorization code + PKCE S256, dynamic client
registration, refresh with rotation, revocation) built on the SDK's `mcp.server.auth` routes,
with a sign-in page for the person. Its access tokens carry the issuer and the subject
(`sub` = "alice" or "bob"), which is who the MCP user is. An MCP server verifies them either
in the same process (`token_verifier()`) or over HTTP with RFC 7662 introspection
(`IntrospectionTokenVerifier`), and a browser learns who it is from `/userinfo`.

Demo passwords: alice / "alice-demo-password", bob / "bob-demo-password".

Run it alone with `python -m elicitkit.demo.auth_server [--port N]`.
"""

from __future__ import annotations

import argparse
import logging
from typing import Any

import httpx
from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser, BearerAuthBackend, RequireAuthMiddleware
from mcp.server.auth.middleware.client_auth import AuthenticationError, ClientAuthenticator
from mcp.server.auth.provider import AccessToken, ProviderTokenVerifier, TokenVerifier
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, request_response

from ._oauth_server import DemoOAuthServer
from ._people import DEMO_PASSWORDS
from ._scripted import SignInError
from ._serve import serve_forever

__all__ = ["DEMO_PASSWORDS", "DemoAuthServer", "IntrospectionTokenVerifier", "SignInError"]

logger = logging.getLogger(__name__)

_NO_STORE = {"Cache-Control": "no-store", "Pragma": "no-cache"}


class IntrospectionTokenVerifier(TokenVerifier):
    """Verifies MCP access tokens by asking the authorization server (RFC 7662).

    This lets the MCP server and the authorization server run in separate processes. Only an
    active token from `issuer` passes; the result carries its subject, scopes, expiry,
    audience (as `resource`) and `iss` claim, which is what `get_access_token()` then gives.
    """

    def __init__(
        self, introspection_endpoint: str, *, client_id: str, client_secret: str, issuer: str
    ) -> None:
        self.introspection_endpoint = introspection_endpoint
        self.issuer = issuer
        self._auth = httpx.BasicAuth(client_id, client_secret)

    async def verify_token(self, token: str) -> AccessToken | None:
        try:
            async with httpx.AsyncClient(timeout=10) as http:
                response = await http.post(
                    self.introspection_endpoint, data={"token": token}, auth=self._auth
                )
        except httpx.HTTPError as error:
            logger.warning(
                "Could not reach the introspection endpoint %s: %s", self.introspection_endpoint, error
            )
            return None
        if response.status_code != 200:
            logger.warning("The introspection endpoint answered HTTP %s.", response.status_code)
            return None
        answer: dict[str, Any] = response.json()
        if answer.get("active") is not True or answer.get("iss") != self.issuer:
            return None
        return AccessToken(
            token=token,
            client_id=answer["client_id"],
            scopes=str(answer.get("scope", "")).split(),
            expires_at=answer.get("exp"),
            resource=answer.get("aud"),
            subject=answer.get("sub"),
            claims={key: answer[key] for key in ("iss", "sub", "client_name") if answer.get(key) is not None},
        )


class DemoAuthServer(DemoOAuthServer):
    """The demo MCP server's authorization server: `async with DemoAuthServer() as auth: ...`.

    Scopes: `mcp` (use the demo MCP server) and `openid` (let a site learn who you are, via
    `/userinfo`). Clients register dynamically at `/register` or with `register_client`.
    """

    service_name = "Demo Sign-in"
    scope_descriptions = {"mcp": "use the demo MCP server as you", "openid": "know who you are"}
    registration = True
    csrf_cookie = "elicitkit_demo_auth_csrf"

    def token_verifier(self) -> TokenVerifier:
        """A verifier for an MCP server in this same process: it reads the tokens directly."""
        return ProviderTokenVerifier(self.authority)

    def introspection_verifier(self, resource: str | None = None) -> TokenVerifier:
        """A verifier that checks tokens over HTTP, as a separate MCP server process would.

        With `resource` (the MCP server's URL) it is elicitkit's production `IntrospectionVerifier`,
        which also refuses tokens issued for another resource (RFC 8707)."""
        client = self.register_client(client_name="token introspection")
        assert client.client_secret is not None
        if resource is not None:
            from elicitkit.server import IntrospectionVerifier

            return IntrospectionVerifier(
                self.issuer, resource, client_id=client.client_id, client_secret=client.client_secret
            )
        return IntrospectionTokenVerifier(
            f"{self.url}/introspect",
            client_id=client.client_id,
            client_secret=client.client_secret,
            issuer=self.issuer,
        )

    def metadata(self) -> dict[str, Any]:
        return super().metadata() | {
            "introspection_endpoint": f"{self.url}/introspect",
            "introspection_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "userinfo_endpoint": f"{self.url}/userinfo",
        }

    def routes(self) -> list[BaseRoute]:
        return [
            *super().routes(),
            Route("/introspect", self._introspect, methods=["POST"]),
            Route(
                "/userinfo", RequireAuthMiddleware(request_response(_userinfo), ["openid"]), methods=["GET"]
            ),
        ]

    def middleware(self) -> list[Middleware]:
        backend = BearerAuthBackend(self.token_verifier())
        return [*super().middleware(), Middleware(AuthenticationMiddleware, backend=backend)]

    async def _introspect(self, request: Request) -> Response:
        try:
            client = await ClientAuthenticator(self.authority).authenticate_request(request)
        except AuthenticationError as error:
            return _oauth_error("invalid_client", error.message, 401)
        if not client.client_secret:
            return _oauth_error("invalid_client", "Only a confidential client may introspect tokens.", 401)
        token = (await request.form()).get("token")
        if not isinstance(token, str):
            return _oauth_error("invalid_request", "The form has no token to introspect.", 400)
        return JSONResponse(self.authority.introspect(token), headers=_NO_STORE)


def _oauth_error(error: str, description: str, status_code: int) -> Response:
    return JSONResponse({"error": error, "error_description": description}, status_code, _NO_STORE)


async def _userinfo(request: Request) -> Response:
    """Who the bearer token's person is (an OpenID Connect-style userinfo answer)."""
    user = request.user
    assert isinstance(user, AuthenticatedUser)
    access = user.access_token
    claims = access.claims or {}
    return JSONResponse({"sub": access.subject, "iss": claims.get("iss")}, headers=_NO_STORE)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m elicitkit.demo.auth_server", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: a free one)")
    args = parser.parse_args(argv)
    people = ", ".join(f"{name} / {password}" for name, password in DEMO_PASSWORDS.items())
    server = DemoAuthServer(port=args.port)
    resource_server = server.register_client(client_name="resource server (token introspection)")
    serve_forever(
        server,
        lambda url: (
            f"Demo authorization server at {url}\n"
            f"  discovery: {url}/.well-known/oauth-authorization-server\n"
            f"  introspection client for an MCP server: {resource_server.client_id} / "
            f"{resource_server.client_secret}\n"
            f"  demo people: {people}\n"
            "Press Ctrl-C to stop."
        ),
    )


if __name__ == "__main__":
    main()
