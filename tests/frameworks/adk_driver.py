"""Runs examples/fastmcp/agent_google_adk.py in `.venv-adk` (google-adk cannot share the dev
venv: its opentelemetry pin excludes FastMCP 4.2), for tests/frameworks/test_google_adk.py.

    .venv-adk/bin/python tests/frameworks/adk_driver.py URL accept decline form-only

The scenarios run one after the other in one process (ADK takes seconds to import). Each URL
the person should open is printed as `OPEN <url>` (the test's person completes it); each
scenario ends with `RESULT <scenario> <json>`: the agent's final text and the questions shown.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from pathlib import Path

from elicitkit.client import AcceptedElicitation, DeclinedElicitation, ElicitationConfig, ScriptedUI

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "fastmcp" / "agent_google_adk.py"
BOOKING = {"day": "2026-12-24", "party": 4}


def _example() -> object:
    spec = importlib.util.spec_from_file_location("agent_google_adk", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _open(url: str) -> bool:
    print("OPEN", url, flush=True)
    return True


def config_for(scenario: str) -> tuple[ElicitationConfig, ScriptedUI]:
    if scenario == "decline":
        ui = ScriptedUI(DeclinedElicitation(), DeclinedElicitation())
    else:
        ui = ScriptedUI(AcceptedElicitation(BOOKING), otherwise=AcceptedElicitation())
    modes = ("form",) if scenario == "form-only" else ("form", "url")
    return ElicitationConfig(ui, modes=modes, open_url=_open, wait_timeout=30), ui


async def main(url: str, scenarios: list[str]) -> None:
    example = _example()
    for scenario in scenarios:
        config, ui = config_for(scenario)
        final = await example.run(url, config)  # type: ignore[attr-defined]
        shown = [type(question).__name__ for question in ui.shown]
        print("RESULT", scenario, json.dumps({"final": final, "shown": shown}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2:]))
