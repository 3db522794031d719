"""An elicitation callback for the server tests that answers from a script (a client that
declares chosen modes is `support.declaring.declaring`)."""

from __future__ import annotations

from typing import Any

from mcp_types import ElicitRequestParams, ElicitResult

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
