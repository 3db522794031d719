"""A tiny MCP server over stdio whose tools run as long as a test wants, for `elicitkit client`.

python tests/cli/held_stdio_server.py

`hold(path)` writes `path.started`, then runs until a file `path` exists (the test releases it)
and answers "released"; cancelled, it writes `path.cancelled` first. `vanish()` ends the server
in the middle of a call, as a server that crashes does.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("held-stdio")


@server.tool()
async def hold(path: str) -> str:
    """Run until the file `path` exists."""
    release = Path(path)
    Path(f"{path}.started").touch()
    try:
        while not release.exists():
            await asyncio.sleep(0.05)
    except asyncio.CancelledError:
        Path(f"{path}.cancelled").touch()
        raise
    return "released"


@server.tool()
async def vanish() -> str:
    """End the server in the middle of the call."""
    os._exit(3)


if __name__ == "__main__":
    server.run("stdio")
