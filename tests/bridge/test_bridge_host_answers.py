"""`--answer host`: the SDK's own `mcp.Client` as the host, the SDK's `MCPServer` upstream.

Over stdio (the host runs the bridge, the bridge runs the server) and over HTTP (both are
servers on 127.0.0.1). The host answers what it declared; the bridge's client rules stand
between: a question a compliant client would refuse never reaches the host, and an answer
that fails the schema never reaches the server.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from bridge_harness import ROOT, SDK, bridge_http, bridge_stdio, http_process, text_of
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import ElicitRequestFormParams, ElicitRequestURLParams, ElicitResult
from support.server_process import stop

pytestmark = pytest.mark.timeout(300)

HOW = ["stdio", "http"]


@pytest.fixture(scope="module")
def sdk_http(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("sdk") / "upstream.log"
    with http_process([*SDK, "http", "PORT"], log) as url:
        yield url


@pytest.fixture(scope="module")
def host_bridge(sdk_http: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    log = tmp_path_factory.mktemp("bridge") / "bridge.log"
    with bridge_http([sdk_http], log, "host", "--burst", "2", "--per-second", "0") as url:
        yield url


class Host:
    """A host's elicitation callback: answers from a script, and remembers what it was asked."""

    def __init__(self, *answers: ElicitResult) -> None:
        self.answers = list(answers)
        self.asked: list[Any] = []

    async def __call__(self, context: Any, params: Any) -> ElicitResult:
        self.asked.append(params)
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


def through(how: str, host_bridge: str, answer: str = "host", *options: str) -> Any:
    if how == "http":
        return host_bridge
    return bridge_stdio([*SDK, "stdio"], answer, *options)


async def call(how: str, host_bridge: str, tool: str, host: Host | None, **arguments: Any) -> dict[str, Any]:
    async with Client(through(how, host_bridge), elicitation_callback=host, mode="legacy") as client:
        result = await client.call_tool(tool, arguments)
    assert not result.is_error, text_of(result)
    return json.loads(text_of(result))  # type: ignore[no-any-return]


@pytest.mark.parametrize("how", HOW)
async def test_form_accept_reaches_the_server_and_is_tied_to_the_host_call(
    how: str, host_bridge: str
) -> None:
    host = Host(ElicitResult(action="accept", content={"name": "Ada"}))
    got = await call(how, host_bridge, "ask_name", host)
    assert got == {"action": "accept", "content": {"name": "Ada"}}
    assert [type(p) for p in host.asked] == [ElicitRequestFormParams]
    assert host.asked[0].message == "Your name?"


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_form_decline_and_cancel_pass_through(how: str, host_bridge: str, action: str) -> None:
    got = await call(how, host_bridge, "ask_name", Host(ElicitResult(action=action)))  # type: ignore[arg-type]
    assert got == {"action": action, "content": None}


async def test_an_answer_that_fails_the_schema_never_reaches_the_server(host_bridge: str) -> None:
    host = Host(ElicitResult(action="accept", content={"name": "A"}))  # minLength 2
    got = await call("http", host_bridge, "ask_name", host)
    assert got["action"] == "cancel"
    assert 1 < len(host.asked) <= 6  # asked again with the problem, then given up on
    assert "2" in host.asked[1].message  # the problem is said


@pytest.mark.parametrize("how", HOW)
async def test_url_mode_goes_to_the_host_with_the_servers_id(how: str, host_bridge: str) -> None:
    host = Host(ElicitResult(action="accept"))
    got = await call(how, host_bridge, "ask_url", host)
    assert got == {"action": "accept", "content": None}
    [asked] = host.asked
    assert isinstance(asked, ElicitRequestURLParams)
    assert (asked.url, asked.elicitation_id) == ("https://example.com/connect", "e-connect")


async def test_a_blocked_url_never_reaches_the_host(host_bridge: str) -> None:
    host = Host(ElicitResult(action="accept"))
    got = await call("http", host_bridge, "ask_url", host, url="javascript:alert(1)")
    assert got["action"] in ("decline", "error") or "error" in got
    assert host.asked == []


async def test_a_schema_outside_the_subset_is_refused_before_the_host(host_bridge: str) -> None:
    host = Host(ElicitResult(action="accept", content={}))
    got = await call("http", host_bridge, "ask_nested", host)
    assert got["error"] == -32602
    assert host.asked == []


async def test_a_host_that_declared_nothing_is_never_asked_and_nothing_is_declared_upstream(
    tmp_path: Path,
) -> None:
    async with Client(bridge_stdio([*SDK, "stdio"], "host"), mode="legacy") as client:
        result = await client.call_tool("ask_name", {})
    got = json.loads(text_of(result))
    assert "error" in got  # the server asked anyway; the bridge's client refused it


async def test_the_rate_limit_holds_a_flooding_server_back(host_bridge: str) -> None:
    host = Host(ElicitResult(action="accept", content={"name": "Ada"}))
    answers = [json.loads(a) for a in await call("http", host_bridge, "flood", host, count=10)]
    assert len(host.asked) <= 2  # --burst 2 --per-second 0
    assert sum(a.get("action") == "cancel" for a in answers) >= 8


@pytest.mark.parametrize("how", HOW)
async def test_an_error_keeps_its_code_and_data(how: str, host_bridge: str) -> None:
    async with Client(through(how, host_bridge), mode="legacy") as client:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("fail_with_data", {})
    assert raised.value.code == -32001
    assert raised.value.message == "quota exceeded"
    assert raised.value.data == {"retryAfter": 30, "plan": "free"}


async def test_the_host_is_told_why_a_url_needs_care(host_bridge: str) -> None:
    host = Host(ElicitResult(action="decline"))
    got = await call("http", host_bridge, "ask_url", host, url="https://192.168.0.1/connect")
    assert got == {"action": "decline", "content": None}
    [asked] = host.asked
    assert asked.url == "https://192.168.0.1/connect"
    assert "Caution" in asked.message and "192.168.0.1" in asked.message


@pytest.fixture(scope="module")
def typescript_server() -> Iterator[str]:
    """The TypeScript SDK's own server (tests/peers/ts-sdk/elicit_server.mjs): it asks with
    `elicitInput`, on the standalone stream while the call is open."""
    server = subprocess.Popen(
        ["node", "elicit_server.mjs"],
        cwd=ROOT / "tests" / "peers" / "ts-sdk",
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        yield json.loads(server.stdout.readline())["url"]
    finally:
        stop(server)  # type: ignore[arg-type]


@pytest.mark.parametrize("action", ["accept", "decline", "cancel"])
async def test_a_typescript_server_asks_a_python_host_through_the_bridge(
    typescript_server: str, action: str, tmp_path: Path
) -> None:
    content = {"size": "large", "sugar": 1} if action == "accept" else None
    host = Host(ElicitResult(action=action, content=content))  # type: ignore[arg-type]
    with bridge_http([typescript_server], tmp_path / "bridge.log", "host") as bridge:
        async with Client(bridge, elicitation_callback=host, mode="legacy") as client:
            order = json.loads(text_of(await client.call_tool("order", {})))
            connect = json.loads(text_of(await client.call_tool("connect", {})))
    assert order["action"] == action and order.get("content") == content
    assert connect == {"action": action}
    assert [p.mode for p in host.asked] == ["form", "url"]


async def test_each_host_session_has_its_own_upstream_session_and_modes(host_bridge: str) -> None:
    answering = Host(ElicitResult(action="accept", content={"name": "Ada"}))
    async with (
        Client(host_bridge, elicitation_callback=answering, mode="legacy") as one,
        Client(host_bridge, mode="legacy") as other,  # declares no elicitation
    ):
        refused = json.loads(text_of(await other.call_tool("ask_name", {})))
        answered = json.loads(text_of(await one.call_tool("ask_name", {})))
    assert "error" in refused
    assert answered == {"action": "accept", "content": {"name": "Ada"}}
    assert len(answering.asked) == 1


def typescript_host(bridge: str, tool: str, modes: str, action: str) -> list[dict[str, Any]]:
    done = subprocess.run(
        ["node", "bridge_host.mjs", "v1", "http", bridge, tool, modes, action, "{}"],
        cwd=ROOT / "tests" / "peers" / "ts-sdk",
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert lines, done.stderr[-3000:]
    return lines


async def test_a_form_only_host_is_never_asked_for_a_url_and_the_server_is_refused(host_bridge: str) -> None:
    lines = await anyio.to_thread.run_sync(typescript_host, host_bridge, "ask_url", "form", "accept")
    assert not [line for line in lines if "asked" in line]
    [result] = [line["result"] for line in lines if "result" in line]
    assert json.loads(result["content"][0]["text"])["error"] == -32602
