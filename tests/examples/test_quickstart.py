"""The README's two ten-line examples, run for real: the server as its own process over HTTP."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.quickstart_server import quickstart_server

from elicitkit.client import (
    AcceptedElicitation,
    DeclinedElicitation,
    ElicitationConfig,
    FormQuestion,
    ScriptedUI,
)

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "quickstart"


@pytest.fixture
def server_url() -> Iterator[str]:
    with quickstart_server() as url:
        yield url


@pytest.mark.parametrize("revision", ["legacy", "auto"])
async def test_the_quickstart_server_asks_and_books(server_url: str, revision: str) -> None:
    ui = ScriptedUI(AcceptedElicitation({"day": "2026-12-24", "party": 4}))
    async with ElicitationConfig(ui).connect(server_url, mode=revision) as client:  # type: ignore[arg-type]
        result = await client.call_tool("book", {})
    assert result.content[0].text == "Booked a table for 4 on 2026-12-24."  # type: ignore[union-attr]
    (question,) = ui.shown
    assert isinstance(question, FormQuestion)
    assert question.message == "Which day, and for how many?"
    assert question.schema["properties"]["party"]["maximum"] == 12


async def test_the_quickstart_server_takes_no_for_an_answer(server_url: str) -> None:
    async with ElicitationConfig(ScriptedUI(DeclinedElicitation())).connect(server_url) as client:
        result = await client.call_tool("book", {})
    assert result.content[0].text == "Nothing booked: the person chose decline."  # type: ignore[union-attr]


def test_the_quickstart_client_refuses_to_run_without_a_terminal(server_url: str) -> None:
    run = subprocess.run(
        [sys.executable, str(EXAMPLES / "client.py"), server_url],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode != 0
    assert "terminal" in run.stderr.lower()
