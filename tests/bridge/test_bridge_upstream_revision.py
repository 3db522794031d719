"""The bridge finds the revision its server speaks; nobody passes `--upstream-protocol`.

A 2025-11-25 host (the SDK's `mcp.Client` in legacy mode) in front of a server that speaks
2026-07-28 alone and holds every request to it (upstream_modern_only.py: a 2025-11-25
`initialize` is refused for its missing `MCP-Protocol-Version`): the bridge tries the host's
revision, is refused, speaks 2026-07-28 instead, and keeps what it found, so later host sessions
do not try again. The same server behind OAuth (panva's oidc-provider, as in
test_authorization.py): the bridge signs in, and every request of its own that reached the server
(the sign-in's metadata requests included) carried the header. The harness's own 2026-07-28 mock
servers do the same in test_bridge_conformance.py. And a sign-in within a 2025-11-25 session (the
server took its token back) asks for the server's metadata in 2025-11-25, not in the newest
revision the SDK knows, which a server holding its clients to the session's revision refuses.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from bridge_harness import HERE, PY, bridge_http, http_process, text_of
from mcp import Client
from mcp_types import UNSUPPORTED_PROTOCOL_VERSION
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Receive, Scope, Send
from support.oidc_peer import OidcPeer
from support.server_process import free_port
from support.url_harness import serve
from test_authorization import build_mcp
from test_authorization_errors import play
from upstream_modern_only import REVISION, ModernOnly

from elicitkit.bridge import Bridge, Upstream, upstream_auth

pytestmark = pytest.mark.timeout(300)


def refused_posts(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if line.startswith("refused POST")]


async def test_a_2025_host_reaches_a_2026_only_server_and_the_revision_is_found_once(tmp_path: Path) -> None:
    log = tmp_path / "upstream.log"
    with (
        http_process([PY, str(HERE / "upstream_modern_only.py"), "PORT"], log) as upstream,
        bridge_http([upstream], tmp_path / "bridge.log", "host") as bridge,
    ):
        said = []
        for text in ("first", "second", "third"):  # three host sessions, one upstream session each
            async with Client(bridge, mode="legacy") as host:
                assert host.protocol_version == "2025-11-25"
                said.append(text_of(await host.call_tool("echo", {"text": text})))
    assert said == ["first", "second", "third"]
    # One `initialize` tried, when the bridge started; from then on 2026-07-28 at once.
    assert refused_posts(log) == ["refused POST /mcp None initialize"]


@pytest.fixture
def peer_and_url() -> Iterator[tuple[OidcPeer, str]]:
    port = free_port()
    mcp = f"http://127.0.0.1:{port}/mcp"
    resources = {mcp: {"scope": "mcp", "format": "jwt"}}
    with OidcPeer(clients=[], resources=resources, scopes=["mcp"], registration=True) as peer:
        yield peer, mcp


async def test_the_sign_in_to_a_2026_only_server_carries_its_revision_on_every_request(
    peer_and_url: tuple[OidcPeer, str], tmp_path: Path
) -> None:
    peer, mcp = peer_and_url
    port = int(mcp.rsplit(":", 1)[1].split("/")[0])
    build = build_mcp(peer.issuer, mcp)
    modern: list[ModernOnly] = []

    def server(url: str) -> ModernOnly:
        modern.append(ModernOnly(build(url)))
        return modern[0]

    opener, seen = play(peer)
    auth = upstream_auth(mcp, data_dir=tmp_path, open_browser=opener)
    bridge = Bridge(Upstream(url=mcp, auth=auth), answer="host")
    async with serve(server, port), bridge.running(), Client(bridge.server, mode="legacy") as host:
        assert host.protocol_version == "2025-11-25"
        result = await host.call_tool("whoami", {})
    assert '"sub": "alice"' in text_of(result)
    assert seen[-1].status_code == 200 and "You can close this tab" in seen[-1].text  # signed in once
    [upstream] = modern
    metadata = [s for s in upstream.seen if s.path.startswith("/.well-known/")]
    assert metadata and all(s.version == REVISION for s in metadata)
    # The one request refused: the 2025-11-25 `initialize` the bridge tried first.
    assert [(s.method, s.path, s.version, s.called) for s in upstream.refused] == [
        ("POST", "/mcp", None, "initialize")
    ]


@dataclass
class HeldToItsRevision:
    """A 2025-11-25 server that, once a session is negotiated, holds every request to it (its
    OAuth metadata too), and takes back the bridge's first token after a call: so the bridge
    signs in again within a 2025-11-25 session. Every request's path and version is kept."""

    app: ASGIApp
    seen: list[tuple[str, str | None]] = field(default_factory=list)
    refused: list[tuple[str, str | None]] = field(default_factory=list)
    negotiated: bool = False
    revoked: bool = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        raw = headers.get(b"mcp-protocol-version")
        version = raw.decode() if raw is not None else None
        self.seen.append((scope["path"], version))
        if version == "2025-11-25":
            self.negotiated = True
        elif self.negotiated and version is not None:
            self.refused.append((scope["path"], version))
            error = {
                "code": UNSUPPORTED_PROTOCOL_VERSION,
                "message": f"Unsupported protocol version: {version}",
            }
            await JSONResponse({"jsonrpc": "2.0", "id": None, "error": error}, 400)(scope, receive, send)
            return
        if self.negotiated and not self.revoked and b"authorization" in headers and scope["method"] == "POST":
            self.revoked = True
            metadata = (
                f"{scope['scheme']}://{headers[b'host'].decode()}/.well-known/oauth-protected-resource/mcp"
            )
            challenge = f'Bearer error="invalid_token", resource_metadata="{metadata}"'
            await Response(status_code=401, headers={"WWW-Authenticate": challenge})(scope, receive, send)
            return
        await self.app(scope, receive, send)


async def test_a_sign_in_within_a_2025_session_asks_for_the_servers_metadata_in_its_revision(
    peer_and_url: tuple[OidcPeer, str], tmp_path: Path
) -> None:
    peer, mcp = peer_and_url
    port = int(mcp.rsplit(":", 1)[1].split("/")[0])
    build = build_mcp(peer.issuer, mcp)
    held: list[HeldToItsRevision] = []

    def server(url: str) -> HeldToItsRevision:
        held.append(HeldToItsRevision(build(url)))
        return held[0]

    opener, seen = play(peer)
    auth = upstream_auth(mcp, data_dir=tmp_path, open_browser=opener)
    bridge = Bridge(Upstream(url=mcp, auth=auth), answer="host")
    async with serve(server, port), bridge.running(), Client(bridge.server, mode="legacy") as host:
        result = await host.call_tool("whoami", {})
    assert '"sub": "alice"' in text_of(result)
    [upstream] = held
    assert upstream.revoked  # so the bridge signed in twice, the second time in a 2025-11-25 session
    assert len([page for page in seen if "You can close this tab" in page.text]) == 2
    assert ("/.well-known/oauth-protected-resource/mcp", "2025-11-25") in upstream.seen
    assert upstream.refused == []  # nothing of the bridge's own came in another revision
