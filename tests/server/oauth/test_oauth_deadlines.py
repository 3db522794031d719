"""A provider that sends its discovery document a byte at a time (so httpx's per-read timeout
never fires) is given up at one overall deadline, with the documented `OAuthProviderError`:
against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import time

import anyio
import pytest
from support.trickle_issuer import TrickleIssuer

from elicitkit.server.oauth import OAuthProviderError
from elicitkit.server.oauth.metadata import discover

pytestmark = pytest.mark.timeout(60)


async def test_a_trickling_discovery_ends_in_a_provider_error_within_its_deadline() -> None:
    async with TrickleIssuer(interval=0.5).running() as server:
        path = "/.well-known/oauth-authorization-server"
        server.documents[path] = {
            "issuer": server.url,
            "authorization_endpoint": f"{server.url}/authorize",
            "token_endpoint": f"{server.url}/token",
            "padding": "x" * 200,  # 100 s a byte at a time
        }
        server.slow = {path}
        start = time.monotonic()
        with anyio.fail_after(30), pytest.raises(OAuthProviderError) as raised:
            await discover(server.url)
        took = time.monotonic() - start
    assert 9 < took < 12, took
    assert "within 10 seconds" in str(raised.value)
