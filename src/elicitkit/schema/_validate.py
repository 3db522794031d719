"""`validate`: strict check of an accepted form answer against its `requestedSchema`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ValidationProblem:
    """One thing wrong with an answer. `field` is the property name, or None for the whole answer."""

    field: str | None
    code: str
    message: str


def validate(schema: Mapping[str, Any], content: Any) -> list[ValidationProblem]:
    """Return every problem with `content`; an empty list means valid. Never raises on JSON input."""
    raise NotImplementedError
