"""Where a third-party OAuth provider's endpoints are: given outright, or discovered.

Discovery follows RFC 8414 (`/.well-known/oauth-authorization-server`, path inserted after
the host) and falls back to OpenID Connect discovery (`/.well-known/openid-configuration`),
at the URLs the SDK's client builds. The document's `issuer` must equal the configured issuer
exactly (RFC 8414 section 3.3, compared as the SDK does), or a document served elsewhere could
point the flow at someone else's endpoints. `discovery_document` is the one fetch that every
part of elicitkit uses (third-party connections, browser sign-in, token verifiers).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import anyio
from mcp.client.auth import OAuthFlowError
from mcp.client.auth.utils import (
    build_oauth_authorization_server_metadata_discovery_urls,
    issuers_match,
    validate_authorization_response_iss,
)
from mcp.shared.auth import OAuthMetadata
from pydantic import ValidationError

from elicitkit.extras import needs
from elicitkit.server._oauth.errors import OAuthConfigError, OAuthProviderError

__all__ = [
    "ProviderMetadata",
    "discover",
    "discovery_document",
    "discovery_urls",
    "is_secure",
    "refuse_own_server",
    "same_server",
]

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
    registration_endpoint: str | None = None
    """Where a client registers itself (RFC 7591), when the provider offers it."""

    @classmethod
    def from_document(cls, document: dict[str, Any], *, issuer: str) -> ProviderMetadata:
        """The endpoints of a discovery document (read by the SDK's `OAuthMetadata`), whose
        `issuer` must be `issuer` and which must offer PKCE with S256."""
        _check_issuer(document, issuer)
        try:
            read = OAuthMetadata.model_validate(document)
        except ValidationError as error:
            field = ".".join(str(part) for part in error.errors()[0]["loc"])
            raise OAuthConfigError(
                f"The discovery document of {issuer} has no usable {field}; "
                "check the issuer URL you configured."
            ) from None
        if (
            read.code_challenge_methods_supported is not None
            and "S256" not in read.code_challenge_methods_supported
        ):
            raise OAuthConfigError(
                f"{issuer} does not support PKCE with S256, which this library requires; "
                "use a provider that does."
            )
        return cls(  # the document's own spelling of each URL: RFC 9207 compares strings as they are
            authorization_endpoint=document["authorization_endpoint"],
            token_endpoint=document["token_endpoint"],
            issuer=document["issuer"],
            revocation_endpoint=document["revocation_endpoint"] if read.revocation_endpoint else None,
            token_endpoint_auth_methods=tuple(read.token_endpoint_auth_methods_supported or ()),
            iss_in_response=read.authorization_response_iss_parameter_supported is True,
            registration_endpoint=document["registration_endpoint"] if read.registration_endpoint else None,
        ).checked()

    def answered_by_issuer(self, iss: str | None) -> bool:
        """Whether an authorization response's `iss` parameter says it came from this provider
        (RFC 9207, checked by the SDK): it must name the issuer when given, and be given when
        the provider promised it. Without a known issuer there is nothing to compare."""
        if self.issuer is None:
            return True
        promised: dict[str, Any] = {  # unvalidated: keeps the issuer's exact spelling
            "issuer": self.issuer,
            "authorization_response_iss_parameter_supported": self.iss_in_response,
        }
        issuer = OAuthMetadata.model_construct(**promised)
        try:
            validate_authorization_response_iss(iss, issuer)
        except OAuthFlowError:
            return False
        return True

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
    return build_oauth_authorization_server_metadata_discovery_urls(issuer, issuer)


async def discover(issuer: str) -> ProviderMetadata:
    """Fetch and check `issuer`'s metadata (RFC 8414, then OpenID Connect discovery)."""
    return ProviderMetadata.from_document(await discovery_document(issuer), issuer=issuer)


async def discovery_document(issuer: str, *, deadline: float = _DEADLINE) -> dict[str, Any]:
    """`issuer`'s discovery document as published (RFC 8414, then OpenID Connect), its `issuer`
    checked; within `deadline` seconds in all, however slowly the issuer answers.

    Raises:
        OAuthConfigError: `issuer` is not https, publishes no document, or its document names
            another issuer.
        OAuthProviderError: `issuer` could not be reached in time.
    """
    if not is_secure(issuer):
        raise OAuthConfigError(f"The issuer {issuer} is not https; only loopback addresses may use http.")
    try:
        with anyio.fail_after(deadline):  # httpx's timeout is per read: this bounds the whole look-up
            document = await _fetch(issuer, deadline)
    except TimeoutError:
        raise OAuthProviderError(
            f"{issuer} did not send its discovery document within {deadline:g} seconds; "
            "check the issuer URL and the network, or try again later."
        ) from None
    if document is None:
        raise OAuthConfigError(
            f"{issuer} publishes no OAuth discovery document (RFC 8414 or OpenID Connect); "
            "configure its endpoints explicitly instead."
        )
    _check_issuer(document, issuer)
    return document


def _check_issuer(document: dict[str, Any], issuer: str) -> None:
    named = document.get("issuer")
    if not isinstance(named, str) or not issuers_match(named, issuer):
        raise OAuthConfigError(
            f"The discovery document of {issuer} names the issuer {named!r}; "
            "they must match exactly (RFC 8414). Check the issuer URL you configured."
        )


async def _fetch(issuer: str, deadline: float) -> dict[str, Any] | None:
    with needs("oauth"):  # here, not at import: `import elicitkit.server` needs no HTTP client
        import httpx

    async with httpx.AsyncClient(timeout=deadline) as http:
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
    """Whether `url` is https, or http on a loopback address (for development); a URL that
    does not parse is not."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number raises here, not later
    except ValueError:
        return False
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
