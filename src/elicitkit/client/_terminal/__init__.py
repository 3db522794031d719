"""The terminal UI: one question at a time in the person's own terminal (needs the `terminal` extra)."""

from elicitkit.client._terminal.ui import NotATerminalError, TerminalUI

__all__ = ["NotATerminalError", "TerminalUI"]
