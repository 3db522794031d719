"""Talking to a third-party provider as its OAuth client: authlib does the protocol.

Authorization URL with PKCE (S256), code exchange, refresh and revocation (RFC 7009), with
the provider's answers turned into `OAuthProviderError`s that carry a sentence and an error
code, never the provider's free text (it can be long, hostile, or hold secrets).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import httpx
import httpx2
from authlib.integrations.base_client import OAuthError  # type: ignore[import-untyped]
from authlib.integrations.httpx_client import AsyncOAuth2Client  # type: ignore[import-untyped]

from elicitkit.server._oauth_errors import OAuthProviderError
from elicitkit.server._oauth_metadata import ProviderMetadata

__all__ = ["ProviderClient", "safe_code"]

logger = logging.getLogger("elicitkit.server.oauth")

_ERROR_CODE = re.compile(r"^[a-z_]{1,40}$")
_NETWORK = (httpx.HTTPError, httpx2.HTTPError)
"""authlib speaks httpx2 (the SDK's HTTP client) when it is installed, httpx otherwise."""
_UNREADABLE = (*_NETWORK, ValueError, KeyError)
_GONE = frozenset({"invalid_grant", "invalid_token", "unauthorized_client"})
"""Refresh errors that mean the grant is over: the person has to connect again."""
_KEPT = ("access_token", "refresh_token", "expires_at", "token_type", "scope")


@dataclass(frozen=True)
class ProviderClient:
    """One connection's confidential client at one provider."""

    metadata: ProviderMetadata
    service: str
    client_id: str
    client_secret: str
    scopes: Sequence[str]
    redirect_uri: str
    auth_method: str | None = None
    resource: str | None = None

    async def authorization_url(self, state: str, verifier: str) -> str:
        async with self._oauth() as oauth:
            url, _ = oauth.create_authorization_url(
                self.metadata.authorization_endpoint, state=state, code_verifier=verifier, **self._extra()
            )
        return str(url)

    async def exchange(self, code: str, verifier: str) -> dict[str, Any]:
        """The tokens for an authorization code; `OAuthProviderError` with a sentence otherwise."""
        try:
            async with self._oauth() as oauth:
                token = await oauth.fetch_token(
                    self.metadata.token_endpoint,
                    grant_type="authorization_code",
                    code=code,
                    code_verifier=verifier,
                    **self._extra(),
                )
            return _kept(token)
        except OAuthError as error:
            logger.warning("OAuth code exchange refused by %s: %s", self.service, safe_code(error.error))
            raise OAuthProviderError(
                f"{self.service} refused the sign-in ({safe_code(error.error)}). Nothing was stored. "
                "Open the link from your application again to retry."
            ) from None
        except _UNREADABLE as error:
            logger.warning("OAuth code exchange with %s failed: %s", self.service, type(error).__name__)
            raise OAuthProviderError(
                f"{self.service} could not be reached or gave an answer we cannot read. "
                "Nothing was stored. Try again in a moment."
            ) from None

    async def refresh(self, refresh_token: str) -> dict[str, Any] | None:
        """Fresh tokens (the refresh token kept if none came back), or None when the grant is over."""
        try:
            async with self._oauth() as oauth:
                token = await oauth.refresh_token(self.metadata.token_endpoint, refresh_token=refresh_token)
            return {"refresh_token": refresh_token} | _kept(token)
        except OAuthError as error:
            logger.info("refresh at %s refused: %s", self.service, safe_code(error.error))
            if error.error in _GONE:  # revoked by the person, or run out
                return None
            raise OAuthProviderError(
                f"{self.service} refused to refresh the access token ({safe_code(error.error)}); "
                "try again later."
            ) from None
        except _UNREADABLE as error:
            raise OAuthProviderError(
                f"{self.service} could not be reached to refresh the access token "
                f"({type(error).__name__}); try again later."
            ) from None

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
                    answer = await oauth.revoke_token(endpoint, token=tokens[hint], token_type_hint=hint)
                    confirmed = confirmed and answer.status_code == 200
                except _NETWORK as error:
                    logger.warning("revocation at %s failed: %s", self.service, type(error).__name__)
                    confirmed = False
        return confirmed

    def _oauth(self) -> AsyncOAuth2Client:
        method = self.auth_method or _auth_method(self.metadata.token_endpoint_auth_methods)
        return AsyncOAuth2Client(
            client_id=self.client_id,
            client_secret=self.client_secret,
            token_endpoint_auth_method=method,
            revocation_endpoint_auth_method=method,
            scope=" ".join(self.scopes) or None,
            redirect_uri=self.redirect_uri,
            code_challenge_method="S256",
            timeout=10,
        )

    def _extra(self) -> dict[str, str]:
        return {"resource": self.resource} if self.resource else {}


def safe_code(error: object) -> str:
    """An OAuth error code safe to show and log (providers' free text is neither)."""
    text = str(error)
    return text if _ERROR_CODE.match(text) else "unknown_error"


def _auth_method(supported: Sequence[str]) -> str:
    for method in ("client_secret_basic", "client_secret_post"):
        if method in supported:
            return method
    return "client_secret_basic"


def _kept(token: Mapping[str, Any]) -> dict[str, Any]:
    """The parts of a token response worth keeping; a response without an access token is unreadable."""
    kept = {key: token[key] for key in _KEPT if token.get(key) is not None}
    if "access_token" not in kept:
        raise KeyError("access_token")
    return kept
