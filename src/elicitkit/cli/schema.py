"""`elicitkit schema lint|check|show`."""

from __future__ import annotations

import typer

app = typer.Typer(help="Lint form schemas, check answers, show the schema built for a type.", no_args_is_help=True)
