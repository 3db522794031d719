"""What a person is shown and what the server gets back: forms (C-10..C-12, C-30) and URL consent (C-22)."""

from __future__ import annotations

import json
from typing import Any

import anyio
from client_http import record, serve
from client_servers import State, elicit_server

from elicitkit.client import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    ElicitationConfig,
    FormQuestion,
    ScriptedUI,
    UrlQuestion,
    accept_prefilled,
)
from elicitkit.client._connection import MAX_REFUSED_ANSWERS

AGE_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "default": "Ada"},
        "age": {"type": "integer", "minimum": 0, "default": 30},
        "verified": {"type": "boolean", "default": True},
    },
    "required": ["name", "age"],
}


async def ask(config: ElicitationConfig, tool: str, **arguments: Any) -> dict[str, Any]:
    with serve(elicit_server(State()).streamable_http_app()) as url:
        async with config.connect(url, mode="legacy") as client:
            result = await client.call_tool(tool, arguments)
    return dict(json.loads(result.content[0].text))  # type: ignore[union-attr]


async def test_form_starts_from_defaults_and_names_the_server() -> None:
    ui = ScriptedUI(accept_prefilled)
    answer = await ask(ElicitationConfig(ui), "ask_form", schema=json.dumps(AGE_SCHEMA))
    assert answer == {"action": "accept", "content": {"name": "Ada", "age": 30, "verified": True}}
    [question] = ui.shown
    assert isinstance(question, FormQuestion)
    assert question.server == "Test Elicitor"
    assert question.message == "Who are you?"
    assert question.initial == {"name": "Ada", "age": 30, "verified": True}
    assert question.problems == ()


async def test_an_invalid_answer_is_never_sent_the_person_is_asked_again() -> None:
    ui = ScriptedUI(
        AcceptedElicitation({"name": "Bob", "age": -4}),
        AcceptedElicitation({"name": "Bob", "age": "x"}),
        AcceptedElicitation({"name": "Bob", "age": 4}),
    )
    answer = await ask(ElicitationConfig(ui), "ask_form", schema=json.dumps(AGE_SCHEMA))
    assert answer == {"action": "accept", "content": {"name": "Bob", "age": 4}}
    _, second, third = ui.shown
    assert isinstance(second, FormQuestion) and isinstance(third, FormQuestion)
    assert second.initial == {"name": "Bob", "age": -4}
    assert [p.field for p in second.problems] == ["age"]
    assert [p.field for p in third.problems] == ["age"]


async def test_decline_and_cancel_go_back_without_content() -> None:
    assert await ask(ElicitationConfig(ScriptedUI(DeclinedElicitation())), "ask_form") == {
        "action": "decline",
        "content": None,
    }
    assert await ask(ElicitationConfig(ScriptedUI(CancelledElicitation())), "ask_form") == {
        "action": "cancel",
        "content": None,
    }


async def test_a_failing_ui_counts_as_cancel() -> None:
    def broken(question: Any) -> Any:
        raise RuntimeError("terminal went away")

    assert await ask(ElicitationConfig(ScriptedUI(broken)), "ask_form") == {
        "action": "cancel",
        "content": None,
    }


async def test_url_is_opened_only_after_accept_and_exactly_as_given() -> None:
    opened: list[str] = []
    ui = ScriptedUI(AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("url",), open_url=record(opened))
    answer = await ask(config, "ask_url", url="https://accounts.example.com/connect?x=1")
    assert answer == {"action": "accept", "content": None}
    assert opened == ["https://accounts.example.com/connect?x=1"]
    [question] = ui.shown
    assert isinstance(question, UrlQuestion)
    assert question.report.url == "https://accounts.example.com/connect?x=1"
    assert question.report.domain == "example.com"


async def test_declined_or_cancelled_url_is_never_opened() -> None:
    opened: list[str] = []
    config = ElicitationConfig(
        ScriptedUI(DeclinedElicitation(), CancelledElicitation()), modes=("url",), open_url=record(opened)
    )
    assert (await ask(config, "ask_url", url="https://example.com/a"))["action"] == "decline"
    assert (await ask(config, "ask_url", url="https://example.com/a"))["action"] == "cancel"
    assert opened == []


async def test_blocked_url_is_shown_as_blocked_never_opened_and_the_person_is_told() -> None:
    opened: list[str] = []
    ui = ScriptedUI(otherwise=AcceptedElicitation())  # even a UI that says "open" cannot open a blocked URL
    config = ElicitationConfig(ui, modes=("url",), open_url=record(opened))
    assert (await ask(config, "ask_url", url="javascript:alert(1)"))["action"] == "decline"
    assert opened == []
    [question] = ui.shown
    assert isinstance(question, UrlQuestion) and question.report.verdict == "block"
    assert len(ui.notices) == 1 and "blocked" in ui.notices[0]


async def test_a_ui_that_keeps_sending_a_bad_answer_ends_in_cancel_not_a_spin() -> None:
    ui = ScriptedUI(otherwise=AcceptedElicitation({}))  # the form has a required field, so {} never fits
    with anyio.fail_after(10):
        answer = await ask(ElicitationConfig(ui), "ask_form")
    assert answer == {"action": "cancel", "content": None}
    assert len(ui.shown) == MAX_REFUSED_ANSWERS + 1
    assert any("did not fit" in n for n in ui.notices)


async def test_no_browser_tells_the_person_where_to_go() -> None:
    ui = ScriptedUI(AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("url",), open_url=lambda u: False)
    assert (await ask(config, "ask_url", url="https://example.com/a"))["action"] == "accept"
    assert any("https://example.com/a" in n for n in ui.notices)


async def test_a_failing_browser_is_told_not_crashed() -> None:
    def browser(url: str) -> bool:
        raise OSError("no display")

    ui = ScriptedUI(AcceptedElicitation())
    config = ElicitationConfig(ui, modes=("url",), open_url=browser)
    assert (await ask(config, "ask_url", url="https://example.com/a"))["action"] == "accept"
    assert any("https://example.com/a" in n for n in ui.notices)


async def test_the_default_opener_uses_webbrowser_only(monkeypatch: Any) -> None:
    import webbrowser

    from elicitkit.client import open_in_system_browser

    calls: list[tuple[str, int]] = []

    def fake_open(url: str, new: int = 0) -> bool:
        calls.append((url, new))
        return True

    monkeypatch.setattr(webbrowser, "open", fake_open)
    assert open_in_system_browser("https://example.com/a") is True
    assert calls == [("https://example.com/a", 2)]
