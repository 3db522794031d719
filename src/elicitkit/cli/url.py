"""`elicitkit url inspect`."""

from __future__ import annotations

import typer

app = typer.Typer(help="Inspect a URL as a client would before asking to open it.", no_args_is_help=True)
