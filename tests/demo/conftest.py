from collections.abc import AsyncIterator

import httpx
import pytest
from demo_oauth_helpers import CALLBACK

from elicitkit.demo.auth_server import DemoAuthServer
from elicitkit.demo.provider import DemoProvider


@pytest.fixture
async def auth() -> AsyncIterator[DemoAuthServer]:
    async with DemoAuthServer() as server:
        yield server


@pytest.fixture
async def calendar() -> AsyncIterator[DemoProvider]:
    async with DemoProvider(
        client_id="mcp-server", client_secret="s3cret", redirect_uris=[CALLBACK]
    ) as server:
        yield server


@pytest.fixture
async def browser() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client
