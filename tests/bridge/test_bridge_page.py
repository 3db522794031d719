"""The bridge's own page, as a person on a shared machine meets it (Chromium plays the person).

The bridge runs as a host's stdio command; its stderr is the host's log. It opens its page
through $BROWSER: a stand-in that keeps its URL in its arguments while it lives, as a browser
does, or `false`, a machine where no browser opens. Another local user can read every
process's arguments and may read that log: nothing there lets them in.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

import pytest
from bridge_harness import ROOT, SDK, bridge_stdio, environment, text_of
from mcp import Client
from mcp.client.stdio import stdio_client
from playwright.async_api import Browser, expect
from support.web_door import command_lines, usable_secrets, way_in

pytestmark = pytest.mark.timeout(300)

STAND_IN = ROOT / "tests" / "support" / "browser_stand_in.py"
T = TypeVar("T")


async def played_out(call: Coroutine[Any, Any, T], person: Coroutine[Any, Any, None]) -> T:
    """The host's call while the person acts at the page; what goes wrong for the person ends
    the test at once (the call would otherwise wait for an answer that never comes)."""
    asked, played = asyncio.ensure_future(call), asyncio.ensure_future(person)
    try:
        await asyncio.wait({asked, played}, return_when=asyncio.FIRST_EXCEPTION)
        await played
        return await asked
    finally:
        asked.cancel()
        played.cancel()


def started(record: Path, within: float = 60.0) -> tuple[int, str]:
    """The stand-in browser's PID and the URL it was handed, once it has started."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        opened = record.read_text(encoding="utf-8").split() if record.exists() else []
        if len(opened) >= 2:
            return int(opened[0]), opened[1]
        time.sleep(0.05)
    raise AssertionError("the bridge started no browser")


def said_on_stderr(log: Path, within: float = 60.0) -> str:
    """Where the bridge said its page is, from the host's log, once it is there."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        for line in log.read_text(encoding="utf-8").splitlines():
            if line.startswith("elicitkit bridge:"):
                return next(w for w in line.split() if w.startswith(("file://", "http://127.0.0.1:")))
        time.sleep(0.05)
    raise AssertionError(f"the bridge said nothing about its page: {log.read_text(encoding='utf-8')!r}")


async def test_no_argument_or_log_line_lets_another_user_into_the_bridges_page(
    tmp_path: Path, chromium: Browser
) -> None:
    record, log = tmp_path / "opened.txt", tmp_path / "host.log"
    env = environment(BROWSER=f"{sys.executable} {STAND_IN} {record} %s")
    stand_in = None

    async def person() -> None:
        nonlocal stand_in
        stand_in, url = await asyncio.to_thread(started, record)
        parts = urlsplit(url)
        address = way_in(url)[0] if parts.scheme == "file" else f"{parts.scheme}://{parts.netloc}/"
        arguments = await asyncio.to_thread(command_lines)
        assert url in arguments  # what the browser was handed, for anyone to read
        seen = [*arguments, log.read_text(encoding="utf-8")]
        assert await asyncio.to_thread(usable_secrets, address, seen, "Your name?") == []
        file = Path(unquote(parts.path))
        assert (file.stat().st_mode & 0o777, file.parent.stat().st_mode & 0o777) == (0o600, 0o700)
        page = await chromium.new_page()
        await page.goto(url)  # what the person's browser was handed
        await expect(page.locator(".message")).to_have_text("Your name?")
        await page.get_by_label("name").fill("Ada")
        await page.get_by_role("button", name="Review answers").click()
        await page.get_by_role("button", name="Submit answers").click()

    with log.open("w", encoding="utf-8") as errlog:
        bridge = stdio_client(bridge_stdio([*SDK, "stdio"], "auto", env=env), errlog=errlog)
        try:
            async with Client(bridge, mode="legacy") as client:  # declares no elicitation
                result = await played_out(client.call_tool("ask_name", {}), person())
        finally:
            if stand_in is not None:
                os.kill(stand_in, signal.SIGTERM)
    assert json.loads(text_of(result)) == {"action": "accept", "content": {"name": "Ada"}}
    assert said_on_stderr(log).startswith("file://")


async def test_with_no_browser_the_person_opens_the_file_from_the_log_and_an_unopened_url_is_a_link(
    tmp_path: Path, chromium: Browser
) -> None:
    """No browser opens on this machine (`BROWSER=false`): the person opens the file the bridge
    named on stderr; the URL they agree to open cannot be opened either, so the page gives it
    as a link, in one sentence, with no id of the elicitation."""
    log = tmp_path / "host.log"
    env = environment(BROWSER="false")
    target = "https://example.com/connect"

    async def person() -> None:
        url = await asyncio.to_thread(said_on_stderr, log)
        page = await chromium.new_page()
        await page.context.route(f"{target}*", lambda route: route.fulfill(body="connected"))
        await page.goto(url)
        await expect(page.locator("#url")).to_have_text(target)
        await page.get_by_role("button", name="Open in my browser").click()
        said = "No browser could be opened; if you trust this page, open it yourself:"
        await expect(page.locator(".idle h1")).to_have_text(said)
        link = page.get_by_role("link")
        await expect(link).to_have_text(target)
        await expect(link).to_have_attribute("href", target)
        text = " ".join((await page.locator("main").inner_text()).split())
        assert text == f"{said} {target}"  # one sentence, and the URL: nothing that contradicts it
        assert "e-connect" not in await page.content()  # the elicitation's id
        async with page.context.expect_page() as opened:
            await link.click()
        assert (await opened.value).url == target

    with log.open("w", encoding="utf-8") as errlog:
        bridge = stdio_client(bridge_stdio([*SDK, "stdio"], "auto", env=env), errlog=errlog)
        async with Client(bridge, mode="legacy") as client:
            result = await played_out(client.call_tool("ask_url", {"url": target}), person())
    assert json.loads(text_of(result)) == {"action": "accept", "content": None}
