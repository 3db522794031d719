"""A form question: its checked `requestedSchema`, and reading an answer back into the asked type.

Building and linting a schema happen once per type (or per distinct dict schema), not per
question. Reading an answer is strict twice over (S-13): `elicitkit.schema.validate` against
the schema that was sent (no coercion, no unknown keys, formats checked), then the type itself
in pydantic's strict JSON mode, so its own validators run too. Nothing is coerced or dropped.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Generic, TypeVar, cast

from pydantic import TypeAdapter, ValidationError

from elicitkit.schema import ValidationProblem, build, lint, validate
from elicitkit.server._errors import InvalidAnswerError, SchemaRefusedError

T = TypeVar("T")

logger = logging.getLogger("elicitkit.server")

_CACHE_SIZE = 256


@dataclass(eq=False)
class Form(Generic[T]):
    """One form's schema as sent, and how to read an answer to it."""

    schema: dict[str, Any]
    adapter: TypeAdapter[T] | None
    _checked: dict[str, None] = field(default_factory=dict)

    def check(self, message: str, allow_sensitive: Mapping[str, str] | None = None) -> None:
        """Lint the schema with the question's message; any error refuses to send (S-10..S-12)."""
        checked = json.dumps([message, sorted((allow_sensitive or {}).items())])
        if checked in self._checked:
            return
        findings = lint(self.schema, message=message, allow_sensitive=allow_sensitive)
        errors = [f for f in findings if f.severity == "error"]
        if errors:
            raise SchemaRefusedError(errors)
        for finding in findings:
            logger.warning("form schema %s: %s", finding.pointer or "/", finding.message)
        if len(self._checked) >= _CACHE_SIZE:
            self._checked.clear()
        self._checked[checked] = None

    def read(self, content: Mapping[str, Any] | None) -> T:
        """The accepted answer as the asked type, or `InvalidAnswerError` naming every bad field."""
        answer = {} if content is None else content
        problems = validate(self.schema, answer)
        if problems:
            raise InvalidAnswerError(problems)
        if self.adapter is None:
            return dict(answer)  # type: ignore[return-value]  # a dict schema is answered by a dict
        try:
            return self.adapter.validate_json(json.dumps(_integral(self.schema, answer)), strict=True)
        except ValidationError as exc:
            raise InvalidAnswerError([_problem(e) for e in exc.errors()]) from None


def _integral(schema: Mapping[str, Any], answer: Mapping[str, Any]) -> Mapping[str, Any]:
    """JSON Schema counts 5.0 as an integer; hand the strict model the 5 it means."""
    properties = schema.get("properties", {})
    return {
        name: int(value)
        if isinstance(value, float)
        and value.is_integer()
        and properties.get(name, {}).get("type") == "integer"
        else value
        for name, value in answer.items()
    }


def _problem(error: Any) -> ValidationProblem:
    loc = tuple(error.get("loc", ()))
    name = str(loc[0]) if loc else None
    where = repr(name) if name is not None else "the answer"
    return ValidationProblem(field=name, code="invalid", message=f"{where}: {error.get('msg', 'invalid')}")


def for_type(tp: type[T]) -> Form[T]:
    """The form for a pydantic model, dataclass or TypedDict, built once."""
    return _for_type(cast(Hashable, tp))


@lru_cache(maxsize=_CACHE_SIZE)
def _for_type(tp: Hashable) -> Form[Any]:
    return Form(schema=build(tp), adapter=TypeAdapter[Any](cast(Any, tp)))


def for_schema(schema: Mapping[str, Any]) -> Form[dict[str, Any]]:
    """The form for a raw `requestedSchema`, answered by a dict."""
    return _for_canonical(json.dumps(schema, separators=(",", ":")))


@lru_cache(maxsize=_CACHE_SIZE)
def _for_canonical(canonical: str) -> Form[dict[str, Any]]:
    return Form(schema=json.loads(canonical), adapter=None)
