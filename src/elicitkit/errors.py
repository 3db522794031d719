"""The one base class of the errors elicitkit raises, on either side, and the tree under it.

`except ElicitationError` catches every error elicitkit raises, whichever side or tool raised
it; a driver's or a dependency's own exception never leaves a public call in its place (a
store that cannot reach its server raises `StoreUnavailableError`, not the driver's error).
Each error says in one sentence what went wrong and what to do. Each side keeps its errors in
one module (`elicitkit.client._errors`, `elicitkit.server._errors`) and its package re-exports
them; `elicitkit.client.ElicitationError` and `elicitkit.server.ElicitationError` are this
class. This module imports nothing, so it re-exports neither side: a client that catches
`ElicitationError` never loads the server, and the two sides never import each other.

Where the SDK, a framework or a caller acts on a standard type, an error is that type too (the
second base, in brackets below): a `ToolError` left uncaught in a tool ends the call as a tool
error the model reads, an `MCPError` becomes the JSON-RPC error the protocol requires, and a
`ValueError`, `TypeError` or `RuntimeError` keeps older `except` clauses working. A public call
never raises a bare built-in: a wrong argument is a `ConfigurationError`, a call at the wrong
moment a `LifecycleError` (`tests/test_raises.py` reads every `raise` to keep it so).

The tree (each name is importable from the module after it):

- `ElicitationError` (`elicitkit.errors`): the base; catch it to catch them all.
    - `ConfigurationError` [`ValueError`] (`elicitkit.errors`): an argument or setting that
      cannot work (a value, a type, a missing piece); the message says what would.
    - `LifecycleError` [`RuntimeError`] (`elicitkit.errors`): a call at the wrong moment (before
      a start, after a stop, twice), or a start that failed.
    - `ElicitationDeclinedError` (`elicitkit.client`): a URL the server needs was declined,
      cancelled or blocked; the held tool call was not retried.
    - `ElicitationCancelledError` (`elicitkit.client`): the person stopped waiting for a URL
      elicitation to complete.
    - `ElicitationLoopError` (`elicitkit.client`): the server asked again for elicitations
      that had already completed; retrying would never end.
    - `ElicitationRateLimitedError` (`elicitkit.client`): the server asked for more prompts
      than the client's rate limit allows.
    - `ElicitationProtocolError` (`elicitkit.client`): the server sent data that breaks the
      protocol.
    - `ElicitationRefusedError` (`elicitkit.client`): inside FastMCP's handler, an
      `elicitation/create` this client refuses (undeclared mode, bad schema).
    - `NotATerminalError` [`RuntimeError`] (`elicitkit.client`): `TerminalUI` was started
      where no person can type.
    - `ToolTaskCancelledError` (`elicitkit.client`): a tool called as a task ended without
      its result: the server cancelled the task, or the call's `task_timeout` ran out.
    - `NotInRequestError` [`RuntimeError`] (`elicitkit.server`): a question was asked outside
      a client request it could be tied to.
    - `ModeNotDeclaredError` [`MCPError`] (`elicitkit.server`): the client did not declare
      the mode; uncaught, the request fails with -32021.
    - `SchemaRefusedError` [`ValueError`] (`elicitkit.server`): the form schema breaks the
      form-mode rules; nothing was sent.
    - `InvalidAnswerError` [`ToolError`] (`elicitkit.server`): the answer failed validation.
    - `ElicitationTimeoutError` [`ToolError`] (`elicitkit.server`): no answer arrived in time.
    - `TokenVerifierError` [`ValueError`] (`elicitkit.server`): a token verifier is
      configured in a way that cannot work.
    - `UrlModeError` (`elicitkit.server`): something stopped a URL-mode elicitation.
        - `IdentityRequiredError` [`ToolError`]: no verified user to bind the elicitation to.
        - `PendingLimitError` [`ToolError`]: the user has as many URL elicitations open as
          the server allows.
        - `UrlElicitationNotCompletedError` [`ToolError`]: the person declined or cancelled,
          or the elicitation expired.
        - `RequestStateRejectedError` [`MCPError`]: a 2026-07-28 retry named an elicitation
          that is not this user's; uncaught, the request fails with -32602.
        - `VaultKeyError`: the vault has no usable key (a start-up error).
        - `VaultDecryptError`: a sealed value could not be opened.
        - `RecordExistsError` [`ValueError`]: `Store.create` was given an id another record
          already has; every store raises this one.
        - `BackendURLError` [`ValueError`]: a store or bus URL `open_store` / `open_bus`
          cannot use.
        - `BackendUnavailableError` [`ToolError`]: the store or bus could not be reached,
          even after retrying; retrying later is safe.
            - `StoreUnavailableError`: the store did not answer; nothing was read or written.
                - `StoreOutcomeUnknownError`: a change reached the store but its answer was
                  lost: it may or may not have been applied; read it back before redoing it.
            - `BusUnavailableError`: a completion could not be published.
        - `OAuthConnectionError` [`ToolError`] (`elicitkit.server`): a third-party
          OAuth connection failed.
            - `OAuthConfigError`: the connection is configured in a way that cannot work.
            - `OAuthProviderError`: the provider refused or answered wrongly.
    - `PatternError` [`ValueError`] (`elicitkit.schema`): a `pattern` the linear-time engine
      cannot run.
    - `SchemaBuildError` [`TypeError`] (`elicitkit.schema`): a type the form-mode subset
      cannot express.
    - `UnsupportedLocaleError` [`ValueError`] (`elicitkit.i18n`): a `locale=` names a
      language elicitkit has no catalog for.
    - `MissingExtraError` [`ModuleNotFoundError`] (`elicitkit.extras`): a feature was used
      whose optional extra is not installed; the message names the extra.
    - `TargetError` (`elicitkit.check`): `elicitkit check` could not reach or initialize the
      server it audits.
    - `UpstreamAuthorizationError` (`elicitkit.bridge`): `elicitkit bridge` could not sign
      in to the server it forwards to; its `reason` says why.
    - `BrowserError` (`elicitkit.demo.browser`): the demo's scripted browser could not do
      what the script asked.
    - `SignInError` (`elicitkit.demo.auth_server`): the demo's sign-in did not end in a
      redirect back to the client.
    - `StepFailedError` (`elicitkit.demo.steps`): a step of the demo story did not behave as
      it should.
"""

from __future__ import annotations

__all__ = ["ConfigurationError", "ElicitationError", "LifecycleError"]


class ElicitationError(Exception):
    """Base class: something about an elicitation went wrong; the message says what to do."""


class ConfigurationError(ElicitationError, ValueError):
    """An argument or setting elicitkit cannot use; the message names it and what would work."""


class LifecycleError(ElicitationError, RuntimeError):
    """A call at the wrong moment (before a start, after a stop, twice), or a start that failed."""
