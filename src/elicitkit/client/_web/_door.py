"""How the person's browser gets into the page, with no secret that anyone else can see.

The page's address is plain: `http://127.0.0.1:<port>/`. A browser gets in with a session
cookie (HttpOnly, SameSite=Strict, named for the port), and it gets that cookie by posting a
one-time code. The code is kept in a small HTML file, mode 0600, in a 0700 folder in this
user's runtime directory (`$XDG_RUNTIME_DIR`, or else the temporary directory). When the file
loads, its page posts the code. The browser is given the file's path, so a process list
(`/proc/PID/cmdline`), a log or the terminal shows only a path that no other user can read.
Each code works once: when it is used, a new code replaces it in the same file, so opening
the file again still works. A guessed or already used code gets the same refusal as no code.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
import weakref
from collections import deque
from collections.abc import Callable
from pathlib import Path

_SESSIONS = 16  # browsers (or profiles) let in at once; the oldest goes first


class Door:
    """The file with the one-time code, and the sessions it has let in.

    `render(address, code)` writes the file's page: a form that posts `code` to
    `address + "enter"` as soon as it loads.
    """

    def __init__(self, address: str, render: Callable[[str, str], str]) -> None:
        self.address = address
        self.cookie = "elicitkit-" + address.rstrip("/").rsplit(":", 1)[1]
        self._render = render
        self._sessions: deque[str] = deque(maxlen=_SESSIONS)
        self._folder = Path(tempfile.mkdtemp(prefix="elicitkit-page-", dir=_runtime_dir()))  # 0700
        # Removed by close(), or at the program's exit when nothing closed it.
        self._removal = weakref.finalize(self, shutil.rmtree, self._folder, ignore_errors=True)
        self.file = self._folder / "page.html"
        self._code = ""
        self._renew()

    @property
    def url(self) -> str:
        """The file's `file://` URL: what a browser is given to open."""
        return self.file.as_uri()

    def enter(self, code: str) -> str | None:
        """Use `code` once: a new session's cookie value, or None for a wrong or used code."""
        if not self._code or not secrets.compare_digest(code.encode(), self._code.encode()):
            return None
        self._renew()
        session = secrets.token_urlsafe(32)
        self._sessions.append(session)
        return session

    def admits(self, session: str | None) -> bool:
        """Whether a request carrying this cookie value comes from a browser that was let in."""
        given = (session or "").encode()
        return any(secrets.compare_digest(given, known.encode()) for known in self._sessions)

    def close(self) -> None:
        """Forget every code and session, and remove the file and its folder."""
        self._code = ""
        self._sessions.clear()
        self._removal()

    def _renew(self) -> None:
        """Write a new code into the file, replacing the old file in one step."""
        self._code = secrets.token_urlsafe(32)
        fresh = self._folder / f".page-{secrets.token_hex(8)}.html"
        descriptor = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(self._render(self.address, self._code))
        os.replace(fresh, self.file)


def _runtime_dir() -> str | None:
    """`$XDG_RUNTIME_DIR` when it is set (private to this user), else the temporary directory."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    return runtime if runtime and os.path.isdir(runtime) else None
