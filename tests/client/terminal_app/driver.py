"""Runs TerminalUI on a real terminal for the tmux tests: `driver.py SCENARIO OUT.json`.

It builds a question, asks it, and writes the reply to OUT.json, which the test reads.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from typing import Any

import anyio
from rich.console import Console

from elicitkit.client._terminal import NotATerminalError, TerminalUI
from elicitkit.client._ui import FormQuestion, UrlQuestion, Waiting
from elicitkit.schema import ValidationProblem
from elicitkit.urls import examine

EVERY_KIND: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {
            "type": "string",
            "title": "Full name",
            "description": "As on your badge",
            "minLength": 2,
            "maxLength": 40,
            "pattern": "^[A-Za-z ]+$",
        },
        "email": {"type": "string", "title": "Email", "format": "email"},
        "homepage": {"type": "string", "title": "Homepage", "format": "uri"},
        "birthday": {"type": "string", "title": "Birthday", "format": "date"},
        "meeting": {"type": "string", "title": "Meeting time", "format": "date-time"},
        "age": {"type": "integer", "title": "Age", "minimum": 0, "maximum": 150},
        "budget": {"type": "number", "title": "Budget", "minimum": 0, "default": 2.5},
        "newsletter": {"type": "boolean", "title": "Newsletter", "default": False},
        "size": {"type": "string", "title": "Size", "enum": ["s", "m", "l"]},
        "color": {
            "type": "string",
            "title": "Color",
            "oneOf": [
                {"const": "#f00", "title": "Red"},
                {"const": "#0f0", "title": "Green"},
                {"const": "#00f", "title": "Blue"},
            ],
        },
        "plan": {"type": "string", "title": "Plan", "enum": ["free", "pro"], "enumNames": ["Free", "Pro"]},
        "toppings": {
            "type": "array",
            "title": "Toppings",
            "minItems": 1,
            "maxItems": 2,
            "items": {"type": "string", "enum": ["cheese", "olives", "basil"]},
        },
        "days": {
            "type": "array",
            "title": "Days",
            "items": {"anyOf": [{"const": "mon", "title": "Monday"}, {"const": "tue", "title": "Tuesday"}]},
        },
    },
    "required": ["name", "email", "age", "size", "toppings"],
}

SMALL: dict[str, Any] = {
    "type": "object",
    "properties": {"name": {"type": "string", "title": "Name"}},
    "required": ["name"],
}


REPORTS = {
    "url-ok": "https://login.example.com/elicit/abc123",
    "url-idn": "https://xn--exmple-cua.com/pay",
    "url-block": "https://good.com@evil.example.co.uk/pay",
}


class SlowConsole(Console):
    """A terminal slow to draw, as on a loaded machine: each print takes two seconds more."""

    def print(self, *objects: Any, **kwargs: Any) -> None:
        super().print(*objects, **kwargs)
        time.sleep(2)


async def main(scenario: str) -> Any:
    ui = TerminalUI(console=SlowConsole(highlight=False, emoji=False)) if scenario == "slow" else TerminalUI()
    if scenario == "form":
        return await ui.ask_form(
            FormQuestion(
                "Demo \x1b[31mserver", "Tell us about you.", EVERY_KIND, {"budget": 2.5, "newsletter": False}
            )
        )
    if scenario in ("small", "slow"):
        return await ui.ask_form(FormQuestion("Demo server", "What is your name?", SMALL, {}))
    if scenario == "problems":
        problems = [ValidationProblem("name", "pattern", "Letters only, please.")]
        question = FormQuestion("Demo server", "Try again.", SMALL, {"name": "R2D2"}, problems)
        return await ui.ask_form(question)
    if scenario in REPORTS:
        report = examine(REPORTS[scenario])  # the real inspection, as the handler does it
        return await ui.ask_url_consent(UrlQuestion("Demo server", "Connect your calendar.", report))
    if scenario == "wait":
        ui.notice("before waiting")
        task = asyncio.create_task(
            ui.wait(Waiting("Demo server", [("el-1", "Connect your calendar")], time.monotonic() - 65))
        )
        await asyncio.sleep(1.0)
        ui.notice("elicitation el-1 completed")
        return await task
    if scenario == "wait-timeout":
        return await ui.wait(Waiting("Demo server", [("el-1", "Connect")], time.monotonic(), timed_out=True))
    if scenario == "wait-done":
        task = asyncio.create_task(ui.wait(Waiting("Demo server", [("el-1", "Connect")], time.monotonic())))
        await asyncio.sleep(1.5)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        # The terminal must be usable again once the handler stopped the wait.
        then = await ui.ask_form(FormQuestion("Demo server", "And now?", SMALL, {}))
        return {"wait": "stopped by the handler", "then": _jsonable(then)}
    if scenario == "wait-anyio":
        # As the handler does it: a notice, then an anyio cancel scope ends the wait.
        async with anyio.create_task_group() as tg:

            async def completed() -> None:
                await anyio.sleep(1.5)
                ui.notice("Demo server: an elicitation completed.")
                tg.cancel_scope.cancel()

            tg.start_soon(ui.wait, Waiting("Demo server", [("el-1", "Connect")], time.monotonic()))
            tg.start_soon(completed)
        then = await ui.ask_form(FormQuestion("Demo server", "And now?", SMALL, {}))
        return {"wait": "stopped by the handler", "then": _jsonable(then)}
    raise SystemExit(f"unknown scenario {scenario}")


def _jsonable(reply: Any) -> Any:
    """A reply as the wire writes it: its action, and its data when accepted."""
    if isinstance(reply, str | dict):
        return reply
    return (
        {"action": reply.action, "data": reply.data} if reply.action == "accept" else {"action": reply.action}
    )


if __name__ == "__main__":
    scenario, out = sys.argv[1], sys.argv[2]
    try:
        result = asyncio.run(main(scenario))
    except NotATerminalError as error:
        print(error, file=sys.stderr)
        raise SystemExit(3) from None
    with open(out, "w") as f:
        json.dump(_jsonable(result), f)
    print("[driver done]")
