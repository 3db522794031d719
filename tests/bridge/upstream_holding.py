"""The SDK's own `MCPServer` holding a call with -32042 (URL elicitation required) as the SDK
documents it, `raise UrlElicitationRequiredError([...])`, with no elicitkit server code:

    python upstream_holding.py stdio | python upstream_holding.py http PORT

Its `balance` tool always answers -32042 listing one URL, with a fixed id, so a test can hold the
error a host gets through the bridge against the one it gets from the server directly.
"""

from __future__ import annotations

import sys

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.shared.exceptions import UrlElicitationRequiredError
from mcp_types import ElicitRequestURLParams

mcp = MCPServer("Holding Upstream")

CONNECT = ElicitRequestURLParams(
    message="Connect your bank account first.",
    url="https://bank.example/connect?session=e-42",
    elicitation_id="e-42",
)


@mcp.tool()
async def balance() -> str:
    """Held until the bank account is connected (here: always)."""
    raise UrlElicitationRequiredError([CONNECT], "Connect your bank account, then call again.")


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        mcp.run("stdio")
    else:
        uvicorn.run(mcp.streamable_http_app(), host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
