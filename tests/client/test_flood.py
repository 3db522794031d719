"""C-31: a server sending 200 elicitations in one second."""

from __future__ import annotations

import json
import math
import time

import anyio
from client_http import serve
from client_servers import State, elicit_server

from elicitkit.client import ElicitationConfig, RateLimit, ScriptedUI, accept_prefilled


async def test_a_flood_reaches_the_ui_only_up_to_the_limit_and_the_rest_get_cancel() -> None:
    limit = RateLimit(per_second=2, burst=5, max_waiting=3)
    ui = ScriptedUI(otherwise=accept_prefilled)
    config = ElicitationConfig(ui, rate_limit=limit)
    with serve(elicit_server(State()).streamable_http_app()) as url:
        async with config.connect(url, mode="legacy") as client:
            started = time.monotonic()
            result = await client.call_tool("flood", {"count": 200})
            elapsed = time.monotonic() - started
            tally = json.loads(result.content[0].text)  # type: ignore[union-attr]
            # Still healthy after the flood: a normal question gets through once a token refills.
            await anyio.sleep(1 / limit.per_second)
            again = await client.call_tool("ask_form")
    assert sum(tally.values()) == 200
    assert set(tally) <= {"accept", "cancel"}
    assert tally["accept"] == len(ui.shown) - 1
    assert 1 <= tally["accept"] <= limit.burst + math.ceil(limit.per_second * elapsed)
    assert tally["cancel"] == 200 - tally["accept"]
    assert json.loads(again.content[0].text)["action"] == "accept"  # type: ignore[union-attr]
    # One notice for the whole burst, and nothing left behind per request.
    assert [n for n in ui.notices if "too often" in n] == [
        "Test Elicitor is asking too often; extra questions are dismissed."
    ]
    assert client.elicitations.waiting == 0
    assert client.elicitations._watch is not None and len(client.elicitations._watch._verdicts) == 0
