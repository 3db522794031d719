"""`WireLog`: what one demo connection carried, seen below the client, for step 8's checks.

On a 2026-07-28 connection the server does not send `elicitation/create` requests; it returns
its questions in the tool result and the client calls again with the answers. The story checks
that on the wire, not on what the client reports about itself.
"""

from __future__ import annotations

from mcp.shared.message import SessionMessage
from mcp_types import JSONRPCRequest, JSONRPCResponse, RequestId

from elicitkit.demo.mcp_server import SERVER_NAME
from elicitkit.demo.transcript import Transcript
from elicitkit.i18n import gettext as _

__all__ = ["WireLog"]


class WireLog:
    """One connection's messages as the server sent them, noted (and told) as they pass.

    A `Watch` for `WatchedTransport`, below `ElicitingClient`'s own, so it sees each message
    before the client touches it: every `elicitation/create` request from the server, and for
    each `tools/call` whether it carried answers (`inputResponses` and `requestState`), the
    `resultType` that came back, and the questions a result carried (`inputRequests`).
    """

    def __init__(self, transcript: Transcript, person: str) -> None:
        self.transcript = transcript
        self.person = person
        self.elicitation_requests = 0
        self.calls: set[RequestId] = set()
        self.answered_calls = 0
        self.results: list[str] = []
        self.questions_in_results: list[str] = []

    def sent(self, item: SessionMessage) -> None:
        message = item.message
        if not isinstance(message, JSONRPCRequest) or message.method != "tools/call":
            return
        self.calls.add(message.id)
        params = message.params or {}
        state = params.get("requestState")
        if params.get("inputResponses") and isinstance(state, str):
            self.answered_calls += 1
            said = _(
                "calls %(tool)s again, with %(person)s's answers (inputResponses) and the requestState it "
                "got back, sealed by the server, returned unread (%(count)d characters)."
            )
            values = {"tool": params.get("name"), "person": self.person, "count": len(state)}
            self.transcript.say(_("%(person)s's client") % {"person": self.person}, said % values)

    def received(self, item: SessionMessage | Exception) -> None:
        message = item.message if isinstance(item, SessionMessage) else None
        if isinstance(message, JSONRPCRequest) and message.method == "elicitation/create":
            self.elicitation_requests += 1
        if not isinstance(message, JSONRPCResponse) or message.id not in self.calls:
            return
        kind = str(message.result.get("resultType", "complete"))
        self.results.append(kind)
        questions = message.result.get("inputRequests") or {}
        self.questions_in_results += [
            str(question.get("method")) for question in questions.values() if isinstance(question, dict)
        ]
        if kind == "input_required":
            self.transcript.say(
                SERVER_NAME,
                _(
                    "returns its question inside the tool result (resultType input_required, with a sealed "
                    "requestState) instead of sending an elicitation/create request."
                ),
            )

    def asked_in_result(self) -> bool:
        """The question came in a result, not as a request; the call made again with the answer completed."""
        return (
            self.elicitation_requests == 0
            and self.results[:1] == ["input_required"]
            and "elicitation/create" in self.questions_in_results
            and self.answered_calls >= 1
            and self.results[-1:] == ["complete"]
        )

    def summary(self) -> str:
        results = ", ".join(self.results) or "none"
        return (
            f"{self.elicitation_requests} elicitation/create request(s) from the server; tool results: "
            f"{results}; {self.answered_calls} call(s) made again with answers"
        )
