"""`--answer host`: a -32042 (URL elicitation required) reaches the host as the server sent it.

The host answers everything under `--answer host`, a held call included: the bridge does not
ask consent or wait for the URLs itself, and the host's error has the server's own code, message
and data. The servers are stock ones nobody here wrote: the reference "everything" server (the
TypeScript SDK v1, its `trigger-url-elicitation` tool with `errorPath`) over stdio, and the
Python SDK's `MCPServer` raising `UrlElicitationRequiredError` (upstream_holding.py) over stdio
and over HTTP. The host is the SDK's `mcp.Client`, which declares URL mode with its callback; on
HTTP a host that declares no elicitation gets the same error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bridge_harness import HERE, PY, ROOT, bridge_http, bridge_stdio, http_process
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import URL_ELICITATION_REQUIRED, ElicitResult

pytestmark = [pytest.mark.timeout(300), pytest.mark.filterwarnings("ignore::DeprecationWarning")]

EVERYTHING = [
    "node",
    str(ROOT / "tests/peers/everything/node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
    "stdio",
]
HOLDING = [PY, str(HERE / "upstream_holding.py")]
ERROR_PATH = {"url": "https://example.com/connect", "errorPath": True}


class Host:
    """A host that declares URL mode (and forms) and would accept anything it is asked."""

    def __init__(self) -> None:
        self.asked: list[Any] = []

    async def __call__(self, context: Any, params: Any) -> ElicitResult:
        self.asked.append(params)
        return ElicitResult(action="accept")


async def held(target: Any, tool: str, arguments: dict[str, Any], host: Host | None) -> MCPError:
    """The error the host gets for one call of `tool`."""
    async with Client(target, elicitation_callback=host, mode="legacy") as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool(tool, arguments)
    return raised.value


def as_sent(error: MCPError, *, ids: bool = True) -> tuple[int, str, Any]:
    """What the wire carried: code, message, data (with the elicitation ids blanked when the
    server makes a fresh one for each call)."""
    data: Any = error.error.data
    if not ids:
        data = {"elicitations": [{**e, "elicitationId": "<uuid>"} for e in data["elicitations"]]}
        assert all(len(e["elicitationId"]) == 36 for e in error.error.data["elicitations"])
    return error.code, error.error.message, data


async def test_the_everything_servers_32042_reaches_the_host_over_stdio_as_sent() -> None:
    tool = "trigger-url-elicitation"  # listed only to a client that declared URL mode
    direct = await held(
        StdioServerParameters(command=EVERYTHING[0], args=EVERYTHING[1:]), tool, ERROR_PATH, Host()
    )
    host = Host()
    bridged = await held(bridge_stdio(EVERYTHING, "host"), tool, ERROR_PATH, host)
    assert bridged.code == URL_ELICITATION_REQUIRED
    assert as_sent(bridged, ids=False) == as_sent(direct, ids=False)
    assert host.asked == []  # the bridge asked nothing of its own: the error is the host's to answer


async def test_the_sdk_servers_32042_reaches_the_host_over_stdio_as_sent() -> None:
    direct = await held(
        StdioServerParameters(command=PY, args=[*HOLDING[1:], "stdio"]), "balance", {}, Host()
    )
    host = Host()
    bridged = await held(bridge_stdio([*HOLDING, "stdio"], "host"), "balance", {}, host)
    assert bridged.code == URL_ELICITATION_REQUIRED
    assert as_sent(bridged) == as_sent(direct)
    assert bridged.error.data["elicitations"][0]["elicitationId"] == "e-42"
    assert host.asked == []


@pytest.mark.parametrize("declared", ["url", "nothing"])
async def test_the_sdk_servers_32042_reaches_the_host_over_http_as_sent(
    declared: str, tmp_path: Path
) -> None:
    with (
        http_process([*HOLDING, "http", "PORT"], tmp_path / "upstream.log") as upstream,
        bridge_http([upstream], tmp_path / "bridge.log", "host") as bridge,
    ):
        host = Host() if declared == "url" else None
        direct = await held(upstream, "balance", {}, host)
        bridged = await held(bridge, "balance", {}, host)
    assert bridged.code == URL_ELICITATION_REQUIRED
    assert as_sent(bridged) == as_sent(direct)
    assert host is None or host.asked == []
