"""How much one server may put in front of a person (C-31), and how big anything it sends may be.

`PromptGate` is the one door every prompt of one server passes: a form, a URL consent, the
consent to a URL listed by a -32042 error, a completion waiting screen, a retry of a held call.
It applies a token bucket and a cap on prompts waiting. A server's own `elicitation/create`
beyond either limit is answered `cancel` at once, without reaching the UI. Why `cancel`: the
spec defines it as "dismissed without making an explicit choice", which is exactly what happened
(nobody chose), every server already handles it, and it is honest where `decline` would claim
the person said no. A JSON-RPC error is kept for requests that are wrong in themselves (C-02,
C-03); a well-formed request that came too fast is not. A prompt the client would show on its
own initiative (a -32042 retry loop) ends the call with `ElicitationRateLimitedError` instead.

`Sizes` is the one place where every size a server controls is bounded.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

from elicitkit import schema
from elicitkit.client._errors import ElicitationRateLimitedError
from elicitkit.client._ui import Notice
from elicitkit.errors import ConfigurationError
from elicitkit.i18n import noop

logger = logging.getLogger("elicitkit.client")

_NOTICE_EVERY = 30.0


@dataclass(frozen=True)
class RateLimit:
    """Per server: `burst` prompts at once, refilled at `per_second`; at most `max_waiting` pending."""

    per_second: float = 0.5
    burst: int = 5
    max_waiting: int = 3

    def __post_init__(self) -> None:
        if self.per_second < 0 or self.burst < 1 or self.max_waiting < 1:
            raise ConfigurationError("RateLimit needs per_second >= 0, burst >= 1 and max_waiting >= 1.")

    def most_in(self, seconds: float) -> int:
        """The most prompts this limit lets through in `seconds`."""
        return self.burst + int(self.per_second * seconds)


@dataclass(frozen=True)
class Sizes:
    """The largest thing a server may send that a person will read or the client will hold.

    Text longer than its limit is cut (with "…") on every screen and in every error sentence;
    a schema, a -32042 list or a URL beyond its limit is refused with a sentence.
    """

    message: int = 2_000
    """Characters of a request's message shown to the person."""
    title: int = 200
    """Characters of a title, a description, a choice's label or a field name shown."""
    fields: int = 50
    """Fields in one form."""
    choices: int = 500
    """Choices in one enum or multi-select."""
    url: int = 4_096
    """Characters of a URL (longer ones are refused: no browser-worthy link is that long)."""
    listed: int = 20
    """URL elicitations one -32042 error may list (the rate limit still applies to each)."""
    held_rounds: int = 50
    """Times one call is retried after -32042 before it ends with `ElicitationRateLimitedError`."""

    def schema_problem(self, requested: Any) -> str | None:
        """Why `requested` is too big to show (a sentence with a JSON pointer), or None."""
        properties = requested.get("properties") if isinstance(requested, Mapping) else None
        if not isinstance(properties, Mapping):
            return None
        if len(properties) > self.fields:  # counted before reading them: a flood is not read
            return f"requestedSchema has {len(properties)} fields; this client shows at most {self.fields}."
        for field in schema.fields(requested):
            name, at = field.name, pointer("properties", field.name)
            if len(name) > self.title:
                return (
                    f"A field name ({cut(at, 60)}) is {len(name)} characters; at most {self.title} are shown."
                )
            where = _choices_at(field)
            if len(field.options) > self.choices:
                return (
                    f"Field {cut(name, 60)!r} offers {len(field.options)} choices (at {at}/{where}); "
                    f"this client shows at most {self.choices}."
                )
            if any(isinstance(o.const, str) and len(o.const) > self.title for o in field.options):
                return (
                    f"Field {cut(name, 60)!r} has a choice longer than {self.title} characters "
                    f"(at {at}/{where}); a person cannot read it."
                )
        return None

    def shown_schema(self, requested: Mapping[str, Any]) -> dict[str, Any]:
        """A copy of an admitted schema for the screen: titles, descriptions and labels cut."""
        return cast(dict[str, Any], _cut_texts(requested, self.title))


def _choices_at(field: schema.Field) -> str:
    """Where a field's choices are written, relative to the field (for a sentence's pointer)."""
    items = field.schema.get("items") if field.kind == "multi-select" else None
    where, written = ("items/", items) if isinstance(items, Mapping) else ("", field.schema)
    return where + next((key for key in ("oneOf", "anyOf") if key in written), "enum")


def _cut_texts(value: Any, most: int) -> Any:
    """`value` with every "title", "description" and `enumNames` label cut to `most` characters."""
    if isinstance(value, Mapping):
        shown: dict[str, Any] = {}
        for key, inner in value.items():
            if key in ("title", "description") and isinstance(inner, str):
                shown[key] = cut(inner, most)
            elif key == "enumNames" and isinstance(inner, list):
                shown[key] = [cut(n, most) if isinstance(n, str) else n for n in inner]
            else:
                shown[key] = _cut_texts(inner, most)
        return shown
    if isinstance(value, list):
        return [_cut_texts(v, most) for v in value]
    return value


def pointer(*parts: str | int) -> str:
    """An RFC 6901 JSON pointer to `parts`."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def cut(text: str, most: int) -> str:
    """`text` cut to `most` characters, with "…" when something was left out."""
    return text if len(text) <= most else text[: max(0, most - 1)] + "…"


class TokenBucket:
    """A token bucket; `take()` is O(1) and keeps no history, so memory stays flat under a flood."""

    def __init__(self, limit: RateLimit, clock: Callable[[], float] = time.monotonic) -> None:
        self._limit = limit
        self._clock = clock
        self._tokens = float(limit.burst)
        self._stamp = clock()

    def take(self) -> bool:
        """Spend one token if there is one."""
        now = self._clock()
        refill = (now - self._stamp) * self._limit.per_second
        self._tokens = min(float(self._limit.burst), self._tokens + refill)
        self._stamp = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return True
        return False


class PromptGate:
    """The one door for every prompt one server puts in front of the person.

    `with gate.prompt(): show(...)` admits one prompt (a token, and a place among those waiting)
    or raises `ElicitationRateLimitedError`; the place is given back when the block ends. The
    person is told, in one sentence at most every 30 s, that the server was rate-limited.
    """

    def __init__(
        self,
        limit: RateLimit,
        server: Callable[[], str],
        notice: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.limit = limit
        self._server = server
        self._notice = notice
        self._clock = clock
        self._bucket = TokenBucket(limit, clock)
        self._waiting = 0
        self._last_notice = -_NOTICE_EVERY
        self.admitted = 0
        self.refused = 0

    @property
    def waiting(self) -> int:
        """Prompts of this server shown or queued right now (at most `limit.max_waiting`)."""
        return self._waiting

    @contextmanager
    def prompt(self) -> Iterator[None]:
        """Admit one prompt for the length of the block, or raise `ElicitationRateLimitedError`."""
        if self._waiting >= self.limit.max_waiting or not self._bucket.take():
            self.refused += 1
            server = self._server()
            logger.info("refused a prompt from %s: rate limit", server)
            now = self._clock()
            if now - self._last_notice >= _NOTICE_EVERY:
                self._last_notice = now
                self._notice(
                    Notice(
                        noop("%(server)s is asking too often; extra questions are dismissed."), server=server
                    )
                )
            raise ElicitationRateLimitedError(
                f"{server} asked for more than this client shows (at most {self.limit.burst} questions "
                f"at once, then one every {_every(self.limit.per_second)}); the extra request was dismissed."
            )
        self.admitted += 1
        self._waiting += 1
        try:
            yield
        finally:
            self._waiting -= 1


def _every(per_second: float) -> str:
    if per_second <= 0:
        return "never"
    seconds = 1 / per_second
    return f"{seconds:g} seconds" if seconds != 1 else "second"
