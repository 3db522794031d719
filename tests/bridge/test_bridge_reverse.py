"""A 2026-07-28 host in front of a 2025-11-25 server, through the bridge.

The host (the SDK's `mcp.Client`, negotiating 2026-07-28) cannot be sent `elicitation/create`;
the server (pinned to 2025-11-25 with `--upstream-protocol`) asks only that way. The bridge
holds the upstream call, hands each question to the host as an input-required result, and
answers the held question with the host's retry. Its `requestState` is sealed, bound to the
session and the call, and good once.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from bridge_harness import (
    FASTMCP,
    HERE,
    PY,
    ROOT,
    SDK,
    WEATHER,
    BrowserRecord,
    bridge_args,
    bridge_http,
    bridge_stdio,
    environment,
    http_process,
    text_of,
)
from mcp import Client
from mcp.client.stdio import stdio_client
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp_types import (
    INVALID_PARAMS,
    CallToolResult,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequiredResult,
)
from playwright.async_api import Browser
from support.url_harness import SECRET, fingerprint, serve

from elicitkit.bridge import Bridge
from elicitkit.client import WatchedTransport

pytestmark = pytest.mark.timeout(300)

LEGACY = ("--upstream-protocol", "2025-11-25")
ELICITKIT = [PY, str(HERE / "upstream_elicitkit.py"), "stdio"]
HOW = ["stdio", "http"]
BAD_STATE = "Invalid or expired requestState"


@pytest.fixture(scope="module")
def sdk_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with http_process([*SDK, "http", "PORT"], tmp_path_factory.mktemp("sdk") / "upstream.log") as url:
        yield url


@pytest.fixture(scope="module")
def reverse_bridge(sdk_http: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`elicitkit bridge --listen --answer host`, speaking 2025-11-25 to the SDK server."""
    with bridge_http([sdk_http], tmp_path_factory.mktemp("bridge") / "bridge.log", "host", *LEGACY) as url:
        yield url


def through(how: str, reverse_bridge: str, upstream: list[str] | None = None) -> Any:
    if how == "http" and upstream is None:
        return reverse_bridge
    return bridge_stdio(upstream or [*SDK, "stdio"], "host", *LEGACY)


class Host:
    """A 2026-07-28 host's elicitation callback: scripted answers, and what it was asked."""

    def __init__(self, *answers: ElicitResult) -> None:
        self.answers = list(answers)
        self.asked: list[Any] = []

    async def __call__(self, context: Any, params: Any) -> ElicitResult:
        self.asked.append(params)
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


@asynccontextmanager
async def modern(target: Any, host: Host | None = None) -> AsyncIterator[Client]:
    async with Client(target, elicitation_callback=host or Host(ElicitResult(action="cancel"))) as client:
        assert client.protocol_version == "2026-07-28"
        yield client


async def first_round(
    client: Client, tool: str, arguments: dict[str, Any] | None = None
) -> InputRequiredResult:
    """Call `tool` without the SDK's driver: the host sees the round itself."""
    result = await client.session.call_tool(tool, arguments or {}, allow_input_required=True)
    assert isinstance(result, InputRequiredResult), result
    return result


def only_question(result: InputRequiredResult) -> tuple[str, Any]:
    assert result.input_requests is not None and result.request_state is not None
    [(key, request)] = result.input_requests.items()
    assert isinstance(request, ElicitRequest)
    return key, request.params


async def retry(client: Client, tool: str, key: str, answer: ElicitResult, state: str | None) -> Any:
    return await client.session.call_tool(
        tool, {}, input_responses={key: answer}, request_state=state, allow_input_required=True
    )


def refused_as_bad_state(error: MCPError) -> bool:
    return error.code == INVALID_PARAMS and error.message == BAD_STATE


# -- what a host sees


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (ElicitResult(action="accept", content={"guest": "Ada", "nights": 3}), "reserved 3 nights for Ada"),
        (ElicitResult(action="decline"), "DeclinedElicitation"),
        (ElicitResult(action="cancel"), "CancelledElicitation"),
    ],
)
async def test_a_2025_servers_live_question_becomes_a_round_for_a_2026_host(
    how: str, reply: ElicitResult, said: str, reverse_bridge: str, tmp_path: Path
) -> None:
    host = Host(reply)
    log = tmp_path / "bridge.log"
    if how == "stdio":
        target: Any = bridge_stdio(ELICITKIT, "host", *LEGACY)
        async with modern(target, host) as client:
            result = await client.call_tool("reserve", {})
    else:
        with bridge_http(ELICITKIT, log, "host", *LEGACY) as url:
            async with modern(url, host) as client:
                result = await client.call_tool("reserve", {})
    assert text_of(result) == f"2025-11-25: {said}"  # the server asked live, on its revision
    assert [p.message for p in host.asked] == ["Who is staying, and for how long?"]


@pytest.mark.parametrize("how", HOW)
async def test_the_round_carries_the_question_and_the_answer_reaches_the_server(
    how: str, reverse_bridge: str
) -> None:
    async with modern(through(how, reverse_bridge)) as client:
        key, asked = only_question(round_ := await first_round(client, "ask_name"))
        assert isinstance(asked, ElicitRequestFormParams) and asked.message == "Your name?"
        answer = ElicitResult(action="accept", content={"name": "Ada"})
        result = await retry(client, "ask_name", key, answer, round_.request_state)
    assert isinstance(result, CallToolResult)
    assert json.loads(text_of(result)) == {"action": "accept", "content": {"name": "Ada"}}


@pytest.mark.parametrize("how", HOW)
async def test_an_answer_the_schema_refuses_makes_a_second_round(how: str, reverse_bridge: str) -> None:
    host = Host(
        ElicitResult(action="accept", content={"name": "A"}),  # minLength 2: asked again
        ElicitResult(action="accept", content={"name": "Ada"}),
    )
    async with modern(through(how, reverse_bridge), host) as client:
        result = await client.call_tool("ask_name", {})
    assert json.loads(text_of(result)) == {"action": "accept", "content": {"name": "Ada"}}
    assert len(host.asked) == 2 and "2" in host.asked[1].message  # the second round says why


@pytest.mark.parametrize("how", HOW)
async def test_url_mode_crosses_as_a_round_and_a_decline_wins(how: str, reverse_bridge: str) -> None:
    accepting, declining = Host(ElicitResult(action="accept")), Host(ElicitResult(action="decline"))
    async with modern(through(how, reverse_bridge), accepting) as client:
        accepted = await client.call_tool("ask_url", {})
    async with modern(through(how, reverse_bridge), declining) as client:
        declined = await client.call_tool("ask_url", {})
    assert json.loads(text_of(accepted)) == {"action": "accept", "content": None}
    assert json.loads(text_of(declined)) == {"action": "decline", "content": None}
    [asked] = accepting.asked
    assert isinstance(asked, ElicitRequestURLParams) and asked.url == "https://example.com/connect"


# -- the bridge's requestState


@pytest.mark.parametrize("how", HOW)
async def test_a_replayed_state_is_refused(how: str, reverse_bridge: str) -> None:
    answer = ElicitResult(action="accept", content={"name": "Ada"})
    async with modern(through(how, reverse_bridge)) as client:
        round_ = await first_round(client, "ask_name")
        key, _ = only_question(round_)
        done = await retry(client, "ask_name", key, answer, round_.request_state)
        assert isinstance(done, CallToolResult)
        with pytest.raises(MCPError) as replayed:
            await retry(client, "ask_name", key, answer, round_.request_state)
    assert refused_as_bad_state(replayed.value)


@pytest.mark.parametrize("how", HOW)
async def test_a_tampered_or_forged_state_is_refused_and_the_real_one_still_answers(
    how: str, reverse_bridge: str
) -> None:
    answer = ElicitResult(action="accept", content={"name": "Ada"})
    async with modern(through(how, reverse_bridge)) as client:
        round_ = await first_round(client, "ask_name")
        key, _ = only_question(round_)
        state = round_.request_state
        assert state is not None
        middle = len(state) // 2
        tampered = state[:middle] + ("A" if state[middle] != "A" else "B") + state[middle + 1 :]
        for bad in (tampered, state[:-2], "ekb1." + "A" * 60, json.dumps({"k": "held", "r": 1})):
            with pytest.raises(MCPError) as refused:
                await retry(client, "ask_name", key, answer, bad)
            assert refused_as_bad_state(refused.value), bad
        result = await retry(client, "ask_name", key, answer, state)
    assert json.loads(text_of(result)) == {"action": "accept", "content": {"name": "Ada"}}


async def test_a_state_is_bound_to_its_call(reverse_bridge: str) -> None:
    async with modern(reverse_bridge) as client:
        round_ = await first_round(client, "ask_as", {"label": "one"})
        key, _ = only_question(round_)
        answer = {key: ElicitResult(action="accept", content={"name": "Ada"})}
        with pytest.raises(MCPError) as moved:  # the same state on a call with other arguments
            await client.session.call_tool(
                "ask_as", {"label": "two"}, input_responses=answer, request_state=round_.request_state
            )
        # its own call still takes it (and the shared session is left with nothing held)
        done = await client.session.call_tool(
            "ask_as", {"label": "one"}, input_responses=answer, request_state=round_.request_state
        )
    assert refused_as_bad_state(moved.value)
    assert json.loads(text_of(done))["content"] == {"name": "Ada"}


async def test_a_state_from_another_host_session_is_refused() -> None:
    answer = ElicitResult(action="accept", content={"name": "Ada"})
    async with modern(through("stdio", "")) as one, modern(through("stdio", "")) as other:
        round_ = await first_round(one, "ask_name")
        key, _ = only_question(round_)
        with pytest.raises(MCPError) as elsewhere:
            await retry(other, "ask_name", key, answer, round_.request_state)
        assert refused_as_bad_state(elsewhere.value)
        result = await retry(one, "ask_name", key, answer, round_.request_state)
    assert json.loads(text_of(result))["content"] == {"name": "Ada"}


# -- the hold is bounded


@asynccontextmanager
async def library_bridge(upstream: str, **options: Any) -> AsyncIterator[str]:
    """The bridge as a library, served over HTTP on 127.0.0.1 in this process."""
    bridge = Bridge(upstream, answer="host", upstream_protocol="2025-11-25", **options)
    async with serve(lambda url: bridge.asgi_app(credential=None)) as base:
        yield f"{base}/mcp"


async def test_past_the_cap_of_held_calls_the_host_gets_an_error(sdk_http: str) -> None:
    async with library_bridge(sdk_http, max_held=1) as url, modern(url) as client:
        held = await first_round(client, "ask_as", {"label": "first"})
        with pytest.raises(MCPError) as refused:
            await client.session.call_tool("ask_as", {"label": "second"}, allow_input_required=True)
        assert "holds 1 call" in refused.value.message
        key, _ = only_question(held)  # the first call is still held, and still answers
        answer = {key: ElicitResult(action="accept", content={"name": "Ada"})}
        result = await client.session.call_tool(
            "ask_as", {"label": "first"}, input_responses=answer, request_state=held.request_state
        )
    assert json.loads(text_of(result))["content"] == {"name": "Ada"}


async def test_a_call_held_past_its_deadline_is_cancelled_and_the_late_retry_told_why(sdk_http: str) -> None:
    async with library_bridge(sdk_http, hold_timeout=1.0) as url, modern(url) as client:
        round_ = await first_round(client, "ask_name")
        key, _ = only_question(round_)
        await anyio.sleep(2.0)
        with pytest.raises(MCPError) as late:
            await retry(
                client,
                "ask_name",
                key,
                ElicitResult(action="accept", content={"name": "Ada"}),
                round_.request_state,
            )
        # the hold is free again: a new call gets its own round
        again = await first_round(client, "ask_name")
    assert "stopped holding this call" in late.value.message
    assert only_question(again)[0]


# -- URL mode, completed by the person


async def test_url_mode_completes_through_a_round_and_the_secret_never_passes_the_host(
    tmp_path: Path, chromium: Browser
) -> None:
    """An elicitkit server on 2025-11-25 asks for a `Secret` by URL; the 2026-07-28 host
    consents in its round and opens the page; the person completes it there; the held call
    finishes and the host's retry gets the result."""
    upstream = [*WEATHER, "--stdio", "--db", str(tmp_path / "weather.db")]
    tape = Recorder()
    transport = WatchedTransport(stdio_client(bridge_stdio(upstream, "host", *LEGACY)), tape)
    host = Host(ElicitResult(action="accept"))

    async def person() -> None:
        while not host.asked:
            await anyio.sleep(0.05)
        page = await chromium.new_page()
        await page.goto(host.asked[0].url)  # the host opens what its person agreed to
        await page.fill("#secret", SECRET)
        await page.click("button[value=save]")

    async with modern(transport, host) as client, anyio.create_task_group() as tasks:
        tasks.start_soon(person)
        result = await client.call_tool("forecast", {"city": "Oslo"})
    assert not result.is_error, text_of(result)
    assert fingerprint(SECRET) in text_of(result)
    [asked] = host.asked  # one consent for the URL
    assert isinstance(asked, ElicitRequestURLParams) and asked.url.startswith("http://127.0.0.1:")
    assert tape.text and SECRET not in "".join(tape.text)


class Recorder:
    """What the host's transport received, as JSON text."""

    def __init__(self) -> None:
        self.text: list[str] = []

    def sent(self, item: SessionMessage) -> None:
        return None

    def received(self, item: SessionMessage | Exception) -> None:
        if isinstance(item, SessionMessage):
            self.text.append(item.message.model_dump_json(by_alias=True))


# -- a stock 2026-07-28 host nobody here wrote


def ts_modern_host(how: str, target: str, action: str) -> list[dict[str, Any]]:
    if how == "stdio":
        target = json.dumps([PY, *bridge_args([*SDK, "stdio"], "host", *LEGACY)])
    done = subprocess.run(
        ["node", "bridge_host.mjs", "v2-2026", how, target, "ask_name", "form", action, '{"name": "Ada"}'],
        cwd=ROOT / "tests" / "peers" / "ts-sdk",
        capture_output=True,
        text=True,
        timeout=240,
        env=environment(),
        check=False,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, done.stderr[-3000:]
    return lines


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("action", ["accept", "decline", "cancel"])
async def test_the_typescript_v2_client_on_2026_answers_the_rounds(
    how: str, action: str, reverse_bridge: str
) -> None:
    lines = await anyio.to_thread.run_sync(ts_modern_host, how, reverse_bridge, action)
    assert {"protocol": "2026-07-28"} in lines, lines
    assert [line["asked"]["message"] for line in lines if "asked" in line] == ["Your name?"]
    [result] = [line["result"] for line in lines if "result" in line]
    content = {"name": "Ada"} if action == "accept" else None
    assert json.loads(result["content"][0]["text"]) == {"action": action, "content": content}


async def test_with_answer_browser_no_round_reaches_a_2026_host(tmp_path: Path, chromium: Browser) -> None:
    """`--answer browser`: the bridge answers in its own page; the host, which could answer
    rounds, is never given one."""
    record = BrowserRecord(tmp_path)
    host = Host(ElicitResult(action="decline"))

    async def person() -> None:
        page = await chromium.new_page()
        await page.goto(await anyio.to_thread.run_sync(record.next_url, 0))
        await page.get_by_label("City").fill("Oslo")
        await page.get_by_label("Nights").fill("2")
        await page.get_by_role("button", name="Review answers").click()
        await page.get_by_role("button", name="Submit answers").click()

    target = bridge_stdio([*FASTMCP, "stdio"], "browser", *LEGACY, env=environment(**record.env))
    async with modern(target, host) as client, anyio.create_task_group() as tasks:
        tasks.start_soon(person)
        result = await client.call_tool("book", {})
    assert text_of(result) == "booked 2 nights in Oslo"
    assert host.asked == []


async def test_a_2026_host_in_front_of_a_2026_server_answers_its_rounds_through_the_bridge() -> None:
    """Both sides on 2026-07-28 with `--answer host`: the bridge's client takes the server's
    round (its state stays with the bridge), and the host answers the bridge's own round."""
    host = Host(ElicitResult(action="accept", content={"guest": "Ada", "nights": 2}))
    async with modern(bridge_stdio(ELICITKIT, "host", "--upstream-protocol", "2026-07-28"), host) as client:
        result = await client.call_tool("reserve", {})
    assert text_of(result) == "2026-07-28: reserved 2 nights for Ada"
    assert [p.message for p in host.asked] == ["Who is staying, and for how long?"]
