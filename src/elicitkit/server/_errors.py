"""Exceptions a server author can meet, each with a sentence saying what to do."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    ClientCapabilities,
    ElicitationCapability,
    FormElicitationCapability,
    MissingRequiredClientCapabilityErrorData,
    UrlElicitationCapability,
)

from elicitkit.errors import ElicitationError as ElicitationError  # the one base, shared with the client

if TYPE_CHECKING:
    from elicitkit.schema import LintFinding, ValidationProblem

# --- Form mode and asking in general (issue 3) ----------------------------------------------


class NotInRequestError(ElicitationError, RuntimeError):
    """Elicitation was attempted outside a client request it could be tied to (S-02).

    A question may only be asked while handling `tools/call`, `prompts/get` or
    `resources/read`, so that the client knows which request it belongs to.
    """


class ModeNotDeclaredError(ElicitationError, MCPError):
    """The client did not declare the elicitation mode, so it must not be asked in it (S-01).

    Raised before anything is sent. It is also a protocol error (-32021, missing required
    client capability, M-04), so left uncaught the request fails with that code and the
    capability the client would need.
    """

    def __init__(self, mode: Literal["form", "url"]) -> None:
        self.mode = mode
        wanted = (
            ElicitationCapability(form=FormElicitationCapability())
            if mode == "form"
            else ElicitationCapability(url=UrlElicitationCapability())
        )
        data = MissingRequiredClientCapabilityErrorData(
            required_capabilities=ClientCapabilities(elicitation=wanted)
        )
        MCPError.__init__(
            self,
            code=MISSING_REQUIRED_CLIENT_CAPABILITY,
            message=(
                f"The client did not declare {mode}-mode elicitation, so it cannot be asked this "
                f"question; use a client that declares capabilities.elicitation.{mode}, "
                "or do without the answer."
            ),
            data=data.model_dump(by_alias=True, mode="json", exclude_none=True),
        )

    def __str__(self) -> str:
        return self.message


class SchemaRefusedError(ElicitationError, ValueError):
    """The form schema breaks the form-mode rules, so the question was not sent (S-10..S-12)."""

    def __init__(self, findings: Sequence[LintFinding]) -> None:
        self.findings = tuple(findings)
        detail = "; ".join(f"{f.pointer or '/'}: {f.message}" for f in self.findings)
        super().__init__(
            f"The form schema was not sent because it breaks the form-mode rules ({detail}); "
            "fix the schema, or ask for secrets with URL mode."
        )


class InvalidAnswerError(ElicitationError, ToolError):
    """The client accepted with content that does not match the schema; nothing was coerced (S-13).

    `fields` names the offending properties (empty when the answer as a whole is wrong);
    `problems` has one entry per thing wrong. Left uncaught in a tool, the call ends as a
    tool error carrying this message.
    """

    def __init__(self, problems: Sequence[ValidationProblem]) -> None:
        self.problems = tuple(problems)
        self.fields = tuple(dict.fromkeys(p.field for p in self.problems if p.field is not None))
        detail = " ".join(m if m.endswith(".") else f"{m}." for m in (p.message for p in self.problems))
        super().__init__(
            f"The answer to the form was rejected: {detail} Ask again, or tell the user what to fix."
        )


class ElicitationTimeoutError(ElicitationError, ToolError):
    """No answer came within the timeout the tool set; the tool goes on without one."""

    def __init__(self, timeout: float) -> None:
        self.timeout = timeout
        super().__init__(
            f"No answer to the question arrived within {timeout:g} seconds; "
            "ask again, or go on without the answer."
        )


# --- URL mode (issue 5) -------------------------------------------------------------------


class UrlModeError(ElicitationError):
    """Something stopped a URL-mode elicitation; the message says what to do."""


class IdentityRequiredError(UrlModeError, ToolError):
    """URL mode has no verified user to bind the elicitation to (S-30, S-31).

    Left uncaught in a tool, the call ends as a tool error carrying this message.
    """


class PendingLimitError(UrlModeError, ToolError):
    """The user has as many URL-mode elicitations open as the server allows
    (`UrlMode(max_pending_per_user=...)`); no new one was made. Left uncaught in a tool, the
    call ends as a tool error carrying this message."""

    def __init__(self, limit: int, ttl: float) -> None:
        self.limit = limit
        super().__init__(
            f"You already have {limit} open requests from this server that need your browser, the "
            "most it allows at once. Finish or decline one of them (open its link), or wait until "
            f"they expire (at most {max(1, round(ttl / 60))} minutes), then try again."
        )


class UrlElicitationNotCompletedError(UrlModeError, ToolError):
    """The person declined or cancelled the URL-mode elicitation, or it expired first.

    `state` is the record's final state ("declined", "cancelled", "expired"). Left uncaught in
    a tool, the call ends as a tool error carrying this message.
    """

    def __init__(self, state: str, message: str | None = None) -> None:
        self.state = state
        super().__init__(
            message
            or f"The URL elicitation ended as {state!r} without an answer; "
            "ask again if the user wants to retry."
        )


class RequestStateRejectedError(UrlModeError, MCPError):
    """A 2026-07-28 retry named an elicitation that is not this user's (or not one at all).

    It is a protocol error (-32602, invalid params), so left uncaught the request fails with
    that code, as the revision requires.
    """

    def __init__(self) -> None:
        super().__init__(
            code=INVALID_PARAMS,
            message="requestState does not name a URL elicitation of this user; "
            "call the tool again without it.",
        )


class VaultKeyError(UrlModeError):
    """The vault has no usable key: a start-up error, never a plaintext fallback."""


class VaultDecryptError(UrlModeError):
    """A sealed value could not be opened: wrong or missing key, or the bytes were altered."""


# --- Shared backends: store and bus (issue 8) -----------------------------------------------


class BackendUnavailableError(UrlModeError, ToolError):
    """The shared store or bus (Redis) could not be reached, even after retrying with backoff.

    Retrying is safe: transitions are conditional on the current state, so a retry never applies
    one twice. Left uncaught in a tool, the call ends as a tool error carrying this message.
    """


class StoreUnavailableError(BackendUnavailableError):
    """The store did not answer; the record, blob or single-use value was not read or written."""


class StoreOutcomeUnknownError(StoreUnavailableError):
    """A change reached the store, but its answer was lost and retrying could not learn it:
    it may or may not have been applied. Read back what it changed (`get`) before doing it
    again: a new call is a new change (one more `increment`, a `take_once` that finds nothing)."""


class BusUnavailableError(BackendUnavailableError):
    """A completion could not be published; the waiting session finds out on its next retry."""


class RecordExistsError(UrlModeError, ValueError):
    """`Store.create` was given a record whose id another record already has; nothing was written.

    Every store raises this one error (never its driver's), so a retry that finds its own
    earlier insert landed can tell that case apart from a store that is down.
    """

    def __init__(self, elicitation_id: str) -> None:
        self.elicitation_id = elicitation_id
        super().__init__(
            f"A record with the id {elicitation_id!r} already exists in the store; "
            "create the record again with a new id (new_elicitation_id())."
        )


class BackendURLError(UrlModeError, ValueError):
    """A store or bus URL that `open_store` / `open_bus` cannot use; the message says which form works."""


# --- The server's own tokens --------------------------------------------------------------


class TokenVerifierError(ElicitationError, ValueError):
    """A token verifier is configured in a way that cannot work (a non-https issuer, no endpoint)."""
