"""examples/tasks/payment_approval.py run as its docstring says: its own process over HTTP on
127.0.0.1, `pay_invoice` called by elicitkit's client (which runs it as a task, since the tool
requires one), and the person answering on the approval page in Chromium."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp_types import CallToolResult
from playwright.async_api import Page, async_playwright, expect
from support.chromium import CHROMIUM, CHROMIUM_ARGS
from support.server_process import free_port, stop, wait_until_serving

from elicitkit.client import AcceptedElicitation, ElicitationConfig, ElicitingClient, ScriptedUI, UrlQuestion
from elicitkit.server import KeyRing

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "tasks" / "payment_approval.py"

pytestmark = pytest.mark.timeout(120)


@contextmanager
def payments_server(workdir: Path) -> Iterator[str]:
    """The example as its own process, started in `workdir` (where its SQLite file goes)."""
    port = free_port()
    log = workdir / "server.log"
    env = {**os.environ, "ELICITKIT_VAULT_KEYS": KeyRing.generate()}
    with log.open("ab") as output:
        process = subprocess.Popen(
            [sys.executable, str(EXAMPLE), str(port)], cwd=workdir, env=env, stdout=output, stderr=output
        )
    try:
        wait_until_serving(process, f"http://127.0.0.1:{port}/mcp", log)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


@asynccontextmanager
async def chromium_page() -> AsyncIterator[Page]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield await browser.new_page()
        finally:
            await browser.close()


@asynccontextmanager
async def paying(
    client: ElicitingClient, ui: ScriptedUI, invoice: str
) -> AsyncIterator[tuple[UrlQuestion, list[Any]]]:
    """Call `pay_invoice` in the background; yields the approval question once the client shows it
    and a list that holds the call's result once it returns (after the block)."""
    result: list[Any] = []

    async def call() -> None:
        result.append(await client.call_tool("pay_invoice", {"invoice": invoice}))

    async with anyio.create_task_group() as group:
        group.start_soon(call)
        with anyio.fail_after(30):
            while not ui.shown:
                await anyio.sleep(0.05)
        (question,) = ui.shown
        assert isinstance(question, UrlQuestion)
        yield question, result


@pytest.mark.parametrize("revision", ["legacy", "2026-07-28"])
async def test_the_person_approves_the_payment_with_their_pin(tmp_path: Path, revision: str) -> None:
    ui = ScriptedUI(AcceptedElicitation())  # consent to open the page
    with payments_server(tmp_path) as url:
        async with (
            ElicitationConfig(ui, modes=("url",)).connect(url, mode=revision) as client,  # type: ignore[arg-type]
            chromium_page() as page,
            paying(client, ui, "INV-7") as (question, result),
        ):
            assert "task" in question.server  # the client says the question comes from a task
            assert (
                question.message
                == "Approve paying 120.00 EUR to ACME Corp (invoice INV-7): enter your payment PIN."
            )
            await page.goto(question.report.url)
            await expect(page.locator("main")).to_contain_text("120.00 EUR to ACME Corp")
            await page.fill("#secret", "1357")
            await page.click("button[value=save]")
            await expect(page.locator("#secret-error")).to_have_text("That is not your payment PIN.")
            await page.fill("#secret", "2468")
            await page.click("button[value=save]")
            await expect(page.locator("h1")).to_have_text("Done")
    (done,) = result
    assert isinstance(done, CallToolResult) and not done.is_error
    assert done.content[0].text == "Paid 120.00 EUR to ACME Corp for invoice INV-7."  # type: ignore[union-attr]
    assert (tmp_path / "payments.sqlite3").exists()


async def test_the_person_declines_on_the_page(tmp_path: Path) -> None:
    ui = ScriptedUI(AcceptedElicitation())
    with payments_server(tmp_path) as url:
        async with (
            ElicitationConfig(ui, modes=("url",)).connect(url, mode="legacy") as client,
            chromium_page() as page,
            paying(client, ui, "INV-8") as (question, result),
        ):
            await page.goto(question.report.url)
            await expect(page.locator("main")).to_contain_text("9,800.00 EUR to Globex")
            await page.click("button[value=decline]")
            await expect(page.locator("h1")).to_have_text("Declined")
    (done,) = result
    assert done.content[0].text == "Not paid: the approval was declined."  # type: ignore[union-attr]
