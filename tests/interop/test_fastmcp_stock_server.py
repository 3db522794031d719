"""A stock FastMCP server (its own `ctx.elicit`, no elicitkit) on 2026-07-28, which
`elicitkit client` negotiates by default: FastMCP cannot ask there and says so in the tool's
error. elicitkit does not make the call again on another connection by itself (the call may
have done part of its work); it tells the person the cure in one sentence, and the cure works."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.server_process import free_port, stop, wait_until_serving

from elicitkit.client import AcceptedElicitation, ElicitationConfig, ScriptedUI

SERVER = Path(__file__).with_name("stock_fastmcp_server.py")
ELICITKIT = Path(sys.executable).with_name("elicitkit")
CURE = "--protocol 2025-11-25"

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def stock_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = free_port()
    log = tmp_path_factory.mktemp("fastmcp") / "server.log"
    with log.open("wb") as out:
        process = subprocess.Popen([sys.executable, str(SERVER), str(port)], stdout=out, stderr=out)
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_until_serving(process, url, log)
        yield url
    finally:
        stop(process)


def elicitkit_client(url: str, *options: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([{"action": "accept", "content": {"size": "large", "sugar": 1}}]))
    command = [str(ELICITKIT), "client", url, *options, "--answers", str(answers)]
    return subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)


def test_at_the_default_revision_the_person_is_told_the_cure(stock_server: str, tmp_path: Path) -> None:
    done = elicitkit_client(stock_server, "--call", "order", tmp_path=tmp_path)
    assert done.returncode == 1
    assert "2026-07-28" in done.stdout  # the server's own error, as it said it
    told = [line for line in done.stderr.splitlines() if CURE in line]
    assert len(told) == 1 and "Stock Coffee" in told[0], done.stderr


def test_the_cure_works(stock_server: str, tmp_path: Path) -> None:
    done = elicitkit_client(stock_server, "--protocol", "2025-11-25", "--call", "order", tmp_path=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "One large coffee, 1 sugar."
    assert CURE not in done.stderr


async def test_the_library_says_it_once_and_only_for_that_error(stock_server: str) -> None:
    ui = ScriptedUI(otherwise=AcceptedElicitation())
    async with ElicitationConfig(ui).connect(stock_server) as client:
        assert client.protocol_version == "2026-07-28"
        cannot = await client.call_tool("order", {})
        other = await client.call_tool("out_of_milk", {})
    assert cannot.is_error and other.is_error
    assert [n for n in ui.notices if CURE in n and 'mode="legacy"' in n] == ui.notices
    assert len(ui.notices) == 1 and ui.shown == []
