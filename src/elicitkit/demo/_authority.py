"""The in-memory heart of both demo OAuth servers: clients, sign-in requests, codes, tokens.

It implements the SDK's `OAuthAuthorizationServerProvider`, so the SDK's own handlers do the
protocol (PKCE S256 check, redirect_uri comparison, client authentication, error shapes) and
this class only keeps state. Codes are single-use and short-lived; a replayed code or a
rotated-away refresh token revokes every token of its grant (OAuth 2.1 section 4.3 and 6.1).
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    OAuthAuthorizationServerProvider,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken


@dataclass(frozen=True)
class SignInRequest:
    """An /authorize request waiting for a person to sign in (and consent)."""

    id: str
    client: OAuthClientInformationFull
    params: AuthorizationParams
    scopes: list[str]
    expires_at: float


class Authority(OAuthAuthorizationServerProvider[AuthorizationCode, RefreshToken, AccessToken]):
    """What a demo authorization server remembers, in memory, for as long as it runs."""

    def __init__(
        self, *, access_token_lifetime: int, code_lifetime: int = 60, sign_in_lifetime: int = 600
    ) -> None:
        self.issuer = ""
        self.access_token_lifetime = access_token_lifetime
        self.code_lifetime = code_lifetime
        self.sign_in_lifetime = sign_in_lifetime
        self.refuse_refresh = False
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self._sign_ins: dict[str, SignInRequest] = {}
        self._codes: dict[str, AuthorizationCode] = {}
        self._access: dict[str, AccessToken] = {}
        self._refresh: dict[str, RefreshToken] = {}
        self._grant_of: dict[str, str] = {}  # code or token -> the grant it belongs to
        self._spent: set[str] = set()  # codes already exchanged, refresh tokens already rotated

    # -- clients ---------------------------------------------------------------------------

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = client_info

    # -- the person signs in -----------------------------------------------------------------

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        registered = client.scope.split() if client.scope else []
        request = SignInRequest(
            id=secrets.token_urlsafe(32),
            client=client,
            params=params,
            scopes=params.scopes if params.scopes is not None else registered,
            expires_at=time.time() + self.sign_in_lifetime,
        )
        self._sign_ins[request.id] = request
        return f"{self.issuer}/login?{urlencode({'request': request.id})}"

    def sign_in_request(self, request_id: str) -> SignInRequest | None:
        """The waiting request with this id, unless it is unknown or too old."""
        request = self._sign_ins.get(request_id)
        if request is None or request.expires_at < time.time():
            self._sign_ins.pop(request_id, None)
            return None
        return request

    def approve(self, request: SignInRequest, subject: str) -> str:
        """Issue a code for `subject`; the URL sends the browser back to the client with it."""
        del self._sign_ins[request.id]
        code = AuthorizationCode(
            code=secrets.token_urlsafe(32),
            scopes=request.scopes,
            expires_at=time.time() + self.code_lifetime,
            client_id=request.client.client_id,
            code_challenge=request.params.code_challenge,
            redirect_uri=request.params.redirect_uri,
            redirect_uri_provided_explicitly=request.params.redirect_uri_provided_explicitly,
            resource=request.params.resource,
            subject=subject,
        )
        self._codes[code.code] = code
        return construct_redirect_uri(
            str(request.params.redirect_uri), code=code.code, state=request.params.state, iss=self.issuer
        )

    def deny(self, request: SignInRequest) -> str:
        """The URL that tells the client the person said no (RFC 6749 section 4.1.2.1)."""
        del self._sign_ins[request.id]
        return construct_redirect_uri(
            str(request.params.redirect_uri),
            error="access_denied",
            error_description="The person declined to sign in.",
            state=request.params.state,
            iss=self.issuer,
        )

    # -- codes and tokens ------------------------------------------------------------------

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        if authorization_code in self._spent:
            self._revoke_grant(self._grant_of.get(authorization_code))
            return None
        return self._codes.get(authorization_code)

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        code = self._codes.pop(authorization_code.code, None)
        if code is None:
            raise TokenError("invalid_grant", "The authorization code was already used.")
        self._spent.add(code.code)
        self._grant_of[code.code] = code.code
        return self._issue(client, code.scopes, code.subject, code.resource, grant=code.code)

    async def load_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: str
    ) -> RefreshToken | None:
        if refresh_token in self._spent:
            self._revoke_grant(self._grant_of.get(refresh_token))
            return None
        return self._refresh.get(refresh_token)

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        if self.refuse_refresh:
            raise TokenError("invalid_grant", "This demo server was told to refuse refresh tokens.")
        del self._refresh[refresh_token.token]
        self._spent.add(refresh_token.token)
        grant = self._grant_of[refresh_token.token]
        return self._issue(client, scopes, refresh_token.subject, refresh_token.resource, grant=grant)

    async def load_access_token(self, token: str) -> AccessToken | None:
        access = self._access.get(token)
        if access is None or (access.expires_at is not None and access.expires_at <= time.time()):
            return None
        return access

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self._revoke_grant(self._grant_of.get(token.token))

    def expire_access_tokens(self) -> None:
        """Make every access token issued so far expired now; refresh tokens stay valid."""
        expired = int(time.time()) - 1
        for token, access in self._access.items():
            self._access[token] = access.model_copy(update={"expires_at": expired})

    def introspect(self, token: str) -> dict[str, Any]:
        """RFC 7662's answer for an access token: `active` and, when active, who and for what."""
        access = self._access.get(token)
        if access is None or (access.expires_at is not None and access.expires_at <= time.time()):
            return {"active": False}
        claims = access.claims or {}
        answer: dict[str, Any] = {
            "active": True,
            "token_type": "Bearer",
            "client_id": access.client_id,
            "client_name": claims.get("client_name"),  # as registered (RFC 7591): what pages show
            "scope": " ".join(access.scopes),
            "sub": access.subject,
            "username": access.subject,
            "iss": claims.get("iss"),
            "iat": claims.get("iat"),
            "exp": access.expires_at,
            "aud": access.resource,
        }
        return {key: value for key, value in answer.items() if value is not None}

    def _issue(
        self,
        client: OAuthClientInformationFull,
        scopes: list[str],
        subject: str | None,
        resource: str | None,
        *,
        grant: str,
    ) -> OAuthToken:
        now = int(time.time())
        access = AccessToken(
            token=secrets.token_urlsafe(32),
            client_id=client.client_id,
            scopes=scopes,
            expires_at=now + self.access_token_lifetime,
            resource=resource,
            subject=subject,
            claims={"iss": self.issuer, "sub": subject, "iat": now}
            | ({"client_name": client.client_name} if client.client_name else {}),
        )
        self._access[access.token] = access
        self._grant_of[access.token] = grant
        refresh: RefreshToken | None = None
        if "refresh_token" in client.grant_types:
            refresh = RefreshToken(
                token=secrets.token_urlsafe(32),
                client_id=client.client_id,
                scopes=scopes,
                resource=resource,
                subject=subject,
            )
            self._refresh[refresh.token] = refresh
            self._grant_of[refresh.token] = grant
        return OAuthToken(
            access_token=access.token,
            expires_in=self.access_token_lifetime,
            scope=" ".join(scopes),
            refresh_token=refresh.token if refresh else None,
        )

    def _revoke_grant(self, grant: str | None) -> None:
        if grant is None:
            return
        for token in [token for token, owner in self._grant_of.items() if owner == grant]:
            self._access.pop(token, None)
            self._refresh.pop(token, None)
