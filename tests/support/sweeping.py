"""What the background-sweep tests share: a SQLite store's states read from its file, and a bounded wait."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any


def states(path: Path) -> dict[str, str]:
    with sqlite3.connect(path) as db:
        return dict(db.execute("SELECT id, state FROM records").fetchall())


async def until(check: Callable[[], Any], seconds: float = 10.0) -> None:
    for _ in range(int(seconds / 0.02)):
        if check():
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the background sweep did not get there in time")
