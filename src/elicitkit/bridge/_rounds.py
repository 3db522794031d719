"""Live upstream questions as input-required rounds, for a 2026-07-28 host.

A 2025-11-25 server asks with `elicitation/create` inside a call; a 2026-07-28 host can only
be asked through the call's result. So the bridge runs the upstream call in a task of its own
and holds it: each question becomes an `InputRequiredResult` to the host, and the host's retry
(its `inputResponses` and the bridge's `requestState`) answers the held question, after which
the call goes on to its result or its next question. The hold is bounded (`hold_timeout`, and
`max_held` calls waiting on a host session); past a bound the upstream question gets cancel.

The `requestState` is the bridge's own: sealed (AES-GCM under a key made for this bridge),
bound to the host session, the call (method, target, arguments) and the round, and spent on
use, so a host can neither forge, alter, move nor replay it.

A 2026-07-28 server in front of a 2026-07-28 host needs none of that when the host can answer
the whole round itself (every question in a mode it declared on that request and `--answer`
gives it, sampling and roots it declared): the round is checked as the bridge's client would
check it (the client rules, the URL inspection, the rate limit) and passes to the host as it
came, the server's `inputRequests` keys and `requestState` untouched; the host's retry goes up
as it came (a form answer the schema refuses is sent back to the host, never up), so the
server's own state checks hold end to end. Only a round the bridge must answer part of (a mode
the host did not declare, a blocked URL, a question the client refuses) is driven by the
bridge's client as above, with the bridge's own sealed state.
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import secrets
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import anyio
from anyio.abc import TaskGroup
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from mcp.client import Client, ClientRequestContext
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    ClientCapabilities,
    CreateMessageRequest,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestParams,
    ElicitRequestURLParams,
    ElicitResult,
    InputRequest,
    InputRequiredResult,
    InputResponses,
    ListRootsRequest,
)
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ValidationError

from elicitkit import schema, urls
from elicitkit._sdk import ExtendedClient, InputRequiredDriver
from elicitkit.bridge._calls import HostCall, behalf, on_behalf_of
from elicitkit.bridge._host import HostSession, declared_modes
from elicitkit.bridge._profiles import HostProfile
from elicitkit.client import ElicitationRateLimitedError, ElicitingClient
from elicitkit.errors import ElicitationError

logger = logging.getLogger("elicitkit.bridge")

__all__ = ["HeldCall", "Rounds", "host_answers", "passing_driver", "upstream_seeds"]

_PREFIX = "ekb1."
_PASSED_KEPT = 1024
"""Rounds passed to hosts whose form schemas are kept, to check the hosts' answers against."""


def _bad_state() -> MCPError:
    """The SDK's own refusal of a `requestState` (its frozen wording, code and data)."""
    reason = {"reason": "invalid_request_state"}
    return MCPError(code=INVALID_PARAMS, message="Invalid or expired requestState", data=reason)


def _binding(ctx: ServerRequestContext[Any, Any]) -> str:
    """The call a state belongs to: its method, target and arguments."""
    params: Mapping[str, Any] = ctx.params or {}
    target = params.get("uri") if ctx.method == "resources/read" else params.get("name")
    salient = [ctx.method, target, params.get("arguments") or {}]
    digest = hashlib.sha256(json.dumps(salient, sort_keys=True, default=str).encode()).digest()
    return base64.urlsafe_b64encode(digest[:16]).decode().rstrip("=")


@dataclass
class _Question:
    key: str
    params: ElicitRequestParams
    answered: anyio.Event = field(default_factory=anyio.Event)
    answer: ElicitResult | None = None


@dataclass
class HeldCall:
    """One upstream call a 2026-07-28 host is driving round by round."""

    key: str
    binding: str
    host: HostSession
    timeout: float
    limit: int
    """How many calls of this host session may wait on the host at once."""
    round: int = 0
    question: _Question | None = None
    """The question the host was last given and has not answered yet."""
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)
    asking: bool = False
    """A question of this call is on its way to the host, or out to it."""

    def __post_init__(self) -> None:
        self._send, self._events = anyio.create_memory_object_stream[tuple[str, Any]](16)

    async def ask(self, params: ElicitRequestParams) -> ElicitResult | None:
        """Hand `params` to the host in the call's next result; its answer, or None (cancel)."""
        self.round += 1
        question = _Question(f"bridge-elicit-{self.round}", params)
        self.question = question
        await self._send.send(("question", question))
        with anyio.move_on_after(self.timeout):
            await question.answered.wait()
            return question.answer
        # The host never came back: the upstream question gets cancel, a late retry a clear error.
        self.question = None
        self.host.expire(self.key)
        logger.warning("a host left a question unanswered %.0f s; the server was told cancel", self.timeout)
        return None

    def admit(self) -> bool:
        """A question arrived for this call: False (and the host told why) past the cap."""
        if self.host.waiting() >= self.limit:
            self.refuse(
                MCPError(
                    code=INTERNAL_ERROR,
                    message=f"The bridge already holds {self.limit} calls waiting for your answers, so the "
                    "server was told cancel; answer those first, then call again.",
                )
            )
            return False
        self.asking = True
        return True

    def abandon(self) -> None:
        """The host gave up on the call: stop it upstream, and cancel its open question."""
        self.scope.cancel()
        if self.question is not None:
            self.question.answered.set()

    def refuse(self, error: MCPError) -> None:
        """End the host's side of this call with `error` (the upstream question gets cancel)."""
        self._send.send_nowait(("error", error))

    async def finished(self, outcome: Any) -> None:
        await self._send.send(("done", outcome))

    async def next_event(self) -> tuple[str, Any]:
        return await self._events.receive()


class Rounds:
    """The held upstream calls of the bridge's 2026-07-28 hosts, and their sealed state."""

    def __init__(self, *, hold_timeout: float = 600.0, max_held: int = 8, to_host: bool = True) -> None:
        self.hold_timeout = hold_timeout
        self.max_held = max_held
        self.to_host = to_host
        """False with `--answer browser|terminal`: no question goes to the host, nothing is held."""
        self._aead = AESGCM(AESGCM.generate_key(bit_length=256))
        self._tasks: TaskGroup | None = None
        self._passed: OrderedDict[str, dict[str, Any]] = OrderedDict()

    def attach(self, tasks: TaskGroup | None) -> None:
        """The task group held upstream calls run in (the bridge's own)."""
        self._tasks = tasks

    def sealed_for(self, state: Any) -> str | None:
        """The host session (its tag) a state of the bridge's own was sealed for; None for any other."""
        claims = self._unseal(state)
        owner = claims.get("s") if claims is not None else None
        return owner if isinstance(owner, str) else None

    def takes(self, host: HostSession, ctx: ServerRequestContext[Any, Any]) -> bool:
        """Does this host call go round by round (or carry a state or answers only the rounds can judge)?"""
        if not host.modern:
            return False
        params: Mapping[str, Any] = ctx.params or {}
        carries = params.get("requestState") is not None or params.get("inputResponses") is not None
        return carries or bool(host_answers(ctx.session.client_capabilities, to_host=self.to_host))

    async def call(
        self,
        host: HostSession,
        ctx: ServerRequestContext[Any, Any],
        send: Callable[[], Awaitable[Any]],
        *,
        modern: bool = False,
    ) -> Any:
        """The host's call or retry: the upstream result, or the next round for the host.

        `modern`: the upstream speaks 2026-07-28, so a retry that does not carry the bridge's
        own state is the host answering a round the server passed it, and goes up as it came."""
        params: Mapping[str, Any] = ctx.params or {}
        state = params.get("requestState")
        ours = isinstance(state, str) and state.startswith(_PREFIX)
        if ours or (state is not None and not modern):
            held = self._resume(host, ctx, state, params.get("inputResponses"))
        else:
            if modern:
                self._check_answers(ctx, state, params.get("inputResponses"))
            held = self._start(host, ctx, send)
        try:
            kind, value = await held.next_event()
        except anyio.get_cancelled_exc_class():
            held.abandon()  # the host cancelled its call: so is the upstream one
            host.release(held.key)
            raise
        if kind == "question":
            token = self._seal(host, held)
            request = ElicitRequest(params=_modern(value.params))
            return InputRequiredResult(input_requests={value.key: request}, request_state=token)
        host.release(held.key)
        if isinstance(value, BaseException):
            raise value
        return value

    # -- inside

    def _start(
        self, host: HostSession, ctx: ServerRequestContext[Any, Any], send: Callable[[], Awaitable[Any]]
    ) -> HeldCall:
        if self._tasks is None:
            message = "The bridge is not running; start it, then call again."
            raise MCPError(code=INTERNAL_ERROR, message=message)
        binding = _binding(ctx)
        held = HeldCall(secrets.token_urlsafe(12), binding, host, self.hold_timeout, self.max_held)
        answers = host_answers(ctx.session.client_capabilities, to_host=self.to_host)
        call = HostCall(ctx.session, f"held-{held.key}", held=held, answers=answers)
        host.hold(held)
        opened = host.open(call)

        async def run() -> None:
            outcome: Any
            try:
                with held.scope, on_behalf_of(call):
                    outcome = await send()
            except _PassedDown as passed:  # the host answers this round itself
                outcome = passed.round
                self._remember(outcome, binding)
            except ElicitationError as error:
                outcome = MCPError(code=INTERNAL_ERROR, message=str(error))
            except MCPError as error:
                outcome = error
            except Exception as error:  # the host gets an error, never a hung call
                logger.warning("upstream call failed: %s", error)
                outcome = MCPError(code=INTERNAL_ERROR, message=f"The upstream call failed: {error}")
            finally:
                host.close(opened)
            if held.scope.cancel_called:
                return
            await held.finished(outcome)

        self._tasks.start_soon(run)
        return held

    def _resume(
        self, host: HostSession, ctx: ServerRequestContext[Any, Any], state: Any, responses: Any
    ) -> HeldCall:
        claims = self._unseal(state)
        if claims is None or claims.get("s") != host.tag or claims.get("b") != _binding(ctx):
            raise _bad_state()
        key = claims.get("k")
        held = host.held.get(key) if isinstance(key, str) else None
        if held is None:
            if isinstance(key, str) and key in host.expired:
                raise MCPError(
                    code=INVALID_PARAMS,
                    message=f"The bridge stopped holding this call after {self.hold_timeout:.0f} s without "
                    "an answer, and the server was told cancel; call it again.",
                )
            raise _bad_state()
        question = held.question
        if question is None or claims.get("r") != held.round or question.answered.is_set():
            raise _bad_state()  # spent (a replay) or overtaken by a later round
        raw = responses.get(question.key) if isinstance(responses, Mapping) else None
        try:
            answer = ElicitResult.model_validate(raw, by_name=False) if raw is not None else None
        except ValidationError:
            answer = None
        if answer is None:
            raise MCPError(
                code=INVALID_PARAMS,
                message=f"The retry carries no answer to {question.key!r}; send it in inputResponses.",
            )
        held.question = None
        question.answer = answer
        question.answered.set()
        return held

    def _remember(self, passed: InputRequiredResult, binding: str) -> None:
        """Keep the form schemas of a round passed to the host, to check its answers against."""
        forms = {
            key: request.params.requested_schema
            for key, request in (passed.input_requests or {}).items()
            if isinstance(request, ElicitRequest) and isinstance(request.params, ElicitRequestFormParams)
        }
        if not forms:
            return
        self._passed[passed.request_state or f"call:{binding}"] = forms
        while len(self._passed) > _PASSED_KEPT:
            self._passed.popitem(last=False)

    def _check_answers(self, ctx: ServerRequestContext[Any, Any], state: Any, responses: Any) -> None:
        """A host's answers to a round passed to it: a form answer the schema refuses never goes
        up (the client's rule, C-11); the host is told why and may answer again."""
        forms = self._passed.get(state if isinstance(state, str) else f"call:{_binding(ctx)}")
        if forms is None or not isinstance(responses, Mapping):
            return  # not a round the bridge passed: the server judges it
        for key, requested in forms.items():
            raw = responses.get(key)
            if not isinstance(raw, Mapping) or raw.get("action") != "accept":
                continue
            content = raw.get("content")
            problems = schema.validate(requested, dict(content) if isinstance(content, Mapping) else {})
            if problems:
                raise MCPError(
                    code=INVALID_PARAMS,
                    message=f"The answer to {key!r} does not fit the server's form ({problems[0].message}); "
                    "nothing was sent to the server: answer again with the same requestState.",
                )

    def _seal(self, host: HostSession, held: HeldCall) -> str:
        claims = {"s": host.tag, "k": held.key, "r": held.round, "b": held.binding}
        nonce = secrets.token_bytes(12)
        sealed = self._aead.encrypt(nonce, json.dumps(claims).encode(), _PREFIX.encode())
        return _PREFIX + base64.urlsafe_b64encode(nonce + sealed).decode().rstrip("=")

    def _unseal(self, token: Any) -> dict[str, Any] | None:
        if not isinstance(token, str) or not token.startswith(_PREFIX):
            return None
        body = token[len(_PREFIX) :]
        try:
            raw = base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))
            plain = self._aead.decrypt(raw[:12], raw[12:], _PREFIX.encode())
            claims = json.loads(plain)
        except (ValueError, InvalidTag):
            return None
        return claims if isinstance(claims, dict) else None


def _modern(params: ElicitRequestParams) -> ElicitRequestParams:
    """The question as 2026-07-28 carries it (a URL question has no `elicitationId` there)."""
    if isinstance(params, ElicitRequestURLParams):
        return params.model_copy(update={"elicitation_id": None})
    return params


# -- a round the host answers whole


class _PassedDown(Exception):
    """Ends the upstream call's driving: its round goes to the host as it came."""

    def __init__(self, passed: InputRequiredResult) -> None:
        super().__init__("passed to the host")
        self.round = passed


def host_answers(capabilities: ClientCapabilities | None, *, to_host: bool) -> frozenset[str]:
    """What a 2026-07-28 host answers itself in a round, from what it declared on this request:
    its elicitation modes (when `--answer` gives them to it), sampling and roots (the bridge
    answers neither)."""
    kinds = set(declared_modes(capabilities)) if to_host else set()
    if capabilities is not None and capabilities.sampling is not None:
        kinds.add("sampling")
    if capabilities is not None and capabilities.roots is not None:
        kinds.add("roots")
    return frozenset(kinds)


def upstream_seeds(params: Any, client: Client) -> dict[str, Any]:
    """The host's `inputResponses` and `requestState`, to send upstream as they came: only to a
    2026-07-28 server, and never the bridge's own state (that one answers a held call)."""
    state = getattr(params, "request_state", None)
    responses: InputResponses | None = getattr(params, "input_responses", None)
    if client.protocol_version not in MODERN_PROTOCOL_VERSIONS or (state or "").startswith(_PREFIX):
        return {}
    return {"input_responses": responses, "request_state": state}


def passing_driver(client: ExtendedClient, relayed: frozenset[str] = frozenset()) -> InputRequiredDriver:
    """`client`'s driver of input rounds, passing to the host each round it answers whole.

    For a call a 2026-07-28 host makes (`HostCall.answers`), a round whose every request the
    host can answer, and the bridge's client would put to a person, ends the upstream call with
    that round for the host; any other round is driven by `client`'s own driver (its rules, the
    host asked in rounds of the bridge's own, the bridge's UI for the rest). A plain client
    (no driver of its own) drives a round of only the `relayed` kinds ("sampling", "roots":
    its callbacks ask a 2025-11-25 host live) by the SDK's driver."""
    inner = client.input_required_driver

    async def drive(first: Any, retry: Callable[[InputResponses | None, str | None], Awaitable[Any]]) -> Any:
        call = behalf()
        if isinstance(first, InputRequiredResult) and call is not None and call.held is not None:
            passed = _passable(first, call.answers, client, call.held.host.profile)
            if passed is not None:
                raise _PassedDown(passed)
        if inner is not None:
            return await inner(first, retry)
        if not isinstance(first, InputRequiredResult):
            return first
        if relayed and all(_kind(request) in relayed for request in (first.input_requests or {}).values()):
            return await client.sdk_rounds(first, retry)
        asked = sorted({request.method for request in (first.input_requests or {}).values()})
        raise MCPError(
            code=INTERNAL_ERROR,
            message=f"The server asked for {', '.join(asked)}, which neither this host (by what it "
            "declared) nor the bridge answers; the call was stopped.",
        )

    return drive


def _kind(request: InputRequest) -> str:
    if isinstance(request, CreateMessageRequest):
        return "sampling"
    return "roots" if isinstance(request, ListRootsRequest) else request.method


def _passable(
    first: InputRequiredResult, answers: frozenset[str], client: Client, profile: HostProfile | None = None
) -> InputRequiredResult | None:
    """`first` as the host gets it, when the host can answer every request in it (by what it
    declared and, with a host profile, what it renders); else None."""
    elicitations = client.elicitations if isinstance(client, ElicitingClient) else None
    requests = first.input_requests or {}
    passed: dict[str, InputRequest] = {}
    asked: list[str] = []
    for key, request in requests.items():
        if isinstance(request, CreateMessageRequest | ListRootsRequest):
            kind = "sampling" if isinstance(request, CreateMessageRequest) else "roots"
            if kind not in answers:
                return None
            passed[key] = request
            continue
        if elicitations is None or request.params.mode not in answers:
            return None  # the bridge answers it, or its client refuses it: driven as before
        if profile is not None and not _renders(profile, request.params):
            return None  # the bridge's client asks it: adapted for the host, or in the page
        context = ClientRequestContext(session=client.session, request_id=key, meta=request.params.meta)
        if elicitations.refusal(context, request.params) is not None:
            return None
        params = request.params
        if isinstance(params, ElicitRequestURLParams):
            report = urls.examine(params.url, allow_http=elicitations.config.allow_http)
            if report.verdict == "block":
                return None  # the client declines it itself; the host never sees it
            if report.warnings:  # the host shows the URL; the person reads why to be careful
                caution = " ".join(w.message for w in report.warnings)
                params = params.model_copy(update={"message": f"{params.message}\n\nCaution: {caution}"})
                request = request.model_copy(update={"params": params})
        passed[key] = request
        asked.append(key)
    if elicitations is not None:
        try:
            for _ in asked:  # each question the host is asked counts, as one the bridge would show
                with elicitations.gate.prompt():
                    pass
        except ElicitationRateLimitedError:
            return None  # the client answers it: cancel, as to any server asking too often
    if passed == requests:
        return first
    return first.model_copy(update={"input_requests": passed})


def _renders(profile: HostProfile, params: ElicitRequestParams) -> bool:
    """Does the profiled host answer `params` itself, as the server sent it?"""
    if isinstance(params, ElicitRequestFormParams):
        return profile.asks("form") and profile.renders(params.requested_schema)
    return profile.asks(params.mode or "form")
