"""The 2026-07-28 rounds: questions in results, answers from retries, sealed state (M-01, M-02)."""

from __future__ import annotations

from typing import Any

import pytest
from form_clients import Script, accept
from mcp import Client
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CreateMessageResult, InputRequiredResult, TextContent
from pydantic import BaseModel

from elicitkit.server import AcceptedElicitation, Elicitation, ElicitationError
from elicitkit.server._rounds import current_round


class Word(BaseModel):
    word: str


QUESTION = {"text": "First word?"}


def make_server() -> MCPServer:
    server = MCPServer("rounds-tests")
    elicit = Elicitation(server)

    @server.tool()
    async def words(ctx: Context) -> str:
        got = []
        for _ in range(3):
            outcome = await elicit.form(ctx, f"Word number {len(got) + 1}?", Word)
            got.append(outcome.data.word if isinstance(outcome, AcceptedElicitation) else outcome.action)
        return " ".join(got)

    @server.tool()
    async def named(ctx: Context) -> str:
        outcome = await elicit.form(ctx, QUESTION["text"], Word, key="first")
        return outcome.data.word if isinstance(outcome, AcceptedElicitation) else outcome.action

    @server.tool()
    async def other(ctx: Context) -> str:
        outcome = await elicit.form(ctx, QUESTION["text"], Word, key="first")
        return outcome.action

    @server.tool()
    async def noting(ctx: Context) -> str:
        notes = current_round(ctx).notes  # what a URL-mode flow keeps between rounds (a record id)
        notes["runs"] = notes.get("runs", 0) + 1
        outcome = await elicit.form(ctx, "Word?", Word, key="w")
        return f"run {notes['runs']}: {outcome.action}"

    return server


def text(result: Any) -> str:
    block = result.content[0]
    assert isinstance(block, TextContent)
    return block.text


async def first_round(client: Client, tool: str) -> InputRequiredResult:
    result = await client.session.call_tool(tool, {}, allow_input_required=True)
    assert isinstance(result, InputRequiredResult)
    return result


async def next_round(
    client: Client, tool: str, before: InputRequiredResult, key: str, answer: Any
) -> InputRequiredResult:
    """Answer the question `key` of the round `before`, expecting another round back."""
    result = await client.session.call_tool(
        tool,
        {},
        input_responses={key: answer},
        request_state=before.request_state,
        allow_input_required=True,
    )
    assert isinstance(result, InputRequiredResult)
    return result


def modern() -> Client:
    """A client on 2026-07-28 that declares form mode; the tests drive the rounds by hand."""
    return Client(make_server(), mode="auto", elicitation_callback=Script(accept(word="x")))


async def test_one_question_per_round_with_earlier_answers_replayed_from_sealed_state() -> None:
    async with modern() as client:
        r1 = await first_round(client, "words")
        assert list(r1.input_requests or {}) == ["elicitation-1"]
        r2 = await next_round(client, "words", r1, "elicitation-1", accept(word="alpha"))
        assert list(r2.input_requests or {}) == ["elicitation-2"]
        # Sealed by the SDK boundary: the answer so far is in there, but not readable.
        assert r2.request_state is not None and r2.request_state.startswith("v1.")
        assert "alpha" not in r2.request_state and "elicitkit" not in r2.request_state
        r3 = await next_round(client, "words", r2, "elicitation-2", accept(word="beta"))
        done = await client.session.call_tool(
            "words",
            {},
            input_responses={"elicitation-3": accept(word="gamma")},
            request_state=r3.request_state,
        )
        assert text(done) == "alpha beta gamma"


async def test_a_missing_answer_asks_again_instead_of_failing() -> None:
    async with modern() as client:
        again = await client.session.call_tool(
            "named", {}, input_responses={"wrong_key": accept(word="x")}, allow_input_required=True
        )
        assert isinstance(again, InputRequiredResult)
        assert list(again.input_requests or {}) == ["first"]


async def test_extra_answers_are_ignored_and_a_first_answer_needs_no_state() -> None:
    async with modern() as client:
        done = await client.session.call_tool(
            "named", {}, input_responses={"first": accept(word="hi"), "noise": accept(other=1)}
        )
        assert text(done) == "hi"


async def test_a_tampered_state_is_refused() -> None:
    async with modern() as client:
        r1 = await first_round(client, "named")
        with pytest.raises(MCPError) as raised:
            await client.session.call_tool(
                "named", {}, input_responses={"first": accept(word="x")}, request_state=f"{r1.request_state}x"
            )
        assert raised.value.code == INVALID_PARAMS


async def test_state_only_counts_for_the_request_it_was_minted_for() -> None:
    async with modern() as client:
        r1 = await first_round(client, "named")
        with pytest.raises(MCPError) as raised:
            await client.session.call_tool(
                "other", {}, input_responses={"first": accept(word="x")}, request_state=r1.request_state
            )
        assert raised.value.code == INVALID_PARAMS


async def test_an_answer_to_a_question_that_changed_is_not_used() -> None:
    async with modern() as client:
        r1 = await first_round(client, "named")
        QUESTION["text"] = "Reworded first word?"
        try:
            again = await client.session.call_tool(
                "named",
                {},
                input_responses={"first": accept(word="x")},
                request_state=r1.request_state,
                allow_input_required=True,
            )
        finally:
            QUESTION["text"] = "First word?"
        assert isinstance(again, InputRequiredResult)
        request = (again.input_requests or {})["first"]
        assert request.params is not None and request.params.message == "Reworded first word?"  # type: ignore[union-attr]


async def test_an_answer_of_the_wrong_kind_is_a_protocol_error() -> None:
    async with modern() as client:
        r1 = await first_round(client, "named")
        sampled = CreateMessageResult(
            role="assistant", content=TextContent(type="text", text="hi"), model="m"
        )
        with pytest.raises(MCPError) as raised:
            await client.session.call_tool(
                "named", {}, input_responses={"first": sampled}, request_state=r1.request_state
            )
        assert raised.value.code == INVALID_PARAMS
        assert "not an elicitation/create result" in raised.value.message


def test_rounds_need_the_elicitation_attached() -> None:
    with pytest.raises(ElicitationError, match=r"no elicitkit\.server\.Elicitation attached"):
        current_round(Context())


async def test_notes_survive_into_the_next_round_sealed() -> None:
    async with modern() as client:
        r1 = await first_round(client, "noting")
        assert "runs" not in (r1.request_state or "")
        done = await client.session.call_tool(
            "noting", {}, input_responses={"w": accept(word="x")}, request_state=r1.request_state
        )
        assert text(done) == "run 2: accept"
