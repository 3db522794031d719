"""Run the audit unattended: a driver connects a host program to the audit server and lets it answer.

A driver is anything with a `name` and an async `__call__(endpoint)` that connects its host to
the endpoint (Streamable HTTP, or the stdio command), calls each tool in order and lets the host
answer by its own means. `audit_host` serves the audit, runs the driver under one deadline and
returns the report.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

import anyio

from elicitkit.asgi import EmbeddedServer
from elicitkit.check._host._audit import HostAudit
from elicitkit.check._host._battery import BATTERY
from elicitkit.check._host._report import HostReport
from elicitkit.check._target import TargetError

TOOLS = (*(q.tool for q in BATTERY), "audit_report")
"""The audit server's tools, in the order a driver calls them."""


@dataclass(frozen=True)
class HostEndpoint:
    """Where the host connects: `url` (Streamable HTTP on 127.0.0.1) or `command` (stdio: the
    argv the host starts), exactly one of them; `tools` to call in order, each with `{}`;
    `deadline`, the `time.monotonic()` reading by which everything must be over."""

    url: str | None
    command: tuple[str, ...] | None
    tools: tuple[str, ...]
    deadline: float


class HostDriver(Protocol):
    """A host program the audit can run: `name` as the matrix shows it, and how to run it."""

    name: str

    async def __call__(self, endpoint: HostEndpoint) -> None:
        """Connect the host to `endpoint`, call each of its tools in order with `{}`, let the
        host answer every question by its own means, and return when the last call is over."""
        ...


def stdio_command(*, deadline: float, json_file: Path) -> tuple[str, ...]:
    """The argv of a stdio audit server that writes its JSON report to `json_file` when it ends."""
    return (
        sys.executable,
        "-m",
        "elicitkit",
        "check",
        "--host",
        "--deadline",
        f"{deadline:g}",
        "--json",
        str(json_file),
    )


async def audit_host(
    driver: HostDriver, *, transport: Literal["http", "stdio"] = "http", deadline: float = 60.0
) -> HostReport:
    """Serve the audit, let `driver`'s host answer it (cancelled when `deadline` seconds pass),
    and return the report; a stdio audit runs as a child process the driver's host starts."""
    ends = time.monotonic() + deadline
    if transport == "stdio":
        with tempfile.TemporaryDirectory(prefix="elicitkit-host-") as folder:
            written = Path(folder) / "report.json"
            command = stdio_command(deadline=deadline, json_file=written)
            with anyio.move_on_after(deadline + 5):
                await driver(HostEndpoint(None, command, TOOLS, ends))
            try:
                data = json.loads(written.read_text())
            except (OSError, ValueError):
                raise TargetError(
                    f"The stdio audit wrote no report: did {driver.name} start `{' '.join(command)}`?"
                ) from None
            data["host"] = driver.name
            return HostReport.from_dict(data)
    audit = HostAudit(deadline=deadline)
    async with EmbeddedServer(lambda url: audit.server.streamable_http_app(), lifespan="on") as served:
        with anyio.move_on_after(deadline + 5):
            await driver(HostEndpoint(f"{served.url}/mcp", None, audit.tools, ends))
    return HostReport.of(audit, driver.name)
