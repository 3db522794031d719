"""TerminalUI in-process, on prompt_toolkit's pipe input: the rules around the screens."""

from __future__ import annotations

import asyncio
import io
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output
from rich.console import Console

import elicitkit.schema
from elicitkit.client._terminal import NotATerminalError, TerminalUI
from elicitkit.client._ui import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    ElicitationUI,
    FormQuestion,
    UrlQuestion,
    Waiting,
)
from elicitkit.schema import ValidationProblem
from elicitkit.urls import examine

ENTER, CTRL_C, CTRL_D = "\r", "\x03", "\x04"
NAME = {"type": "object", "properties": {"name": {"type": "string", "title": "Name"}}, "required": ["name"]}


class Term:
    def __init__(self, pipe: PipeInput) -> None:
        self.pipe = pipe
        self.transcript = io.StringIO()
        self.drawn = io.StringIO()  # what the screens draw
        output = Vt100_Output(self.drawn, lambda: Size(rows=30, columns=100), term="xterm-256color")
        self.ui = TerminalUI(input=pipe, output=output, console=Console(file=self.transcript, width=100))

    async def ask(self, schema: dict[str, Any], keys: str, initial: dict[str, Any] | None = None) -> Any:
        self.pipe.send_text(keys)
        return await asyncio.wait_for(
            self.ui.ask_form(FormQuestion("Demo", "Why", schema, initial or {})), 10
        )

    async def screen_up(self, text: str) -> None:
        """Until a screen has drawn `text` (its heading, or the keys it takes)."""
        deadline = time.monotonic() + 60  # generous: a loaded CI box is slow, not broken
        while time.monotonic() < deadline:
            if text in self.drawn.getvalue():
                return
            await asyncio.sleep(0.01)
        raise AssertionError(f"no screen drew {text!r}")


@pytest.fixture
def term() -> Iterator[Term]:
    with create_pipe_input() as pipe:
        yield Term(pipe)


def test_it_is_an_elicitation_ui(term: Term) -> None:
    ui: ElicitationUI = term.ui  # checked by mypy --strict against the protocol
    assert ui is term.ui


def test_refuses_to_start_when_stdin_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO())
    with pytest.raises(NotATerminalError, match="stdin is not a TTY"):
        TerminalUI()


async def test_an_answer_is_typed_reviewed_and_submitted(term: Term) -> None:
    reply = await term.ask(NAME, "Ada" + ENTER + ENTER)
    assert reply == AcceptedElicitation({"name": "Ada"})
    assert "✓ Answers submitted:" in term.transcript.getvalue()


async def test_initial_values_prefill_the_fields(term: Term) -> None:
    reply = await term.ask(NAME, ENTER + ENTER, initial={"name": "Bob"})
    assert reply == AcceptedElicitation({"name": "Bob"})


async def test_ctrl_d_declines_from_a_choice(term: Term) -> None:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}}
    assert await term.ask(schema, CTRL_D) == DeclinedElicitation()


async def test_ctrl_c_cancels_from_the_review_screen(term: Term) -> None:
    assert await term.ask(NAME, "Ada" + ENTER + CTRL_C) == CancelledElicitation()


async def test_an_optional_multi_choice_left_empty_is_left_out(term: Term) -> None:
    schema = {
        "type": "object",
        "properties": {"days": {"type": "array", "minItems": 1, "items": {"enum": ["mon", "tue"]}}},
    }
    assert await term.ask(schema, ENTER + "s") == AcceptedElicitation({})


async def test_a_form_without_fields_goes_straight_to_review(term: Term) -> None:
    assert await term.ask({"type": "object", "properties": {}}, ENTER) == AcceptedElicitation({})


async def test_the_shared_validator_holds_back_a_submit(term: Term, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []

    def validate(schema: Any, content: Any) -> list[ValidationProblem]:
        if schema is NAME:
            calls.append(content)
            if len(calls) == 1:
                return [ValidationProblem(None, "whole", "That name is taken.")]
        return []

    monkeypatch.setattr(elicitkit.schema, "validate", validate)
    reply = await term.ask(NAME, "Ada" + ENTER + "s" + "s")
    assert reply == AcceptedElicitation({"name": "Ada"})
    assert calls == [{"name": "Ada"}, {"name": "Ada"}]


async def test_notices_print_with_or_without_a_screen_up(term: Term) -> None:
    term.ui.notice("first \x1b[2J")
    task = asyncio.create_task(term.ui.ask_form(FormQuestion("Demo", "Why", NAME, {})))
    await term.screen_up("Name ✱")
    term.ui.notice("elicitation el-1 completed")
    await asyncio.sleep(0.2)
    assert not task.done()
    term.pipe.send_text(CTRL_C)
    assert await asyncio.wait_for(task, 10) == CancelledElicitation()
    transcript = term.transcript.getvalue()
    assert "◆ first \\u001b[2J" in transcript
    assert "◆ elicitation el-1 completed" in transcript


async def test_wait_returns_the_key_pressed(term: Term) -> None:
    term.pipe.send_text("r")
    assert (
        await asyncio.wait_for(term.ui.wait(Waiting("Demo", [("e1", "Connect")], time.monotonic())), 10)
        == "retry"
    )
    term.pipe.send_text(CTRL_C)
    assert (
        await asyncio.wait_for(term.ui.wait(Waiting("Demo", [], time.monotonic(), timed_out=True)), 10)
        == "cancel"
    )


async def test_wait_can_be_stopped_by_the_handler(term: Term) -> None:
    task = asyncio.create_task(term.ui.wait(Waiting("Demo", [("e1", "Connect")], time.monotonic())))
    await term.screen_up("r: retry now")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    term.ui.notice("after the panel")  # no screen is up: it prints at once, not above a screen
    assert "◆ after the panel" in term.transcript.getvalue()
    assert await term.ask(NAME, "Ada" + ENTER + ENTER) == AcceptedElicitation({"name": "Ada"})


async def test_no_url_is_ever_a_hyperlink_and_the_domain_is_reverse_video() -> None:
    """The raw bytes both libraries write: no OSC 8 anywhere (C-24), the domain in bold reverse."""
    drawn, screens = io.StringIO(), io.StringIO()
    schema = {
        "type": "object",
        "properties": {
            "site": {"type": "string", "format": "uri", "description": "See https://example.org/help"}
        },
    }
    with create_pipe_input() as pipe:
        ui = TerminalUI(
            input=pipe,
            output=Vt100_Output(screens, lambda: Size(rows=30, columns=100), term="xterm-256color"),
            console=Console(file=drawn, width=100, force_terminal=True, color_system="256"),
        )
        pipe.send_text("https://example.org/me" + ENTER + ENTER)
        form = await asyncio.wait_for(ui.ask_form(FormQuestion("Demo", "Why", schema, {})), 10)
        pipe.send_text("d")
        question = UrlQuestion("Demo", "Connect.", examine("https://login.example.com/elicit/abc"))
        consent = await asyncio.wait_for(ui.ask_url_consent(question), 10)
    assert (
        form == AcceptedElicitation({"site": "https://example.org/me"}) and consent == DeclinedElicitation()
    )
    assert "https://login.\x1b[1;7mexample.com\x1b[0m/elicit/abc" in drawn.getvalue()
    assert "https://example.org/help" in screens.getvalue()  # the description, drawn as plain text
    for output in (drawn.getvalue(), screens.getvalue()):
        assert "\x1b]8;" not in output
