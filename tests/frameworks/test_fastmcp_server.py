"""elicitkit on a FastMCP server (examples/fastmcp/server.py over real HTTP on 127.0.0.1): a form
and a URL-mode `Secret` complete with elicitkit's client, the SDK's `mcp.Client` and FastMCP's
own `Client`, at 2025-11-25 and 2026-07-28; the pages are served by FastMCP's app; a form-only
client never gets URL mode."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import fastmcp
import pytest
from fastmcp_harness import BOOKING, WEATHER_KEY, CalendarPerson, Person, fastmcp_example
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitRequestURLParams, ElicitResult
from support.security_headers import assert_hardened

from elicitkit.client import AcceptedElicitation, ElicitationConfig, FormQuestion, ScriptedUI, UrlQuestion
from elicitkit.demo.provider import DemoProvider

pytestmark = pytest.mark.timeout(90)

REVISIONS = {"legacy": "2025-11-25", "2026-07-28": "2026-07-28"}
BOOKED = "Booked a table for 4 on 2026-12-24."
SUNNY = f"Sunny in Oslo (key {hashlib.sha256(WEATHER_KEY.encode()).hexdigest()[:8]})"


def text(result: Any) -> str:
    assert not result.is_error, result
    return str(result.content[0].text)


def pages_served_by_fastmcp(person: Person, base: str) -> None:
    [url] = set(person.opened)
    assert url.startswith(f"{base}/elicit/")  # the FastMCP app's own origin
    page = person.pages[0]
    assert page.status_code == 200 and "Weather API key" in page.text
    assert_hardened(page.headers)


def answer(question: Any) -> AcceptedElicitation:
    if not isinstance(question, FormQuestion):
        return AcceptedElicitation()  # URL consent
    return AcceptedElicitation({"party": 4} if question.message == "For how many?" else BOOKING)


@pytest.mark.parametrize("mode", REVISIONS)
async def test_elicitkit_client(mode: str) -> None:
    person = Person()
    ui = ScriptedUI(otherwise=answer)
    config = ElicitationConfig(ui, modes=("form", "url"), open_url=person.open, wait_timeout=30)
    async with fastmcp_example() as served:
        async with config.connect(served.mcp, mode=mode) as client:
            assert client.protocol_version == REVISIONS[mode]
            booked = await client.call_tool("book", {})
            forecast = await client.call_tool("forecast", {"city": "Oslo"})
            again = await client.call_tool("forecast", {"city": "Oslo"})  # stored: not asked again
            prompt = await client.get_prompt("plan")  # a prompt asks too
            resource = await client.read_resource("tables://today")  # and a resource
        await person.finished()
        pages_served_by_fastmcp(person, served.base)
    assert (text(booked), text(forecast), text(again)) == (BOOKED, SUNNY, SUNNY)
    assert "Plan a dinner for 4 on 2026-12-24." in prompt.messages[0].content.text  # type: ignore[union-attr]
    assert resource.contents[0].text == "A table for 4 tonight."  # type: ignore[union-attr]
    forms = [q for q in ui.shown if isinstance(q, FormQuestion)]
    consents = [q for q in ui.shown if isinstance(q, UrlQuestion)]
    assert len(forms) + len(consents) == len(ui.shown)
    assert [f.message for f in forms] == [
        "Which day, and for how many?",
        "Which day should we plan?",
        "For how many?",
    ]
    assert forms[0].schema["properties"]["party"]["maximum"] == 12
    # one link (the stored key is not asked for again); 2026-07-28 re-asks it until the page is done
    assert consents and {c.report.url for c in consents} == set(person.opened)


@pytest.mark.parametrize("mode", REVISIONS)
async def test_sdk_client(mode: str) -> None:
    person = Person()
    asked: list[str] = []

    async def on_elicit(context: Any, params: Any) -> ElicitResult:
        asked.append(params.mode)
        if isinstance(params, ElicitRequestURLParams):
            if params.url not in person.opened:  # 2026-07-28 asks again each round until done
                person.open(params.url)
            return ElicitResult(action="accept")
        return ElicitResult(action="accept", content=BOOKING)

    async with fastmcp_example() as served:
        async with Client(
            served.mcp, mode=mode, elicitation_callback=on_elicit, input_required_max_rounds=400, cache=None
        ) as client:
            assert client.protocol_version == REVISIONS[mode]
            booked = await client.call_tool("book", {})
            forecast = await client.call_tool("forecast", {"city": "Oslo"})
        await person.finished()
        pages_served_by_fastmcp(person, served.base)
    assert (text(booked), text(forecast)) == (BOOKED, SUNNY)
    assert asked[:2] == ["form", "url"]


@pytest.mark.parametrize("mode", REVISIONS)
async def test_fastmcp_client(mode: str) -> None:
    person = Person()

    async def on_elicit(message: str, response_type: Any, params: Any, context: Any) -> Any:
        if isinstance(params, ElicitRequestURLParams):
            if params.url not in person.opened:
                person.open(params.url)
            return ElicitResult(action="accept")
        return BOOKING

    async with fastmcp_example() as served:
        client = fastmcp.Client(
            served.mcp, elicitation_handler=on_elicit, mode=mode, input_required_max_rounds=400
        )
        async with client:
            booked = await client.call_tool("book", {})
            forecast = await client.call_tool("forecast", {"city": "Oslo"})
        await person.finished()
        pages_served_by_fastmcp(person, served.base)
    assert (booked.data, forecast.data) == (BOOKED, SUNNY)


@pytest.mark.parametrize("mode", REVISIONS)
async def test_a_form_only_client_never_gets_url_mode(mode: str) -> None:
    ui = ScriptedUI(AcceptedElicitation(BOOKING))
    config = ElicitationConfig(ui, modes=("form",), open_url=lambda url: False)
    async with fastmcp_example() as served:
        async with config.connect(served.mcp, mode=mode) as client:
            booked = await client.call_tool("book", {})
            with pytest.raises(MCPError) as refused:
                await client.call_tool("forecast", {"city": "Oslo"})
        assert served.store.records == {}  # nothing was created, nothing was sent
    assert text(booked) == BOOKED
    assert refused.value.code == -32021  # missing required client capability, as on an MCPServer
    assert len(ui.shown) == 1 and isinstance(ui.shown[0], FormQuestion)


@pytest.mark.parametrize("mode", REVISIONS)
async def test_oauth_connection(mode: str) -> None:
    """The example's `OAuthConnection`: the person allows it, signs in at the demo provider as
    alice, and the tool reads her calendar with the token, on both revisions."""
    async with DemoProvider(client_id="tables", client_secret="tables-s3cret") as provider:
        person = CalendarPerson(provider=provider)
        config = ElicitationConfig(
            ScriptedUI(otherwise=AcceptedElicitation()),
            modes=("form", "url"),
            open_url=person.open,
            wait_timeout=30,
        )
        async with fastmcp_example(calendar=provider) as served:
            async with config.connect(served.mcp, mode=mode) as client:
                first = await client.call_tool("agenda", {})
                again = await client.call_tool("agenda", {})  # connected: no second question
            await person.finished()
    assert json.loads(text(first))["owner"] == "alice" and text(again) == text(first)
    assert len(set(person.opened)) == 1 and person.opened[0].startswith(f"{served.base}/elicit/")
