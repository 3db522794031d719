"""Real processes for the bridge tests: upstream servers, `elicitkit bridge` itself, a $BROWSER.

Every piece runs as its own process, talking stdio or HTTP on 127.0.0.1, as a person's host,
bridge and server would.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcp.client.stdio import StdioServerParameters
from support.server_process import free_port, stop, wait_until_serving

from elicitkit.server._vault import KEYS_ENV, KeyRing

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
PY = sys.executable
FASTMCP = [PY, str(HERE / "upstream_fastmcp.py")]
SDK = [PY, str(HERE / "upstream_sdk.py")]
WEATHER = [PY, str(ROOT / "tests" / "support" / "url_harness.py")]


def environment(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault(KEYS_ENV, KeyRing.generate())
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def bridge_args(upstream: Sequence[str], answer: str = "auto", *options: str) -> list[str]:
    """`elicitkit bridge` arguments: `upstream` is one URL, or a command (put after --)."""
    tail = list(upstream) if len(upstream) == 1 and upstream[0].startswith("http") else ["--", *upstream]
    return ["-m", "elicitkit", "bridge", "--answer", answer, *options, *tail]


def bridge_stdio(
    upstream: Sequence[str], answer: str = "auto", *options: str, env: dict[str, str] | None = None
) -> StdioServerParameters:
    """The bridge as a host's configuration runs it: a command speaking MCP on stdio."""
    return StdioServerParameters(
        command=PY, args=bridge_args(upstream, answer, *options), env=env or environment()
    )


@contextmanager
def http_process(
    command: Sequence[str],
    log: Path,
    *,
    path: str = "/mcp",
    port: int | None = None,
    env: dict[str, str] | None = None,
) -> Iterator[str]:
    """Run `command` (PORT in it replaced by a free port); yield its MCP URL once it answers."""
    port = port or free_port()
    argv = [str(port) if part == "PORT" else part for part in command]
    with log.open("ab") as sink:
        process = subprocess.Popen(
            argv, stdout=sink, stderr=subprocess.STDOUT, env=env or environment(), cwd=ROOT
        )
    url = f"http://127.0.0.1:{port}{path}"
    try:
        wait_until_serving(process, url, log, within=90)
        yield url
    finally:
        stop(process)


@contextmanager
def bridge_http(
    upstream: Sequence[str], log: Path, answer: str = "auto", *options: str, env: dict[str, str] | None = None
) -> Iterator[str]:
    """`elicitkit bridge --listen` in its own process, asking for no credential (the host is a
    test's client; test_bridge_guard.py tests the credential); yields the URL it serves."""
    port = free_port()
    command = [
        PY,
        *bridge_args(upstream, answer, "--listen", f"127.0.0.1:{port}", "--no-credential", *options),
    ]
    with http_process(command, log, port=port, env=env) as url:
        yield url


@contextmanager
def fastmcp_http(log: Path) -> Iterator[str]:
    with http_process([*FASTMCP, "http", "PORT"], log) as url:
        yield url


class BrowserRecord:
    """$BROWSER for the bridge: each URL it opens lands in a file the test reads."""

    def __init__(self, folder: Path) -> None:
        self.file = folder / "opened.txt"
        self.file.touch()
        self.env = {"BROWSER": f"{PY} {HERE / 'record_url.py'} {self.file} %s"}

    def opened(self) -> list[str]:
        return [line for line in self.file.read_text().splitlines() if line]

    def next_url(self, seen: int, within: float = 60.0) -> str:
        """The URL opened after the first `seen` ones; waits for it."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            opened = self.opened()
            if len(opened) > seen:
                return opened[seen]
            time.sleep(0.1)
        raise AssertionError(f"the bridge opened no page within {within:.0f} s (opened: {self.opened()})")


def text_of(result: Any) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)
