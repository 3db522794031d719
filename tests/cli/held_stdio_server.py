"""A tiny MCP server over stdio whose tools run as long as a test wants, for `elicitkit client`.

python tests/cli/held_stdio_server.py

`hold(path)` writes `path.started`, holding the client's PID (the server is its child), then
runs until a file `path` exists (the test releases it) and answers "released"; cancelled, it
writes `path.cancelled` first. `vanish()` ends the server in the middle of a call, as a server
that crashes does; `leave(path)` answers, then a moment later ends the server, writing its own
PID to `path` as it goes (between calls, as a server that is stopped).
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from mcp.server.mcpserver import MCPServer

server = MCPServer("held-stdio")


def _write(path: Path, pid: int) -> None:
    """Write `pid` whole, so that the file never shows up empty."""
    path.with_name(path.name + ".tmp").write_text(str(pid))
    path.with_name(path.name + ".tmp").replace(path)


@server.tool()
async def hold(path: str) -> str:
    """Run until the file `path` exists."""
    release = Path(path)
    _write(Path(f"{path}.started"), os.getppid())
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


@server.tool()
async def leave(path: str) -> str:
    """Answer, then end the server once the answer is out."""

    def go() -> None:
        _write(Path(path), os.getpid())
        os._exit(3)

    asyncio.get_running_loop().call_later(1.0, go)
    return "leaving"


if __name__ == "__main__":
    server.run("stdio")
