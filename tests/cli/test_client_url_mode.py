"""`elicitkit client --call` against the demo MCP server: URL mode, live and with -32042.

The client prints the URL instead of opening it; the test completes the page as alice with
the scripted browser, and the client sees the completion notice and gets the tool's result.
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from elicitkit.demo.browser import ScriptedBrowser
from elicitkit.demo.stage import Stage, running_stage

ELICITKIT = Path(sys.executable).with_name("elicitkit")
URL = re.compile(r"not opened: (http://127\.0\.0\.1:\d+/elicit/[A-Za-z0-9_-]+)")

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
async def stage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[Stage]:
    monkeypatch.delenv("ELICITKIT_VAULT_KEYS", raising=False)
    async with running_stage(tmp_path) as running:
        yield running


async def call_and_complete(
    stage: Stage, tmp_path: Path, tool: str, arguments: dict[str, str]
) -> tuple[int, str, str]:
    token = (await stage.auth.token_for("alice", scopes=["mcp"], resource=stage.server.mcp_url)).access_token
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps([{"action": "accept"}]))
    process = await asyncio.create_subprocess_exec(
        str(ELICITKIT),
        "client",
        stage.server.mcp_url,
        "--token",
        token,
        "--protocol",
        "2025-11-25",
        "--call",
        tool,
        "--args",
        json.dumps(arguments),
        "--answers",
        str(answers),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stderr is not None and process.stdout is not None
    seen = ""
    while (found := URL.search(seen)) is None:
        line = await asyncio.wait_for(process.stderr.readline(), 30)
        assert line, seen
        seen += line.decode()
    async with ScriptedBrowser("alice") as browser:
        page = await browser.open(found.group(1))
        done = await browser.submit(page, secret="cli-secret-789")
        assert done.heading == "Done", done.text
    out, rest = await asyncio.wait_for(process.communicate(), 30)
    return process.returncode or 0, out.decode(), seen + rest.decode()


async def test_live_url_elicitation_completed_in_the_browser(stage: Stage, tmp_path: Path) -> None:
    code, out, err = await call_and_complete(stage, tmp_path, "check_weather", {"city": "Oslo"})
    assert code == 0, err
    assert out.startswith("Sunny and 21 °C in Oslo")
    assert "asks the script to open a page in the browser:" in err
    assert "site: 127.0.0.1" in err
    assert "notice  Demo Assistant: an elicitation completed." in err
    assert "cli-secret-789" not in out + err


async def test_32042_followed_and_retried(stage: Stage, tmp_path: Path) -> None:
    code, out, err = await call_and_complete(stage, tmp_path, "send_message", {"to": "bob", "text": "hi"})
    assert code == 0, err
    assert out.startswith("Message to bob sent: 'hi'")
    assert "the call is held (error -32042)" in err
    assert "notice  Demo Assistant: an elicitation completed." in err


async def test_without_a_token_the_client_says_authorization_is_needed(stage: Stage) -> None:
    process = await asyncio.create_subprocess_exec(
        str(ELICITKIT),
        "client",
        stage.server.mcp_url,
        "--call",
        "check_weather",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    _, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == 1
    assert f"{stage.server.mcp_url} answered HTTP 401: it needs authorization; pass --token" in err.decode()
