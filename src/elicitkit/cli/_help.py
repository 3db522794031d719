"""Help that reads well at 80 columns: plain text that wraps, and no Python types on display.

Typer shows each parameter's Python type (`<bool>`, `<str>`, `<list[str]>`); a person reads a
flag as a flag, an argument by its name, and an option's value by a word (`--call TOOL`).
"""

from __future__ import annotations

from typing import Any

import typer.core

__all__ = ["MARKUP", "Command"]

MARKUP: Any = None
"""`rich_markup_mode` of every `elicitkit` Typer: plain text, rewrapped to the terminal's width."""


class Command(typer.core.TyperCommand):
    """A command whose help names values in words: `TARGET`, `--wait SECONDS`, `--web`."""

    def get_params(self, ctx: Any) -> list[Any]:
        params: list[Any] = super().get_params(ctx)
        for param in params:
            if param.param_type_name == "argument":
                param.metavar = param.metavar or param.name.upper()
                param.display_type_rich = _no_type
            elif not getattr(param, "is_flag", False) and param.metavar is None:
                param.metavar = param.name.upper()
        return params


def _no_type(ctx: Any) -> None:
    return None
