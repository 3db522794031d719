"""`defaults`: the answer a form starts from (C-11)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def defaults(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The pre-filled answer: each property's `default`, where it has one."""
    raise NotImplementedError
