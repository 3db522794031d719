"""`elicitkit client` on a real terminal: list tools, call one, answer its form, see the result.

Each key is sent once the screen that takes it shows, as a person would: a new prompt after the
last result, a field once the form shows it, Ctrl-D as soon as the question is on the screen.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.tmux_terminal import Terminal

ELICITKIT = Path(sys.executable).with_name("elicitkit")
STDIO_SERVER = [sys.executable, str(Path(__file__).with_name("coffee_stdio_server.py"))]


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = Terminal([str(ELICITKIT), "client", "--", *STDIO_SERVER])
    try:
        yield term
    finally:
        term.close()


@pytest.mark.timeout(240)
def test_call_a_tool_and_answer_its_form(terminal: Terminal) -> None:
    t = terminal
    screen = t.wait_for("elicitkit>")
    assert "Connected to tiny-stdio" in screen
    assert "order_coffee(name)  Order coffee; asks how you like it." in screen
    t.type('call order_coffee {"name": "Ada"}')
    t.keys("Enter")
    screen = t.wait_for("Size ✱")
    assert "How does Ada like the coffee?" in screen
    t.keys("2", "Enter")  # large
    t.wait_for("Cups")
    t.keys("BSpace")
    t.type("3")
    t.keys("Enter")
    t.wait_for("Milk?")
    t.keys("y")
    t.wait_for("Review your answers")
    t.keys("s")
    t.wait_for("elicitkit>", after="result: 3 large coffee(s) for Ada, with milk.")
    t.type('call order_coffee {"name": "Bob"}')
    t.keys("Enter")
    # Ctrl-D as soon as the question shows, before the form's first screen may be up: the
    # terminal UI keeps that key for the screen (it used to be lost on a loaded machine).
    t.wait_for("How does Bob like the coffee?")
    t.keys("C-d")
    t.wait_for("elicitkit>", after="result: No coffee for Bob (decline).")
    t.type("call nothing")
    t.keys("Enter")
    t.wait_for("elicitkit>", after="No tool 'nothing'; the tools are: order_coffee.")
    t.type("quit")
    t.keys("Enter")
    assert "EXIT=0" in t.wait_for("EXIT=")


@pytest.mark.timeout(180)
def test_an_unknown_command_says_so(terminal: Terminal) -> None:
    t = terminal
    t.wait_for("elicitkit>")
    t.type("frobnicate")
    t.keys("Enter")
    screen = t.wait_for("elicitkit>", after="Unknown command 'frobnicate'.")
    assert "Commands: tools | call NAME [JSON arguments] | help | quit" in screen.split("frobnicate")[-1]
    t.type("quit")
    t.keys("Enter")
    assert "EXIT=0" in t.wait_for("EXIT=")
