"""A program in a real pseudo-terminal: a private tmux server runs it, tests type and read the screen.

Shared by the terminal UI tests (tests/client/test_terminal_tty.py, test_terminal_screenshots.py).
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import pytest

TMUX = shutil.which("tmux") or "/usr/bin/tmux"
PATIENCE = 60.0
"""Seconds any wait for the screen allows: generous, for a CI box running three workers on two cores.

A test sends a key once it sees the screen that takes it, so this bounds a hang; it is not a pace."""


class Pane:
    """One tmux server (its own socket) running `argv` in a fixed-size window.

    When the program ends the pane shows `[exit N]` and stays open, so its last screen can
    still be read.
    """

    def __init__(self, argv: Sequence[str], width: int = 100, height: int = 40) -> None:
        self.socket = f"elicitkit-{uuid.uuid4().hex[:12]}"
        env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "COLUMNS", "LINES", "TMUX")}
        command = f'{shlex.join(argv)}; echo "[exit $?]"; sleep 600'
        subprocess.run(
            [TMUX, "-L", self.socket, "-f", "/dev/null", "new-session", "-d", "-s", "main",
             "-x", str(width), "-y", str(height), command],
            check=True,
            env=env,
        )  # fmt: skip
        self.socket_path = Path(self.tmux("display-message", "-p", "#{socket_path}").strip())

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            [TMUX, "-L", self.socket, *args], check=True, capture_output=True, text=True, timeout=PATIENCE
        )
        return done.stdout

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.tmux("send-keys", "-t", "main", key)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "main", "-l", text)

    def screen(self, escapes: bool = False) -> str:
        """The visible screen; with `escapes`, with its colours and styles as SGR sequences."""
        return self.tmux("capture-pane", "-p", "-t", "main", *(["-e"] if escapes else []))

    def wait_for(self, *texts: str, timeout: float = PATIENCE) -> str:
        """Poll the screen until every text shows; fail with the screen if they never do."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if all(text in screen for text in texts):
                return screen
            if time.monotonic() > deadline:
                pytest.fail(f"never saw {texts!r} on the screen:\n{screen}")
            time.sleep(0.05)

    def close(self) -> None:
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], capture_output=True, check=False)
        self.socket_path.unlink(missing_ok=True)
