"""FastMCP's tasks extension (PyPI `fastmcp-tasks` 4.1.4) as a real peer, in its own venv.

fastmcp-tasks pins a FastMCP other than elicitkit's, so scripts/setup installs it into
tests/peers/fastmcp-tasks/.venv; `serving()` runs that folder's `server.py` (a task tool that
asks for input) on a free port and yields its MCP URL.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from support.server_process import free_port, stop, wait_until_serving

__all__ = ["PEER", "PYTHON", "serving"]

PEER = Path(__file__).parents[1] / "peers" / "fastmcp-tasks"
PYTHON = PEER / ".venv" / "bin" / "python"


@contextmanager
def serving(log: Path) -> Iterator[str]:
    """The peer's server on 127.0.0.1, its output in `log`; yields its URL."""
    assert PYTHON.exists(), "the fastmcp-tasks peer is not installed; run scripts/setup"
    port = free_port()
    with log.open("wb") as out:
        process = subprocess.Popen([str(PYTHON), "server.py", str(port)], cwd=PEER, stdout=out, stderr=out)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_until_serving(process, url, log)
        yield url
    finally:
        stop(process)
