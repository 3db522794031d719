"""What a token's registered claims must say before a verifier accepts it: its issuer, this
server as (one of) its audience(s), a subject, and times that hold now within the leeway.
Tokens are signed here and checked against a real HTTP issuer on 127.0.0.1 that publishes
the key; the introspection verifier applies the same rules to the issuer's answer."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from joserfc import jwt
from joserfc.jwk import ECKey
from support.trickle_issuer import TrickleIssuer

from elicitkit.server._tokens import IntrospectionVerifier, JWTVerifier

pytestmark = pytest.mark.timeout(60)

RESOURCE = "https://mcp.example/mcp"
KEY = ECKey.generate_key("P-256", parameters={"kid": "k1"})
MISSING = object()


@asynccontextmanager
async def serving() -> AsyncIterator[TrickleIssuer]:
    async with TrickleIssuer(interval=0.01).running() as server:
        server.documents["/.well-known/oauth-authorization-server"] = {
            "issuer": server.url,
            "jwks_uri": f"{server.url}/jwks",
            "introspection_endpoint": f"{server.url}/introspect",
        }
        server.documents["/jwks"] = {"keys": [KEY.as_dict(private=False)]}
        yield server


def claims(issuer: str, **changes: Any) -> dict[str, Any]:
    now = int(time.time())
    base = {"iss": issuer, "sub": "alice", "aud": RESOURCE, "exp": now + 300, "iat": now, "scope": "mcp"}
    return {k: v for k, v in (base | changes).items() if v is not MISSING}


def mint(payload: dict[str, Any]) -> str:
    return jwt.encode({"alg": "ES256", "typ": "at+jwt", "kid": KEY.kid}, payload, KEY)


ACCEPTED = {
    "aud as a list naming this server": {"aud": ["https://other.example/mcp", RESOURCE]},
    "aud spelled differently but canonically this server": {"aud": "HTTPS://MCP.example/mcp/"},
    "exp passed but within the leeway": {"exp": -10},
    "nbf in the future but within the leeway": {"nbf": 10},
    "nbf passed": {"nbf": -60},
    "iat slightly ahead (clock skew)": {"iat": 10},
}
REFUSED = {
    "aud as a list without this server": {"aud": ["https://other.example/mcp"]},
    "aud missing": {"aud": MISSING},
    "aud empty": {"aud": []},
    "aud not strings": {"aud": [RESOURCE, 7]},
    "exp missing": {"exp": MISSING},
    "exp passed beyond the leeway": {"exp": -120},
    "exp not a number": {"exp": "tomorrow"},
    "exp a boolean": {"exp": True},
    "nbf in the future beyond the leeway": {"nbf": 120},
    "iat in the future beyond the leeway": {"iat": 3600},
    "sub missing": {"sub": MISSING},
    "sub empty": {"sub": ""},
    "sub not a string": {"sub": 42},
    "iss another issuer": {"iss": "https://elsewhere.example"},
    "iss missing": {"iss": MISSING},
}
TIMES = ("exp", "nbf", "iat")


def relative(changes: dict[str, Any]) -> dict[str, Any]:
    """Times in the tables are seconds from now."""
    now = int(time.time())
    return {
        k: now + v if k in TIMES and isinstance(v, int) and not isinstance(v, bool) else v
        for k, v in changes.items()
    }


@pytest.mark.parametrize("changes", ACCEPTED.values(), ids=ACCEPTED.keys())
async def test_jwt_accepted(changes: dict[str, Any]) -> None:
    async with serving() as issuer:
        verifier = JWTVerifier(issuer.url, RESOURCE, leeway=30)
        verified = await verifier.verify_token(mint(claims(issuer.url, **relative(changes))))
    assert verified is not None and verified.subject == "alice"


@pytest.mark.parametrize("changes", REFUSED.values(), ids=REFUSED.keys())
async def test_jwt_refused(changes: dict[str, Any]) -> None:
    async with serving() as issuer:
        verifier = JWTVerifier(issuer.url, RESOURCE, leeway=30)
        assert await verifier.verify_token(mint(claims(issuer.url, **relative(changes)))) is None


@pytest.mark.parametrize(
    ("changes", "accepted"),
    [
        ({}, True),
        ({"iss": MISSING}, True),  # RFC 7662: iss is optional; the issuer asked is the issuer
        ({"aud": ["https://other.example/mcp", RESOURCE]}, True),
        ({"aud": ["https://other.example/mcp"]}, False),
        ({"nbf": 120}, False),
        ({"exp": -120}, False),
        ({"sub": MISSING}, False),
        ({"iss": "https://elsewhere.example"}, False),
    ],
)
async def test_introspection_answer_claims(changes: dict[str, Any], accepted: bool) -> None:
    async with serving() as issuer:
        issuer.documents["/introspect"] = {"active": True} | claims(issuer.url, **relative(changes))
        verifier = IntrospectionVerifier(issuer.url, RESOURCE, client_id="rs", client_secret="s", leeway=30)
        assert ((await verifier.verify_token("opaque")) is not None) == accepted
