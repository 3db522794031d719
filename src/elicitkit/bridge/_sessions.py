"""One upstream session per host session, bounded in number and in idle time.

An `mcp.Client` must be entered and left in one task, so each upstream session lives in a task
of the bridge's own task group, held open until the host session is dropped (LRU beyond
`max_sessions`, or idle for `idle_timeout`) or the bridge stops.

Requests with no host session (2026-07-28 over HTTP) that declare alike share a small pool
instead (`Links.pooled`): a call that may be held for a host's answer takes a session holding
no other, since a session's client puts one question at a time and one host leaving its round
unanswered would hold up every other host's questions.
"""

from __future__ import annotations

import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass, field

import anyio
from anyio.abc import TaskGroup
from mcp.client import Client
from mcp.shared.exceptions import MCPError
from mcp_types import INTERNAL_ERROR

from elicitkit.bridge._host import HostSession
from elicitkit.errors import ElicitationError, LifecycleError

logger = logging.getLogger("elicitkit.bridge")

__all__ = ["Link", "Links"]

Opener = Callable[[HostSession, AsyncExitStack], Awaitable[Client]]
"""Makes and enters the upstream client of a host session inside the given exit stack."""


@dataclass
class Link:
    """A host session and the upstream client that serves it."""

    key: str
    host: HostSession
    client: Client | None = None
    failure: BaseException | None = None
    ready: anyio.Event = field(default_factory=anyio.Event)
    stop: anyio.Event = field(default_factory=anyio.Event)
    used: float = field(default_factory=time.monotonic)
    pool: str | None = None
    """The pool of sessionless requests this link serves, if it is one of them."""
    taken: int = 0
    """Calls that chose this link and wait for it to open (not yet holding anything)."""

    @property
    def busy(self) -> bool:
        return bool(self.host.calls)


class Links:
    """The live links, by host session key."""

    def __init__(self, opener: Opener, *, max_sessions: int, idle_timeout: float) -> None:
        self._opener = opener
        self._max = max_sessions
        self._idle = idle_timeout
        self._links: OrderedDict[str, Link] = OrderedDict()
        self._tasks: TaskGroup | None = None
        self._opening = anyio.Lock()

    def attach(self, tasks: TaskGroup | None) -> None:
        self._tasks = tasks
        if tasks is None:
            for link in self._links.values():
                link.stop.set()
            self._links.clear()

    def __len__(self) -> int:
        return len(self._links)

    async def get(self, key: str, host: Callable[[], HostSession]) -> Link:
        """The link of host session `key`, opening its upstream session (for `host()`) on first use."""
        link = self._links.get(key)
        if link is None:
            async with self._opening:
                link = self._links.get(key)
                if link is None:
                    link = self._start(key, host())
        self._links.move_to_end(key)
        link.used = time.monotonic()
        if not link.ready.is_set():  # an open link costs no trip through the event loop
            await link.ready.wait()
        if link.client is None:
            self._links.pop(key, None)
            reason = _innermost(link.failure)
            if isinstance(reason, ElicitationError):  # already a sentence that says what to do
                raise MCPError(code=INTERNAL_ERROR, message=str(reason))
            raise MCPError(
                code=INTERNAL_ERROR,
                message=f"The bridge could not reach the upstream server ({_sentence(reason)}); "
                "check that it is running and try again.",
            )
        return link

    async def pooled(
        self,
        pool: str,
        host: Callable[[], HostSession],
        *,
        owner: str | None = None,
        alone: bool = False,
        size: int = 1,
    ) -> Link:
        """A link of `pool` (sessionless requests that declare alike): the one whose host
        session is `owner` (a retry carrying a state sealed for it), else for a call that may be
        held (`alone`) one holding no call, opening another up to `size` and past that the least
        held, else the most recent."""
        members = [link for link in self._links.values() if link.pool == pool]
        chosen = next((link for link in members if owner is not None and link.host.tag == owner), None)
        if chosen is None and alone:
            free = [link for link in members if not link.host.held and not link.taken]
            chosen = free[-1] if free else None
            if chosen is None and members and (len(members) >= size or not self._room()):
                chosen = min(members, key=lambda link: len(link.host.held) + link.taken)
        elif chosen is None and members:
            chosen = members[-1]
        if chosen is None:
            async with self._opening:
                members = [link for link in self._links.values() if link.pool == pool]
                if alone and members and len(members) >= size:  # others opened while this waited
                    chosen = min(members, key=lambda link: len(link.host.held) + link.taken)
                else:
                    chosen = self._start(f"{pool}#{secrets.token_hex(6)}", host())
                    chosen.pool = pool
        chosen.taken += alone
        try:
            link = await self.get(chosen.key, host)
        finally:
            chosen.taken -= alone  # from here the call holds its link before anything else runs
        link.pool = pool  # (a member dropped meanwhile reopens under its key)
        return link

    def peek(self, key: str) -> Link | None:
        """The open link of host session `key`, if it has one now (never opens one)."""
        link = self._links.get(key)
        if link is None or link.client is None:
            return None
        self._links.move_to_end(key)
        link.used = time.monotonic()
        return link

    def drop(self, key: str) -> None:
        link = self._links.pop(key, None)
        if link is not None:
            link.stop.set()

    def _start(self, key: str, host: HostSession) -> Link:
        if self._tasks is None:
            raise LifecycleError("The bridge is not running: enter `async with bridge.running():` first.")
        self._sweep()
        if len(self._links) >= self._max:
            raise MCPError(
                code=INTERNAL_ERROR,
                message=f"The bridge already serves {self._max} sessions; close one and try again.",
            )
        link = Link(key, host)
        self._links[key] = link
        self._tasks.start_soon(self._hold, link)
        return link

    def _room(self) -> bool:
        """Could another link open now (after dropping idle ones)?"""
        self._sweep()
        return len(self._links) < self._max

    def _sweep(self) -> None:
        """Drop idle links: past the idle timeout, or the least recent idle one when full."""
        now = time.monotonic()
        for key, link in list(self._links.items()):
            if not link.busy and now - link.used > self._idle:
                self.drop(key)
        while len(self._links) >= self._max:
            idle = next((k for k, link in self._links.items() if not link.busy), None)
            if idle is None:
                return
            self.drop(idle)

    async def _hold(self, link: Link) -> None:
        try:
            async with AsyncExitStack() as stack:
                link.client = await self._opener(link.host, stack)
                link.ready.set()
                await link.stop.wait()
        except Exception as error:  # one upstream failing never stops the bridge
            logger.warning("the upstream session ended: %s", _sentence(error))
            link.failure = error
        finally:
            link.client = None
            link.ready.set()
            link.stop.set()
            if self._links.get(link.key) is link:
                del self._links[link.key]  # the next request of this host session opens a new one


def _innermost(error: BaseException | None) -> BaseException | None:
    """The one error inside exception groups (the SDK's task groups wrap what failed)."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _sentence(error: BaseException | None) -> str:
    error = _innermost(error)
    if error is None:
        return "it closed"
    return str(error) or type(error).__name__
