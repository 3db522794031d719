"""The 2026-07-28 input-required rounds of one call, with URL mode done for a person.

On 2026-07-28 a server asks by returning its questions and the client retries the call with
the answers (M-01). A form is answered in one round; a URL is not: the person is in the
browser for minutes while the client keeps retrying. The SDK's own driver polls every 250 ms
and re-dispatches whatever the server sends, so a server that names the URL again gets a
second consent screen, and then a third. Here instead:

- consent for a URL is asked once per call; a server that names the same URL again gets the
  person's answer back without a screen, and after `RoundsPolicy.max_reasks` such rounds the
  call ends with `ElicitationLoopError`;
- after consent the person sees a waiting screen (cancel always there, also while a retry is
  held by the server) while the call is retried with a backoff (`first_delay` doubling to
  `max_delay`); "retry" retries now; after the config's `wait_timeout` the person chooses;
- the latest choice wins: cancel on the waiting screen (or the call being cancelled, Ctrl-C)
  is sent to the server as this URL's answer, so the tool sees it, and the call ends with
  `ElicitationCancelledError` (or the cancellation);
- `input_rounds` (the config's) bounds the rounds of one call.

2026-07-28 has no completion notice and no elicitation id, so the URL itself names the
elicitation and the server's answer to a retry is the only news of the page.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Literal, TypeVar

import anyio
from mcp.client import ClientRequestContext, ClientSession
from mcp.shared.exceptions import MCPError
from mcp_types import (
    ElicitRequest,
    ElicitRequestURLParams,
    ElicitResult,
    ErrorData,
    InputRequest,
    InputRequiredResult,
    InputResponse,
    InputResponses,
)

from elicitkit.client._connection import ServerElicitations
from elicitkit.client._errors import ElicitationCancelledError, ElicitationLoopError
from elicitkit.client._ui import Notice, Waiting
from elicitkit.errors import ConfigurationError
from elicitkit.i18n import noop

T = TypeVar("T")
Retry = Callable[[InputResponses | None, str | None], Awaitable["T | InputRequiredResult"]]

_WAITING_NOTE = Notice(
    noop(
        "The call is made again now and then until the page is done (2026-07-28 has no completion "
        "notice); cancel stops it and tells the server."
    )
)
_GOODBYE_TIMEOUT = 3.0
"""How long telling the server about a cancel may take once the person has left."""


_CANCELLED = object()


@dataclass
class _Failed:
    error: Exception


@dataclass(frozen=True)
class RoundsPolicy:
    """How a call waits for a URL on 2026-07-28: the retry backoff and the re-ask bound.

    A server that holds a retry until the page is done (as elicitkit's does) makes the backoff
    matter little; one that answers "still waiting" at once is polled at `first_delay`,
    doubling to `max_delay`. `max_reasks` is how many rounds a server may name a URL the
    person already answered before the call is stopped.
    """

    first_delay: float = 0.25
    max_delay: float = 5.0
    max_reasks: int = 3

    def __post_init__(self) -> None:
        if not (0 <= self.first_delay <= self.max_delay) or self.max_reasks < 0:
            raise ConfigurationError(
                "RoundsPolicy needs 0 <= first_delay <= max_delay and max_reasks >= 0, not "
                f"{self.first_delay}, {self.max_delay}, {self.max_reasks}."
            )


@dataclass
class _Opened:
    """A URL the person answered in this call: under which key, what they said, what it was for."""

    key: str
    action: Literal["accept", "decline", "cancel"]
    message: str


@dataclass
class _Call:
    answers: ServerElicitations
    session: ClientSession
    retry: Retry[object]
    policy: RoundsPolicy
    max_rounds: int
    opened: dict[str, _Opened] = field(default_factory=dict)
    reasks: int = 0
    delay: float = 0.0
    started: float = field(default_factory=time.monotonic)
    window: float = field(default_factory=time.monotonic)

    @property
    def server(self) -> str:
        return self.answers.server_name()

    def waiting_on(self) -> list[_Opened]:
        return [o for o in self.opened.values() if o.action == "accept"]

    async def run(self, first: InputRequiredResult) -> object:
        current: object = first
        state = first.request_state
        rounds = 0
        self.delay = self.policy.first_delay
        screen, admitted = ExitStack(), False
        try:
            while isinstance(current, InputRequiredResult):
                state = current.request_state
                rounds += 1
                if rounds > self.max_rounds:
                    raise ElicitationLoopError(
                        f"{self.server} still needed input after {self.max_rounds} rounds; the call "
                        "was stopped. Try again, or raise input_rounds if the flow really takes that long."
                    )
                responses, waiting = await self._answer(current.input_requests or {})
                if not waiting:
                    current = await self.retry(responses or None, state)
                    continue
                if not admitted:  # the waiting screen is a prompt like any other, admitted once a call
                    screen.enter_context(self.answers.gate.prompt())
                    admitted = True
                outcome = await self._retry_while_waiting(responses, state)
                if outcome is _CANCELLED:  # the person cancelled the wait: the latest choice wins
                    await self._goodbye(state)
                    raise ElicitationCancelledError(
                        f"Stopped waiting for {self.server}; it was told, and the call was not retried."
                    )
                current = outcome
        except anyio.get_cancelled_exc_class():
            await self._goodbye(state)  # Ctrl-C, or the host cancelled the call
            raise
        finally:
            screen.close()
        return current

    async def _answer(self, requests: dict[str, InputRequest]) -> tuple[InputResponses, bool]:
        """This round's answers (new questions asked, known URLs answered as before), and whether
        the retry waits for a page the person is on."""
        responses: InputResponses = {}
        fresh: dict[str, InputRequest] = {}
        repeated = False
        for key, request in requests.items():
            url = _url_of(request)
            known = self.opened.get(url) if url is not None else None
            if known is None:
                fresh[key] = request
            else:
                repeated = True
                responses[key] = ElicitResult(action=known.action)
        if repeated:
            self.reasks += 1
            if self.reasks > self.policy.max_reasks:
                raise ElicitationLoopError(
                    f"{self.server} kept asking to open a URL the person already answered "
                    f"({self.reasks} times); it was not shown again and the call was stopped."
                )
        if fresh:
            responses.update(await self._dispatch(fresh))
            self.delay = self.policy.first_delay
            if not any(_url_of(r) is not None for r in fresh.values()):
                return responses, False  # forms only: retry at once
        if not self.waiting_on():
            if not fresh:
                await anyio.sleep(self._next_delay())  # the server is working on something else
            return responses, False
        return responses, True

    async def _dispatch(self, requests: dict[str, InputRequest]) -> InputResponses:
        """Ask each new question through `ServerElicitations`, one screen at a time; remember URL answers."""
        responses: InputResponses = {}
        for key, request in requests.items():
            context = ClientRequestContext(
                session=self.session, request_id=key, meta=request.params.meta if request.params else None
            )
            answer: InputResponse | ErrorData = await self.session.dispatch_input_request(context, request)
            if isinstance(answer, ErrorData):
                raise MCPError.from_error_data(answer)
            responses[key] = answer
            url = _url_of(request)
            if url is not None and isinstance(answer, ElicitResult):
                assert isinstance(request, ElicitRequest)
                self.opened[url] = _Opened(key, answer.action, request.params.message)
        return responses

    def _next_delay(self) -> float:
        delay = self.delay
        self.delay = min(max(self.delay * 2, self.policy.first_delay), self.policy.max_delay)
        return delay

    async def _retry_while_waiting(self, responses: InputResponses, state: str | None) -> object:
        """Retry after the backoff (or when the person says "retry") with the waiting screen up the
        whole time, the held retry included; `_CANCELLED` when the person cancels instead."""
        delay = self._next_delay()
        pressed = time.monotonic() - self.window > self.answers.config.wait_timeout
        pending = [(o.key, o.message) for o in self.waiting_on()]
        now = anyio.Event()
        outcome: list[object] = []

        async with anyio.create_task_group() as tg:

            async def person() -> None:
                timed_out = pressed
                while True:
                    waiting = Waiting(self.server, pending, self.started, timed_out, notes=(_WAITING_NOTE,))
                    choice = await self.answers.wait(waiting)  # a broken UI: "cancel", never stuck
                    if choice == "cancel":
                        outcome.append(_CANCELLED)
                        tg.cancel_scope.cancel()
                        return
                    self.window, timed_out = time.monotonic(), False  # retry: a new wait_timeout
                    now.set()

            async def call() -> None:
                if pressed:
                    await now.wait()  # past wait_timeout the person chooses
                else:
                    with anyio.move_on_after(delay):
                        await now.wait()
                try:
                    outcome.append(await self.retry(responses or None, state))
                except Exception as exc:  # raised below, not wrapped in the task group's group
                    outcome.append(_Failed(exc))
                tg.cancel_scope.cancel()

            tg.start_soon(person)
            tg.start_soon(call)
        result = outcome[0]
        if isinstance(result, _Failed):
            raise result.error
        return result

    async def _goodbye(self, request_state: str | None) -> None:
        """Tell the server the person left (cancel for every URL they were waiting on), briefly."""
        waiting = self.waiting_on()
        if not waiting:
            return
        for opened in waiting:
            opened.action = "cancel"
        cancels: InputResponses = {o.key: ElicitResult(action="cancel") for o in waiting}
        with anyio.move_on_after(_GOODBYE_TIMEOUT, shield=True):
            try:
                await self.retry(cancels, request_state)
            except Exception as exc:  # the connection may be gone; the server's record expires then
                template = noop("%(server)s could not be told of the cancel (%(error)s).")
                self.answers.notice(Notice(template, server=self.server, error=exc))


def _url_of(request: InputRequest) -> str | None:
    if isinstance(request, ElicitRequest) and isinstance(request.params, ElicitRequestURLParams):
        return request.params.url
    return None


async def drive_rounds(
    answers: ServerElicitations,
    session: ClientSession,
    first: T | InputRequiredResult,
    retry: Retry[T],
    *,
    policy: RoundsPolicy,
    max_rounds: int,
) -> T:
    """Resolve `first` through the rounds; a terminal result passes straight through."""
    if not isinstance(first, InputRequiredResult):
        return first
    call = _Call(answers, session, retry, policy, max_rounds)
    return await call.run(first)  # type: ignore[return-value]
