"""The task tests' server: tests/support/task_server.py on 127.0.0.1, in this event loop."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from support.task_server import TaskServer, build_task_server
from support.url_harness import serve

from elicitkit.server import KeyRing, MemoryStore


@pytest.fixture
async def served() -> AsyncIterator[tuple[TaskServer, str]]:
    """The task server on a MemoryStore; yields it and its MCP endpoint."""
    holder: list[TaskServer] = []

    def build(url: str):  # type: ignore[no-untyped-def]
        keys = KeyRing.from_string(KeyRing.generate())
        built = build_task_server(public_url=url, store=MemoryStore(), keys=keys)
        holder.append(built)
        return built.server.streamable_http_app()

    async with serve(build) as url:
        yield holder[0], f"{url}/mcp"
