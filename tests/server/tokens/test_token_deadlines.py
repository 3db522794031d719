"""Every call a verifier makes to the issuer has one overall deadline, and a key refetch that
a stranger's token causes never holds up tokens whose key is known: against a real HTTP
issuer on 127.0.0.1 that sends its answers a byte at a time (so httpx's per-read timeout never
fires)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from joserfc import jwt
from joserfc.jwk import ECKey
from support.trickle_issuer import TrickleIssuer

from elicitkit.server._tokens import IntrospectionVerifier, JWTVerifier

pytestmark = pytest.mark.timeout(60)

RESOURCE = "https://mcp.example/mcp"
DISCOVERY = "/.well-known/oauth-authorization-server"
KEY = ECKey.generate_key("P-256", parameters={"kid": "k1"})
STRANGER = ECKey.generate_key("P-256", parameters={"kid": "someone-elses"})


def mint(issuer: str, key: ECKey, **claims: Any) -> str:
    now = int(time.time())
    payload = {"iss": issuer, "sub": "alice", "aud": RESOURCE, "exp": now + 300, "iat": now, "scope": "mcp"}
    return jwt.encode({"alg": "ES256", "typ": "at+jwt", "kid": key.kid}, payload | claims, key)


@asynccontextmanager
async def issuer(*keys: ECKey) -> AsyncIterator[TrickleIssuer]:
    async with TrickleIssuer(interval=0.2).running() as server:
        server.documents[DISCOVERY] = {
            "issuer": server.url,
            "jwks_uri": f"{server.url}/jwks",
            "introspection_endpoint": f"{server.url}/introspect",
        }
        server.documents["/jwks"] = {"keys": [key.as_dict(private=False) for key in keys or (KEY,)]}
        yield server


async def timed(verifier: Any, token: str) -> tuple[Any, float]:
    start = time.monotonic()
    with anyio.fail_after(15):  # the code before this fix took minutes here
        result = await verifier.verify_token(token)
    return result, time.monotonic() - start


@pytest.mark.parametrize("slow", [DISCOVERY, "/jwks"])
async def test_a_trickling_issuer_is_given_up_at_the_overall_deadline(slow: str) -> None:
    async with issuer() as server:
        server.slow = {slow}
        verifier = JWTVerifier(server.url, RESOURCE, timeout=1.0)
        result, took = await timed(verifier, mint(server.url, KEY))
        assert result is None
        assert took < 2.5, took


async def test_a_trickling_introspection_endpoint_is_given_up_at_the_overall_deadline() -> None:
    async with issuer() as server:
        server.documents["/introspect"] = {"active": True, "sub": "alice", "aud": RESOURCE, "exp": 2**31}
        server.slow = {"/introspect"}
        verifier = IntrospectionVerifier(server.url, RESOURCE, client_id="rs", client_secret="s", timeout=1.0)
        result, took = await timed(verifier, "opaque-token")
        assert result is None
        assert took < 2.5, took


async def test_a_strangers_unknown_key_never_holds_up_a_known_one() -> None:
    async with issuer() as server:
        verifier = JWTVerifier(server.url, RESOURCE, timeout=3.0, refetch_interval=0.5)
        valid = mint(server.url, KEY)
        assert (await timed(verifier, valid))[0] is not None  # the keys are cached now
        await anyio.sleep(0.6)  # a refetch is due again
        server.slow = {"/jwks"}
        strangers: list[Any] = []

        async def stranger() -> None:
            strangers.append((await timed(verifier, mint(server.url, STRANGER)))[0])

        async with anyio.create_task_group() as tasks:
            for _ in range(10):
                tasks.start_soon(stranger)
            await anyio.sleep(0.3)  # the refetch is under way, a byte at a time
            result, took = await timed(verifier, valid)
            assert result is not None and result.subject == "alice"
            assert took < 0.5, f"a token with a cached key waited {took:.1f} s behind a refetch"
        assert strangers == [None] * 10
        assert server.hits["/jwks"] == 2, "ten strangers' tokens share one refetch"


async def test_unknown_keys_are_refetched_at_most_once_per_interval() -> None:
    async with issuer() as server:
        verifier = JWTVerifier(server.url, RESOURCE)
        assert (await timed(verifier, mint(server.url, KEY)))[0] is not None
        for _ in range(20):
            assert (await timed(verifier, mint(server.url, STRANGER)))[0] is None
        assert server.hits["/jwks"] == 1


async def test_a_rotated_key_is_fetched_once_the_interval_has_passed() -> None:
    rotated = ECKey.generate_key("P-256", parameters={"kid": "k2"})
    async with issuer() as server:
        verifier = JWTVerifier(server.url, RESOURCE, refetch_interval=0.3)
        assert (await timed(verifier, mint(server.url, KEY)))[0] is not None
        server.documents["/jwks"] = {"keys": [rotated.as_dict(private=False)]}
        await anyio.sleep(0.4)
        result, _ = await timed(verifier, mint(server.url, rotated))
        assert result is not None and result.subject == "alice"
