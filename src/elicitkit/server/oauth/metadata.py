"""Where a third-party OAuth provider's endpoints are: given outright, or discovered.

Discovery follows RFC 8414 (`/.well-known/oauth-authorization-server`, path inserted after
the host) and falls back to OpenID Connect discovery (`/.well-known/openid-configuration`).
The document's `issuer` must equal the configured issuer exactly (RFC 8414 section 3.3), or a
document served elsewhere could point the flow at someone else's endpoints.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx

from elicitkit.server.oauth.errors import OAuthConfigError, OAuthProviderError

__all__ = ["ProviderMetadata", "discover", "discovery_urls", "is_secure", "refuse_own_server", "same_server"]

_DEADLINE = 10.0
"""Seconds a discovery may take in all."""


@dataclass(frozen=True)
class ProviderMetadata:
    """The endpoints (and facts) of one provider that a connection needs."""

    authorization_endpoint: str
    token_endpoint: str
    issuer: str | None = None
    revocation_endpoint: str | None = None
    token_endpoint_auth_methods: tuple[str, ...] = ()
    iss_in_response: bool = False
    """The provider adds `iss` to its authorization responses (RFC 9207): then we require it."""

    @classmethod
    def from_document(cls, document: dict[str, Any], *, issuer: str) -> ProviderMetadata:
        if document.get("issuer") != issuer:
            raise OAuthConfigError(
                f"The discovery document of {issuer} names the issuer {document.get('issuer')!r}; "
                "they must match exactly (RFC 8414). Check the issuer URL you configured."
            )
        for key in ("authorization_endpoint", "token_endpoint"):
            if not isinstance(document.get(key), str):
                raise OAuthConfigError(f"The discovery document of {issuer} has no {key}.")
        methods = document.get("code_challenge_methods_supported")
        if isinstance(methods, list) and "S256" not in methods:
            raise OAuthConfigError(
                f"{issuer} does not support PKCE with S256, which this library requires; "
                "use a provider that does."
            )
        auth_methods = document.get("token_endpoint_auth_methods_supported")
        revocation = document.get("revocation_endpoint")
        return cls(
            authorization_endpoint=document["authorization_endpoint"],
            token_endpoint=document["token_endpoint"],
            issuer=issuer,
            revocation_endpoint=revocation if isinstance(revocation, str) else None,
            token_endpoint_auth_methods=tuple(auth_methods) if isinstance(auth_methods, list) else (),
            iss_in_response=document.get("authorization_response_iss_parameter_supported") is True,
        ).checked()

    def checked(self) -> ProviderMetadata:
        """Refuse endpoints that would send codes or secrets in the clear."""
        for url in (self.authorization_endpoint, self.token_endpoint, self.revocation_endpoint):
            if url is not None and not is_secure(url):
                raise OAuthConfigError(
                    f"The provider endpoint {url} is not https; only loopback addresses may use http."
                )
        return self


def discovery_urls(issuer: str) -> list[str]:
    """Where RFC 8414 and OpenID Connect discovery look for `issuer`'s document, in order."""
    parts = urlsplit(issuer)
    origin, path = f"{parts.scheme}://{parts.netloc}", parts.path.rstrip("/")
    urls = [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{origin}/.well-known/openid-configuration{path}",
        f"{origin}{path}/.well-known/openid-configuration",
    ]
    return list(dict.fromkeys(urls))


async def discover(issuer: str) -> ProviderMetadata:
    """Fetch and check `issuer`'s metadata (RFC 8414, then OpenID Connect discovery)."""
    if not is_secure(issuer):
        raise OAuthConfigError(f"The issuer {issuer} is not https; only loopback addresses may use http.")
    try:
        with anyio.fail_after(_DEADLINE):  # httpx's timeout is per read: this bounds the whole look-up
            document = await _discovery_document(issuer)
    except TimeoutError:
        raise OAuthProviderError(
            f"{issuer} did not send its discovery document within {_DEADLINE:g} seconds; "
            "check the issuer URL and the network, or try again later."
        ) from None
    if document is None:
        raise OAuthConfigError(
            f"{issuer} publishes no OAuth discovery document (RFC 8414 or OpenID Connect); "
            "configure its endpoints explicitly instead."
        )
    return ProviderMetadata.from_document(document, issuer=issuer)


async def _discovery_document(issuer: str) -> dict[str, Any] | None:
    async with httpx.AsyncClient(timeout=_DEADLINE) as http:
        for url in discovery_urls(issuer):
            try:
                response = await http.get(url, headers={"Accept": "application/json"})
            except httpx.HTTPError as error:
                raise OAuthProviderError(
                    f"Could not reach {issuer} to discover its endpoints ({type(error).__name__}); "
                    "check the issuer URL and the network."
                ) from None
            if response.status_code == 200:
                try:
                    document = response.json()
                except ValueError:
                    continue
                if isinstance(document, dict):
                    return document
    return None


def refuse_own_server(
    metadata: ProviderMetadata,
    *,
    service: str,
    own_issuers: list[str],
    resource: str | None,
    public_url: str,
) -> None:
    """S-32: a connection's provider must not be the MCP server's own authorization server (or
    under it), and its `resource` must not be the MCP server itself."""
    urls = (metadata.issuer, metadata.authorization_endpoint, metadata.token_endpoint)
    for issuer in own_issuers:
        if any(url is not None and same_server(url, issuer) for url in urls):
            raise OAuthConfigError(
                f"The {service} connection points at {issuer}, the authorization server of "
                "this MCP server itself; URL mode must not be used to sign users in to the MCP "
                "server (S-32). Use MCP authorization for that, and OAuthConnection for third parties."
            )
    if resource and public_url and same_server(resource, public_url):
        raise OAuthConfigError(
            f"The {service} connection asks for a token for {resource}, this MCP server "
            "itself (S-32); an OAuthConnection is only for third-party resources."
        )


def same_server(url: str, issuer: str) -> bool:
    """Whether `url` is `issuer` itself or an endpoint under it (trailing slashes ignored)."""
    url, issuer = url.rstrip("/"), issuer.rstrip("/")
    return url == issuer or url.startswith(issuer + "/")


def is_secure(url: str) -> bool:
    parts = urlsplit(url)
    if parts.scheme == "https":
        return True
    if parts.scheme != "http":
        return False
    host = parts.hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
