"""Run inside an install: which optional features work there. Prints the sorted list (JSON);
a feature whose extra is missing must raise `MissingExtraError`, nothing else."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Callable

import anyio

from elicitkit.extras import MissingExtraError


def redis() -> None:
    from elicitkit.server import open_bus, open_store

    store = open_store("redis://127.0.0.1:1/0")  # built, never connected
    open_bus("redis://127.0.0.1:1/0", store=store)


def sqlite() -> None:
    from elicitkit.server import open_store

    store = open_store(f"sqlite:///{tempfile.mkdtemp()}/elicitkit.sqlite3")
    anyio.run(store.sweep)


def oauth() -> None:
    from elicitkit.server import OAuthConnection, OAuthLogin

    assert OAuthConnection is not None
    OAuthLogin("https://issuer.example")


def terminal() -> None:
    from elicitkit.client import TerminalUI

    assert TerminalUI is not None


def web() -> None:
    from elicitkit.client import WebUI
    from elicitkit.server import KeyRing, McpUsers, MemoryStore, UrlMode

    assert WebUI is not None
    keys = KeyRing.from_string(KeyRing.generate())
    UrlMode(keys=keys, store=MemoryStore(), users=McpUsers.single_user_local())


def cli() -> None:
    url = "https://login.microsoft.com.evil.io/"
    run = subprocess.run(
        [sys.executable, "-m", "elicitkit", "url", "inspect", url], capture_output=True, text=True, timeout=60
    )
    if "pip install 'elicitkit[cli]'" in run.stderr:
        raise MissingExtraError(run.stderr)
    assert "evil.io" in run.stdout, (run.returncode, run.stdout, run.stderr)


FEATURES: list[Callable[[], None]] = [redis, sqlite, oauth, terminal, web, cli]
working = []
for feature in FEATURES:
    try:
        feature()
    except MissingExtraError:
        continue
    working.append(feature.__name__)
print(json.dumps(sorted(working)))
