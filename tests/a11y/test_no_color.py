"""The terminal UI without colour: with NO_COLOR set, no colour reaches the terminal, and what
colour said (a problem, a required answer, a risky or blocked URL, a wait that timed out) is
said in words on the screen. A real pseudo-terminal (tmux) runs the terminal UI tests' driver.
"""

from __future__ import annotations

import asyncio
import io
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output
from rich.console import Console
from support.tmux_pane import Pane

from elicitkit.client._terminal import TerminalUI
from elicitkit.client._ui import CancelledElicitation, FormQuestion, UrlQuestion
from elicitkit.schema import ValidationProblem
from elicitkit.urls import examine

DRIVER = Path(__file__).resolve().parents[1] / "client" / "terminal_app" / "driver.py"
_SGR = re.compile(r"\x1b\[([0-9;:]*)m")
_COLOUR_PARAMS = {*range(30, 39), *range(40, 49), *range(90, 98), *range(100, 108)}

# Each scenario of the driver, and the words that must say what its colours said.
SAID_IN_WORDS = {
    "problems": ["Letters only, please.", "Some answers need fixing", "required"],
    "form": ["✱ required answer"],
    "url-idn": ["Look closely before opening it"],
    "url-block": ["This URL is blocked: it will not be opened."],
    "wait-timeout": ["No completion came in time."],
}
SHOWN_WHEN = {
    "problems": "Letters only, please.",
    "form": "Full name ✱",
    "url-idn": "Look closely",
    "url-block": "blocked",
    "wait-timeout": "No completion came in time.",
}


def colours(screen: str) -> list[str]:
    """The SGR sequences on `screen` that set a foreground or background colour."""
    found = []
    for match in _SGR.finditer(screen):
        params = [int(p) for p in re.split("[;:]", match.group(1)) if p.isdigit()]
        if any(p in _COLOUR_PARAMS for p in params):
            found.append(match.group(0))
    return found


@pytest.fixture
def panes() -> Iterator[list[Pane]]:
    opened: list[Pane] = []
    yield opened
    for pane in opened:
        pane.close()


def run(panes: list[Pane], scenario: str, tmp_path: Path, *, no_color: bool) -> Pane:
    env = ["env", "NO_COLOR=1"] if no_color else ["env"]
    pane = Pane([*env, sys.executable, str(DRIVER), scenario, str(tmp_path / f"{scenario}.json")])
    panes.append(pane)
    pane.wait_for(SHOWN_WHEN[scenario])
    return pane


@pytest.mark.parametrize("scenario", list(SAID_IN_WORDS))
def test_no_color_means_no_colour_and_everything_in_words(
    panes: list[Pane], tmp_path: Path, scenario: str
) -> None:
    pane = run(panes, scenario, tmp_path, no_color=True)
    screen = pane.screen(escapes=True)
    assert colours(screen) == [], f"colour codes with NO_COLOR set:\n{screen!r}"
    plain = pane.screen()
    for words in SAID_IN_WORDS[scenario]:
        assert words in plain, f"{words!r} is not on the screen:\n{plain}"


def test_without_no_color_the_same_screens_have_colour(panes: list[Pane], tmp_path: Path) -> None:
    """The check above can see colour: the same driver without NO_COLOR uses it."""
    pane = run(panes, "url-block", tmp_path, no_color=False)
    assert colours(pane.screen(escapes=True)), pane.screen(escapes=True)


async def test_a_console_without_colour_keeps_the_screens_without_colour_too(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A host that hands TerminalUI a rich console with no_color=True (and no NO_COLOR in the
    environment) gets no colour anywhere: not in the console, not in the prompt_toolkit screens."""
    monkeypatch.delenv("NO_COLOR", raising=False)
    drawn, screens = io.StringIO(), io.StringIO()
    with create_pipe_input() as pipe:
        ui = TerminalUI(
            input=pipe,
            output=Vt100_Output(screens, lambda: Size(rows=30, columns=100), term="xterm-256color"),
            console=Console(file=drawn, width=100, force_terminal=True, color_system="256", no_color=True),
        )
        pipe.send_text("\x03")  # Ctrl-C: cancel
        report = examine("https://good.com@evil.example.co.uk/pay")
        reply = await asyncio.wait_for(ui.ask_url_consent(UrlQuestion("Demo", "Connect.", report)), 10)
        problems = [ValidationProblem("name", "pattern", "Letters only, please.")]
        form = {
            "type": "object",
            "properties": {"name": {"type": "string", "title": "Name"}},
            "required": ["name"],
        }
        pipe.send_text("\x03")
        await asyncio.wait_for(
            ui.ask_form(FormQuestion("Demo", "Again.", form, {"name": "R2"}, problems)), 10
        )
    assert reply == CancelledElicitation()
    assert "This URL is blocked: it will not be opened." in drawn.getvalue()
    assert "Letters only, please." in screens.getvalue()
    for output in (drawn.getvalue(), screens.getvalue()):
        assert colours(output) == [], output
