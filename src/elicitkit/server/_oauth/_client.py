"""Talking to a third-party provider as its OAuth client: authlib does the protocol.

Authorization URL with PKCE (S256), code exchange, refresh and revocation (RFC 7009), with
the provider's answers turned into `OAuthProviderError`s that carry a sentence and an error
code, never the provider's free text (it can be long, hostile, or hold secrets).

Client authentication is the one configured or, failing that, the best the provider lists in
`token_endpoint_auth_methods_supported` that this client can do: `private_key_jwt` (RFC 7523)
with a private key, `client_secret_basic` (id and secret form-encoded before base64, RFC 6749
section 2.3.1) or `client_secret_post` with a secret, and `none` (a public client, PKCE only)
with neither. A refresh omits `scope`, so it asks for exactly what was granted (RFC 6749 §6).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import httpx2
from authlib.integrations.base_client import OAuthError  # type: ignore[import-untyped]
from authlib.integrations.httpx_client import AsyncOAuth2Client  # type: ignore[import-untyped]
from authlib.oauth2.rfc7523 import PrivateKeyJWT  # type: ignore[import-untyped]

from elicitkit.server._oauth.errors import (
    UNREADABLE,
    Explanation,
    OAuthConfigError,
    OAuthProviderError,
    explain,
)
from elicitkit.server._oauth.metadata import ProviderMetadata
from elicitkit.server._tokens import basic_credentials

__all__ = ["AUTH_METHODS", "ProviderClient", "choose_auth_method", "load_private_key", "safe_code"]

logger = logging.getLogger("elicitkit.server._oauth")

_ERROR_CODE = re.compile(r"^[a-z_]{1,40}$")
_NETWORK = (httpx.HTTPError, httpx2.HTTPError)
"""authlib speaks httpx2 (the SDK's HTTP client) when it is installed, httpx otherwise."""
_UNREADABLE = (*_NETWORK, ValueError, KeyError, TimeoutError)
DEADLINE = 10.0
"""Seconds one call to the provider may take in all (HTTP timeouts are per read: a provider
that trickles its answer would hold the call for ever without this)."""
_GONE = frozenset({"invalid_grant", "invalid_token", "unauthorized_client"})
"""Refresh errors that mean the grant is over: the person has to connect again."""
_KEPT = ("access_token", "refresh_token", "expires_at", "token_type", "scope")
AUTH_METHODS = ("private_key_jwt", "client_secret_basic", "client_secret_post", "none")
"""The token endpoint client authentication methods a connection can use, best first."""
_RESERVED = frozenset(
    {
        "client_id",
        "redirect_uri",
        "response_type",
        "state",
        "code_challenge",
        "code_challenge_method",
        "scope",
    }
)


@dataclass(frozen=True)
class ProviderClient:
    """One connection's confidential client at one provider."""

    metadata: ProviderMetadata
    service: str
    client_id: str
    client_secret: str | None
    scopes: Sequence[str]
    redirect_uri: str
    auth_method: str | None = None
    resource: str | None = None
    private_key: Any = None
    """A joserfc key (from `load_private_key`) for `private_key_jwt`."""
    authorization_params: Mapping[str, str] | None = None
    clock: Callable[[], float] = time.time
    """The wall clock a token's `expires_at` is stamped by (the `UrlMode`'s, which reads it)."""

    async def authorization_url(self, state: str, verifier: str) -> str:
        params = {**self._authorization_defaults(), **(self.authorization_params or {}), **self._extra()}
        async with self._oauth() as oauth:
            url, _ = oauth.create_authorization_url(
                self.metadata.authorization_endpoint, state=state, code_verifier=verifier, **params
            )
        return str(url)

    def _authorization_defaults(self) -> dict[str, str]:
        # OpenID Connect Core section 11: offline_access is ignored unless the person is asked
        # for consent, so a provider that follows it grants no refresh token without prompt=consent.
        return {"prompt": "consent"} if "offline_access" in self.scopes else {}

    @property
    def method(self) -> str:
        return choose_auth_method(
            self.auth_method,
            self.metadata.token_endpoint_auth_methods,
            has_secret=bool(self.client_secret),
            has_key=self.private_key is not None,
            service=self.service,
        )

    async def exchange(self, code: str, verifier: str) -> dict[str, Any]:
        """The tokens for an authorization code; `OAuthProviderError` with a sentence otherwise."""
        try:
            with anyio.fail_after(DEADLINE):
                async with self._oauth() as oauth:
                    token = await oauth.fetch_token(
                        self.metadata.token_endpoint,
                        grant_type="authorization_code",
                        code=code,
                        code_verifier=verifier,
                        **self._extra(),
                    )
        except OAuthError as error:
            logger.warning("OAuth code exchange refused by %s: %s", self.service, safe_code(error.error))
            raise OAuthProviderError(explain(self.service, safe_code(error.error), "token")) from None
        except _UNREADABLE as error:
            logger.warning("OAuth code exchange with %s failed: %s", self.service, type(error).__name__)
            raise OAuthProviderError(Explanation((UNREADABLE,), (("service", self.service),))) from None
        return self._kept(token)

    async def refresh(self, refresh_token: str) -> dict[str, Any] | None:
        """Fresh tokens (the refresh token kept if none came back), or None when the grant is over."""
        try:
            with anyio.fail_after(DEADLINE):
                async with self._oauth(scope=False) as oauth:  # no scope: exactly what was granted
                    token = await oauth.refresh_token(
                        self.metadata.token_endpoint, refresh_token=refresh_token, **self._extra()
                    )
        except OAuthError as error:
            logger.info("refresh at %s refused: %s", self.service, safe_code(error.error))
            if error.error in _GONE:  # revoked by the person, or run out
                return None
            raise OAuthProviderError(explain(self.service, safe_code(error.error), "refresh")) from None
        except _UNREADABLE as error:
            raise OAuthProviderError(
                f"{self.service} could not be reached to refresh the access token "
                f"({type(error).__name__}); try again later."
            ) from None
        return {"refresh_token": refresh_token} | self._kept(token)

    async def revoke(self, tokens: Mapping[str, Any]) -> bool:
        """Revoke the refresh and access tokens (RFC 7009); True when the provider confirmed both."""
        endpoint = self.metadata.revocation_endpoint
        if endpoint is None:
            return False
        confirmed = True
        async with self._oauth() as oauth:
            for hint in ("refresh_token", "access_token"):
                if not tokens.get(hint):
                    continue
                try:
                    with anyio.fail_after(DEADLINE):
                        answer = await oauth.revoke_token(endpoint, token=tokens[hint], token_type_hint=hint)
                    confirmed = confirmed and answer.status_code == 200
                except (*_NETWORK, TimeoutError) as error:
                    logger.warning("revocation at %s failed: %s", self.service, type(error).__name__)
                    confirmed = False
        return confirmed

    def _oauth(self, *, scope: bool = True) -> AsyncOAuth2Client:
        method = self.method
        oauth = AsyncOAuth2Client(
            client_id=self.client_id,
            client_secret=self.private_key if method == "private_key_jwt" else self.client_secret,
            token_endpoint_auth_method=method,
            revocation_endpoint_auth_method=method,
            scope=(" ".join(self.scopes) or None) if scope else None,
            redirect_uri=self.redirect_uri,
            code_challenge_method="S256",
            timeout=DEADLINE,
        )
        oauth.register_client_auth_method(("client_secret_basic", _encode_basic))
        if method == "private_key_jwt":
            oauth.register_client_auth_method(
                PrivateKeyJWT(self.metadata.token_endpoint, alg=_signing_alg(self.private_key))
            )
        return oauth

    def _extra(self) -> dict[str, str]:
        return {"resource": self.resource} if self.resource else {}

    def _kept(self, token: Mapping[str, Any]) -> dict[str, Any]:
        """The parts of a token response worth keeping, its expiry stamped by `clock`; a response
        without an access token is one we cannot read."""
        kept = {key: token[key] for key in _KEPT if token.get(key) is not None}
        if "access_token" not in kept:
            logger.warning("the token response of %s has no access_token", self.service)
            raise OAuthProviderError(Explanation((UNREADABLE,), (("service", self.service),)))
        if token.get("expires_in") is not None:  # read by authlib already; it stamps by the machine's clock
            kept["expires_at"] = self.clock() + int(token["expires_in"])
        return kept


def safe_code(error: object) -> str:
    """An OAuth error code safe to show and log (providers' free text is neither)."""
    text = str(error)
    return text if _ERROR_CODE.match(text) else "unknown_error"


def choose_auth_method(
    configured: str | None, supported: Sequence[str], *, has_secret: bool, has_key: bool, service: str
) -> str:
    """The configured method (checked against what the client holds), or the best one both sides can do."""
    possible = [
        method
        for method, can in zip(
            AUTH_METHODS, (has_key, has_secret, has_secret, not has_key and not has_secret), strict=True
        )
        if can
    ]
    if configured is not None:
        if configured not in AUTH_METHODS:
            raise OAuthConfigError(
                f"token_endpoint_auth_method {configured!r} is not one of {', '.join(AUTH_METHODS)}."
            )
        if configured not in possible:
            need = {"private_key_jwt": "a private_key", "none": "neither a secret nor a key"}
            raise OAuthConfigError(
                f"The {service} connection is set to {configured}, which needs "
                f"{need.get(configured, 'a client_secret')}; give that, or choose another method."
            )
        return configured
    if not supported:  # RFC 8414: the default is client_secret_basic
        return possible[0]
    for method in possible:
        if method in supported:
            return method
    raise OAuthConfigError(
        f"{service} accepts the client authentication methods {', '.join(supported)}, and this "
        f"connection can only do {', '.join(possible)}; configure a client secret or private key "
        "that the provider accepts."
    )


def check_authorization_params(params: Mapping[str, str]) -> dict[str, str]:
    """Extra authorization request parameters, refused when they would replace what the flow sets."""
    clash = sorted(set(params) & _RESERVED)
    if clash:
        raise OAuthConfigError(
            f"authorization_params may not set {', '.join(clash)}: the connection sets those itself "
            "(scopes go in scopes=)."
        )
    return {str(key): str(value) for key, value in params.items()}


def load_private_key(key: Any) -> Any:
    """A private key for `private_key_jwt`: a PEM string or a JWK dict (RSA, EC or OKP)."""
    from joserfc import jwk
    from joserfc.errors import JoseError

    if isinstance(key, Mapping):
        try:
            return jwk.import_key(dict(key))
        except (JoseError, ValueError, TypeError) as error:
            raise OAuthConfigError(
                f"private_key is not a usable private JWK ({type(error).__name__})."
            ) from None
    for kind in ("RSA", "EC", "OKP"):
        try:
            loaded = jwk.import_key(str(key), kind)
        except (JoseError, ValueError, TypeError):
            continue
        if loaded.is_private:
            return loaded
    raise OAuthConfigError("private_key must be a private RSA, EC or Ed25519 key as PEM text or a JWK.")


def _signing_alg(key: Any) -> str:
    kty = getattr(key, "key_type", "RSA")
    if kty == "EC":
        curve = key.as_dict().get("crv")
        return {"P-256": "ES256", "P-384": "ES384", "P-521": "ES512"}.get(curve, "ES256")
    return "EdDSA" if kty == "OKP" else "RS256"


def _encode_basic(
    client: Any, method: str, uri: str, headers: dict[str, str], body: str
) -> tuple[str, dict[str, str], str]:
    """authlib's client_secret_basic, with the form-encoding RFC 6749 section 2.3.1 requires."""
    headers["Authorization"] = basic_credentials(client.client_id, client.client_secret or "")
    return uri, headers, body
