"""Saying no to a URL in the demo reads as the person's choice, on either revision: a cancel on
2026-07-28 (the URL in the tool result) and a decline on 2025-11-25 (an elicitation/create)
come back as the tool's answer, as a declined or dismissed form does, never as an error."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console

from elicitkit.client import CancelledElicitation, DeclinedElicitation, ScriptedUI, UrlQuestion
from elicitkit.demo.stage import running_stage
from elicitkit.demo.steps import Step, secret_by_url
from elicitkit.demo.story import Story
from elicitkit.demo.transcript import Transcript
from elicitkit.demo.url_on_2026 import calendar_on_2026, secret_on_2026

pytestmark = pytest.mark.timeout(90)

PLAYS = {
    "secret on 2026-07-28": (
        secret_on_2026,
        CancelledElicitation(),
        "No weather for Porto: you cancelled the API key page.",
    ),
    "calendar on 2026-07-28": (
        calendar_on_2026,
        CancelledElicitation(),
        "No events read: you cancelled connecting Demo Calendar.",
    ),
    "secret on 2025-11-25": (
        secret_by_url,
        DeclinedElicitation(),
        "No weather for Lisbon: you declined the API key page.",
    ),
}


@pytest.mark.parametrize("play", PLAYS)
async def test_saying_no_to_a_url_reads_as_the_persons_choice(play: str, tmp_path: Path) -> None:
    step, reply, expected = PLAYS[play]
    ui = ScriptedUI(otherwise=reply)  # a person at the keyboard who says no at the consent screen
    out = io.StringIO()
    async with running_stage(tmp_path) as stage:
        await Story(stage, Transcript(Console(file=out, width=200)), ui=ui).play([Step(play, "", step)])
    said = [line.strip() for line in out.getvalue().splitlines()]
    assert f"result  {expected}" in said, out.getvalue()
    assert not [line for line in said if line.startswith("error")], out.getvalue()
    assert [type(question) for question in ui.shown] == [UrlQuestion]  # asked once
