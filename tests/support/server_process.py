"""A server run as its own process by a test or a benchmark: a free port, waiting until it
answers HTTP (with its log's tail if it died instead), and stopping it politely."""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

import httpx

__all__ = ["free_port", "stop", "wait_until_serving"]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until_serving(
    process: subprocess.Popen[bytes], url: str, log: Path | None = None, within: float = 30.0
) -> None:
    """Return once `url` answers with any HTTP status; raise if the process exits or `within` passes."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(errors="replace")[-3000:] if log is not None else "(no log)"
            raise RuntimeError(f"the server for {url} exited with {process.returncode}:\n{tail}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.05)
    raise RuntimeError(f"the server for {url} did not answer within {within:.0f} s")


def stop(process: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL after 10 s."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)
