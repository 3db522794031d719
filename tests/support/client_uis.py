"""The client UIs as tests drive them: the web client's page while it asks, a terminal UI on a pipe.

from support.client_uis import BOOKING, page_while_asking, terminal_ui
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from elicitkit.client._web import WebUI
from support.web_door import enter

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
        address = await enter(http, await ui.start())
        for _ in range(200):
            if until in (html := (await http.get(address)).text):
                break
            await asyncio.sleep(0.01)
        task.cancel()
    return html


def terminal_ui(pipe: Any, locale: str) -> tuple[Any, io.StringIO, io.StringIO]:
    """A `TerminalUI` of `locale` reading keys from `pipe` (prompt_toolkit's pipe input): the UI,
    what its console printed, and what its screens drew (a 30 x 120 xterm)."""
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.output.vt100 import Vt100_Output
    from rich.console import Console

    from elicitkit.client._terminal import TerminalUI

    drawn, screens = io.StringIO(), io.StringIO()
    ui = TerminalUI(
        input=pipe,
        output=Vt100_Output(screens, lambda: Size(rows=30, columns=120), term="xterm"),
        console=Console(file=drawn, width=120),
        locale=locale,
    )
    return ui, drawn, screens
