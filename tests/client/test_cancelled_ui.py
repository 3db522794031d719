"""A UI that is cancelled from inside (its own task, a page it awaited) raises CancelledError
into the client: that is the person's "cancel", sent once. The connection stays up on
2025-11-25, the form is not shown again on 2026-07-28, and a waiting screen that gives up that
way ends the wait as "cancel"."""

from __future__ import annotations

import asyncio
import json
from typing import Any, Literal

from client_http import serve
from client_servers import State, elicit_server, held_server
from test_rounds import rounds_server

from elicitkit.client import (
    ElicitationCancelledError,
    ElicitationConfig,
    FormQuestion,
    ScriptedUI,
    UrlQuestion,
    Waiting,
    accept_prefilled,
)


async def cancelled_inside() -> Any:
    """What a UI does when a task it awaits (its screen, its page) is cancelled by someone else."""
    task = asyncio.ensure_future(asyncio.sleep(60))
    await asyncio.sleep(0)
    task.cancel()
    return await task


class CancelledOnce(ScriptedUI):
    """Its first form (and each waiting screen) is cancelled from inside; then it answers."""

    async def ask_form(self, question: FormQuestion) -> Any:
        if not self.shown:
            self.shown.append(question)
            return await cancelled_inside()
        return await super().ask_form(question)

    async def wait(self, waiting: Waiting) -> Literal["retry", "cancel"]:
        self.waited.append(waiting)
        return await cancelled_inside()  # type: ignore[no-any-return]


async def test_on_2025_11_25_it_is_a_cancel_and_the_connection_goes_on() -> None:
    ui = CancelledOnce(otherwise=accept_prefilled)
    with serve(elicit_server(State()).streamable_http_app()) as url:
        async with ElicitationConfig(ui).connect(url, mode="legacy") as client:
            first = await client.call_tool("ask_form")
            second = await client.call_tool("ask_form")
    assert json.loads(first.content[0].text) == {"action": "cancel", "content": None}  # type: ignore[union-attr]
    assert json.loads(second.content[0].text)["action"] == "accept"  # type: ignore[union-attr]
    assert len(ui.shown) == 2  # once per call


async def test_on_2026_07_28_it_is_a_cancel_sent_once() -> None:
    ui = CancelledOnce(otherwise=accept_prefilled)
    with serve(rounds_server([]).streamable_http_app()) as url:
        async with ElicitationConfig(ui).connect(url) as client:
            assert client.protocol_version == "2026-07-28"
            result = await client.call_tool("ask_name")
    assert json.loads(result.content[0].text) == {"who": {"action": "cancel"}}  # type: ignore[union-attr]
    assert len(ui.shown) == 1  # not shown again


async def test_a_waiting_screen_cancelled_inside_ends_the_wait_as_cancel() -> None:
    state = State()
    ui = CancelledOnce(otherwise=accept_prefilled)
    config = ElicitationConfig(ui, modes=("url",), open_url=lambda url: True, wait_timeout=30)
    with serve(held_server(state).streamable_http_app()) as url:
        async with config.connect(url, mode="legacy") as client:
            try:
                await client.call_tool("connect_service")
            except ElicitationCancelledError as error:
                ended = str(error)
            listed = await client.list_tools()  # the connection is still up
    assert "Stopped waiting for Held Server" in ended
    assert [type(q) for q in ui.shown] == [UrlQuestion] and len(ui.waited) == 1
    assert state.calls == 1 and listed.tools
