"""Host and server speak their own revisions through the bridge.

A 2025-11-25 host (the SDK's `mcp.Client`, legacy mode) in front of an elicitkit server on
2026-07-28: the server asks with input-required rounds, and the host gets a live
`elicitation/create` inside its call; the bridge retries upstream with the answer.

A 2026-07-28 host in front of a 2026-07-28 server (elicitkit's conformance server over HTTP):
the host gets the server's own rounds and the server gets the host's retries, as they came.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from bridge_harness import (
    HERE,
    PY,
    ROOT,
    BrowserRecord,
    bridge_http,
    bridge_stdio,
    environment,
    http_process,
    text_of,
)
from mcp import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, CallToolResult, ElicitRequest, ElicitResult, InputRequiredResult
from playwright.async_api import Browser

pytestmark = pytest.mark.timeout(300)

ELICITKIT = [PY, str(HERE / "upstream_elicitkit.py"), "stdio"]


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (ElicitResult(action="accept", content={"guest": "Ada", "nights": 3}), "reserved 3 nights for Ada"),
        (ElicitResult(action="decline"), "DeclinedElicitation"),
        (ElicitResult(action="cancel"), "CancelledElicitation"),
    ],
)
async def test_a_2026_servers_rounds_become_live_questions_to_a_2025_host(
    reply: ElicitResult, said: str, tmp_path: Path
) -> None:
    asked: list[Any] = []

    async def host(context: Any, params: Any) -> ElicitResult:
        asked.append(params)
        return reply

    bridge = bridge_stdio(ELICITKIT, "host", "--upstream-protocol", "2026-07-28")
    async with Client(bridge, elicitation_callback=host, mode="legacy") as client:
        assert client.protocol_version == "2025-11-25"
        result = await client.call_tool("reserve", {})
    assert text_of(result).startswith("2026-07-28: ")  # the server spoke its revision
    assert text_of(result).endswith(said)
    assert [p.message for p in asked] == ["Who is staying, and for how long?"]


async def test_by_default_the_server_speaks_the_hosts_revision(tmp_path: Path) -> None:
    async def host(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="accept", content={"guest": "Ada"})

    async with Client(bridge_stdio(ELICITKIT, "host"), elicitation_callback=host, mode="legacy") as client:
        result = await client.call_tool("reserve", {})
    assert text_of(result) == "2025-11-25: reserved 1 nights for Ada"


# -- a 2026-07-28 host in front of a 2026-07-28 server: the server's own rounds


CONFORMANCE = [PY, str(ROOT / "examples" / "conformance" / "server.py"), "--port", "PORT"]


@pytest.fixture(scope="module")
def modern_pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """elicitkit's conformance server over HTTP, and `elicitkit bridge --answer host` in front."""
    logs = tmp_path_factory.mktemp("modern-pair")
    with (
        http_process(CONFORMANCE, logs / "server.log") as server,
        bridge_http([server], logs / "bridge.log", "host") as bridge,
    ):
        yield server, bridge


async def declined(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="decline")


async def test_a_round_the_host_answers_whole_reaches_it_as_the_server_sent_it(
    modern_pair: tuple[str, str],
) -> None:
    """The key is the server's, and the state is the server's own: the server itself takes it
    back from the host's retry, byte for byte."""
    server, bridge = modern_pair
    tool = "test_input_required_result_request_state"
    async with Client(bridge, elicitation_callback=declined) as host:
        assert host.protocol_version == "2026-07-28"
        round_ = await host.session.call_tool(tool, {}, allow_input_required=True)
    assert isinstance(round_, InputRequiredResult) and round_.request_state is not None
    assert list(round_.input_requests or {}) == ["confirm"]
    answer = {"confirm": ElicitResult(action="accept", content={"ok": True})}
    async with Client(server, elicitation_callback=declined) as direct:
        result = await direct.session.call_tool(
            tool, {}, input_responses=answer, request_state=round_.request_state, allow_input_required=True
        )
    assert isinstance(result, CallToolResult) and text_of(result) == "state-ok: accept"


async def test_a_form_answer_the_schema_refuses_never_reaches_the_server(
    modern_pair: tuple[str, str],
) -> None:
    """The host is told why, and its round is still good for a fitting answer."""
    _, bridge = modern_pair
    tool = "test_input_required_result_elicitation"
    async with Client(bridge, elicitation_callback=declined) as host:
        round_ = await host.session.call_tool(tool, {}, allow_input_required=True)
        assert isinstance(round_, InputRequiredResult)
        [key] = list(round_.input_requests or {})

        async def answer(content: dict[str, Any]) -> Any:
            return await host.session.call_tool(
                tool,
                {},
                input_responses={key: ElicitResult(action="accept", content=content)},
                request_state=round_.request_state,
                allow_input_required=True,
            )

        with pytest.raises(MCPError) as refused:
            await answer({"name": 7})
        assert refused.value.code == INVALID_PARAMS and "does not fit" in refused.value.message
        result = await answer({"name": "Ada"})
    assert isinstance(result, CallToolResult) and text_of(result) == "Hello, Ada!"


async def test_a_2026_host_answers_the_servers_rounds_through_the_bridge_with_its_own_driver(
    modern_pair: tuple[str, str],
) -> None:
    """The SDK client's own driver, two rounds in a row, through the bridge."""
    _, bridge = modern_pair
    answers = iter([{"name": "Ada"}, {"color": "blue"}])
    asked: list[str] = []

    async def host(context: Any, params: Any) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action="accept", content=next(answers))

    async with Client(bridge, elicitation_callback=host) as client:
        result = await client.call_tool("test_input_required_result_multi_round", {})
    assert text_of(result) == "Ada likes blue"
    assert asked == ["Step 1: What is your name?", "Step 2: What is your favorite color?"]


async def test_a_round_the_bridge_answers_stays_with_the_bridge(tmp_path: Path, chromium: Browser) -> None:
    """`--answer browser`, both sides on 2026-07-28: the bridge's page answers the server's
    round, and the host, which could answer it, never gets one."""
    record = BrowserRecord(tmp_path)
    asked: list[Any] = []

    async def host(context: Any, params: Any) -> ElicitResult:
        asked.append(params)
        return ElicitResult(action="decline")

    async def person() -> None:
        page = await chromium.new_page()
        await page.goto(await anyio.to_thread.run_sync(record.next_url, 0))
        await page.get_by_label("Guest").fill("Ada")
        await page.get_by_label("Nights").fill("2")
        await page.get_by_role("button", name="Review answers").click()
        await page.get_by_role("button", name="Submit answers").click()

    options = ("--upstream-protocol", "2026-07-28")
    target = bridge_stdio(ELICITKIT, "browser", *options, env=environment(**record.env))
    async with Client(target, elicitation_callback=host) as client, anyio.create_task_group() as tasks:
        assert client.protocol_version == "2026-07-28"
        tasks.start_soon(person)
        result = await client.call_tool("reserve", {})
    assert text_of(result) == "2026-07-28: reserved 2 nights for Ada"
    assert asked == []


ROUNDS = [PY, str(HERE / "upstream_rounds.py"), "stdio"]


async def test_a_url_round_passes_with_its_warnings_and_a_blocked_one_never_reaches_the_host() -> None:
    """The bridge inspects a URL before passing the round: a bare IP reaches the host with the
    caution added (the key and state still the server's); a URL whose user-name part poses as
    the site is declined by the bridge, and the host is never asked."""
    target = bridge_stdio(ROUNDS, "host", "--upstream-protocol", "2026-07-28")
    async with Client(target, elicitation_callback=declined) as host:
        warned = await host.session.call_tool(
            "visit", {"url": "https://192.168.1.1/a"}, allow_input_required=True
        )
        assert isinstance(warned, InputRequiredResult)
        [(key, request)] = (warned.input_requests or {}).items()
        assert key == "visit" and isinstance(request, ElicitRequest)
        assert request.params.message.startswith("Sign in to go on.")
        assert "192.168.1.1" in request.params.message  # the caution the bridge's client would show
        accepted = await host.session.call_tool(
            "visit",
            {"url": "https://192.168.1.1/a"},
            input_responses={key: ElicitResult(action="accept")},
            request_state=warned.request_state,
            allow_input_required=True,
        )
        blocked = await host.session.call_tool(
            "visit", {"url": "https://accounts.example.com@evil.example/"}, allow_input_required=True
        )
    assert isinstance(accepted, CallToolResult) and text_of(accepted) == "answered accept"
    assert isinstance(blocked, CallToolResult) and text_of(blocked) == "answered decline"


async def test_a_round_past_the_rate_limit_is_answered_cancel_and_never_reaches_the_host() -> None:
    """Each question passed to the host counts against the server's rate limit, as one the
    bridge would show: past it the bridge's client answers cancel itself."""
    options = ("--upstream-protocol", "2026-07-28", "--burst", "1", "--per-second", "0")
    async with Client(bridge_stdio(ELICITKIT, "host", *options), elicitation_callback=declined) as host:
        first = await host.session.call_tool("reserve", {}, allow_input_required=True)
        second = await host.session.call_tool("reserve", {}, allow_input_required=True)
    assert isinstance(first, InputRequiredResult)
    assert isinstance(second, CallToolResult) and text_of(second) == "2026-07-28: CancelledElicitation"
