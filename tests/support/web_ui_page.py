"""What the web client's page shows while it asks a question, for tests that read its HTML.

from support.web_ui_page import BOOKING, page_while_asking
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from elicitkit.client.web import WebUI

BOOKING: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "title": "Your name", "maxLength": 5},
        "size": {"type": "integer", "title": "Party size", "minimum": 1, "maximum": 12},
    },
    "required": ["name", "size"],
}
"""A small form with a length and a range: enough to break in a known way."""


async def page_while_asking(
    ask: Callable[[WebUI], Awaitable[object]], *, locale: str, until: str = 'name="csrf"'
) -> str:
    """Start `ask(ui)` in a `WebUI` of `locale` and return its page once it shows `until`."""
    async with WebUI(opener=lambda url: None, locale=locale) as ui, httpx.AsyncClient(timeout=10) as http:
        task = asyncio.create_task(ask(ui))
        await ui.start()
        for _ in range(200):
            if until in (html := (await http.get(ui.url)).text):
                break
            await asyncio.sleep(0.01)
        task.cancel()
    return html
