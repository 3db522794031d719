"""UrlMode set-up checks that need no server."""

from __future__ import annotations

import pytest

from elicitkit.server.errors import UrlModeError
from elicitkit.server.identity import McpIdentity
from elicitkit.server.store import MemoryStore
from elicitkit.server.url_mode import UrlMode
from elicitkit.server.vault import KeyRing


def test_public_url_must_be_http_and_should_be_https(caplog: pytest.LogCaptureFixture) -> None:
    def make(url: str) -> UrlMode:
        return UrlMode(
            public_url=url,
            keys=KeyRing.from_string(KeyRing.generate()),
            store=MemoryStore(),
            identity=McpIdentity.single_user_local(),
        )

    with pytest.raises(UrlModeError, match="http"):
        make("javascript:alert(1)")
    make("http://127.0.0.1:8000")
    assert "plain http" not in caplog.text
    make("http://mcp.example.com")
    assert "plain http" in caplog.text


async def test_loopback_serves_the_pages_on_127_0_0_1() -> None:
    import httpx

    url_mode = UrlMode(
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
        identity=McpIdentity.single_user_local(),
    )
    async with url_mode.loopback() as base:
        assert base.startswith("http://127.0.0.1:")
        assert url_mode.site.url_for("abc") == f"{base}/elicit/abc"
        async with httpx.AsyncClient() as http:
            page = await http.get(f"{base}/elicit/{'x' * 40}")
    assert page.status_code == 404 and page.headers["x-frame-options"] == "DENY"


def test_flow_names_are_unique() -> None:
    from elicitkit.server.secret import Secret

    url_mode = UrlMode(
        keys=KeyRing.from_string(KeyRing.generate()),
        store=MemoryStore(),
        identity=McpIdentity.single_user_local(),
    )
    Secret(url_mode, "k", title="Key", message="why")
    with pytest.raises(UrlModeError, match="exists already"):
        Secret(url_mode, "k", title="Key", message="why")
