"""Start examples/quickstart/server.py for a test: `from quickstart_server import quickstart_server`.

A plain module, not conftest.py, because several test folders have a conftest of their own.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def quickstart_server() -> Iterator[str]:
    """examples/quickstart/server.py as its own process on a free port; yields its MCP URL."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = Path(__file__).resolve().parents[1] / "examples" / "quickstart" / "server.py"
    process = subprocess.Popen([sys.executable, str(server), str(port)])
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                assert process.poll() is None, "the quickstart server exited early"
                assert time.monotonic() < deadline, "the quickstart server did not start in 30 s"
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(10)
