"""The `elicitkit` command. Each sub-command group lives in its own module."""

from __future__ import annotations

import typer

from elicitkit.cli import bridge as _bridge
from elicitkit.cli import check as _check
from elicitkit.cli import client as _client
from elicitkit.cli import demo as _demo
from elicitkit.cli import keys as _keys
from elicitkit.cli import schema as _schema
from elicitkit.cli import url as _url
from elicitkit.cli._help import MARKUP, Command
from elicitkit.cli._target import AfterDashes

app = typer.Typer(
    name="elicitkit",
    help="MCP elicitation tools: lint and check form schemas, inspect URLs, run the demo.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=MARKUP,
)
app.add_typer(_schema.app, name="schema")
app.add_typer(_url.app, name="url")
app.add_typer(_keys.app, name="keys")
app.command("demo", cls=Command)(_demo.demo)
app.command("client", cls=AfterDashes)(_client.client)
app.command("check", cls=AfterDashes)(_check.check)
app.command("bridge", cls=AfterDashes)(_bridge.bridge)


def main() -> None:
    """Entry point for the `elicitkit` console script."""
    app()
