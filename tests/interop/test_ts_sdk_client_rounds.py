"""The TypeScript SDK's v2 client (`@modelcontextprotocol/client` from npm, pinned by the
lockfile in tests/peers/ts-sdk) on 2026-07-28 against an elicitkit server; and its v1 client
(`@modelcontextprotocol/sdk`), which speaks 2025-11-25 at most, against the same tools.

The client is a small script an application could have written (tests/peers/ts-sdk/url_client.mjs):
one elicitation handler, the SDK's own input-required driver (10 rounds, a short pause before a
state-only retry). Each URL it is handed is opened by the scripted browser here.
"""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from support.interop_harness import SECRET, Briefing, auth, briefing_running, fingerprint, provider, token

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import DemoProvider

__all__ = ["auth", "provider"]

PEER = Path(__file__).parents[1] / "peers" / "ts-sdk"
NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(
    NODE is None or not (PEER / "node_modules" / "@modelcontextprotocol" / "client").is_dir(),
    reason="needs node and the TypeScript SDK peer (scripts/setup runs npm ci in tests/peers/ts-sdk)",
)


@pytest.fixture
async def briefing(auth: DemoAuthServer, provider: DemoProvider) -> AsyncIterator[Briefing]:
    async with briefing_running(auth, provider) as running:
        yield running


async def run_ts_client(
    briefing: Briefing, tool: str, action: str, script: str = "url_client.mjs", person_takes: float = 0.0
) -> tuple[dict[str, Any], list[str], str]:
    """Run the TS client to the end; returns its last line, the URLs its handler got, its era."""
    assert NODE is not None
    process = await asyncio.create_subprocess_exec(
        NODE,
        script,
        briefing.mcp_url,
        await token(briefing.auth, "alice"),
        tool,
        action,
        cwd=PEER,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    urls: list[str] = []
    era = ""
    last: dict[str, Any] = {}

    async def read() -> None:
        nonlocal era, last
        assert process.stdout is not None
        async for line in process.stdout:
            said = json.loads(line)
            if "url" in said:
                urls.append(said["url"])
                if action == "accept":
                    briefing.complete_soon(said["url"], after=person_takes)
            elif "era" in said:
                era = said["era"] or ""
            else:
                last = said

    try:
        await briefing.run(asyncio.wait_for(read(), 100))
        await asyncio.wait_for(process.wait(), 10)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert last, (await process.stderr.read()).decode()
    return last, urls, era


async def test_secret_one_handler_call_browser_step_result(briefing: Briefing) -> None:
    last, urls, era = await run_ts_client(briefing, "forecast", "accept")
    assert era == "2026-07-28"
    assert "result" in last, last
    assert len(urls) == 1 and briefing.browser_steps == urls
    result = last["result"]
    assert not result.get("isError"), result
    assert fingerprint(SECRET) in result["content"][0]["text"]


async def test_oauth_connection_one_handler_call_browser_step_result(briefing: Briefing) -> None:
    last, urls, era = await run_ts_client(briefing, "agenda", "accept")
    assert era == "2026-07-28"
    assert "result" in last, last
    assert len(urls) == 1 and briefing.browser_steps == urls
    result = last["result"]
    assert not result.get("isError"), result
    assert json.loads(result["content"][0]["text"])["owner"] == "alice"


@pytest.mark.parametrize("tool", ["forecast", "agenda"])
async def test_decline_in_the_url_round_ends_the_tool_declined(briefing: Briefing, tool: str) -> None:
    last, urls, _era = await run_ts_client(briefing, tool, "decline")
    assert "result" in last, last
    assert len(urls) == 1 and briefing.browser_steps == []
    assert last["result"]["isError"] is True
    assert "'declined'" in last["result"]["content"][0]["text"]


async def test_a_person_slower_than_several_holds_still_finishes(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    """Holds of 1 s and a person who takes 4 s: the stock client gets "still waiting" answers,
    keeps retrying within its 10 rounds, and the result arrives."""
    async with briefing_running(auth, provider, hold=1.0) as briefing:
        last, urls, _era = await run_ts_client(briefing, "forecast", "accept", person_takes=4.0)
    assert "result" in last, last
    assert len(urls) == 1 and briefing.browser_steps == urls
    assert fingerprint(SECRET) in last["result"]["content"][0]["text"]


V1_CASES = [("forecast", "accept"), ("agenda", "accept"), ("forecast", "decline")]


@pytest.mark.parametrize(("tool", "action"), V1_CASES)
async def test_the_v1_sdk_on_2025_11_25_same_tools(briefing: Briefing, tool: str, action: str) -> None:
    """`@modelcontextprotocol/sdk` 1.x speaks 2025-11-25 only: the live `elicitation/create` path."""
    last, urls, era = await run_ts_client(briefing, tool, action, script="url_client_v1.mjs")
    assert era == "2025-11-25"
    assert "result" in last, last
    assert len(urls) == 1
    result = last["result"]
    if action == "decline":
        assert result["isError"] is True and "'declined'" in result["content"][0]["text"]
        assert briefing.browser_steps == []
    else:
        assert not result.get("isError"), result
        assert briefing.browser_steps == urls
