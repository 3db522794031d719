"""A real terminal for tests: a tmux server on its own socket, keys typed in, the screen read back.

Each key goes out once the screen that takes it is seen (`wait_for`), never after a pause: a
pause is too short on a loaded machine and only slows an idle one. Every wait has the same
generous deadline, `PATIENCE`, so a CI box running three workers on two cores is slow, not red.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid
from pathlib import Path

from support.tmux_pane import PATIENCE

TMUX = shutil.which("tmux") or "/usr/bin/tmux"


class Terminal:
    """One tmux server on its own socket, running one command in a 120x50 window."""

    def __init__(self, command: list[str]) -> None:
        self.socket = f"elicitkit-demo-{uuid.uuid4().hex[:8]}"
        script = f"{shlex.join(command)}; echo EXIT=$?; sleep 600"
        self.tmux("new-session", "-d", "-s", "main", "-x", "120", "-y", "50", script)
        self.socket_path = Path(self.tmux("display-message", "-p", "#{socket_path}").strip())

    def tmux(self, *args: str) -> str:
        done = subprocess.run(
            [TMUX, "-L", self.socket, *args], capture_output=True, text=True, timeout=PATIENCE
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.tmux("send-keys", "-t", "main", key)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "main", "-l", text)

    def screen(self) -> str:
        """Everything printed so far (scroll-back included), wrapped lines joined."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "main")

    def wait_for(self, *texts: str, after: str | None = None, timeout: float = PATIENCE) -> str:
        """Poll until every text shows (after the last `after`, when given); fail with the screen.

        `after` tells a new screen from an old one still in the scroll-back: the same prompt or
        field is printed again and again.
        """
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            seen = screen if after is None else screen[screen.rfind(after) :] if after in screen else ""
            if all(text in seen for text in texts):
                return screen
            if time.monotonic() > deadline:
                where = f" after {after!r}" if after is not None else ""
                raise AssertionError(f"{texts!r} did not appear{where}; the screen shows:\n{screen}")
            time.sleep(0.1)

    def close(self) -> None:
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], capture_output=True, timeout=PATIENCE)
        self.socket_path.unlink(missing_ok=True)
