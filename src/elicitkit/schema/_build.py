"""`build`: Python types to a spec-valid form-mode `requestedSchema`."""

from __future__ import annotations

from typing import Any


class SchemaBuildError(TypeError):
    """A type the form-mode subset cannot express; the message names the field and what to use."""


def build(tp: Any) -> dict[str, Any]:
    """Return the `requestedSchema` for a pydantic model, dataclass or TypedDict."""
    raise NotImplementedError
