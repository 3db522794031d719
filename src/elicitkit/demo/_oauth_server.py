"""What the two demo OAuth servers share: the SDK's OAuth routes over an `Authority`, the
sign-in page, RFC 8414 discovery, and the helpers tests use to drive a real code flow."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
from mcp.server.auth.routes import cors_middleware, create_auth_routes
from mcp.server.auth.settings import ClientRegistrationOptions, RevocationOptions
from mcp.shared.auth import OAuthClientInformationFull, OAuthMetadata, OAuthToken
from pydantic import AnyHttpUrl
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp

from elicitkit.asgi import SecurityHeaders

from ._authority import Authority
from ._client_auth import BasicClientCredentials
from ._login import SignInPage
from ._pages import PAGE_POLICY, Csrf
from ._people import DEMO_CLIENT_NAME, DEMO_PASSWORDS
from ._scripted import SignInError, pkce_pair, sign_in
from ._serve import LocalServer

_METADATA_PATH = "/.well-known/oauth-authorization-server"
_CLIENT_AUTH_METHODS = ["client_secret_basic", "client_secret_post", "none"]


class DemoOAuthServer(LocalServer):
    """An OAuth 2.1 authorization server (code + PKCE S256 only) for the demo people."""

    service_name = "Demo server"
    scope_descriptions: Mapping[str, str] = {}
    consent = False
    registration = False
    csrf_cookie = "elicitkit_demo_csrf"

    def __init__(
        self,
        *,
        port: int = 0,
        access_token_lifetime: int = 3600,
        passwords: Mapping[str, str] = DEMO_PASSWORDS,
    ) -> None:
        super().__init__(port=port)
        self.passwords = dict(passwords)
        self.authority = Authority(access_token_lifetime=access_token_lifetime)
        self._csrf = Csrf(self.csrf_cookie)

    @property
    def issuer(self) -> str:
        """The issuer identifier (RFC 8414): the base URL, without a trailing slash."""
        return self.url

    @property
    def scopes(self) -> list[str]:
        return list(self.scope_descriptions)

    @property
    def authorization_endpoint(self) -> str:
        return f"{self.url}/authorize"

    @property
    def token_endpoint(self) -> str:
        return f"{self.url}/token"

    @property
    def revocation_endpoint(self) -> str:
        return f"{self.url}/revoke"

    @property
    def metadata_url(self) -> str:
        """Where the RFC 8414 discovery document is."""
        return f"{self.url}{_METADATA_PATH}"

    @property
    def access_token_lifetime(self) -> int:
        """Seconds an access token issued from now on lives; set it low to test refreshing."""
        return self.authority.access_token_lifetime

    @access_token_lifetime.setter
    def access_token_lifetime(self, seconds: int) -> None:
        self.authority.access_token_lifetime = seconds

    @property
    def refuse_refresh(self) -> bool:
        """While True, every refresh is answered `invalid_grant`, as when a person revoked access."""
        return self.authority.refuse_refresh

    @refuse_refresh.setter
    def refuse_refresh(self, refuse: bool) -> None:
        self.authority.refuse_refresh = refuse

    def expire_access_tokens(self) -> None:
        """End the life of every access token issued so far; refresh tokens stay valid."""
        self.authority.expire_access_tokens()

    def register_client(
        self,
        *,
        redirect_uris: Sequence[str] = (),
        client_id: str | None = None,
        client_secret: str | None = None,
        public: bool = False,
        scopes: Sequence[str] | None = None,
        client_name: str | None = None,
    ) -> OAuthClientInformationFull:
        """Register a client directly, as an operator would; confidential unless `public`.

        A confidential client authenticates with `client_secret_post` or `client_secret_basic`
        (both are accepted); a missing secret is generated and returned.
        """
        if public and client_secret is not None:
            raise ValueError("A public client has no secret: pass public=True or a client_secret, not both.")
        client = OAuthClientInformationFull(
            client_id=client_id or secrets.token_urlsafe(16),
            client_secret=None if public else client_secret or secrets.token_urlsafe(32),
            client_name=client_name,
            redirect_uris=list(redirect_uris) or None,
            token_endpoint_auth_method="none" if public else "client_secret_post",
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            scope=" ".join(self.scopes if scopes is None else scopes),
        )
        self.authority.clients[client.client_id] = client
        return client

    def set_redirect_uris(self, redirect_uris: Sequence[str], *, client_id: str | None = None) -> None:
        """Replace a client's redirect URIs (the default client's unless `client_id` is given),
        for a callback whose port is only known once its server is listening."""
        client = self._default_client() if client_id is None else self.authority.clients[client_id]
        changed = client.model_dump() | {"redirect_uris": list(redirect_uris)}
        self.authority.clients[client.client_id] = OAuthClientInformationFull.model_validate(changed)

    async def sign_in(
        self,
        browser: httpx.AsyncClient,
        authorize_url: str,
        user: str,
        *,
        password: str | None = None,
        approve: bool = True,
    ) -> str:
        """Play the person: sign in as `user` on the page `authorize_url` leads to.

        Returns the URL the browser is sent to next (the client's redirect_uri with `code` and
        `state`, or with `error`). The demo password is used unless `password` is given.
        """
        return await sign_in(
            browser,
            authorize_url,
            user,
            self.passwords.get(user, "") if password is None else password,
            approve=approve,
        )

    async def token_for(
        self,
        user: str,
        *,
        client_id: str | None = None,
        scopes: Sequence[str] | None = None,
        resource: str | None = None,
    ) -> OAuthToken:
        """Tokens for `user`, obtained through the real code flow over HTTP.

        Without `client_id` the default client asks: at the provider, its configured client; at
        the authorization server, a public test client registered on first use.
        """
        client = self._default_client() if client_id is None else self.authority.clients.get(client_id)
        if client is None:
            raise ValueError(f"No client {client_id!r} is registered at {self.service_name}.")
        if not client.redirect_uris:
            raise ValueError(
                f"Client {client.client_id!r} has no redirect URI yet: call set_redirect_uris() first."
            )
        redirect_uri = str(client.redirect_uris[0])
        verifier, challenge = pkce_pair()
        state = secrets.token_urlsafe(16)
        query = {
            "response_type": "code",
            "client_id": client.client_id,
            "redirect_uri": redirect_uri,
            "code_challenge": challenge,
            "code_challenge_method": "S256",
            "state": state,
        }
        if scopes is not None:
            query["scope"] = " ".join(scopes)
        if resource is not None:
            query["resource"] = resource
        async with httpx.AsyncClient() as http:
            location = await self.sign_in(http, f"{self.authorization_endpoint}?{urlencode(query)}", user)
            answer = dict(parse_qsl(urlsplit(location).query))
            if answer.get("state") != state or "code" not in answer:
                raise SignInError(
                    f"{self.service_name} gave no code: {answer.get('error_description', location)}"
                )
            form = {
                "grant_type": "authorization_code",
                "code": answer["code"],
                "redirect_uri": redirect_uri,
                "client_id": client.client_id,
                "code_verifier": verifier,
            }
            if client.client_secret:
                form["client_secret"] = client.client_secret
            if resource is not None:
                form["resource"] = resource
            response = await http.post(self.token_endpoint, data=form)
        if response.status_code != 200:
            raise SignInError(f"{self.service_name} refused the code: {response.text}")
        return OAuthToken.model_validate(response.json())

    def metadata(self) -> dict[str, Any]:
        """The RFC 8414 discovery document."""
        base = self.url
        # Strings, not AnyHttpUrl objects: the model keeps a path-less issuer without a slash.
        document = OAuthMetadata.model_validate(
            {
                "issuer": base,
                "authorization_endpoint": self.authorization_endpoint,
                "token_endpoint": self.token_endpoint,
                "registration_endpoint": f"{base}/register" if self.registration else None,
                "revocation_endpoint": self.revocation_endpoint,
                "scopes_supported": self.scopes,
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "token_endpoint_auth_methods_supported": _CLIENT_AUTH_METHODS,
                "revocation_endpoint_auth_methods_supported": _CLIENT_AUTH_METHODS,
                "code_challenge_methods_supported": ["S256"],
                "authorization_response_iss_parameter_supported": True,
            }
        )
        return document.model_dump(mode="json", exclude_none=True)

    def routes(self) -> list[BaseRoute]:
        """The server's routes; subclasses add theirs."""
        oauth = create_auth_routes(
            self.authority,
            issuer_url=AnyHttpUrl(self.url),
            client_registration_options=ClientRegistrationOptions(
                enabled=self.registration, valid_scopes=self.scopes, default_scopes=self.scopes
            ),
            revocation_options=RevocationOptions(enabled=True),
        )

        async def discovery(request: Request) -> Response:
            return JSONResponse(self.metadata())

        page = SignInPage(
            self.authority,
            self.passwords,
            self.service_name,
            self._csrf,
            scope_descriptions=dict(self.scope_descriptions),
            consent=self.consent,
        )
        # The SDK's metadata route cannot list the extra endpoints (introspection, userinfo).
        return [
            Route(_METADATA_PATH, cors_middleware(discovery, ["GET", "OPTIONS"]), methods=["GET", "OPTIONS"]),
            *(route for route in oauth if route.path != _METADATA_PATH),
            *page.routes(),
        ]

    def middleware(self) -> list[Middleware]:
        return [Middleware(BasicClientCredentials, paths={"/token", "/revoke", "/introspect"})]

    def build_app(self, url: str) -> ASGIApp:
        self.authority.issuer = url
        return SecurityHeaders(
            Starlette(routes=self.routes(), middleware=self.middleware()), content_security_policy=PAGE_POLICY
        )

    def _default_client(self) -> OAuthClientInformationFull:
        """A public client registered on first use, with a redirect URI nothing listens on."""
        client = self.authority.clients.get("demo-test-client")
        if client is None:
            client = self.register_client(
                client_id="demo-test-client",
                public=True,
                redirect_uris=["http://127.0.0.1/callback"],
                client_name=DEMO_CLIENT_NAME,
            )
        return client
