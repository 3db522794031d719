"""Run inside a base install (no extras): what importing loads, a form round trip, and what a
missing extra says. Prints one JSON object; tests/packaging/test_base_install.py reads it."""

from __future__ import annotations

import json
import sys

HEAVY = sys.argv[1].split(",")

import elicitkit  # noqa: E402
import elicitkit.client  # noqa: E402
import elicitkit.schema  # noqa: E402
import elicitkit.server  # noqa: E402
import elicitkit.urls  # noqa: E402

loaded_by_import = sorted(m for m in HEAVY if m in sys.modules)

import anyio  # noqa: E402
from mcp.server.mcpserver import Context, MCPServer  # noqa: E402

from elicitkit.client import AcceptedElicitation, DeclinedElicitation, ElicitationConfig, ScriptedUI  # noqa: E402
from elicitkit.server import Elicitation  # noqa: E402

SCHEMA = {
    "type": "object",
    "properties": {
        "day": {"type": "string", "format": "date"},
        "at": {"type": "string", "format": "date-time"},
        "email": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "party": {"type": "integer", "minimum": 1, "maximum": 12},
    },
    "required": ["day", "party"],
}
ANSWER = {
    "day": "2026-12-24",
    "at": "2026-12-24T19:30:00+01:00",
    "email": "ada@example.com",
    "site": "https://example.com/menu",
    "party": 4,
}

server = MCPServer("tables")
elicit = Elicitation(server)


@server.tool()
async def book(ctx: Context) -> str:
    match await elicit.form(ctx, "Which day, and for how many?", SCHEMA):
        case AcceptedElicitation(data=booking):
            return json.dumps(booking, sort_keys=True)
        case outcome:
            return outcome.action


async def round_trips() -> dict[str, str]:
    results = {}
    for mode, reply in (
        ("legacy", AcceptedElicitation(ANSWER)),
        ("auto", AcceptedElicitation(ANSWER)),
        ("auto-decline", DeclinedElicitation()),
    ):
        ui = ScriptedUI(reply)
        async with ElicitationConfig(ui).connect(server, mode=mode.split("-")[0]) as client:  # type: ignore[arg-type]
            result = await client.call_tool("book", {})
        results[mode] = result.content[0].text  # type: ignore[union-attr]
    return results


results = anyio.run(round_trips)
formats = {
    "bad-date": [p.code for p in elicitkit.schema.validate(SCHEMA, {**ANSWER, "day": "2026-02-30"})],
    "bad-uri": [p.code for p in elicitkit.schema.validate(SCHEMA, {**ANSWER, "site": "not a uri"})],
    "bad-email": [p.code for p in elicitkit.schema.validate(SCHEMA, {**ANSWER, "email": "a@localhost"})],
    "bad-at": [p.code for p in elicitkit.schema.validate(SCHEMA, {**ANSWER, "at": "2026-12-24T19:30"})],
}
report = elicitkit.urls.examine("https://login.microsoft.com.evil.io/")
print(
    json.dumps(
        {
            "loaded_by_import": loaded_by_import,
            "loaded_after_round_trip": sorted(m for m in HEAVY if m in sys.modules),
            "round_trips": results,
            "formats": formats,
            "url": {"domain": report.domain, "codes": list(report.codes)},
        }
    )
)
