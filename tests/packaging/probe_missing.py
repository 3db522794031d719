"""Run inside a base install: each optional feature, used without its extra. Prints, per
feature, the exception type and message it raised (JSON)."""

from __future__ import annotations

import json
import traceback
from collections.abc import Callable
from typing import Any


def redis_store() -> Any:
    from elicitkit.server import RedisStore

    return RedisStore


def sqlite_store() -> Any:
    from elicitkit.server import SQLiteStore

    return SQLiteStore


def open_redis() -> Any:
    from elicitkit.server import open_store

    return open_store("redis://127.0.0.1:6379/0")


def open_redis_bus() -> Any:
    from elicitkit.server import open_bus

    return open_bus("redis://127.0.0.1:6379/0")


def open_sqlite() -> Any:
    from elicitkit.server import open_store

    return open_store("sqlite:///tmp/never-created.sqlite3")


def oauth_connection() -> Any:
    from elicitkit.server import OAuthConnection

    return OAuthConnection


def oauth_login() -> Any:
    from elicitkit.server import OAuthLogin

    return OAuthLogin("https://issuer.example")


def url_mode() -> Any:
    from elicitkit.server import KeyRing, McpUsers, MemoryStore, UrlMode

    keys = KeyRing.from_string(KeyRing.generate())
    return UrlMode(keys=keys, store=MemoryStore(), users=McpUsers.single_user_local())


def url_mode_default_store() -> Any:
    from elicitkit.server import KeyRing, McpUsers, UrlMode

    keys = KeyRing.from_string(KeyRing.generate())
    return UrlMode(keys=keys, users=McpUsers.single_user_local())


def terminal_ui() -> Any:
    from elicitkit.client import TerminalUI

    return TerminalUI


def web_ui() -> Any:
    from elicitkit.client import WebUI

    return WebUI


def memory_store() -> Any:
    from elicitkit.server import open_bus, open_store

    return open_store("memory://"), open_bus("memory://")


FEATURES: dict[str, Callable[[], Any]] = {
    f.__name__: f
    for f in [
        redis_store,
        sqlite_store,
        open_redis,
        open_redis_bus,
        open_sqlite,
        oauth_connection,
        oauth_login,
        url_mode,
        url_mode_default_store,
        terminal_ui,
        web_ui,
        memory_store,
    ]
}

outcomes = {}
for name, use in FEATURES.items():
    try:
        use()
    except Exception as exc:
        outcomes[name] = {
            "type": type(exc).__name__,
            "import_error": isinstance(exc, ImportError),
            "message": str(exc),
            "where": traceback.format_exc(limit=-1).splitlines()[-1],
        }
    else:
        outcomes[name] = None
print(json.dumps(outcomes))
