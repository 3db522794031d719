"""Issue 12: the real client, over streamable HTTP, against servers that mean harm.

One test per behaviour; `hostile_servers.py` holds the servers (bare SDK).
"""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from client_http import record, serve
from client_servers import NAME_SCHEMA
from hostile_servers import BROKEN_32042, EVIL_PATTERN, EVIL_TEXT, hostile_server, old_server

from elicitkit.client import (
    AcceptedElicitation,
    ElicitationConfig,
    ElicitationProtocolError,
    ElicitationRateLimitedError,
    FormQuestion,
    RateLimit,
    ScriptedUI,
    Sizes,
    UrlQuestion,
    accept_prefilled,
)


def answer_of(result: Any) -> dict[str, Any]:
    return json.loads(result.content[0].text)  # type: ignore[no-any-return]


@asynccontextmanager
async def heartbeat() -> AsyncIterator[list[float]]:
    """A task ticking every 10 ms; yields the list of lags it saw (how late each tick was)."""
    lags: list[float] = []
    async with anyio.create_task_group() as tg:

        async def tick() -> None:
            while True:
                before = time.monotonic()
                await anyio.sleep(0.01)
                lags.append(time.monotonic() - before - 0.01)

        tg.start_soon(tick)
        yield lags
        tg.cancel_scope.cancel()


@pytest.fixture
def hostile_url() -> Any:
    with serve(hostile_server().streamable_http_app()) as url:
        yield url


# -- patterns ------------------------------------------------------------------------------------


async def test_a_catastrophic_pattern_never_stalls_the_event_loop(hostile_url: str) -> None:
    schema = {"type": "object", "properties": {"code": {"type": "string", "pattern": EVIL_PATTERN}}}
    schema["properties"]["code"]["default"] = EVIL_TEXT
    ui = ScriptedUI(AcceptedElicitation({"code": EVIL_TEXT}), AcceptedElicitation({"code": "aaa"}))
    config = ElicitationConfig(ui)
    async with config.connect(hostile_url, mode="legacy") as client, heartbeat() as lags:
        started = time.monotonic()
        result = await client.call_tool("ask", {"schema": json.dumps(schema)})
        elapsed = time.monotonic() - started
    assert answer_of(result) == {"action": "accept", "content": {"code": "aaa"}}
    # The default breaks the pattern, so the form does not start from it; the bad answer is refused.
    first, second = ui.shown
    assert isinstance(first, FormQuestion) and first.initial == {}
    assert isinstance(second, FormQuestion) and [p.code for p in second.problems] == ["pattern"]
    assert elapsed < 5 and max(lags, default=0.0) < 0.5


async def test_a_lookaround_pattern_is_refused_with_32602_naming_the_field(hostile_url: str) -> None:
    schema = {"type": "object", "properties": {"pin": {"type": "string", "pattern": "^(?=.*\\d).+$"}}}
    ui = ScriptedUI(otherwise=accept_prefilled)
    async with ElicitationConfig(ui).connect(hostile_url, mode="legacy") as client:
        answer = answer_of(await client.call_tool("ask", {"schema": json.dumps(schema)}))
    assert answer["error"] == -32602
    assert "'pin'" in answer["message"] and "lookaround" in answer["message"]
    assert ui.shown == []


# -- C-03 on every stream ----------------------------------------------------------------------

REFUSED = {
    "error": -32602,
    "message": "elicitation/create is not associated with a client request in flight.",
}


async def test_a_request_on_the_get_stream_while_one_call_is_open_is_that_calls(hostile_url: str) -> None:
    """What stock servers send from inside a tool (the TypeScript SDK's
    `server.server.elicitInput`): with one call open, the question can only be that call's."""
    ui = ScriptedUI(otherwise=accept_prefilled)
    async with ElicitationConfig(ui).connect(hostile_url, mode="legacy") as client:
        answer = answer_of(await client.call_tool("ask_aside"))
    assert answer == {"action": "accept", "content": {"name": "Ada"}}
    assert len(ui.shown) == 1


async def test_a_request_on_the_get_stream_while_two_calls_are_open_gets_32602(hostile_url: str) -> None:
    ui = ScriptedUI(otherwise=accept_prefilled)
    answers: dict[str, Any] = {}
    async with ElicitationConfig(ui).connect(hostile_url, mode="legacy") as client:

        async def aside() -> None:
            answers["aside"] = answer_of(await client.call_tool("ask_aside", {"delay": 0.5}))

        async with anyio.create_task_group() as tg:
            tg.start_soon(aside)
            tg.start_soon(client.call_tool, "pause", {"seconds": 2.0})
        # The same client still answers a request tied to its call.
        tied = answer_of(await client.call_tool("ask", {"schema": json.dumps(NAME_SCHEMA)}))
    assert answers["aside"] == REFUSED  # nothing says which of the two calls it belongs to
    assert tied == {"action": "accept", "content": {"name": "Ada"}}
    assert len(ui.shown) == 1


async def test_the_strict_setting_refuses_the_get_stream_even_during_a_call(hostile_url: str) -> None:
    ui = ScriptedUI(otherwise=accept_prefilled)
    config = ElicitationConfig(ui, standalone_stream="refuse")
    async with config.connect(hostile_url, mode="legacy") as client:
        answer = answer_of(await client.call_tool("ask_aside"))
        tied = answer_of(await client.call_tool("ask", {"schema": json.dumps(NAME_SCHEMA)}))
    assert answer == REFUSED
    assert tied == {"action": "accept", "content": {"name": "Ada"}}
    assert len(ui.shown) == 1


@pytest.mark.parametrize("setting", ["always", "during-call"])  # "during-call": a name 0.1.0 never shipped
def test_an_unknown_standalone_setting_is_refused_at_once(setting: str) -> None:
    with pytest.raises(ValueError, match="'one-call' or 'refuse'"):
        ElicitationConfig(ScriptedUI(), standalone_stream=setting)  # type: ignore[arg-type]


# -- schemas the client could only half check ----------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "where"),
    [
        ({"allOf": [{"required": ["name"]}]}, "/allOf"),
        ({"if": {"properties": {"name": {"const": "x"}}}, "then": {"required": ["age"]}}, "/if"),
        ({"dependentRequired": {"name": ["age"]}}, "/dependentRequired"),
        ({"not": {"required": ["name"]}}, "/not"),
        ({"x-rule": "name != age"}, "/x-rule"),
    ],
)
async def test_a_keyword_outside_the_subset_is_refused_not_ignored(
    hostile_url: str, extra: dict[str, Any], where: str
) -> None:
    schema = {
        "type": "object",
        "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
        **extra,
    }
    ui = ScriptedUI(otherwise=lambda q: AcceptedElicitation({}))
    async with ElicitationConfig(ui).connect(hostile_url, mode="legacy") as client:
        answer = answer_of(await client.call_tool("ask", {"schema": json.dumps(schema)}))
    assert answer["error"] == -32602
    assert f"(at {where})" in answer["message"]
    assert ui.shown == []


async def test_a_constraint_hidden_in_a_choice_list_is_refused(hostile_url: str) -> None:
    hidden = {"type": "array", "items": {"enum": ["a", "b"], "not": {"const": "a"}}}
    schema = {"type": "object", "properties": {"pick": hidden}}
    ui = ScriptedUI(otherwise=lambda q: AcceptedElicitation({"pick": ["a"]}))
    async with ElicitationConfig(ui).connect(hostile_url, mode="legacy") as client:
        answer = answer_of(await client.call_tool("ask", {"schema": json.dumps(schema)}))
    assert answer["error"] == -32602 and "/properties/pick/items/not" in answer["message"]
    assert ui.shown == []


# -- one gate for every prompt -------------------------------------------------------------------


async def test_a_32042_storm_shows_no_more_than_the_rate_limit_and_ends_typed(hostile_url: str) -> None:
    limit = RateLimit(per_second=1, burst=4, max_waiting=3)
    ui = ScriptedUI(otherwise=accept_prefilled, waits=["retry"] * 1000)
    opened: list[str] = []
    config = ElicitationConfig(ui, modes="url", rate_limit=limit, wait_timeout=0.01, open_url=record(opened))
    async with config.connect(hostile_url, mode="legacy") as client:
        started = time.monotonic()
        with pytest.raises(ElicitationRateLimitedError, match="Hostile Server asked for more than"):
            await client.call_tool("storm")
        elapsed = time.monotonic() - started
        gate = client.elicitations.gate
    screens = len(ui.shown) + len([w for w in ui.waited if not w.timed_out])
    assert screens == gate.admitted <= limit.most_in(elapsed) + 1
    assert len(opened) == len(ui.shown) < 1000
    assert [n for n in ui.notices if "too often" in n] == [
        "Hostile Server is asking too often; extra questions are dismissed."
    ]
    assert gate.waiting == 0


async def test_held_call_retries_have_a_bound_even_within_the_rate(hostile_url: str) -> None:
    generous = RateLimit(per_second=10_000, burst=10_000, max_waiting=3)
    ui = ScriptedUI(otherwise=accept_prefilled, waits=["retry"] * 1000)
    sizes = Sizes(held_rounds=5)
    config = ElicitationConfig(
        ui, modes="url", rate_limit=generous, sizes=sizes, wait_timeout=0.01, open_url=record([])
    )
    async with config.connect(hostile_url, mode="legacy") as client:
        with pytest.raises(ElicitationRateLimitedError, match="held the call with -32042 6 times"):
            await client.call_tool("storm")
    assert len(ui.shown) == 6


# -- malformed protocol data ---------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(BROKEN_32042))
async def test_malformed_32042_data_ends_with_a_typed_error(hostile_url: str, kind: str) -> None:
    ui = ScriptedUI(otherwise=accept_prefilled)
    async with ElicitationConfig(ui, modes="url").connect(hostile_url, mode="legacy") as client:
        with pytest.raises(
            ElicitationProtocolError, match=r"^Hostile Server answered -32042 but .+; the call"
        ):
            await client.call_tool("broken_32042", {"kind": kind})
    assert ui.shown == []


async def test_a_result_of_the_wrong_shape_ends_with_a_typed_error_not_pydantics() -> None:
    with serve(old_server()) as url:
        async with ElicitationConfig(ScriptedUI()).connect(url, mode="legacy") as client:
            with pytest.raises(ElicitationProtocolError) as caught:
                await client.call_tool("malformed")
    assert str(caught.value) == (
        "Old Server sent a result that breaks the protocol (1 problem(s); content: "
        "Input should be a valid list); the call was stopped."
    )
    assert caught.value.__cause__ is None


async def test_completion_notices_of_the_wrong_type_are_dropped_and_the_client_goes_on(
    hostile_url: str,
) -> None:
    ui = ScriptedUI(otherwise=accept_prefilled)
    async with ElicitationConfig(ui).connect(hostile_url, mode="legacy") as client:
        sent = await client.call_tool("bad_notices")
        schema = {"type": "object", "properties": {"name": {"type": "string", "default": "Ada"}}}
        after = answer_of(await client.call_tool("ask", {"schema": json.dumps(schema)}))
    assert sent.content[0].text == "sent"  # type: ignore[union-attr]
    assert after == {"action": "accept", "content": {"name": "Ada"}}
    assert not [n for n in ui.notices if "completed" in n]


# -- sizes ---------------------------------------------------------------------------------------


async def test_oversized_text_is_cut_on_every_screen(hostile_url: str) -> None:
    sizes = Sizes()
    huge = "x" * 150_000  # four copies stay under the SDK's 1 MiB cap on one SSE event
    schema = {
        "type": "object",
        "title": huge,
        "properties": {"name": {"type": "string", "title": huge, "description": huge}},
    }
    ui = ScriptedUI(AcceptedElicitation({"name": 5}), otherwise=lambda q: AcceptedElicitation({}))
    async with ElicitationConfig(ui, modes=("form", "url")).connect(hostile_url, mode="legacy") as client:
        form = answer_of(await client.call_tool("ask", {"schema": json.dumps(schema), "message": huge}))
        url = answer_of(
            await client.call_tool("ask_url", {"url": "https://example.com/" + "p" * 100, "message": huge})
        )
    assert form["action"] == "accept" and url["action"] == "accept"
    first, second, consent = ui.shown
    assert isinstance(first, FormQuestion) and isinstance(second, FormQuestion)
    assert len(first.message) == sizes.message and first.message.endswith("…")
    field = first.schema["properties"]["name"]
    assert len(field["title"]) == len(field["description"]) == len(first.schema["title"]) == sizes.title
    assert all(len(p.message) < 300 for p in second.problems)
    assert isinstance(consent, UrlQuestion) and len(consent.message) == sizes.message


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        (
            {"type": "object", "properties": {f"f{i}": {"type": "string"} for i in range(500)}},
            "has 500 fields; this client shows at most 50",
        ),
        (
            {
                "type": "object",
                "properties": {"pick": {"type": "string", "enum": [str(i) for i in range(5000)]}},
            },
            "'pick' offers 5000 choices (at /properties/pick/enum)",
        ),
    ],
)
async def test_an_oversized_schema_is_refused_with_32602(hostile_url: str, schema: Any, words: str) -> None:
    ui = ScriptedUI(otherwise=accept_prefilled)
    async with ElicitationConfig(ui).connect(hostile_url, mode="legacy") as client:
        answer = answer_of(await client.call_tool("ask", {"schema": json.dumps(schema)}))
    assert answer["error"] == -32602 and words in answer["message"]
    assert ui.shown == []


async def test_an_oversized_url_is_refused_with_32602(hostile_url: str) -> None:
    ui = ScriptedUI(otherwise=accept_prefilled)
    opened: list[str] = []
    config = ElicitationConfig(ui, modes="url", open_url=record(opened))
    async with config.connect(hostile_url, mode="legacy") as client:
        answer = answer_of(await client.call_tool("ask_url", {"url": "https://example.com/" + "p" * 100_000}))
    assert answer["error"] == -32602 and "this client opens at most 4096" in answer["message"]
    assert ui.shown == [] and opened == []
