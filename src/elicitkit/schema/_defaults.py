"""`defaults`: the answer a form starts from (C-11)."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from elicitkit.schema._validate import validate


def defaults(schema: Mapping[str, Any]) -> dict[str, Any]:
    """The pre-filled answer: each property's `default`, where it has one.

    A default that breaks its own field's rules is left out, so the form never starts from
    an answer it would refuse (`lint` reports such a default as `bad-default`).
    """
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return {}
    filled = {
        name: copy.deepcopy(prop["default"])
        for name, prop in properties.items()
        if isinstance(prop, Mapping) and "default" in prop
    }
    broken = {p.field for p in validate(schema, filled) if p.code not in ("missing", "invalid-schema")}
    return {name: value for name, value in filled.items() if name not in broken}
