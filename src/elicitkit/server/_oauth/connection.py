"""`OAuthConnection`: the user's account at a third-party service, connected over URL mode.

A tool that calls a third-party API for its user needs that user's authorization from the
third party itself, outside MCP (S-33). `await conn.token(ctx)` returns a valid access token
from the vault (refreshing it silently when it expired) or runs a URL-mode elicitation: the
page asks the person to consent, sends them to the provider (authorization code + PKCE S256,
authlib does the protocol), and the provider sends them back to
`<public url>/elicit/callback/<name>`, where the code becomes tokens sealed in the vault for
that user. Tokens never leave the server: not to the client, not in any JSON-RPC message; and
the MCP client's own token is never sent to the provider (no passthrough).

The `state` is random, single-use (`Store.take_once`), short-lived, bound to the record, the
user and this browser's session, and matched exactly (S-35). The confused-deputy defence of
the MCP security best practices is in `_oauth_consent`.

S-32: a connection refuses to run against the MCP server's own authorization server (the
issuer of the MCP tokens or of the browser sign-in, or an endpoint under it), or for a
`resource` on the MCP server itself: URL mode is never a way to sign in to the MCP server.

The consent POST answers with a short page that moves on to the provider (a meta refresh and
a link) instead of a 303: the pages' CSP `form-action 'self'` also governs where a form's
redirects may go, and Chromium enforces that, so a redirect to the provider would be blocked.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import httpx
from authlib.common.security import generate_token  # type: ignore[import-untyped]
from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from elicitkit.i18n import gettext, noop
from elicitkit.server._errors import VaultDecryptError
from elicitkit.server._oauth._client import (
    ProviderClient,
    check_authorization_params,
    choose_auth_method,
    load_private_key,
    safe_code,
)
from elicitkit.server._oauth._consent import Consents
from elicitkit.server._oauth._grant import BearerAuth, granted, not_granted, partly_granted
from elicitkit.server._oauth._refresh import FreshTokens
from elicitkit.server._oauth._tokens import StoredTokens
from elicitkit.server._oauth.errors import (
    Explanation,
    OAuthConfigError,
    OAuthConnectionError,
    OAuthProviderError,
    explain,
)
from elicitkit.server._oauth.metadata import ProviderMetadata, discover, refuse_own_server
from elicitkit.server._user import LOCAL_ISSUER, Caller, User
from elicitkit.server._web.login import OAuthLogin
from elicitkit.server._web.site import PREFIX, BrowserSession
from elicitkit.server.store import ACTIVE, Record

if TYPE_CHECKING:
    from mcp.server.mcpserver import Context

    from elicitkit.server._url_mode import UrlMode, Wait

__all__ = [
    "CALLBACK_PREFIX",
    "OAuthConfigError",
    "OAuthConnection",
    "OAuthConnectionError",
    "OAuthProviderError",
]

logger = logging.getLogger(__name__)

CALLBACK_PREFIX = f"{PREFIX}/callback"
"""A connection's redirect URI is `<public url>/elicit/callback/<name>`; register it exactly."""

_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,62}$")
_STATE_AAD = b"elicitkit/oauth-state/v1"
_CONNECT = noop("Connect %(service)s")
_NEEDS_ACCESS = noop("This tool needs access to your %(service)s account.")
_UNAVAILABLE = noop("The service cannot be reached from here right now. Nothing was stored; try again later.")
_ALREADY = noop(
    "This request was completed already, or is being completed in another window; nothing new was stored."
)


class OAuthConnection:
    """The current user's account at one third-party OAuth provider.

    Give the provider's `issuer` (its endpoints are discovered, RFC 8414 / OpenID Connect) or
    its `authorization_endpoint` and `token_endpoint` (and `revocation_endpoint`). `client_id`
    and `client_secret` are this server's client at the provider, registered with
    `redirect_uri` exactly; give `private_key` (PEM or JWK) instead of a secret for
    `private_key_jwt`, or neither for a public client (PKCE only). The method is
    `token_endpoint_auth_method` or the best the provider's metadata lists.
    `authorization_params` go into the authorization request as they are (`prompt`,
    `access_type`, `audience`, ...); asking for `offline_access` adds `prompt=consent`, as
    OpenID Connect requires for a refresh token, unless `prompt` is given there.
    `service` is what people call the provider ("Demo Calendar"); `scope_descriptions` turns
    scope names into words for the consent page; `message` says why the tool needs the
    account. `resource` (RFC 8707) names the API the token is for. `state_ttl` is how long the
    person has at the provider; a token is refreshed `leeway` seconds before it expires.
    `wait` is this connection's 2025-11-25 waiting style ("live" or "error", -32042), when it
    should differ from the server's.
    """

    template = "oauth_consent.html"

    def __init__(
        self,
        url_mode: UrlMode,
        name: str,
        *,
        service: str,
        client_id: str,
        client_secret: str | None = None,
        scopes: Sequence[str] = (),
        issuer: str | None = None,
        authorization_endpoint: str | None = None,
        token_endpoint: str | None = None,
        revocation_endpoint: str | None = None,
        scope_descriptions: Mapping[str, str] | None = None,
        message: str | None = None,
        resource: str | None = None,
        token_endpoint_auth_method: str | None = None,
        private_key: str | Mapping[str, Any] | None = None,
        authorization_params: Mapping[str, str] | None = None,
        state_ttl: float = 600.0,
        leeway: float = 30.0,
        wait: Wait | None = None,
    ) -> None:
        if not _NAME.match(name):
            raise OAuthConfigError(
                f"Connection name {name!r} must be 1-63 lowercase letters, digits, '-' or '_' "
                "(it is part of the redirect URI)."
            )
        if (authorization_endpoint is None) != (token_endpoint is None):
            raise OAuthConfigError(
                "Give both authorization_endpoint and token_endpoint, or neither and an issuer to discover."
            )
        if authorization_endpoint is None and issuer is None:
            raise OAuthConfigError(
                f"Connection {name!r} needs the provider's issuer (for discovery) or its endpoints."
            )
        self.url_mode = url_mode
        self.context = url_mode.context
        self.name = name
        self.service = service
        self.client_id = client_id
        self.client_secret = client_secret
        self.scopes = list(scopes)
        self.issuer = issuer  # compared exactly with the discovery document's (RFC 8414)
        self.scope_descriptions = dict(scope_descriptions or {})
        self.message = message or _NEEDS_ACCESS % {"service": service}
        self._default_message = message is None  # elicitkit's words: the page says them in its language
        self.resource = resource
        self.token_endpoint_auth_method = token_endpoint_auth_method
        self.authorization_params = check_authorization_params(authorization_params or {})
        self._private_key = load_private_key(private_key) if private_key is not None else None
        if token_endpoint_auth_method is not None:  # refuse a method this client cannot do, at start-up
            choose_auth_method(
                token_endpoint_auth_method,
                (),
                has_secret=bool(client_secret),
                has_key=private_key is not None,
                service=service,
            )
        self.state_ttl = state_ttl
        self.leeway = leeway
        self.wait = wait
        self._metadata: ProviderMetadata | None = None
        if authorization_endpoint is not None and token_endpoint is not None:
            self._metadata = ProviderMetadata(
                authorization_endpoint=authorization_endpoint,
                token_endpoint=token_endpoint,
                issuer=self.issuer,
                revocation_endpoint=revocation_endpoint,
            ).checked()
            self._refuse_own_server(self._metadata, None)  # fail at start-up when we can tell already
        self._consents = Consents(self.context.vault, name, self.scopes, self.context.clock)
        self._tokens = StoredTokens(self.context.vault, name)
        self._fresh = FreshTokens(self._tokens, self.context.store, service, self.context.clock)
        url_mode.add(self)

    @property
    def refreshing(self) -> int:
        """How many users' token refreshes this process holds a lock for now (a health and leak
        figure: each lock goes once no task holds or waits for it)."""
        return len(self._fresh.locks)

    @property
    def title(self) -> str:
        """The consent page's heading, in the page's language (the current `speaking` one)."""
        return gettext(_CONNECT) % {"service": self.service}

    @property
    def redirect_uri(self) -> str:
        """The exact redirect URI to register at the provider.

        It is built on `UrlMode`'s public URL; for a stdio server, give `UrlMode.loopback` a
        fixed port so that the URI stays the one registered.
        """
        public = self.context.site.public_url
        if not public:
            raise OAuthConfigError(
                "URL mode has no public URL yet, so this connection has no redirect URI: pass "
                "UrlMode(public_url=...) or start UrlMode.loopback(port=...) first."
            )
        return f"{public}{CALLBACK_PREFIX}/{self.name}"

    # -- what tools call -----------------------------------------------------------------

    async def token(self, ctx: Context[Any, Any], *, rejected: str | None = None) -> str:
        """A valid access token for the current user, connecting them first when needed.

        Pass `rejected=` the token the provider's API just refused (HTTP 401) to get a
        refreshed one. Raises `OAuthConfigError` (S-32 included), `OAuthProviderError`, or
        the URL-mode errors of `UrlMode.ask` (declined, expired, -32042 waiting style).
        """
        caller = self.context.users.caller()
        metadata = await self.metadata(caller.user)
        if await self._consents.covers(caller.user, caller.client_id):
            provider = functools.partial(self._provider, metadata)
            access = await self._fresh.access(caller.user, provider, rejected, self.leeway)
            if access is not None:
                return access
        details = await self._details(caller, metadata)
        record = await self.context.ask(ctx, self, self.message, details, wait=self.wait)
        tokens = await self._tokens.load(record.user)
        if tokens is None:
            raise OAuthConnectionError(
                f"The {self.service} connection completed but its tokens were not stored; "
                "ask the user to connect again."
            )
        return str(tokens["access_token"])

    async def granted_scopes(self, ctx: Context[Any, Any]) -> list[str] | None:
        """The scopes the provider granted the current user (None: not connected). A provider may
        grant fewer than `scopes`; a tool checks here before calling what needs the missing ones."""
        tokens = await self._tokens.load(self.context.users.caller().user)
        return None if tokens is None else granted(tokens, self.scopes)

    def auth(self, ctx: Context[Any, Any]) -> httpx.Auth:
        """An `httpx.Auth` for the provider's API: sends the user's token, and on a 401 refreshes
        it once and retries (`httpx.AsyncClient(auth=conn.auth(ctx))`)."""

        async def token(rejected: str | None = None) -> str:
            return await self.token(ctx, rejected=rejected)

        return BearerAuth(token)

    async def disconnect(self, ctx: Context[Any, Any]) -> bool:
        """Revoke the current user's tokens at the provider and delete them and the consent record.

        Returns True when the provider confirmed the revocation; the local copies are deleted
        either way.
        """
        user = self.context.users.caller().user
        tokens = await self._tokens.load(user)
        revoked = False
        try:
            if tokens is not None:
                revoked = await self._provider(await self.metadata(user)).revoke(tokens)
        finally:
            await self._tokens.delete(user)
            await self._consents.forget(user)
        return revoked

    async def metadata(self, user: User | None = None) -> ProviderMetadata:
        """The provider's endpoints (discovered once), refused if they are the MCP server's own (S-32)."""
        if self._metadata is None:
            assert self.issuer is not None
            self._metadata = await discover(self.issuer)
        self._refuse_own_server(self._metadata, user)
        return self._metadata

    # -- Flow (elicitkit.server._web.flows) -------------------------------------------------

    async def check(self, record: Record, form: FormData) -> str | None:
        """None: there is nothing to type, the POST itself is the consent."""
        return None  # nothing to type: the POST itself is the consent

    async def finish(self, record: Record, form: FormData) -> None:
        """Not called: this flow completes at its callback, once the provider sent the person back."""

    async def proceed(self, request: Request, record: Record, session: BrowserSession) -> Response:
        """The person consented on our page: record it, then send them to the provider."""
        site, _ = self.context.site, self.context.site.translator(request).gettext
        try:
            metadata = await self.metadata(record.user)
        except OAuthConnectionError as error:
            logger.warning("OAuth connection %r unavailable: %s", self.name, error)
            return self._page_error(request, noop("%(service)s is not available"), _UNAVAILABLE, 502)
        await self._consents.remember(record.user, record.client_id)
        if not await self._consents.covers(
            record.user, record.client_id
        ):  # the registry decides, not the POST
            return site.refusal(
                request, _("Consent not recorded"), _("Open the link again."), status_code=409
            )
        state, verifier = generate_token(43), generate_token(64)
        bound = {
            "record": record.id,
            "sid": session.sid,
            "iss": record.user.issuer,
            "sub": record.user.subject,
            "verifier": verifier,
        }
        sealed = site.keys.seal(
            json.dumps(bound).encode(), _STATE_AAD + self.name.encode(), purpose="oauth-state"
        )
        await site.store.put_once(self._tokens.state_key(state), sealed, ttl=self.state_ttl)
        url = await self._provider(metadata).authorization_url(state, verifier)
        return site.render(
            "oauth_continue.html",
            request=request,
            title=_(_CONNECT) % {"service": self.service},
            service=self.service,
            url=url,
        )

    async def callback(self, request: Request) -> Response:
        """The provider sent the person back: match `state`, exchange the code, keep the tokens."""
        site, _ = self.context.site, self.context.site.translator(request).gettext
        query = request.query_params
        state = query.get("state", "")
        sealed = await site.store.take_once(self._tokens.state_key(state)) if state else None  # single-use
        try:
            bound: dict[str, str] = (
                json.loads(site.keys.open(sealed, _STATE_AAD + self.name.encode(), purpose="oauth-state"))
                if sealed
                else {}
            )
        except (VaultDecryptError, ValueError):
            bound = {}
        if not bound:
            logger.warning("OAuth callback refused: state missing, unknown, used or expired")
            return self._page_error(
                request,
                noop("This sign-in answer is not valid"),
                noop(
                    "It does not belong to a %(service)s connection started in this browser, or it was "
                    "already used or is too old. Nothing was stored. Open the link from your application "
                    "again."
                ),
                400,
            )
        session = site.load_session(request)
        user = User(issuer=bound["iss"], subject=bound["sub"])
        person = await site.browser.identify(request, session) if session is not None else None
        if session is None or session.sid != bound["sid"] or person != user:
            logger.warning(
                "OAuth callback refused: it arrived in another browser than the one that started it"
            )
            return self._page_error(
                request,
                noop("This sign-in answer is not for this browser"),
                noop(
                    "It belongs to a connection started in another browser or by another account. "
                    "Nothing was stored. If someone sent you this link, do not use it."
                ),
                403,
            )
        record = await site.store.get(bound["record"])
        if record is None or record.user != user or record.state not in ACTIVE:
            return self._page_error(
                request,
                noop("Link no longer active"),
                noop("This request was completed, declined or has expired. Nothing more is needed here."),
                410,
            )
        try:
            metadata = await self.metadata(user)
        except OAuthConnectionError as unavailable:
            logger.warning("OAuth connection %r unavailable: %s", self.name, unavailable)
            return self._page_error(request, noop("%(service)s did not connect"), _UNAVAILABLE, 502)
        if not metadata.answered_by_issuer(query.get("iss")):  # RFC 9207: from this provider only
            logger.warning("OAuth callback refused: iss does not name the expected provider")
            return self._page_error(
                request,
                noop("This sign-in answer is not valid"),
                noop("It did not come from %(service)s. Nothing was stored."),
                400,
            )
        error = query.get("error")
        if error is not None:
            return await self._provider_said_no(request, record, error)
        code = query.get("code", "")
        if not code:
            return self._page_error(
                request,
                noop("This sign-in answer is not valid"),
                noop("It carries no code. Nothing was stored."),
                400,
            )
        try:
            tokens = await self._provider(metadata).exchange(code, bound["verifier"])
        except OAuthProviderError as failure:
            return self._page_error(request, noop("%(service)s did not connect"), failure, 502)
        if await site.complete(record.id, user, lambda _: self._tokens.save(user, tokens)) != "completed":
            await self._provider(metadata).revoke(tokens)
            return self._page_error(request, noop("Already completed"), _ALREADY, 409)
        missing = not_granted(tokens, self.scopes)
        said = [
            _("Your %(service)s account is connected.") % {"service": self.service},
            partly_granted(self.service, missing, self.scope_descriptions, _),
            _("You can close this tab and return to your application."),
        ]
        # sentences follow each other as the language writes them (Chinese: with no space)
        text = _("%(first)s %(next)s")
        joined = functools.reduce(
            lambda first, next: text % {"first": first, "next": next}, filter(None, said)
        )
        return site.render("done.html", request=request, title=_("Connected"), text=joined)

    # -- the provider ----------------------------------------------------------------------

    def _provider(self, metadata: ProviderMetadata) -> ProviderClient:
        return ProviderClient(
            metadata,
            service=self.service,
            client_id=self.client_id,
            client_secret=self.client_secret,
            scopes=self.scopes,
            redirect_uri=self.redirect_uri,
            auth_method=self.token_endpoint_auth_method,
            resource=self.resource,
            private_key=self._private_key,
            authorization_params=self.authorization_params,
            clock=self.context.clock,
        )

    async def _provider_said_no(self, request: Request, record: Record, error: str) -> Response:
        site, _ = self.context.site, self.context.site.translator(request).gettext
        if error == "access_denied":  # the person said no at the provider: a decline
            if await site.store.transition(record.id, from_states=ACTIVE, to="declined", user=record.user):
                await site.announce(record.id)
            text = _("You did not connect %(service)s. Nothing was stored.") % {"service": self.service}
            return site.render("done.html", request=request, title=_("Declined"), text=text)
        logger.warning("OAuth callback carried an error from %s: %s", self.service, safe_code(error))
        reason = explain(self.service, safe_code(error), "authorize")
        return self._page_error(request, noop("%(service)s did not connect"), reason, 502)

    def _page_error(
        self, request: Request, title: str, reason: str | Explanation | OAuthProviderError, status: int
    ) -> Response:
        """A refusal page in the page's language: `title` and `reason` are elicitkit's messages
        (naming the service as given), or `reason` is an explanation that says itself."""
        _, values = self.context.site.translator(request).gettext, {"service": self.service}
        said = _(reason) % values if isinstance(reason, str) else reason.say(_)
        return self.context.site.refusal(request, _(title) % values, said, status_code=status)

    # -- S-32 --------------------------------------------------------------------------------

    def _refuse_own_server(self, metadata: ProviderMetadata, user: User | None) -> None:
        """URL mode must not authorize the user to the MCP server itself (S-32)."""
        own = {self.context.users.issuer, user.issuer if user else None}
        browser = self.context.browser
        if isinstance(browser, OAuthLogin):
            own.add(browser.issuer_url)
        refuse_own_server(
            metadata,
            service=self.service,
            own_issuers=[issuer for issuer in own if issuer is not None and issuer != LOCAL_ISSUER],
            resource=self.resource,
            public_url=self.context.site.public_url,
        )

    async def _details(self, caller: Caller, metadata: ProviderMetadata) -> dict[str, Any]:
        """What the consent page shows: who asks, for which scopes, where the person goes next."""
        return {
            "service": self.service,
            "default_message": self._default_message,
            "scopes": [self.scope_descriptions.get(scope, scope) for scope in self.scopes],
            "client": caller.client_name,  # None: the page names no application, never an id
            "consented_at": await self._consents.when(caller.user, caller.client_id),
            "provider": httpx.URL(metadata.authorization_endpoint).host,
        }
