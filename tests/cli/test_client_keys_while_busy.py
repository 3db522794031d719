"""`elicitkit client` on a real terminal: a key typed at any point of the session has one meaning.

While a call runs with no question up, Ctrl-C cancels the call (the server is told) and the
prompt comes back; every other key, Ctrl-D included, is dropped with a word that says so, rather
than echoed by the terminal and read by the next prompt as garbage (or as an end of file). At the
prompt, Ctrl-C clears the line and Ctrl-D ends the session. On every way out the terminal is left
as it was found. Each key is sent once the screen (or the server) shows that it is where the key
should land, never after a pause.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.tmux_pane import PATIENCE
from support.tmux_terminal import Terminal

ELICITKIT = Path(sys.executable).with_name("elicitkit")
SERVER = [sys.executable, str(Path(__file__).with_name("held_stdio_server.py"))]
# The shell notes the terminal's settings before the client starts and says after it ends
# whether they are the same (echo, line editing, signals: all that raw mode turns off).
_WRAPPED = (
    'before=$(stty -g); "$@"; code=$?; '
    'if [ "$(stty -g)" = "$before" ]; then echo TTY=RESTORED; else echo TTY=CHANGED; fi; '
    "echo CODE=$code"
)


def _client(server: list[str]) -> Terminal:
    return Terminal(["sh", "-c", _WRAPPED, "sh", str(ELICITKIT), "client", "--", *server])


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = _client(SERVER)
    try:
        yield term
    finally:
        term.close()


def _wait_for_file(path: Path) -> None:
    deadline = time.monotonic() + PATIENCE
    while not path.exists():
        assert time.monotonic() < deadline, f"{path.name} did not appear"
        time.sleep(0.05)


def _call_hold(t: Terminal, release: Path) -> None:
    t.type(f'call hold {{"path": "{release}"}}')
    t.keys("Enter")
    _wait_for_file(release.with_name(release.name + ".started"))


def _ended(t: Terminal) -> list[str]:
    """What the shell said once the client ended: whether the terminal is as it was, the exit code."""
    screen = t.wait_for("CODE=")
    return screen[screen.rfind("TTY=") :].split()[:2]


@pytest.mark.timeout(240)
def test_keys_typed_while_a_call_runs_are_dropped_not_read_by_the_next_prompt(
    terminal: Terminal, tmp_path: Path
) -> None:
    t = terminal
    t.wait_for("elicitkit>", "hold(path)")
    release = tmp_path / "release"
    _call_hold(t, release)
    t.type("abc")
    t.keys("C-d")  # an end of file in a cooked terminal: the next prompt used to read a NUL
    t.type("xyz")
    t.wait_for("Ignored what you typed while waiting for the server; Ctrl-C cancels.")
    release.touch()
    t.wait_for("elicitkit>", after="result: released")
    t.type("quit")
    t.keys("Enter")
    ended = _ended(t)
    assert "Unknown command" not in t.screen()
    assert "abc" not in t.screen() and "xyz" not in t.screen()
    assert ended == ["TTY=RESTORED", "CODE=0"]


@pytest.mark.timeout(240)
def test_ctrl_c_while_a_call_runs_cancels_that_call_and_the_session_goes_on(
    terminal: Terminal, tmp_path: Path
) -> None:
    t = terminal
    t.wait_for("elicitkit>")
    first = tmp_path / "first"
    _call_hold(t, first)
    t.keys("C-c")  # used to be a SIGINT: the whole session ended
    t.wait_for("elicitkit>", after="Cancelled (Ctrl-C); the server was told to stop.")
    _wait_for_file(first.with_name("first.cancelled"))  # the server was told
    second = tmp_path / "second"
    second.touch()
    _call_hold(t, second)
    t.wait_for("elicitkit>", after="result: released")
    t.keys("C-c")  # at the prompt: a fresh line
    t.keys("C-d")  # at the prompt, on an empty line: the end of the session
    assert _ended(t) == ["TTY=RESTORED", "CODE=0"]


@pytest.mark.timeout(240)
def test_the_session_ends_and_the_terminal_is_restored_when_the_server_goes_away_during_a_call(
    terminal: Terminal,
) -> None:
    t = terminal
    t.wait_for("elicitkit>")
    t.type("call vanish")
    t.keys("Enter")
    # It used to say "The call failed: Connection closed" and prompt for calls that could only fail.
    assert _ended(t) == ["TTY=RESTORED", "CODE=1"]
    screen = t.screen()
    assert (
        "closed the connection; check what it printed above for why, then start elicitkit client again."
        in screen
    )
    assert "The call failed" not in screen


@pytest.mark.timeout(240)
def test_ctrl_c_while_connecting_ends_the_session_and_restores_the_terminal(tmp_path: Path) -> None:
    started = tmp_path / "started"
    mute = "import pathlib, sys, time; pathlib.Path(sys.argv[1]).touch(); time.sleep(600)"
    t = _client([sys.executable, "-c", mute, str(started)])  # a server that never answers
    try:
        _wait_for_file(started)  # the client holds the terminal before it starts the server
        t.keys("C-c")
        assert _ended(t) == ["TTY=RESTORED", "CODE=130"]
        assert "Cancelled (Ctrl-C); nothing more was sent." in t.screen()
    finally:
        t.close()


@pytest.mark.timeout(240)
def test_ctrl_c_on_a_question_cancels_the_question_not_the_call() -> None:
    t = _client([sys.executable, str(Path(__file__).with_name("coffee_stdio_server.py"))])
    try:
        t.wait_for("elicitkit>")
        t.type('call order_coffee {"name": "Cy"}')
        t.keys("Enter")
        t.wait_for("How does Cy like the coffee?")  # the form's screen may not be up yet
        t.keys("C-c")
        t.wait_for("elicitkit>", after="result: No coffee for Cy (cancel).")
        t.type("quit")
        t.keys("Enter")
        assert _ended(t) == ["TTY=RESTORED", "CODE=0"]
    finally:
        t.close()
