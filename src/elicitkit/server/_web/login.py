"""`OAuthLogin`: learn who the person in the browser is by a login at the MCP tokens' issuer.

A separate OAuth client of the same authorization server runs the authorization code flow
with PKCE (authlib does the protocol). The token it gets is checked by the same
`TokenVerifier` that checks MCP tokens, so the browser person and the MCP user come out of
one derivation (issuer + subject) and can be compared; so the login asks the authorization
server for what that verifier demands of an MCP token (its resource, its scopes), learned when
it is mounted on the server (`adopt`). The `state` is random, single-use,
short-lived, bound to this browser's session and matched exactly (S-35); what it keeps until
the person returns (the PKCE verifier, the return path, the session id) is sealed with the
vault's keys, so whoever can read the store cannot finish someone else's sign-in.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import anyio
from mcp.server.auth.provider import TokenVerifier
from mcp.shared.auth_utils import resource_url_from_server_url
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from elicitkit.errors import ConfigurationError, ElicitationError, LifecycleError
from elicitkit.extras import needs
from elicitkit.server._errors import UrlModeError, VaultDecryptError
from elicitkit.server._oauth.errors import OAuthConnectionError
from elicitkit.server._oauth.metadata import ProviderMetadata, discover
from elicitkit.server._user import User, user_from_token

if TYPE_CHECKING:
    from authlib.integrations.httpx_client import AsyncOAuth2Client  # type: ignore[import-untyped]
    from mcp.server.auth.settings import AuthSettings

    from elicitkit.server._web.site import BrowserSession, Site
    from elicitkit.server.store import Store

__all__ = ["OAuthLogin"]

logger = logging.getLogger(__name__)

_STATE_TTL = 600.0
_DEADLINE = 10.0
"""Seconds one call to the issuer may take in all (httpx's timeout is per read)."""
_STATE_AAD = b"elicitkit/login-state/v1"
CALLBACK_PATH = "/elicit/login/callback"


class OAuthLogin:
    """A `BrowserIdentity` that signs the person in at `issuer_url` (authorization code + PKCE).

    `client_id` (and `client_secret` for a confidential client) name this login's own client
    at the authorization server, registered with the redirect URI `<public url>/elicit/login/callback`;
    leave `client_id` out to register a public client dynamically (RFC 7591) on first use.
    `token_verifier` defaults to the MCP server's own (on an `MCPServer`).

    The browser's token is checked by that verifier, so it is asked for what the verifier
    demands of MCP tokens: unless `resource` is given, the verifier's audience (elicitkit's
    `JWTVerifier` and `IntrospectionVerifier` say theirs) or else the server's
    `AuthSettings.resource_server_url`; `scopes`, or else `AuthSettings.required_scopes`, and
    always the scopes the verifier itself requires. A `resource` or `issuer_url` the verifier
    would refuse every token for is a `UrlModeError` when the login is mounted, saying what to set.
    """

    def __init__(
        self,
        issuer_url: str,
        *,
        client_id: str | None = None,
        client_secret: str | None = None,
        scopes: Sequence[str] = (),
        resource: str | None = None,
        token_verifier: TokenVerifier | None = None,
    ) -> None:
        with needs("oauth"):  # at set-up, not at the first sign-in
            import authlib  # type: ignore[import-untyped]  # noqa: F401
            import httpx  # noqa: F401
        self.issuer_url = issuer_url.rstrip("/")
        self.client_id = client_id
        self.client_secret = client_secret
        self.scopes = list(scopes)
        self.resource = resource
        self.token_verifier = token_verifier
        self._auth: AuthSettings | None = None
        self._given = (list(scopes), resource)
        self._metadata: ProviderMetadata | None = None
        self._site: Site | None = None

    # -- BrowserIdentity -------------------------------------------------------------------

    def routes(self, site: Site) -> Sequence[BaseRoute]:
        """The sign-in's callback route, mounted with the pages."""
        self._site = site
        self._match_mcp_tokens()
        return [Route(CALLBACK_PATH, self._callback, methods=["GET"])]

    def adopt(self, verifier: TokenVerifier | None, auth: AuthSettings | None) -> None:
        """Take the MCP server's verifier (unless one was given) and its `AuthSettings`, and ask
        for what they demand of a token; raises `UrlModeError` when a setting here cannot match."""
        if self.token_verifier is None:
            self.token_verifier = verifier
        self._auth = auth
        self._match_mcp_tokens()

    def _match_mcp_tokens(self) -> None:
        """The resource and scopes to ask for: the MCP tokens', so the verifier accepts the
        browser's token; a contradiction is an error now, not "Sign-in failed" for everyone later."""
        from elicitkit.server._tokens import IntrospectionVerifier, JWTVerifier  # the oauth extra's httpx

        verifier, auth = self.token_verifier, self._auth
        given_scopes, given_resource = self._given
        demanded: str | None = None
        strict = False  # whether a token for another resource is refused
        required: list[str] = []  # what the verifier refuses a token without
        if isinstance(verifier, JWTVerifier | IntrospectionVerifier):
            if verifier.issuer.rstrip("/") != self.issuer_url:
                raise UrlModeError(
                    f"OAuthLogin signs people in at {self.issuer_url}, but the MCP server's token "
                    f"verifier trusts only {verifier.issuer}: give OAuthLogin({verifier.issuer!r})."
                )
            demanded, strict = verifier.resource, True
            required = verifier.required_scopes
        elif auth is not None and auth.resource_server_url is not None:
            demanded, strict = str(auth.resource_server_url), bool(auth.validate_token_resource)
        if given_resource is None:
            self.resource = demanded
        elif strict and demanded is not None and _canonical(given_resource) != _canonical(demanded):
            raise UrlModeError(
                f"OAuthLogin asks for tokens for {given_resource}, but the MCP server accepts only "
                f"tokens for {demanded}: set OAuthLogin(resource={demanded!r}), or leave resource out."
            )
        wanted = given_scopes
        if not wanted and auth is not None:  # the SDK asks these of MCP requests, not of a token
            wanted = list(auth.required_scopes or [])
        self.scopes = list(dict.fromkeys([*wanted, *required]))

    async def identify(self, request: Request, session: BrowserSession) -> User | None:
        """The person this browser's session signed in as, or None."""
        return session.user

    async def login(self, request: Request, session: BrowserSession, return_to: str) -> Response:
        """Send the person to sign in at the issuer (authorization code with PKCE), back to `return_to`."""
        import httpx

        try:
            metadata = await self._discover()
            await self._ensure_client(metadata)
        except (OAuthConnectionError, httpx.HTTPError, TimeoutError, ValueError, KeyError) as error:  # a page
            said = str(error) if isinstance(error, ElicitationError) else type(error).__name__  # ours: words
            logger.warning("browser sign-in at %s could not start: %s", self.issuer_url, said)
            site = self._require_site()
            _ = site.translator(request).gettext
            return site.refusal(
                request, _("Sign-in failed"), _("The sign-in did not succeed. Try again."), status_code=502
            )
        from authlib.common.security import generate_token  # type: ignore[import-untyped]

        state = generate_token(43)
        verifier = generate_token(64)
        pending = json.dumps({"verifier": verifier, "return_to": return_to, "sid": session.sid})
        sealed = self._require_site().keys.seal(pending.encode(), _STATE_AAD, purpose="login-state")
        await self._state_store().put_once(f"login:{state}", sealed, ttl=_STATE_TTL)
        extra: dict[str, str] = {}
        if self.resource:
            extra["resource"] = self.resource
        async with self._oauth() as oauth:
            url, _ = oauth.create_authorization_url(
                metadata.authorization_endpoint, state=state, code_verifier=verifier, **extra
            )
        session.dirty = True  # make sure the browser keeps the session the state is bound to
        return RedirectResponse(url, status_code=303)

    # -- the callback ----------------------------------------------------------------------

    async def _callback(self, request: Request) -> Response:
        site = self._require_site()
        session = site.load_session(request)
        state = request.query_params.get("state", "")
        code = request.query_params.get("code", "")
        saved = await self._state_store().take_once(f"login:{state}") if state else None
        try:
            data: dict[str, str] = (
                json.loads(site.keys.open(saved, _STATE_AAD, purpose="login-state")) if saved else {}
            )
        except (VaultDecryptError, ValueError):
            data = {}
        bound = session is not None and secrets.compare_digest(data.get("sid", ""), session.sid)
        if session is None or not data or not bound or not code:
            _ = site.translator(request).gettext
            return site.refusal(
                request,
                _("Sign-in not completed"),
                _(
                    "This sign-in could not be matched to your browser. "
                    "Open the link from your application again."
                ),
                status_code=400,
            )
        user = await self._exchange(code, data["verifier"], request.query_params.get("iss"))
        if user is None:
            _ = site.translator(request).gettext
            return site.refusal(
                request, _("Sign-in failed"), _("The sign-in did not succeed. Try again."), status_code=401
            )
        from elicitkit.server._web.site import with_session

        fresh = site.new_session(user)  # a new session id and CSRF token at sign-in (no fixation)
        return_to = data["return_to"]
        if not return_to.startswith("/elicit/") or "//" in return_to:
            return_to = "/elicit/"
        return with_session(site, RedirectResponse(return_to, status_code=303), fresh)

    async def _exchange(self, code: str, verifier: str, iss: str | None) -> User | None:
        metadata = await self._discover()
        if not metadata.answered_by_issuer(iss):  # RFC 9207: a code from another server is not sent on
            logger.warning("browser sign-in: the answer's iss does not name %s (RFC 9207)", self.issuer_url)
            return None
        try:
            with anyio.fail_after(_DEADLINE):
                async with self._oauth() as oauth:
                    extra: dict[str, str] = {}
                    if self.resource:
                        extra["resource"] = self.resource
                    token = await oauth.fetch_token(
                        metadata.token_endpoint, code=code, code_verifier=verifier, **extra
                    )
        except Exception as exc:  # authlib raises several types; all mean "no sign-in"
            logger.warning("browser sign-in: token exchange failed (%s)", type(exc).__name__)
            return None
        if self.token_verifier is None:
            raise ConfigurationError(
                "OAuthLogin has no token_verifier: pass one, or mount it with Elicitation(server, ...)."
            )
        access = await self.token_verifier.verify_token(str(token["access_token"]))
        if access is None:
            logger.warning("browser sign-in: the issued token did not verify")
            return None
        return user_from_token(access, default_issuer=metadata.issuer or self.issuer_url)

    # -- plumbing --------------------------------------------------------------------------

    def _oauth(self) -> AsyncOAuth2Client:
        from authlib.integrations.httpx_client import AsyncOAuth2Client

        return AsyncOAuth2Client(
            client_id=self.client_id,
            client_secret=self.client_secret,
            token_endpoint_auth_method="client_secret_post" if self.client_secret else "none",
            scope=" ".join(self.scopes) or None,
            redirect_uri=self._redirect_uri(),
            code_challenge_method="S256",
        )

    def _client_name(self) -> str:
        """The name this login registers: the sign-in page tells the person it is this server
        asking, so it is the server's own name (its host when it has none), never an identifier."""
        site = self._require_site()
        if site.named:
            return site.server_name
        return urlsplit(site.public_url).netloc

    def _redirect_uri(self) -> str:
        return self._require_site().public_url + CALLBACK_PATH

    def _require_site(self) -> Site:
        if self._site is None:
            raise LifecycleError(
                "OAuthLogin is not mounted yet; give it to UrlMode(browser=...) and mount that with "
                "Elicitation(server, url_mode=...) before its pages are used."
            )
        return self._site

    def _state_store(self) -> Store:
        return self._require_site().store

    async def _discover(self) -> ProviderMetadata:
        if self._metadata is None:
            self._metadata = await discover(self.issuer_url)
        return self._metadata

    async def _ensure_client(self, metadata: ProviderMetadata) -> None:
        if self.client_id is not None:
            return
        endpoint = metadata.registration_endpoint
        if not endpoint:
            raise ConfigurationError(
                "The authorization server offers no dynamic registration: register a client for "
                f"{self._redirect_uri()} and pass OAuthLogin(client_id=...)."
            )
        body: dict[str, Any] = {
            "client_name": self._client_name(),
            "redirect_uris": [self._redirect_uri()],
            "grant_types": ["authorization_code"],
            "response_types": ["code"],
            "token_endpoint_auth_method": "none",
        }
        if self.scopes:
            body["scope"] = " ".join(self.scopes)
        import httpx

        with anyio.fail_after(_DEADLINE):
            async with httpx.AsyncClient(timeout=_DEADLINE) as http:
                response = await http.post(endpoint, json=body)
                response.raise_for_status()
                registered = response.json()
        self.client_id = str(registered["client_id"])
        self.client_secret = registered.get("client_secret")


def _canonical(url: str) -> str:
    return resource_url_from_server_url(url).rstrip("/")
