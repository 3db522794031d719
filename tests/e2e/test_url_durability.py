"""Durability: the MCP server process is killed with SIGKILL after the record is created, then
started again on the same SQLite file and keys; alice completes the flow and the retry succeeds."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from mcp.shared.exceptions import MCPError
from support.url_harness import SECRET, bound_socket, fingerprint, mcp_session
from test_url_secret import auth, complete_in_browser, token, url_required

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.server._vault import KeyRing
from elicitkit.server.store._sqlite import SQLiteStore

__all__ = ["auth"]
pytestmark = pytest.mark.timeout(120)

HARNESS = Path(__file__).parents[1] / "support" / "url_harness.py"


async def _start(args: list[str], env: dict[str, str], base: str) -> subprocess.Popen[bytes]:
    process = subprocess.Popen([sys.executable, str(HARNESS), *args], env=env)
    async with httpx.AsyncClient() as http:
        for _ in range(300):
            if process.poll() is not None:
                raise RuntimeError(f"the server exited with {process.returncode}")
            with contextlib.suppress(httpx.HTTPError):
                if (await http.get(f"{base}/elicit/static/style.css")).status_code == 200:
                    return process
            await asyncio.sleep(0.1)
    process.kill()
    raise RuntimeError("the server did not start")


async def test_sigkill_after_record_created_then_complete_and_retry(
    auth: DemoAuthServer, tmp_path: Path
) -> None:
    sock = bound_socket()
    port = sock.getsockname()[1]
    sock.close()
    base = f"http://127.0.0.1:{port}"
    introspection = auth.register_client(client_name="weather introspection")
    spec = json.dumps(
        {
            "endpoint": f"{auth.url}/introspect",
            "client_id": introspection.client_id,
            "client_secret": introspection.client_secret,
        }
    )
    db = tmp_path / "durable.sqlite3"
    args = ["--port", str(port), "--db", str(db), "--issuer", auth.issuer, "--introspection", spec]
    env = {**os.environ, "ELICITKIT_VAULT_KEYS": KeyRing.generate("k1")}
    alice_token = await token(auth, "alice")

    first = await _start(args, env, base)
    session = contextlib.AsyncExitStack()
    try:
        alice = await session.enter_async_context(mcp_session(f"{base}/mcp", alice_token))
        with pytest.raises(MCPError) as raised:
            await alice.client.call_tool("forecast", {"city": "Paris"})
        url, elicitation_id = url_required(raised.value)
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)
    finally:
        if first.poll() is None:
            first.kill()
        with contextlib.suppress(Exception):  # the session died with its server
            await session.aclose()
    assert first.returncode == -signal.SIGKILL

    reader = SQLiteStore(db)
    record = await reader.get(elicitation_id)
    assert record is not None and record.state == "pending" and record.user.subject == "alice"
    await reader.close()

    second = await _start(args, env, base)
    try:
        await complete_in_browser(auth, url)
        async with mcp_session(f"{base}/mcp", alice_token) as alice:
            result = await alice.client.call_tool("forecast", {"city": "Paris"})
            assert not result.is_error, result
            assert fingerprint(SECRET) in result.content[0].text  # type: ignore[union-attr]
    finally:
        second.send_signal(signal.SIGTERM)
        try:
            second.wait(timeout=10)
        except subprocess.TimeoutExpired:
            second.kill()
    reader = SQLiteStore(db)
    final = await reader.get(elicitation_id)
    assert final is not None and final.state == "completed"
    await reader.close()
