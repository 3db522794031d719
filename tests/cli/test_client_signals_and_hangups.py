"""`elicitkit client` on a real terminal: a session ended from outside leaves the terminal as it was.

SIGTERM (`kill PID`) and SIGHUP (the terminal closed) end an interactive session as Ctrl-C would:
the running call is cancelled (the server is told), the terminal is restored from raw mode, one
line says why, and the exit status is 128 + the signal, as a shell expects. A server that closes
the connection ends the session at once, with a sentence that says so and exit status 1.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import pytest
from support.tmux_pane import PATIENCE
from support.tmux_terminal import Terminal
from test_client_keys_while_busy import ELICITKIT, SERVER, _call_hold, _client, _ended, _wait_for_file


def _client_pid(started: Path) -> int:
    """The client's PID, which the server (its child) wrote when the held call started."""
    return int(started.read_text())


@pytest.mark.timeout(240)
@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_a_signal_while_a_call_runs_cancels_it_and_restores_the_terminal(
    number: signal.Signals, tmp_path: Path
) -> None:
    t = _client(SERVER)
    try:
        t.wait_for("elicitkit>", "hold(path)")
        release = tmp_path / "release"
        _call_hold(t, release)
        os.kill(_client_pid(release.with_name("release.started")), number)
        assert _ended(t) == ["TTY=RESTORED", f"CODE={128 + number}"]
        assert f"Ended by {number.name}; nothing more was sent." in t.screen()
        _wait_for_file(release.with_name("release.cancelled"))  # the server was told
    finally:
        t.close()


@pytest.mark.timeout(240)
def test_sigterm_at_the_prompt_ends_the_session_and_restores_the_terminal(tmp_path: Path) -> None:
    t = _client(SERVER)
    try:
        t.wait_for("elicitkit>")
        release = tmp_path / "release"
        release.touch()
        _call_hold(t, release)
        t.wait_for("elicitkit>", after="result: released")
        t.type("half a line")  # the prompt holds it, in raw mode
        os.kill(_client_pid(release.with_name("release.started")), signal.SIGTERM)
        assert _ended(t) == ["TTY=RESTORED", "CODE=143"]
        assert "Ended by SIGTERM; nothing more was sent." in t.screen()
    finally:
        t.close()


def _wait_until_gone(pid: int) -> None:
    """Until the process `pid` has exited (a zombie its parent has not reaped yet counts)."""
    stat = Path(f"/proc/{pid}/stat")
    deadline = time.monotonic() + PATIENCE
    while True:
        try:
            if stat.read_text().rpartition(")")[2].split()[0] in ("Z", "X"):
                return
        except (FileNotFoundError, ProcessLookupError):
            return
        assert time.monotonic() < deadline, f"the server {pid} did not exit"
        time.sleep(0.05)


@pytest.mark.timeout(240)
def test_a_server_that_stops_between_calls_ends_the_session_at_the_next_command(tmp_path: Path) -> None:
    t = _client(SERVER)
    try:
        t.wait_for("elicitkit>")
        gone = tmp_path / "gone"
        t.type(f'call leave {{"path": "{gone}"}}')
        t.keys("Enter")
        t.wait_for("elicitkit>", after="result: leaving")
        _wait_for_file(gone)
        _wait_until_gone(int(gone.read_text()))
        t.type("tools")  # used to end with exit 1 and "...Is it an MCP server?"
        t.keys("Enter")
        assert _ended(t) == ["TTY=RESTORED", "CODE=1"]
        screen = t.screen()
        assert "closed the connection; check what it printed above for why" in screen
        assert "Is it an MCP server?" not in screen
    finally:
        t.close()


def _pid_of_client(t: Terminal) -> int:
    """The elicitkit client process under the terminal's shell (found by its command line)."""
    todo = [int(t.tmux("display-message", "-p", "-t", "main", "#{pane_pid}").strip())]
    while todo:
        pid = todo.pop()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        if cmdline[1:3] == [str(ELICITKIT).encode(), b"client"]:  # python, its script: not the sh
            return pid
        todo += [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    raise AssertionError("no elicitkit client process under the terminal")


@pytest.mark.timeout(240)
def test_sigterm_on_a_question_s_screen_ends_the_session_and_restores_the_terminal() -> None:
    t = _client([sys.executable, str(Path(__file__).with_name("coffee_stdio_server.py"))])
    try:
        t.wait_for("elicitkit>")
        t.type('call order_coffee {"name": "Cy"}')
        t.keys("Enter")
        t.wait_for("How does Cy like the coffee?")
        os.kill(_pid_of_client(t), signal.SIGTERM)
        assert _ended(t) == ["TTY=RESTORED", "CODE=143"]
        assert "Ended by SIGTERM; nothing more was sent." in t.screen()
    finally:
        t.close()
