"""`lint`: say everything in a schema that the form-mode subset does not allow."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class LintFinding:
    """One problem in a schema: where (JSON pointer), how bad, a stable code, and a sentence."""

    pointer: str
    severity: Severity
    code: str
    message: str


def lint(
    schema: Mapping[str, Any],
    *,
    message: str | None = None,
    allow_sensitive: Mapping[str, str] | None = None,
) -> list[LintFinding]:
    """Return every finding for `schema` (and the request `message`, if given).

    `allow_sensitive` maps a field name to the reason it may look sensitive (S-11).
    """
    raise NotImplementedError
