"""The task tests' server: tests/support/task_server.py on 127.0.0.1, in this event loop."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from support.task_server import TaskServer, serving


@pytest.fixture
async def served() -> AsyncIterator[tuple[TaskServer, str]]:
    async with serving() as running:
        yield running
