"""The bridge answers itself, in its own page, for hosts that cannot (Chromium plays the person).

The bridge runs as the host's stdio command; its page and every URL it opens go through
$BROWSER (a recorder here), so the test sees what a person's browser would be handed.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from bridge_harness import (
    PY,
    ROOT,
    SDK,
    WEATHER,
    BrowserRecord,
    bridge_args,
    bridge_stdio,
    environment,
    text_of,
)
from mcp import Client
from mcp.client.stdio import stdio_client
from mcp.shared.message import SessionMessage
from playwright.async_api import Browser, expect
from support.url_harness import SECRET, fingerprint

from elicitkit.client import WatchedTransport

pytestmark = pytest.mark.timeout(300)


class Recorder:
    def __init__(self) -> None:
        self.text: list[str] = []

    def sent(self, item: SessionMessage) -> None:
        return None

    def received(self, item: SessionMessage | Exception) -> None:
        if isinstance(item, SessionMessage):
            self.text.append(item.message.model_dump_json(by_alias=True))


async def test_a_host_without_elicitation_completes_a_url_mode_secret_in_the_bridges_page(
    tmp_path: Path, chromium: Browser
) -> None:
    browser = BrowserRecord(tmp_path)
    env = environment(**browser.env)
    upstream = [*WEATHER, "--stdio", "--db", str(tmp_path / "weather.db")]
    tape = Recorder()
    transport = WatchedTransport(stdio_client(bridge_stdio(upstream, "auto", env=env)), tape)

    async def person() -> None:
        page = await chromium.new_page()
        await page.goto(await asyncio.to_thread(browser.next_url, 0))  # the bridge's own page
        await expect(page.get_by_text("127.0.0.1")).not_to_have_count(0)
        await page.get_by_role("button", name="Open in my browser").click()
        landing = await chromium.new_page()
        await landing.goto(await asyncio.to_thread(browser.next_url, 1))  # the server's page
        await landing.fill("#secret", SECRET)
        await landing.click("button[value=save]")

    async with Client(transport, mode="legacy") as client:  # declares no elicitation at all
        played = asyncio.create_task(person())
        result = await client.call_tool("forecast", {"city": "Oslo"})
        await played
    assert not result.is_error, text_of(result)
    assert fingerprint(SECRET) in text_of(result)
    assert tape.text and SECRET not in "".join(tape.text)  # the secret never passed through the host
    assert browser.opened()[0].startswith("file://") and len(browser.opened()) == 2


async def test_a_form_only_host_still_gets_url_mode_through_the_bridges_page(
    tmp_path: Path, chromium: Browser
) -> None:
    """`--answer auto`: the TypeScript SDK v1 client declares forms only; the server's URL
    question is put to the person in the bridge's page, and the URL opens only after consent."""
    record = BrowserRecord(tmp_path)
    env = environment(**record.env)
    command = json.dumps([PY, *bridge_args([*SDK, "stdio"], "auto")])

    def host() -> list[dict[str, Any]]:
        done = subprocess.run(
            ["node", "bridge_host.mjs", "v1", "stdio", command, "ask_url", "form", "accept", "{}"],
            cwd=ROOT / "tests" / "peers" / "ts-sdk",
            capture_output=True,
            text=True,
            timeout=240,
            env=env,
            check=False,
        )
        return [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]

    async def person() -> None:
        page = await chromium.new_page()
        await page.goto(await asyncio.to_thread(record.next_url, 0))
        await expect(page.get_by_text("example.com")).not_to_have_count(0)
        assert len(record.opened()) == 1  # nothing opened before consent
        await page.get_by_role("button", name="Open in my browser").click()

    played = asyncio.create_task(person())
    lines = await asyncio.to_thread(host)
    await played
    assert not [line for line in lines if "asked" in line]  # the host was not asked
    [result] = [line["result"] for line in lines if "result" in line]
    assert json.loads(result["content"][0]["text"]) == {"action": "accept", "content": None}
    assert record.opened()[1] == "https://example.com/connect"
