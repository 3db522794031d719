"""examples/tasks/payment_approval.py run as its docstring says: its commands, as written there
(the port aside), start it as its own process over HTTP on 127.0.0.1; `pay_invoice` is called by
elicitkit's client (which runs it as a task, since the tool requires one) in a real terminal and
in process, and the person approves or declines on the approval page in Chromium (its words
checked). Then the docstring's restart: the server stopped with the page open, started again on
its SQLite file, the page finished, and the task completes."""

from __future__ import annotations

import ast
import asyncio
import contextlib
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
from support.raw_mcp import raw_session
from support.server_process import free_port, stop, wait_until_serving
from support.tmux_terminal import Terminal

from elicitkit.client import AcceptedElicitation, ElicitationConfig, ElicitingClient, ScriptedUI, UrlQuestion

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "tasks" / "payment_approval.py"
STAND_IN = ROOT / "tests" / "support" / "browser_stand_in.py"
BIN = Path(sys.executable).parent
DOC = ast.get_docstring(ast.parse(EXAMPLE.read_text(encoding="utf-8"))) or ""
KEY_LINE = next(line.strip() for line in DOC.splitlines() if "export ELICITKIT_VAULT_KEYS" in line)
SERVE = "python examples/tasks/payment_approval.py"
CLIENT = "elicitkit client http://127.0.0.1:8000/mcp"
CALL = 'call pay_invoice {"invoice": "INV-7"}'
RELATED = "io.modelcontextprotocol/related-task"

pytestmark = pytest.mark.timeout(180)


def test_the_docstring_says_these_commands() -> None:
    for command in (KEY_LINE, SERVE, CLIENT, CALL):
        assert f"\n    {command}\n" in f"\n{DOC}\n"


def a_vault_key() -> str:
    """What the docstring's `export` line puts in ELICITKIT_VAULT_KEYS, run by bash as written."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    made = subprocess.run(
        ["bash", "-c", f'{KEY_LINE}\necho "$ELICITKIT_VAULT_KEYS"'], env=env, capture_output=True, text=True
    )
    assert made.returncode == 0, made.stderr
    return made.stdout.strip()


@contextmanager
def payments_server(workdir: Path, key: str, port: int | None = None) -> Iterator[str]:
    """`python examples/tasks/payment_approval.py PORT` in `workdir` (where its SQLite file goes,
    beside a link to this checkout's examples/); yields its MCP URL."""
    port = port or free_port()
    if not (workdir / "examples").exists():
        (workdir / "examples").symlink_to(ROOT / "examples")
    env = {**os.environ, "ELICITKIT_VAULT_KEYS": key, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    log = workdir / "server.log"
    with log.open("ab") as output:
        process = subprocess.Popen(
            ["bash", "-c", f"exec {SERVE} {port}"], cwd=workdir, env=env, stdout=output, stderr=output
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


async def shows_the_payment(page: Page, url: str, payee: str, amount: str, invoice: str) -> None:
    """The person opens the approval page: what is to be paid, from the server, and two buttons."""
    await page.goto(url)
    await expect(page.locator("h1")).to_have_text("Approve a payment")
    await expect(page.locator(".why")).to_have_text(
        f"Approve paying {amount} to {payee} (invoice {invoice})."
    )
    await expect(page.locator(".summary dd")).to_have_text([payee, amount, invoice])
    await expect(page.locator("button")).to_have_text(["Approve the payment", "Decline"])
    await expect(page.locator("main")).not_to_contain_text("stored encrypted")


async def approve(page: Page, url: str) -> None:
    """The person opens the approval page, reads the payment and approves it."""
    await shows_the_payment(page, url, "ACME Corp", "120.00 EUR", "INV-7")
    await page.click("text=Approve the payment")
    await approved(page)


async def approved(page: Page) -> None:
    await expect(page.locator("h1")).to_have_text("Approved")
    await expect(page.locator(".done")).to_have_text(
        "You approved it. You can close this tab and return to your application."
    )


def test_the_docstring_commands_in_a_terminal(tmp_path: Path) -> None:
    """The client as the docstring runs it, in tmux: the person agrees to open the page, their
    browser is sent there, they approve in Chromium, and the terminal shows the payment made."""
    record = tmp_path / "browser.txt"
    with payments_server(tmp_path, a_vault_key()) as url:
        client = CLIENT.replace("http://127.0.0.1:8000/mcp", url).split()
        browser = f"{sys.executable} {STAND_IN} {record} %s"
        terminal = Terminal(["env", f"BROWSER={browser}", str(BIN / client[0]), *client[1:]])
        try:
            terminal.wait_for("elicitkit>")
            terminal.type(CALL)
            terminal.keys("Enter")
            screen = terminal.wait_for("Open this page?")
            assert "“payments, in its task pay_invoice” asks you to open a web page" in screen
            terminal.keys("Enter")  # 1. Open it in my browser
            terminal.wait_for("The server's task goes on while the page is open")
            pid, opened = record.read_text().split()
            try:
                asyncio.run(in_chromium(opened))
            finally:
                os.kill(int(pid), 15)
            screen = terminal.wait_for("elicitkit>", after="result:")
            assert "result: Paid 120.00 EUR to ACME Corp for invoice INV-7." in screen
        finally:
            terminal.close()


async def in_chromium(url: str) -> None:
    async with chromium_page() as page:
        await approve(page, url)


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
async def test_the_person_approves_the_payment(tmp_path: Path, revision: str) -> None:
    ui = ScriptedUI(AcceptedElicitation())  # consent to open the page
    with payments_server(tmp_path, a_vault_key()) as url:
        async with (
            ElicitationConfig(ui, modes=("url",)).connect(url, mode=revision) as client,  # type: ignore[arg-type]
            chromium_page() as page,
            paying(client, ui, "INV-7") as (question, result),
        ):
            assert "task" in question.server  # the client says the question comes from a task
            assert question.message == "Approve paying 120.00 EUR to ACME Corp (invoice INV-7)."
            await approve(page, question.report.url)
    (done,) = result
    assert isinstance(done, CallToolResult) and not done.is_error
    assert done.content[0].text == "Paid 120.00 EUR to ACME Corp for invoice INV-7."  # type: ignore[union-attr]


async def test_the_person_declines_on_the_page(tmp_path: Path) -> None:
    ui = ScriptedUI(AcceptedElicitation())
    with payments_server(tmp_path, a_vault_key()) as url:
        async with (
            ElicitationConfig(ui, modes=("url",)).connect(url, mode="legacy") as client,
            chromium_page() as page,
            paying(client, ui, "INV-8") as (question, result),
        ):
            await shows_the_payment(page, question.report.url, "Globex", "9,800.00 EUR", "INV-8")
            await page.click("text=Decline")
            await expect(page.locator("h1")).to_have_text("Declined")
            await expect(page.locator(".done")).to_contain_text("You declined, so it will not go ahead.")
    (done,) = result
    assert done.content[0].text == "Not paid: the approval was declined."  # type: ignore[union-attr]


async def test_a_page_opened_before_a_restart_still_approves_the_payment(tmp_path: Path) -> None:
    """The task's requestor here speaks the 2025-11-25 `tasks/*` methods by hand: it needs the
    task id, to ask for the task again once the server is back."""
    key, port = a_vault_key(), free_port()
    async with chromium_page() as page:
        with payments_server(tmp_path, key, port) as url:
            async with raw_session(url) as session:
                created = await session.request(
                    "tools/call", {"name": "pay_invoice", "arguments": {"invoice": "INV-7"}, "task": {}}
                )
                task_id = created["result"]["task"]["taskId"]
                link: asyncio.Future[str] = asyncio.get_running_loop().create_future()

                async def consent(request: dict[str, Any]) -> dict[str, Any]:
                    assert request["params"]["_meta"][RELATED] == {"taskId": task_id}
                    link.set_result(request["params"]["url"])
                    return {"action": "accept"}

                waiting = asyncio.ensure_future(
                    session.request("tasks/result", {"taskId": task_id}, on_request=consent)
                )
                await shows_the_payment(
                    page, await asyncio.wait_for(link, 30), "ACME Corp", "120.00 EUR", "INV-7"
                )
                waiting.cancel()
                with contextlib.suppress(BaseException):
                    await waiting
        with payments_server(tmp_path, key, port) as url:  # started again, on the same file
            await page.click("text=Approve the payment")
            await approved(page)
            async with raw_session(url) as session:
                with anyio.fail_after(60):  # the task runs again once its old runner is silent (15 s)
                    while True:
                        task = (await session.request("tasks/get", {"taskId": task_id}))["result"]
                        if task["status"] not in ("working", "input_required"):
                            break
                        await anyio.sleep(0.5)
                assert task["status"] == "completed", task
                result = (await session.request("tasks/result", {"taskId": task_id}))["result"]
    assert result["content"][0]["text"] == "Paid 120.00 EUR to ACME Corp for invoice INV-7."
