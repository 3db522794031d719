"""The 2026-07-28 input-required rounds: ask by returning the question, answer from the retry.

On 2026-07-28 a server does not send `elicitation/create` mid-call; it returns an
`InputRequiredResult` naming its question and the client retries the whole request with the
answer (M-01). So a tool that awaits a question is run again from the top on every retry:
questions answered in earlier rounds are replayed from `requestState`, the newest answer is
taken from `inputResponses`, and the first question still unanswered ends this round.

The state rides `requestState`, which the SDK's `RequestStateBoundary` (installed by every
`MCPServer`, configured with `request_state_security=`) seals with AES-GCM and binds to the
request, the audience, the user and an expiry before it leaves, and verifies when it comes
back (M-02). This module only ever sees that plaintext.

Ending a round early is a `BaseException` (like `CancelledError`), so that neither the SDK's
error handling nor a tool's `except Exception` swallows it; the middleware installed by
`Elicitation` turns it into the result.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, NoReturn

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    SERVER_INFO_META_KEY,
    ElicitRequest,
    ElicitResult,
    Implementation,
    InputRequiredResult,
)
from mcp_types.methods import INPUT_REQUIRED_METHODS
from mcp_types.version import is_version_at_least

from elicitkit.server._errors import ElicitationError, ElicitationTimeoutError

ROUNDS_VERSION = "2026-07-28"
_STATE_TAG = "elicitkit/rounds/1"


def uses_rounds(protocol_version: str | None) -> bool:
    """True when this request asks by input-required result rather than a live request."""
    return protocol_version is not None and is_version_at_least(protocol_version, ROUNDS_VERSION)


def digest(request: ElicitRequest) -> str:
    """Pin an answer to the exact question it answers, so a changed question is asked again."""
    wire = request.params.model_dump(mode="json", by_alias=True, exclude_none=True)
    raw = hashlib.sha256(json.dumps(wire, sort_keys=True, separators=(",", ":")).encode()).digest()[:16]
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@dataclass(slots=True)  # one per tools/call in flight: no per-instance dict
class Round:
    """One run of a handler: the keys its questions used and, on 2026-07-28, what earlier rounds
    recorded and what this one carries on.

    `notes` is a small JSON-able scratchpad that survives into the next round (sealed like the
    rest), for flows that must remember something between rounds. `clock` stamps when a
    question was asked and reads a timeout against it (the `UrlMode`'s clock, when it has one).
    """

    clock: Callable[[], float] = time.time
    answers: dict[str, dict[str, Any]] = field(default_factory=dict)
    asked: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: dict[str, Any] = field(default_factory=dict)
    responses: Mapping[str, Any] = field(default_factory=dict)
    carried: dict[str, dict[str, Any]] = field(default_factory=dict)
    keys: set[str] = field(default_factory=set)
    count: int = 0
    loaded: bool = False

    def load(self, ctx: Context[Any, Any]) -> Round:
        """Read the retry's `requestState` and `inputResponses`, once per run."""
        if not self.loaded:
            self.loaded = True
            self.responses = dict(ctx.input_responses or {})
            state = _decode(ctx.request_state)
            self.answers = state.get("answers", {})
            self.asked = state.get("asked", {})
            self.notes = state.get("notes", {})
        return self

    def claim(self, key: str | None) -> str:
        """The question's key for this run: the author's, or its place in the run; each used once."""
        if key is None:
            self.count += 1
            key = f"elicitation-{self.count}"
        if key in self.keys:
            raise ElicitationError(
                f"Two questions in one call share the key {key!r}, so their answers would be mixed up "
                "on the 2026-07-28 revision; give each question its own key."
            )
        self.keys.add(key)
        return key

    def take(self, key: str, request: ElicitRequest, timeout: float | None) -> ElicitResult | None:
        """The answer to `request` under `key`, from an earlier round or this retry; None if unanswered."""
        q = digest(request)
        recorded = self.answers.get(key)
        if recorded is not None and recorded.get("q") == q:
            self.carried[key] = recorded
            return ElicitResult.model_validate(recorded["r"], by_name=False)
        answer = self.responses.get(key)
        if answer is None:
            return None
        asked = self.asked.get(key)
        if asked is not None and asked.get("q") != q:
            return None  # answers a question that has changed since: ask the new one
        if not isinstance(answer, ElicitResult):
            raise MCPError(
                code=INVALID_PARAMS,
                message=(
                    f"inputResponses[{key!r}] is not an elicitation/create result; "
                    "answer the question that was asked."
                ),
            )
        asked_at = asked.get("t") if asked is not None else None
        if timeout is not None and isinstance(asked_at, int | float) and self.clock() - asked_at > timeout:
            raise ElicitationTimeoutError(timeout)
        self.carried[key] = {"q": q, "r": answer.model_dump(mode="json", by_alias=True, exclude_none=True)}
        return answer

    def response(self, key: str) -> ElicitResult | None:
        """What this retry's `inputResponses` says under `key`, not replayed from earlier rounds.

        For a question that stays open across rounds (URL mode), where the newest word of the
        person is the one that counts.
        """
        answer = self.responses.get(key)
        if answer is None:
            return None
        if not isinstance(answer, ElicitResult):
            raise MCPError(
                code=INVALID_PARAMS,
                message=(
                    f"inputResponses[{key!r}] is not an elicitation/create result; "
                    "answer the question that was asked."
                ),
            )
        return answer

    def still_waiting(self) -> NoReturn:
        """End this round asking nothing new: only `requestState`, so the client retries (M-03).

        The "still waiting" answer of modelcontextprotocol#2920: the draft allows an
        input-required result with no `inputRequests`, and stock clients retry it after a pause.
        """
        state = {"v": _STATE_TAG, "answers": self.carried, "asked": {}, "notes": self.notes}
        raise AskInResult(InputRequiredResult(request_state=json.dumps(state, separators=(",", ":"))))

    def ask(self, key: str, request: ElicitRequest) -> NoReturn:
        """End this round: the result names `request`; the state carries every answer used so far."""
        state = {
            "v": _STATE_TAG,
            "answers": self.carried,
            "asked": {key: {"q": digest(request), "t": self.clock()}},
            "notes": self.notes,
        }
        raise AskInResult(
            InputRequiredResult(
                input_requests={key: request},
                request_state=json.dumps(state, separators=(",", ":")),
            )
        )


def _decode(request_state: str | None) -> dict[str, Any]:
    """The boundary already verified the seal; state minted by something else reads as no progress."""
    if not request_state:
        return {}
    try:
        state = json.loads(request_state)
    except ValueError:
        return {}
    if not isinstance(state, dict) or state.get("v") != _STATE_TAG:
        return {}
    return {k: v for k, v in state.items() if isinstance(v, dict)}


_current: ContextVar[Round | None] = ContextVar("elicitkit_round", default=None)


def current_round(ctx: Context[Any, Any]) -> Round:
    """This request's round, loaded from the retry."""
    found = _current.get()
    if found is None:
        raise ElicitationError(
            "This server has no elicitkit.server.Elicitation attached, so it cannot ask on the "
            "2026-07-28 revision; create the Elicitation with the MCPServer that runs this tool."
        )
    return found.load(ctx)


class AskInResult(BaseException):
    """Ends a round with an input-required result; only `RoundsMiddleware` catches it."""

    def __init__(self, result: InputRequiredResult) -> None:
        super().__init__("input required")
        self.result = result


class RoundsMiddleware:
    """Gives each tools/call, prompts/get and resources/read a round; turns a question into its result.

    Runs inside the SDK's `RequestStateBoundary`, so the state it returns is sealed on the way out.
    `clock` is the wall clock a question's timeout is counted by across rounds (`Elicitation`
    gives its `UrlMode`'s).
    """

    def __init__(self, server: MCPServer[Any], *, clock: Callable[[], float] = time.time) -> None:
        self._server = server
        self.clock = clock

    async def __call__(self, ctx: ServerRequestContext[Any, Any], call_next: CallNext) -> HandlerResult:
        if ctx.method not in INPUT_REQUIRED_METHODS:
            return await call_next(ctx)
        token = _current.set(Round(clock=self.clock))
        try:
            return await call_next(ctx)
        except AskInResult as asked:
            # The handler never returned, so the SDK's result pass did not run: stamp like it does.
            wire = asked.result.model_dump(mode="json", by_alias=True, exclude_none=True)
            wire["_meta"] = {SERVER_INFO_META_KEY: self._server_info()}
            return wire
        finally:
            _current.reset(token)

    def _server_info(self) -> dict[str, Any]:
        s = self._server
        info = Implementation(
            name=s.name,
            title=s.title,
            version=s.version,
            description=s.description,
            website_url=s.website_url,
            icons=s.icons,
        )
        return info.model_dump(mode="json", by_alias=True, exclude_none=True)
