"""The demo MCP server accepts only tokens its authorization server issued for it (RFC 8707):
a token for another resource, or for none, gets 401 with the SDK's `WWW-Authenticate`."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from elicitkit.demo.stage import running_stage

pytestmark = pytest.mark.timeout(60)

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
ACCEPT = {"Accept": "application/json, text/event-stream"}


async def test_demo_mcp_server_rejects_a_token_for_another_resource(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("ELICITKIT_VAULT_KEYS", raising=False)
    async with running_stage(tmp_path) as stage:
        mcp_url = stage.server.mcp_url
        mine = await stage.auth.token_for("alice", scopes=["mcp"], resource=mcp_url)
        other = await stage.auth.token_for("alice", scopes=["mcp"], resource="http://127.0.0.1:1/mcp")
        unbound = await stage.auth.token_for("alice", scopes=["mcp"])
        async with httpx.AsyncClient(timeout=10) as http:
            for refused in (other, unbound):
                answer = await http.post(
                    mcp_url, json=PING, headers={**ACCEPT, "Authorization": f"Bearer {refused.access_token}"}
                )
                assert answer.status_code == 401
                challenge = answer.headers["www-authenticate"]
                assert challenge.startswith("Bearer") and 'error="invalid_token"' in challenge
                assert "resource_metadata=" in challenge
            metadata = await http.get(f"{stage.server.url}/.well-known/oauth-protected-resource/mcp")
            assert metadata.json()["resource"] == mcp_url  # what clients ask tokens for
            accepted = await http.post(
                mcp_url,
                json={
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-11-25",
                        "capabilities": {},
                        "clientInfo": {"name": "t", "version": "1"},
                    },
                },
                headers={**ACCEPT, "Authorization": f"Bearer {mine.access_token}"},
            )
            assert accepted.status_code == 200, accepted.text


async def test_demo_introspection_verifier_for_a_resource_refuses_other_resources() -> None:
    from elicitkit.demo.auth_server import DemoAuthServer

    async with DemoAuthServer() as auth:
        mine, other = "http://127.0.0.1:9/mcp", "http://127.0.0.1:8/mcp"
        verifier = auth.introspection_verifier(resource=mine)
        for_me = await auth.token_for("bob", scopes=["mcp"], resource=mine)
        for_other = await auth.token_for("bob", scopes=["mcp"], resource=other)
        verified = await verifier.verify_token(for_me.access_token)
        assert verified is not None and verified.subject == "bob" and verified.resource == mine
        assert await verifier.verify_token(for_other.access_token) is None
        assert (
            await auth.introspection_verifier().verify_token(for_other.access_token) is not None
        )  # no resource: no check
