"""Start examples/quickstart/server.py for a test: `from quickstart_server import quickstart_server`.

A plain module, not conftest.py, because several test folders have a conftest of their own.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from support.server_process import free_port, stop, wait_until_serving


@contextmanager
def quickstart_server() -> Iterator[str]:
    """examples/quickstart/server.py as its own process on a free port; yields its MCP URL."""
    port = free_port()
    server = Path(__file__).resolve().parents[2] / "examples" / "quickstart" / "server.py"
    process = subprocess.Popen([sys.executable, str(server), str(port)])
    try:
        wait_until_serving(process, f"http://127.0.0.1:{port}/mcp")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)
