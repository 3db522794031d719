"""Host and server speak their own revisions through the bridge.

A 2025-11-25 host (the SDK's `mcp.Client`, legacy mode) in front of an elicitkit server on
2026-07-28: the server asks with input-required rounds, and the host gets a live
`elicitation/create` inside its call; the bridge retries upstream with the answer.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bridge_harness import HERE, PY, bridge_stdio, text_of
from mcp import Client
from mcp_types import ElicitResult

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
