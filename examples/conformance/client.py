"""The conformance client: elicitkit's client against the official harness's mock servers.

The harness runs `python examples/conformance/client.py <url>` with MCP_CONFORMANCE_SCENARIO
(and MCP_CONFORMANCE_PROTOCOL_VERSION) set, and expects exit code 0. A `ScriptedUI` stands in
for the person: it accepts each form as pre-filled from the schema's defaults.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Awaitable, Callable

import anyio
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from elicitkit.client import ElicitationConfig, ElicitingClient, ScriptedUI, accept_prefilled

Scenario = Callable[[ElicitingClient], Awaitable[None]]


async def sep1034_client_defaults(client: ElicitingClient) -> None:
    """2025-11-25: call the tool; the form comes back accepted with every default filled in."""
    result = await client.call_tool("test_client_elicitation_defaults", {})
    print(result.content[0].text if result.content else result)  # type: ignore[union-attr]


async def sep2322_client_request_state(client: ElicitingClient) -> None:
    """2026-07-28: the SDK echoes requestState byte-exact with a new id; each tool once, in order."""
    await client.list_tools()
    for tool in (
        "test_mrtr_echo_state",
        "test_mrtr_no_state",
        "test_mrtr_unrelated",
        "test_mrtr_no_result_type",
    ):
        result = await client.call_tool(tool, {})
        print(tool, "->", result.content[0].text if result.content else result)  # type: ignore[union-attr]


SCENARIOS: dict[str, Scenario] = {
    "elicitation-sep1034-client-defaults": sep1034_client_defaults,
    "sep-2322-client-request-state": sep2322_client_request_state,
}


async def main(url: str, scenario: str, version: str) -> None:
    # The harness's mock server asks from inside its tool with no `relatedRequestId`, so its
    # question arrives on the standalone GET stream while the call is open: the config's
    # defaults take it as that call's, the only one open (C-03).
    config = ElicitationConfig(ScriptedUI(otherwise=accept_prefilled), modes=("form",))
    mode = "legacy" if version in HANDSHAKE_PROTOCOL_VERSIONS else (version or "auto")
    async with config.connect(url, mode=mode) as client:
        await SCENARIOS[scenario](client)


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING)
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    if len(sys.argv) != 2 or scenario not in SCENARIOS:
        sys.exit(f"usage: MCP_CONFORMANCE_SCENARIO=<{'|'.join(SCENARIOS)}> client.py <server url>")
    anyio.run(main, sys.argv[1], scenario, os.environ.get("MCP_CONFORMANCE_PROTOCOL_VERSION", ""))
