"""A conformance client with `elicitkit bridge` in front: what the official harness runs.

    python conformance_bridged_client.py MOCK_URL

The harness starts its mock server and runs this with its URL (MCP_CONFORMANCE_SCENARIO and
MCP_CONFORMANCE_PROTOCOL_VERSION in the environment). This starts `elicitkit bridge --answer
host --listen` in front of the mock server, speaking that revision upstream (a 2026-07-28 mock
server answers no `initialize`), and runs examples/conformance/client.py against the bridge:
the harness checks what reached its server through the bridge. Exits with the client's status.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main(upstream: str) -> int:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    command = [
        sys.executable,
        "-m",
        "elicitkit",
        "bridge",
        "--answer",
        "host",
        "--listen",
        f"127.0.0.1:{port}",
        "--no-credential",  # the harness's hosts send no credential
    ]
    revision = os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", "2025-11-25")
    bridge = subprocess.Popen([*command, "--upstream-protocol", revision, upstream], cwd=ROOT)
    try:
        deadline = time.monotonic() + 60
        while True:
            if bridge.poll() is not None:
                return 3
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    return 4
                time.sleep(0.1)
        client = [sys.executable, str(ROOT / "examples" / "conformance" / "client.py"), url]
        # The host in front speaks 2025-11-25, the one revision whose live questions a bridge
        # carries to a host; the bridge translates a 2026-07-28 server's rounds for it.
        env = {**os.environ, "MCP_CONFORMANCE_PROTOCOL_VERSION": "2025-11-25"}
        return subprocess.run(client, cwd=ROOT, env=env, check=False, timeout=120).returncode
    finally:
        bridge.terminate()
        try:
            bridge.wait(10)
        except subprocess.TimeoutExpired:
            bridge.kill()
            bridge.wait(10)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
