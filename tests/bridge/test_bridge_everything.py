"""The reference "everything" server (@modelcontextprotocol/server-everything) through the bridge.

Nobody here wrote it (tests/peers/everything, pinned by its lock file). Over stdio (the host
runs the bridge, the bridge runs the server) and over HTTP (`--listen`, the server's own
Streamable HTTP transport): its form and URL elicitation tools complete with the host
answering (`mcp.Client` with an elicitation callback, `--answer host`) and with the bridge
answering in its own page (`--answer browser`, Chromium plays the person); and everything else
it offers (tools, resources, templates, prompts, completion, logging, progress) reaches the
host as it reaches a host connected directly.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from bridge_harness import ROOT, BrowserRecord, bridge_http, bridge_stdio, environment, text_of
from mcp import Client
from mcp_types import (
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    LoggingMessageNotificationParams,
    PromptReference,
)
from playwright.async_api import Browser, expect

pytestmark = [pytest.mark.timeout(300), pytest.mark.filterwarnings("ignore::DeprecationWarning")]

PEER = ROOT / "tests" / "peers" / "everything"
EVERYTHING = [
    "node",
    str(PEER / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"),
    "stdio",
]
HOW = ["stdio", "http"]
LINK = "https://example.com/connect"


def through(how: str, bridge: str, answer: str = "host", env: dict[str, str] | None = None) -> Any:
    return bridge if how == "http" else bridge_stdio(EVERYTHING, answer, env=env)


class Host:
    """A host's elicitation callback: answers forms with `form` and URLs with `url`."""

    def __init__(self, form: ElicitResult, url: ElicitResult) -> None:
        self.form, self.url = form, url
        self.asked: list[Any] = []

    async def __call__(self, context: Any, params: Any) -> ElicitResult:
        self.asked.append(params)
        return self.url if isinstance(params, ElicitRequestURLParams) else self.form


@pytest.mark.parametrize("how", HOW)
async def test_the_host_answers_the_everything_servers_form_and_url_questions(
    how: str, everything_bridged: str
) -> None:
    host = Host(
        ElicitResult(action="accept", content={"name": "Ada Lovelace", "check": True, "integer": 7}),
        ElicitResult(action="accept"),
    )
    async with Client(through(how, everything_bridged), elicitation_callback=host, mode="legacy") as client:
        form = await client.call_tool("trigger-elicitation-request", {})
        url = await client.call_tool("trigger-url-elicitation", {"url": LINK, "elicitationId": "e-1"})
    assert "User provided the requested information" in text_of(form), text_of(form)
    assert "- Name: Ada Lovelace" in text_of(form) and "- Favorite Integer: 7" in text_of(form)
    assert "completed the URL elicitation flow" in text_of(url) and "e-1" in text_of(url), text_of(url)
    [asked_form, asked_url] = host.asked
    assert isinstance(asked_form, ElicitRequestFormParams)
    assert asked_form.requested_schema["required"] == ["name"]  # the server's schema, as it sent it
    assert "legacyTitledEnum" in asked_form.requested_schema["properties"]
    assert isinstance(asked_url, ElicitRequestURLParams)
    assert (asked_url.url, asked_url.elicitation_id) == (LINK, "e-1")


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_the_host_declines_and_cancels_the_everything_servers_form(
    how: str, action: str, everything_bridged: str
) -> None:
    host = Host(ElicitResult(action=action), ElicitResult(action=action))
    async with Client(through(how, everything_bridged), elicitation_callback=host, mode="legacy") as client:
        form = await client.call_tool("trigger-elicitation-request", {})
    said = {"decline": "User declined", "cancel": "User cancelled"}[action]
    assert said in text_of(form), text_of(form)


@pytest.mark.parametrize("how", HOW)
async def test_the_bridge_answers_the_everything_servers_questions_in_its_page(
    how: str, everything_http: str, tmp_path: Path, chromium: Browser
) -> None:
    """`--answer browser`: a host that declared no elicitation; the person answers the form and
    agrees to the URL in the bridge's page, and the URL opens only after that."""
    record = BrowserRecord(tmp_path)
    env = environment(**record.env)

    async def person() -> None:
        page = await chromium.new_page()
        await page.goto(await asyncio.to_thread(record.next_url, 0))
        await page.get_by_label("String").first.fill("Grace Hopper")  # "String *": the name, required
        await page.get_by_role("button", name="Review answers").click()
        await page.get_by_role("button", name="Submit answers").click()
        await expect(page.get_by_text("example.com")).not_to_have_count(0, timeout=60_000)
        assert len(record.opened()) == 1  # nothing opened before consent
        await page.get_by_role("button", name="Open in my browser").click()

    async def run(server: Any) -> tuple[str, str]:
        async with Client(server, mode="legacy") as client:  # no elicitation declared

            async def calls() -> tuple[str, str]:
                form = await client.call_tool("trigger-elicitation-request", {})
                url = await client.call_tool("trigger-url-elicitation", {"url": LINK})
                return text_of(form), text_of(url)

            _, texts = await asyncio.gather(person(), calls())
        return texts

    if how == "stdio":
        form, url = await run(through(how, "", "browser", env))
    else:
        with bridge_http([everything_http], tmp_path / "bridge.log", "browser", env=env) as bridged:
            form, url = await run(bridged)
    assert "- Name: Grace Hopper" in form and "- Favorite Integer: 42" in form, form  # a default, filled
    assert "completed the URL elicitation flow" in url, url
    assert record.opened()[0].startswith("file://") and record.opened()[1] == LINK


async def seen_by_a_host(server: Any) -> dict[str, Any]:
    """What a host sees of the everything server besides elicitation."""
    logs: list[str] = []
    progress: list[tuple[float, float | None]] = []

    async def on_log(params: LoggingMessageNotificationParams) -> None:
        logs.append(params.level)

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, total))

    async with Client(server, mode="legacy", logging_callback=on_log) as client:
        resources = (await client.list_resources()).resources
        read = await client.read_resource(resources[0].uri)
        prompt = await client.get_prompt("args-prompt", {"city": "Oslo", "state": "Viken"})
        completion = await client.complete(
            PromptReference(name="completable-prompt"), {"name": "department", "value": "Sa"}
        )
        await client.set_logging_level("debug")
        await client.call_tool("toggle-simulated-logging", {})
        operation = await client.call_tool(
            "trigger-long-running-operation", {"duration": 1, "steps": 2}, progress_callback=on_progress
        )
        await client.call_tool("toggle-simulated-logging", {})
        return {
            "name": client.server_info.name if client.server_info else None,
            "tools": sorted(t.name for t in (await client.list_tools()).tools),
            "resources": [r.uri for r in resources],
            "read": [c.model_dump() for c in read.contents],
            "templates": [
                t.uri_template for t in (await client.list_resource_templates()).resource_templates
            ],
            "prompts": [p.name for p in (await client.list_prompts()).prompts],
            "prompt": [m.model_dump() for m in prompt.messages],
            "completion": completion.completion.values,
            "sum": (await client.call_tool("get-sum", {"a": 2, "b": 3})).model_dump(exclude={"meta"}),
            "operation": text_of(operation),
            "progress": progress,
            "logged": bool(logs),
        }


@pytest.mark.parametrize("how", HOW)
async def test_everything_else_the_server_offers_passes_through_unchanged(
    how: str, everything_http: str, everything_bridged: str
) -> None:
    direct = EVERYTHING if how == "stdio" else everything_http
    if how == "stdio":
        from mcp.client.stdio import StdioServerParameters

        direct = StdioServerParameters(command=EVERYTHING[0], args=EVERYTHING[1:])  # type: ignore[assignment]
    expected = await seen_by_a_host(direct)
    bridged = await seen_by_a_host(through(how, everything_bridged))
    assert bridged == expected
    assert expected["completion"] == ["Sales"] and expected["progress"] == [(1, 2), (2, 2)]
    assert expected["logged"] and "get-sum" in expected["tools"] and expected["templates"]
