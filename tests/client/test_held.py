"""C-21 end to end over HTTP: -32042, consent, completion notice, automatic retry; and when it goes wrong."""

from __future__ import annotations

import pytest
from client_http import record, serve
from client_servers import State, finish, held_server
from mcp.shared.exceptions import MCPError
from mcp_types import URL_ELICITATION_REQUIRED

from elicitkit.client import (
    AcceptedElicitation,
    DeclinedElicitation,
    ElicitationCancelledError,
    ElicitationConfig,
    ElicitationDeclinedError,
    ElicitationLoopError,
    ScriptedUI,
    UrlQuestion,
)
from elicitkit.errors import ConfigurationError


def text(result: object) -> str:
    return result.content[0].text  # type: ignore[attr-defined, no-any-return]


async def test_call_consent_notice_retry_success() -> None:
    state = State()
    ui = ScriptedUI(AcceptedElicitation())
    opened: list[str] = []

    def browser(url: str) -> bool:
        opened.append(url)
        finish(state, "conn-1")
        return True

    config = ElicitationConfig(ui, modes=("url",), open_url=browser, wait_timeout=30)
    with serve(held_server(state).streamable_http_app()) as url:
        async with config.connect(url, mode="legacy") as client:
            result = await client.call_tool("connect_service")
    assert text(result) == "connected"
    assert state.calls == 2
    assert opened == ["https://example.com/connect/conn-1"]
    [question] = ui.shown
    assert isinstance(question, UrlQuestion)
    assert question.server == "Held Server" and question.message == "Connect account conn-1"
    assert question.report.domain == "example.com"
    # The wait was shown (elapsed time from `started`) and ended by the notice, not by a timeout.
    assert [w.pending for w in ui.waited] == [[("conn-1", "Connect account conn-1")]]
    assert not ui.waited[0].timed_out


async def test_several_urls_each_get_consent_and_all_must_complete() -> None:
    state = State()
    ui = ScriptedUI(AcceptedElicitation(), AcceptedElicitation())
    config_ref: list[ElicitationConfig] = []

    def browser(url: str) -> bool:
        if url.endswith("/b"):
            finish(state, "a")
            finish(state, "b")
        return True

    config = ElicitationConfig(ui, modes=("url",), open_url=browser, wait_timeout=30)
    config_ref.append(config)
    with serve(held_server(state, ids=("a", "b")).streamable_http_app()) as url:
        async with config.connect(url, mode="legacy") as client:
            result = await client.call_tool("connect_service")
    assert text(result) == "connected"
    assert [q.message for q in ui.shown] == ["Connect account a", "Connect account b"]


async def test_no_notice_then_the_person_retries_and_the_call_succeeds() -> None:
    state = State()
    ui = ScriptedUI(AcceptedElicitation(), waits=["retry"])

    def browser(url: str) -> bool:
        finish(state, "conn-1", notify=False)  # the flow finishes, but no notice ever comes
        return True

    config = ElicitationConfig(ui, modes=("url",), open_url=browser, wait_timeout=0.3)
    with serve(held_server(state).streamable_http_app()) as url:
        async with config.connect(url, mode="legacy") as client:
            result = await client.call_tool("connect_service")
    assert text(result) == "connected"
    assert [w.timed_out for w in ui.waited] == [False, True]


async def test_no_notice_then_the_person_cancels() -> None:
    state = State()
    ui = ScriptedUI(AcceptedElicitation(), waits=["retry", "cancel"])
    config = ElicitationConfig(ui, modes=("url",), open_url=lambda url: True, wait_timeout=0.2)
    with serve(held_server(state).streamable_http_app()) as url:
        async with config.connect(url, mode="legacy") as client:
            with pytest.raises(ElicitationCancelledError, match="Stopped waiting for Held Server"):
                await client.call_tool("connect_service")
    assert state.calls == 2  # the manual retry went out once
    assert len(ui.shown) == 1  # consent asked once for the same pending id
    assert [w.timed_out for w in ui.waited] == [False, True, False, True]


async def test_a_server_repeating_completed_ids_is_stopped() -> None:
    state = State()

    def browser(url: str) -> bool:
        finish(state, "conn-1")
        return True

    ui = ScriptedUI(otherwise=AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("url",), open_url=browser, wait_timeout=30)
    with serve(held_server(state, repeat=True).streamable_http_app()) as url:
        async with config.connect(url, mode="legacy") as client:
            with pytest.raises(ElicitationLoopError, match="'conn-1', which already completed"):
                await client.call_tool("connect_service")
    assert state.calls == 2


async def test_declined_consent_stops_the_call_and_opens_nothing() -> None:
    state = State()
    opened: list[str] = []
    ui = ScriptedUI(DeclinedElicitation())
    config = ElicitationConfig(ui, modes=("url",), open_url=record(opened))
    with serve(held_server(state).streamable_http_app()) as url:
        async with config.connect(url, mode="legacy") as client:
            with pytest.raises(ElicitationDeclinedError, match="was not opened"):
                await client.call_tool("connect_service")
    assert opened == [] and state.calls == 1


async def test_url_required_pass_hands_the_32042_to_the_caller_as_the_server_sent_it() -> None:
    """A gateway whose own host answers -32042 (the bridge's `--answer host`): nothing is asked,
    opened or retried here; the caller gets the server's error, its data intact."""
    state = State()
    ui = ScriptedUI()
    opened: list[str] = []
    config = ElicitationConfig(ui, modes=("url",), open_url=opened.append, url_required="pass")  # type: ignore[arg-type]
    with serve(held_server(state).streamable_http_app()) as url:
        async with config.connect(url, mode="legacy") as client:
            with pytest.raises(MCPError) as raised:
                await client.call_tool("connect_service")
    assert raised.value.error.code == URL_ELICITATION_REQUIRED
    [listed] = (raised.value.error.data or {})["elicitations"]
    assert listed["url"] == "https://example.com/connect/conn-1"
    assert (state.calls, opened, ui.shown) == (1, [], [])


def test_url_required_names_its_two_choices() -> None:
    with pytest.raises(ConfigurationError, match="url_required must be 'wait' or 'pass'"):
        ElicitationConfig(ScriptedUI(), url_required="ask")  # type: ignore[arg-type]
