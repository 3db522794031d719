"""2026-07-28 hosts over HTTP, which have no session, through one `elicitkit bridge --listen`.

Their requests carry no `Mcp-Session-Id`, so the bridge cannot tell one host from another. In
front of a 2025-11-25 server a call whose server asks a live question is held, its round handed
to the host; a host that leaves its round unanswered must not hold up the questions of other
hosts' calls (each upstream session puts one question at a time).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest
from bridge_harness import SDK, bridge_http, http_process, text_of
from mcp import Client
from mcp_types import CallToolResult, ElicitRequest, ElicitResult, InputRequiredResult, InputResponses

pytestmark = pytest.mark.timeout(300)

PROMPTLY = 60.0
"""How long a host may wait for its own round: a tenth of the bridge's default hold (600 s)."""


@pytest.fixture(scope="module")
def bridge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """`elicitkit bridge --listen --answer host` speaking 2025-11-25 to the SDK's server."""
    logs = tmp_path_factory.mktemp("sessionless")
    with http_process([*SDK, "http", "PORT"], logs / "upstream.log") as upstream:
        legacy = ("--upstream-protocol", "2025-11-25")
        with bridge_http([upstream], logs / "bridge.log", "host", *legacy) as url:
            yield url


@asynccontextmanager
async def host(url: str) -> AsyncIterator[Client]:
    """A 2026-07-28 host declaring form mode (every such host declares alike here)."""

    async def unused(context: Any, params: Any) -> ElicitResult:
        raise AssertionError("the test reads each round itself")

    async with Client(url, elicitation_callback=unused) as client:
        assert client.protocol_version == "2026-07-28"
        yield client


async def round_of(client: Client, label: str) -> tuple[str, str, str]:
    """Call `ask_as` for `label`: the round's question key, its message and the bridge's state."""
    with anyio.fail_after(PROMPTLY):
        result = await client.session.call_tool("ask_as", {"label": label}, allow_input_required=True)
    assert isinstance(result, InputRequiredResult), result
    assert result.input_requests is not None and result.request_state is not None
    [(key, request)] = result.input_requests.items()
    assert isinstance(request, ElicitRequest)
    return key, request.params.message, result.request_state


async def answer(client: Client, label: str, key: str, state: str, name: str) -> Any:
    reply: InputResponses = {key: ElicitResult(action="accept", content={"name": name})}
    with anyio.fail_after(PROMPTLY):
        result = await client.session.call_tool(
            "ask_as", {"label": label}, input_responses=reply, request_state=state, allow_input_required=True
        )
    assert isinstance(result, CallToolResult), result
    return json.loads(text_of(result))


async def test_a_round_one_host_leaves_unanswered_holds_up_no_other_host(bridge: str) -> None:
    async with host(bridge) as slow, host(bridge) as quick:
        slow_key, slow_asked, slow_state = await round_of(slow, "slow")
        assert slow_asked == "Question for slow"
        # The slow host has not answered: the quick one still gets its own round at once...
        quick_key, quick_asked, quick_state = await round_of(quick, "quick")
        assert quick_asked == "Question for quick"
        # ...and its answer completes its own call.
        done = await answer(quick, "quick", quick_key, quick_state, "Bea")
        assert done == {"action": "accept", "content": {"name": "Bea"}}
        # The slow host's state still reaches its own held call, and only that one.
        late = await answer(slow, "slow", slow_key, slow_state, "Ada")
        assert late == {"action": "accept", "content": {"name": "Ada"}}


async def test_many_unanswered_rounds_each_get_their_own_question(bridge: str) -> None:
    """Several hosts' calls held at once, each asked its own question, each answered out of order."""
    async with host(bridge) as client:
        rounds = [await round_of(client, f"host {n}") for n in range(3)]
        assert [asked for _, asked, _ in rounds] == [f"Question for host {n}" for n in range(3)]
        for n, (key, _, state) in reversed(list(enumerate(rounds))):
            done = await answer(client, f"host {n}", key, state, f"Guest {n}")
            assert done == {"action": "accept", "content": {"name": f"Guest {n}"}}
