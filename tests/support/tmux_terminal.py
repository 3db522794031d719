"""A real terminal for tests: a tmux server on its own socket, keys typed in, the screen read back."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import time
import uuid

TMUX = shutil.which("tmux") or "/usr/bin/tmux"


class Terminal:
    """One tmux server on its own socket, running one command in a 120x50 window."""

    def __init__(self, command: list[str]) -> None:
        self.socket = f"elicitkit-demo-{uuid.uuid4().hex[:8]}"
        script = f"{shlex.join(command)}; echo EXIT=$?; sleep 600"
        self.tmux("new-session", "-d", "-s", "main", "-x", "120", "-y", "50", script)

    def tmux(self, *args: str) -> str:
        done = subprocess.run([TMUX, "-L", self.socket, *args], capture_output=True, text=True, timeout=10)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def keys(self, *keys: str) -> None:
        for key in keys:
            self.tmux("send-keys", "-t", "main", key)
            time.sleep(0.15)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", "main", "-l", text)
        time.sleep(0.15)

    def screen(self) -> str:
        """Everything printed so far (scroll-back included), wrapped lines joined."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "main")

    def wait_for(self, text: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if text in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} did not appear; the screen shows:\n{screen}")
            time.sleep(0.2)

    def close(self) -> None:
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], capture_output=True, timeout=10)
