"""A conformance client with `elicitkit bridge` in front: what the official harness runs.

    python conformance_bridged_client.py [--host elicitkit|mcp|ts-v1] [--pin REVISION] MOCK_URL

The harness starts its mock server and runs this with its URL (MCP_CONFORMANCE_SCENARIO and
MCP_CONFORMANCE_PROTOCOL_VERSION in the environment). This starts `elicitkit bridge --answer
host --listen` in front of the mock server, with no `--upstream-protocol` unless `--pin` gives
one (the bridge finds the revision the mock server speaks), and runs a host speaking 2025-11-25
against the bridge: the harness checks what reached its server through the bridge. Exits with
the host's status. It needs tests/ on PYTHONPATH (for bridge_harness), as under pytest.

The host: `elicitkit` is examples/conformance/client.py; `mcp` the SDK's `mcp.Client` pinned to
2025-11-25; `ts-v1` the TypeScript SDK v1 client (tests/peers/ts-sdk/bridge_host.mjs). Each
answers a form with the scenario's answer. For an `auth/*` scenario the host lists the tools
and calls `test-tool`, and the bridge signs in: its $BROWSER follows the authorization
server's redirect back to the bridge's callback (the harness's authorization server approves at
once), and its tokens go to a data folder of this run's own.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anyio
from bridge_harness import bridge_http, environment

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TS = ROOT / "tests" / "peers" / "ts-sdk"
MRTR_TOOLS = ["test_mrtr_echo_state", "test_mrtr_no_state", "test_mrtr_unrelated", "test_mrtr_no_result_type"]
"""sep-2322-client-request-state's tools, in the order its checks expect them called."""
CONFIRMED = {"confirmed": True}


def host_elicitkit(url: str) -> int:
    client = [sys.executable, str(ROOT / "examples" / "conformance" / "client.py"), url]
    # The host in front speaks 2025-11-25, the one revision whose live questions a bridge
    # carries to a host; the bridge translates a 2026-07-28 server's rounds for it.
    env = {**os.environ, "MCP_CONFORMANCE_PROTOCOL_VERSION": "2025-11-25"}
    return subprocess.run(client, cwd=ROOT, env=env, check=False, timeout=120).returncode


async def _mcp_host(url: str, tools: Sequence[str]) -> None:
    from mcp import Client
    from mcp_types import ElicitResult

    async def answer(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content=CONFIRMED)

    async with Client(url, elicitation_callback=answer, mode="legacy") as client:
        assert client.protocol_version == "2025-11-25", client.protocol_version
        listed = [tool.name for tool in (await client.list_tools()).tools]
        for tool in tools:
            assert tool in listed, listed
            result = await client.call_tool(tool, {})
            print(json.dumps({"tool": tool, "result": result.model_dump(mode="json", by_alias=True)}))
            assert not result.is_error, result


def host_mcp(url: str, tools: Sequence[str]) -> int:
    anyio.run(_mcp_host, url, tools)
    return 0


def host_ts_v1(url: str, tools: Sequence[str]) -> int:
    for tool in tools:
        command = [
            "node",
            "bridge_host.mjs",
            "v1",
            "http",
            url,
            tool,
            "form",
            "accept",
            json.dumps(CONFIRMED),
        ]
        done = subprocess.run(command, cwd=TS, capture_output=True, text=True, timeout=120, check=False)
        print(done.stdout, end="")
        print(done.stderr, end="", file=sys.stderr)
        if done.returncode != 0 or '"result"' not in done.stdout or '"isError":true' in done.stdout:
            return 5
    return 0


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--host", choices=["elicitkit", "mcp", "ts-v1"], default="elicitkit")
    parser.add_argument("--pin", help="--upstream-protocol for the bridge (none by default)")
    parser.add_argument("upstream")
    args = parser.parse_args(argv)
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    pinned = ["--upstream-protocol", args.pin] if args.pin else []
    with tempfile.TemporaryDirectory() as data:
        follow = f"{sys.executable} {HERE / 'follow_url.py'} %s"
        env = environment(XDG_DATA_HOME=data, BROWSER=follow)
        log = Path(data) / "bridge.log"
        try:
            with bridge_http([args.upstream], log, "host", *pinned, env=env) as url:
                if scenario.startswith("auth/"):
                    return host_mcp(url, ["test-tool"])
                if args.host == "mcp":
                    return host_mcp(url, MRTR_TOOLS)
                if args.host == "ts-v1":
                    return host_ts_v1(url, MRTR_TOOLS)
                return host_elicitkit(url)
        finally:
            print(log.read_text(errors="replace")[-3000:], file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
