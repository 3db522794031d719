"""Clients for the server tests: one that answers from a script, one that declares chosen modes.

`mcp.Client` declares both form and url whenever it has an elicitation callback, so
`declaring(...)` patches the one place it builds its capabilities for the duration of a test.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from mcp.client.session import ClientSession
from mcp_types import ClientCapabilities, ElicitationCapability, ElicitRequestParams, ElicitResult

MODES = ["legacy", "auto"]
"""`mcp.Client` modes: "legacy" speaks 2025-11-25, "auto" lands on 2026-07-28 against an MCPServer."""


def accept(**content: Any) -> ElicitResult:
    return ElicitResult(action="accept", content=content)


class Script:
    """An elicitation callback that answers in order (repeating the last) and records each question."""

    def __init__(self, *answers: ElicitResult) -> None:
        self.answers = list(answers)
        self.asked: list[ElicitRequestParams] = []

    async def __call__(self, context: Any, params: ElicitRequestParams) -> ElicitResult:
        self.asked.append(params)
        return self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]


@contextmanager
def declaring(elicitation: dict[str, Any] | None) -> Iterator[None]:
    """Make every client built inside declare exactly `elicitation` (None: no capability at all)."""
    original = ClientSession._build_capabilities

    def build(self: ClientSession, version: str) -> ClientCapabilities:
        declared = None if elicitation is None else ElicitationCapability.model_validate(elicitation)
        return original(self, version).model_copy(update={"elicitation": declared})

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ClientSession, "_build_capabilities", build)
        yield
