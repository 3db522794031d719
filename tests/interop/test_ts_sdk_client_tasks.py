"""An elicitkit server's task tools called as tasks by the TypeScript SDK v1 client's own task
API (`client.experimental.tasks.callToolStream`, tests/peers/ts-sdk/task_client_v1.mjs): the
client sees `input_required`, its ordinary elicitation handler answers the question the server
sends on the `tasks/result` stream (tied to the task by `_meta`), and the task completes with
the tool's result. The URL-mode case ends when the person finishes the page. The same tools on
an `MCPServer` and on a FastMCP server (elicitkit.fastmcp), with the same calls."""

from __future__ import annotations

import asyncio
import json
import shutil
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Context, FastMCP
from support.interop_harness import auth, briefing_running, provider, token
from support.task_server import PAY_KEY, Trip, fingerprint, finish_page, serving
from support.url_harness import serve

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import DemoProvider
from elicitkit.fastmcp import Elicitation
from elicitkit.results import AcceptedElicitation
from elicitkit.server import KeyRing, McpUsers, MemoryStore, Tasks, UrlMode

PEER = Path(__file__).parents[1] / "peers" / "ts-sdk"
NODE = shutil.which("node")
RELATED = "io.modelcontextprotocol/related-task"

__all__ = ["auth", "provider"]

pytestmark = pytest.mark.skipif(
    NODE is None or not (PEER / "node_modules" / "@modelcontextprotocol" / "sdk").is_dir(),
    reason="needs node and the TypeScript SDK peer (scripts/setup runs npm ci in tests/peers/ts-sdk)",
)


async def run_ts_task_client(
    url: str,
    tool: str,
    arguments: dict[str, Any],
    answer: dict[str, Any],
    on_elicit: Any = None,
    token: str = "alice",
) -> list[dict[str, Any]]:
    """Run the TS client to its end; every line it printed."""
    assert NODE is not None
    process = await asyncio.create_subprocess_exec(
        NODE,
        "task_client_v1.mjs",
        url,
        token,
        tool,
        json.dumps(arguments),
        json.dumps(answer),
        cwd=PEER,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    lines: list[dict[str, Any]] = []

    async def read() -> None:
        assert process.stdout is not None
        async for raw in process.stdout:
            said = json.loads(raw)
            lines.append(said)
            if "elicit" in said and on_elicit is not None:
                on_elicit(said["elicit"])

    try:
        await asyncio.wait_for(read(), 100)
        await asyncio.wait_for(process.wait(), 10)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert lines, (await process.stderr.read()).decode()
    return lines


def said(lines: list[dict[str, Any]], key: str) -> list[Any]:
    return [line[key] for line in lines if key in line]


@asynccontextmanager
async def fastmcp_serving() -> AsyncIterator[str]:
    """The same two task tools on a FastMCP server, for one person on this machine."""

    def build(url: str) -> Any:
        server: FastMCP[Any] = FastMCP("fastmcp-tasks")
        url_mode = UrlMode(
            public_url=url,
            keys=KeyRing.from_string(KeyRing.generate()),
            store=MemoryStore(),
            users=McpUsers.single_user_local(),
        )
        elicit = Elicitation(server, url_mode=url_mode, tasks=Tasks({"book": "optional", "pay": "required"}))
        pay_key = elicit.secret("pay-key", title="Payment key", message="Paying needs your payment key.")

        @server.tool
        async def book(city: str, ctx: Context) -> str:
            match await elicit.form(ctx, f"Which day do you want to go to {city}?", Trip):
                case AcceptedElicitation(data=trip):
                    return f"Booked {city} on {trip.day}"
                case _:
                    return "Nothing booked"

        @server.tool
        async def pay(amount: int, ctx: Context) -> str:
            return f"Paid {amount} with key {fingerprint(await pay_key.get(ctx))}"

        return server.http_app()

    async with serve(build) as base:
        yield f"{base}/mcp"


@asynccontextmanager
async def served(kind: str) -> AsyncIterator[str]:
    if kind == "fastmcp":
        async with fastmcp_serving() as url:
            yield url
    else:
        async with serving() as (_, url):
            yield url


KINDS = pytest.mark.parametrize("kind", ["mcpserver", "fastmcp"])


@KINDS
async def test_a_form_question_input_required_the_answer_completed(kind: str) -> None:
    async with served(kind) as url:
        lines = await run_ts_task_client(
            url, "book", {"city": "Rome"}, {"action": "accept", "content": {"day": "Sunday"}}
        )
    assert said(lines, "era") == ["2025-11-25"]
    assert said(lines, "tasks")[0]["requests"] == {"tools": {"call": {}}}
    assert said(lines, "isTask") == [True] and said(lines, "required") == [False]
    created = said(lines, "created")
    assert len(created) == 1 and created[0]["status"] == "working"
    assert "input_required" in said(lines, "status")
    [elicit] = said(lines, "elicit")
    assert elicit["message"] == "Which day do you want to go to Rome?"
    assert elicit["_meta"][RELATED] == {"taskId": created[0]["taskId"]}
    [result] = said(lines, "result")
    assert result["content"][0]["text"] == "Booked Rome on Sunday"
    assert result["_meta"][RELATED] == {"taskId": created[0]["taskId"]}
    assert said(lines, "listed") == [[[created[0]["taskId"], "completed"]]]


@KINDS
async def test_a_url_mode_secret_in_a_required_task_completes_when_the_page_is_finished(kind: str) -> None:
    async with served(kind) as url:
        pages: list[asyncio.Task[Any]] = []

        def person_finishes(params: dict[str, Any]) -> None:
            pages.append(asyncio.ensure_future(the_person_finishes(params["url"])))

        lines = await run_ts_task_client(url, "pay", {"amount": 12}, {"action": "accept"}, person_finishes)
        await asyncio.gather(*pages)
    assert said(lines, "required") == [True]
    [elicit] = said(lines, "elicit")
    assert elicit["mode"] == "url" and elicit["_meta"][RELATED] == {
        "taskId": said(lines, "created")[0]["taskId"]
    }
    [result] = said(lines, "result")
    assert result["content"][0]["text"] == f"Paid 12 with key {fingerprint(PAY_KEY)}"
    assert PAY_KEY not in json.dumps(lines)


async def the_person_finishes(link: str) -> None:
    await asyncio.sleep(0.3)  # reading the page
    assert "Saved." in await finish_page(link, "alice", PAY_KEY)


async def test_an_oauth_connection_in_a_task_completes_when_the_person_connects(
    auth: DemoAuthServer, provider: DemoProvider
) -> None:
    """The `agenda` tool needs the user's calendar (an `OAuthConnection`): run as a task, its
    consent question reaches the TS client's handler, the person signs in at the provider, and
    the task completes with the calendar."""
    async with briefing_running(auth, provider, tasks=Tasks({"agenda": "optional"})) as briefing:

        def person_connects(params: dict[str, Any]) -> None:
            briefing.complete_soon(params["url"])

        bearer = await token(auth, "alice")
        call = run_ts_task_client(
            briefing.mcp_url, "agenda", {}, {"action": "accept"}, person_connects, token=bearer
        )
        lines = await briefing.run(call)
    [elicit] = said(lines, "elicit")
    task_id = said(lines, "created")[0]["taskId"]
    assert elicit["mode"] == "url" and elicit["_meta"][RELATED] == {"taskId": task_id}
    assert "input_required" in said(lines, "status")
    [result] = said(lines, "result")
    assert json.loads(result["content"][0]["text"])["owner"] == "alice"
    assert briefing.browser_steps == [elicit["url"]]
