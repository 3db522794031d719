"""`Target`: the server under check, an `http(s)://` MCP endpoint or a stdio command.

`transport(watch)` gives a fresh SDK transport for one connection. Over HTTP the client's
`StandaloneStreamTap` reads along the standalone GET stream and tells `watch` the ids of the
`elicitation/create` requests that came that way (S-02: a server must ask on the stream of
the request it is handling, never on the standalone one).
"""

from __future__ import annotations

import functools
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx2
from mcp.client import Transport
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client

from elicitkit.client import StandaloneStreamTap, StandaloneWatch
from elicitkit.errors import ElicitationError


class TargetError(ElicitationError):
    """The target could not be reached or initialized; the message says why and what to do."""


@dataclass
class Target:
    """An HTTP endpoint (`url`) or a command to run over stdio (`command`)."""

    url: str | None = None
    command: Sequence[str] = ()
    #: sent as `Authorization: Bearer ...` on HTTP targets
    token: str | None = None
    _errors: list[int] = field(default_factory=list, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.url is None and not self.command:
            raise TargetError("Give an http(s):// MCP endpoint, or `-- COMMAND ARGS...` for a stdio server.")
        if self.url is not None and not self.url.startswith(("http://", "https://")):
            raise TargetError(
                f"{self.url!r} is not an http(s):// URL; for a stdio server use `-- COMMAND ARGS...`."
            )

    @property
    def name(self) -> str:
        """The target as the report and its sentences name it: the URL, or the command line."""
        return self.url if self.url is not None else shlex.join(self.command)

    @property
    def last_http_error(self) -> int | None:
        """The last HTTP error status (4xx, 5xx) the target answered, which the SDK hides."""
        return self._errors[-1] if self._errors else None

    @property
    def is_http(self) -> bool:
        """Whether every connection reaches the one server at `url`; over stdio each connection
        starts a server of its own."""
        return self.url is not None

    def transport(self, watch: StandaloneWatch) -> Transport:
        """A new transport; over HTTP, `watch` hears of each request on the standalone stream."""
        if self.url is not None:
            headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
            client = httpx2.AsyncClient(
                headers=headers,
                timeout=httpx2.Timeout(30.0, read=300.0),
                event_hooks={"response": [StandaloneStreamTap(watch), self._note]},
            )
            return streamable_http_client(self.url, http_client=client)
        command, *args = self.command
        params = StdioServerParameters(command=command, args=list(args), env=dict(os.environ))
        return stdio_client(params, errlog=_devnull())

    async def _note(self, response: httpx2.Response) -> None:
        if response.status_code >= 400:
            self._errors.append(response.status_code)


@functools.cache
def _devnull() -> Any:
    """Where a stdio server's stderr goes: one handle for the whole run, not one per connection."""
    return open(os.devnull, "w")  # shared by every stdio connection until the run ends
