"""Token verifiers for an MCP server that trusts an authorization server it does not run.

The SDK's `MCPServer(token_verifier=..., auth=AuthSettings(...))` asks a `TokenVerifier` about
every bearer token; `None` makes it answer 401 with its usual `WWW-Authenticate`. The two here
are what a production server needs:

- `JWTVerifier`: JWT access tokens (RFC 9068) checked locally against the issuer's signing
  keys, found through its discovery document (RFC 8414 / OpenID Connect) and its `jwks_uri`;
  joserfc does the cryptography.
- `IntrospectionVerifier`: opaque tokens, asked about at the issuer's introspection endpoint
  (RFC 7662), found the same way, as a confidential client of that issuer.

Both accept a token only when it is active and unexpired, comes from the configured issuer,
names this server's canonical URL as its audience (RFC 8707 `resource` / JWT `aud`: a token
issued for another server is refused here, so no token is passed through), carries a subject
(the user, S-31) and the required scopes. The user is the token's `iss` and `sub`.
"""

from __future__ import annotations

import base64
import logging
import math
import time
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import quote_plus

import anyio
import httpx
from mcp.server.auth.provider import AccessToken, TokenVerifier
from mcp.shared.auth_utils import resource_url_from_server_url

from elicitkit.server._errors import TokenVerifierError
from elicitkit.server._oauth.errors import OAuthConnectionError
from elicitkit.server._oauth.metadata import discovery_document, is_secure

if TYPE_CHECKING:
    from joserfc.jwk import KeySet

__all__ = ["IntrospectionVerifier", "JWTVerifier", "TokenVerifierError", "basic_credentials"]

logger = logging.getLogger(__name__)

_JWKS_REFETCH = 60.0
"""Seconds between two fetches of the issuer's keys when a token names a key we do not have."""
_DISCOVERY_RETRY = 10.0
"""Seconds a failed discovery is remembered, so a dead issuer is not asked again for every token."""
_ALGORITHMS = ("RS256", "PS256", "ES256", "EdDSA")


def basic_credentials(client_id: str, client_secret: str) -> str:
    """An `Authorization: Basic` value as RFC 6749 section 2.3.1 requires: the id and the secret
    form-encoded first (`application/x-www-form-urlencoded`, the standard library's
    `quote_plus`), then joined with ':' and base64-encoded (so '+', '/', '=', '%', ':' in a
    secret arrive intact at a strict server)."""
    pair = f"{quote_plus(client_id, safe='')}:{quote_plus(client_secret, safe='')}"
    return "Basic " + base64.b64encode(pair.encode()).decode()


class _Issuer:
    """One issuer's discovery document, fetched once and checked (its `issuer` must match)."""

    def __init__(self, issuer: str, *, timeout: float) -> None:
        if not is_secure(issuer):
            raise TokenVerifierError(
                f"The issuer {issuer} is not https; only loopback addresses may use http."
            )
        self.issuer = issuer
        self.timeout = timeout
        self._document: dict[str, Any] | None = None
        self._failed_at = -_DISCOVERY_RETRY
        self._lock = anyio.Lock()

    async def document(self) -> dict[str, Any] | None:
        if self._document is not None:
            return self._document
        async with self._lock:  # one fetch at a time; a failure is not retried for a while
            if self._document is None and time.monotonic() - self._failed_at > _DISCOVERY_RETRY:
                self._document = await self._fetch()
                if self._document is None:
                    self._failed_at = time.monotonic()
            return self._document

    async def endpoint(self, name: str) -> str | None:
        document = await self.document()
        url = document.get(name) if document else None
        return url if isinstance(url, str) and is_secure(url) else None

    async def _fetch(self) -> dict[str, Any] | None:
        try:
            return await discovery_document(self.issuer, deadline=self.timeout)
        except OAuthConnectionError as error:  # not cached for long: a later token tries again
            logger.warning("discovery of %s failed: %s", self.issuer, error)
            return None


_REFUSALS = {
    "iss": "from another issuer",
    "aud": "issued for another resource",
    "exp": "expired or without an expiry",
    "nbf": "not valid yet",
    "iat": "issued in the future",
    "sub": "no subject, so no user (S-31)",
}
"""Why a token was refused, by the claim joserfc's registry found wrong: for the log."""


class _Audience:
    """The checks both verifiers share: the registered claims (joserfc's claims registry: `iss`,
    `aud`, `exp`, `nbf`, `iat` within the leeway, and a subject), then the scopes."""

    def __init__(self, issuer: str, resource: str, required_scopes: Sequence[str], leeway: float) -> None:
        from joserfc.jwt import JWTClaimsRegistry

        self.resource = _canonical(resource)
        self.required_scopes = list(required_scopes)
        self._claims = JWTClaimsRegistry(
            leeway=math.ceil(leeway),  # whole seconds, as NumericDate counts them
            iss={"essential": True, "value": issuer},
            aud={"essential": True, "values": [self.resource]},
            exp={"essential": True},
            sub={"essential": True},
        )

    def accepts(self, claims: dict[str, Any], scopes: list[str]) -> bool:
        from joserfc.errors import ClaimError

        aud = claims.get("aud")  # compared in canonical form: "HTTPS://Host/mcp/" names us too
        canonical = [
            _canonical(a) if isinstance(a, str) else a for a in (aud if isinstance(aud, list) else [aud])
        ]
        try:
            self._claims.validate(claims | ({"aud": canonical} if isinstance(aud, str | list) else {}))
        except ClaimError as error:
            logger.info("token refused: %s", _REFUSALS.get(error.claim, error.description))
            return False
        missing = set(self.required_scopes) - set(scopes)
        if missing:
            logger.info("token refused: missing scopes %s", sorted(missing))
            return False
        return True

    def access_token(
        self, token: str, claims: dict[str, Any], client_id: str, scopes: list[str]
    ) -> AccessToken:
        exp = claims["exp"]
        return AccessToken(
            token=token,
            client_id=client_id,
            scopes=scopes,
            expires_at=int(exp),
            resource=self.resource,
            subject=claims["sub"],
            claims={
                "iss": claims["iss"],
                "sub": claims["sub"],
                "aud": claims["aud"],
                # the client's registered name, when the issuer tells it: consent pages show it
                **(
                    {"client_name": name}
                    if isinstance(name := claims.get("client_name"), str) and name
                    else {}
                ),
            },
        )


class JWTVerifier(TokenVerifier):
    """Verifies RFC 9068 JWT access tokens locally, with the issuer's published keys.

    `issuer` is the authorization server (its discovery document gives `jwks_uri`); `resource`
    is this MCP server's canonical URL, which must be the token's `aud` (or one of them).
    `required_scopes` must all be in the token's `scope`; `leeway` is the clock skew allowed.
    Keys are fetched once and again (at most once every `refetch_interval` seconds) when a
    token names an unknown one, so the issuer can rotate them; a token whose key is known never
    waits for such a fetch. Each call to the issuer finishes within `timeout` seconds in all
    (however slowly it answers), or the token is refused (None).
    """

    def __init__(
        self,
        issuer: str,
        resource: str,
        *,
        required_scopes: Sequence[str] = (),
        algorithms: Iterable[str] = _ALGORITHMS,
        leeway: float = 30.0,
        require_typ: bool = True,
        timeout: float = 10.0,
        refetch_interval: float = _JWKS_REFETCH,
    ) -> None:
        self.issuer = issuer
        self.algorithms = list(algorithms)
        self.refetch_interval = refetch_interval
        self.require_typ = require_typ
        self._issuer = _Issuer(issuer, timeout=timeout)
        self._audience = _Audience(issuer, resource, required_scopes, leeway)
        self._keys: KeySet | None = None
        self._fetched_at = 0.0
        self._fetches = 0
        self._keys_lock = anyio.Lock()

    @property
    def resource(self) -> str:
        """The audience a token must name: this MCP server's canonical URL."""
        return self._audience.resource

    @property
    def required_scopes(self) -> list[str]:
        """The scopes a token must carry, all of them."""
        return list(self._audience.required_scopes)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's `AccessToken` when its signature, issuer, audience, expiry and scopes check out; else
        None."""
        from joserfc import jwt
        from joserfc.errors import JoseError

        keys = await self._key_set(refresh=False)
        if keys is None:
            return None
        try:
            try:
                decoded = jwt.decode(token, keys, algorithms=self.algorithms)
            except JoseError:
                fresh = await self._key_set(refresh=True)  # maybe the issuer rotated its keys
                if fresh is None or fresh is keys:
                    raise
                decoded = jwt.decode(token, fresh, algorithms=self.algorithms)
        except (JoseError, ValueError) as error:
            logger.info("JWT access token refused: %s", type(error).__name__)
            return None
        typ = str(decoded.header.get("typ", "")).lower()
        if self.require_typ and typ not in ("at+jwt", "application/at+jwt"):
            logger.info("JWT refused: its typ is not at+jwt (RFC 9068), so it is not an access token")
            return None
        claims = dict(decoded.claims)
        scopes = str(claims.get("scope", "")).split()
        if not self._audience.accepts(claims, scopes):
            return None
        client_id = claims.get("client_id") or claims.get("azp") or ""
        return self._audience.access_token(token, claims, str(client_id), scopes)

    async def _key_set(self, *, refresh: bool) -> KeySet | None:
        """The issuer's keys; fetched again only when `refresh` asks and the last fetch is old.

        A cached hit takes no lock, so a stranger's token naming an unknown key (which makes
        one task fetch) never holds up tokens whose key is known; tasks that need the fetch
        share it (one at a time) instead of each asking the issuer.
        """
        keys = self._keys
        if keys is not None and not refresh:
            return keys
        if not self._due() and not self._keys_lock.locked():
            return keys  # fetched (or failed) lately and no fetch under way: do not hammer the issuer
        fetches = self._fetches
        async with self._keys_lock:
            if self._fetches != fetches or not self._due():
                return self._keys  # a fetch ended while this task waited: its answer holds
            try:
                with anyio.fail_after(self._issuer.timeout):  # one deadline for the whole fetch
                    fetched = await self._fetch_keys()
            except TimeoutError:
                logger.warning(
                    "keys of %s took longer than %s s to fetch; gave up", self.issuer, self._issuer.timeout
                )
                fetched = None
            finally:
                self._fetches += 1
                self._fetched_at = time.monotonic()
            if fetched is not None:
                self._keys = fetched
            return self._keys

    def _due(self) -> bool:
        return not self._fetched_at or time.monotonic() - self._fetched_at > self.refetch_interval

    async def _fetch_keys(self) -> KeySet | None:
        from joserfc.jwk import KeySet

        jwks_uri = await self._issuer.endpoint("jwks_uri")
        if jwks_uri is None:
            logger.warning(
                "%s publishes no usable jwks_uri; JWT access tokens cannot be checked", self.issuer
            )
            return None
        try:
            async with httpx.AsyncClient(timeout=self._issuer.timeout) as http:
                response = await http.get(jwks_uri, headers={"Accept": "application/json"})
            response.raise_for_status()
            return KeySet.import_key_set(response.json())
        except (httpx.HTTPError, ValueError, KeyError, TypeError) as error:
            logger.warning("keys of %s could not be fetched: %s", self.issuer, type(error).__name__)
            return None


class IntrospectionVerifier(TokenVerifier):
    """Verifies access tokens by asking the issuer (RFC 7662 token introspection).

    `client_id` / `client_secret` are this resource server's credentials at the issuer, sent
    with `client_secret_basic` (RFC 6749 section 2.3.1 encoding) or, with
    `auth_method="client_secret_post"`, in the form. The endpoint comes from the discovery
    document unless `introspection_endpoint` is given. `resource` is this MCP server's
    canonical URL, which the answer's `aud` must name. Each call to the issuer finishes within
    `timeout` seconds in all, or the token is refused (None).
    """

    def __init__(
        self,
        issuer: str,
        resource: str,
        *,
        client_id: str,
        client_secret: str,
        introspection_endpoint: str | None = None,
        auth_method: str = "client_secret_basic",
        required_scopes: Sequence[str] = (),
        leeway: float = 30.0,
        timeout: float = 10.0,
    ) -> None:
        if auth_method not in ("client_secret_basic", "client_secret_post"):
            raise TokenVerifierError(
                f"auth_method must be client_secret_basic or client_secret_post, not {auth_method!r}."
            )
        if introspection_endpoint is not None and not is_secure(introspection_endpoint):
            raise TokenVerifierError(
                f"The introspection endpoint {introspection_endpoint} is not https; "
                "only loopback addresses may use http."
            )
        self.issuer = issuer
        self.client_id = client_id
        self.auth_method = auth_method
        self.timeout = timeout
        self._secret = client_secret
        self._endpoint = introspection_endpoint
        self._issuer = _Issuer(issuer, timeout=timeout)
        self._audience = _Audience(issuer, resource, required_scopes, leeway)

    @property
    def resource(self) -> str:
        """The audience a token must name: this MCP server's canonical URL."""
        return self._audience.resource

    @property
    def required_scopes(self) -> list[str]:
        """The scopes a token must carry, all of them."""
        return list(self._audience.required_scopes)

    async def verify_token(self, token: str) -> AccessToken | None:
        """The token's `AccessToken` when the issuer says it is active for this server with the scopes
        required; else None."""
        endpoint = self._endpoint or await self._issuer.endpoint("introspection_endpoint")
        if endpoint is None:
            logger.warning("%s publishes no introspection_endpoint; tokens cannot be checked", self.issuer)
            return None
        form = {"token": token, "token_type_hint": "access_token"}
        headers = {"Accept": "application/json"}
        if self.auth_method == "client_secret_basic":
            headers["Authorization"] = basic_credentials(self.client_id, self._secret)
        else:
            form |= {"client_id": self.client_id, "client_secret": self._secret}
        try:
            with anyio.fail_after(self.timeout):  # httpx's timeout is per read: this bounds it all
                async with httpx.AsyncClient(timeout=self.timeout) as http:
                    response = await http.post(endpoint, data=form, headers=headers)
            answer = response.json() if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError, TimeoutError) as error:
            logger.warning("introspection at %s failed: %s", self.issuer, type(error).__name__)
            return None
        if not isinstance(answer, dict):
            logger.warning("introspection at %s answered HTTP %s", self.issuer, response.status_code)
            return None
        if answer.get("active") is not True:
            return None
        answer.setdefault("iss", self.issuer)  # RFC 7662: iss is optional
        scopes = str(answer.get("scope", "")).split()
        if not self._audience.accepts(answer, scopes):
            return None
        return self._audience.access_token(token, answer, str(answer.get("client_id", "")), scopes)


def _canonical(url: str) -> str:
    return resource_url_from_server_url(url).rstrip("/")
