"""The server side: what an MCP server author adds to `MCPServer` to elicit safely.

Forms: `Elicitation(server).form(ctx, message, Model)`. URL mode: a `UrlMode` installed on the
server, and flows on top of it: `Secret` for an API key or password, `Approval` for a yes or no
given on the page, `OAuthConnection` for a third-party sign-in. Tasks:
`Tasks({"tool": "optional"})` runs those tools as 2025-11-25 tasks whose questions wait for the
person. Stores, vault and completion bus have small interfaces with several backends, chosen by
URL with `open_store` / `open_bus`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from elicitkit.extras import lazy_names
from elicitkit.results import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    ElicitationResult,
)
from elicitkit.server._approval import Approval
from elicitkit.server._backends import open_bus, open_store
from elicitkit.server._elicitation import Elicitation
from elicitkit.server._errors import (
    BackendUnavailableError,
    BackendURLError,
    BusUnavailableError,
    ElicitationError,
    ElicitationTimeoutError,
    IdentityRequiredError,
    InvalidAnswerError,
    ModeNotDeclaredError,
    NotInRequestError,
    PendingLimitError,
    RecordExistsError,
    RequestStateRejectedError,
    SchemaRefusedError,
    StoreOutcomeUnknownError,
    StoreUnavailableError,
    TokenVerifierError,
    UrlElicitationNotCompletedError,
    UrlModeError,
    VaultDecryptError,
    VaultKeyError,
)
from elicitkit.server._oauth.errors import OAuthConfigError, OAuthConnectionError, OAuthProviderError
from elicitkit.server._rotation import Rotation, rotate
from elicitkit.server._rounds import RoundsMiddleware
from elicitkit.server._secret import Secret, SecretValidator
from elicitkit.server._tasks import Tasks, TasksExtension
from elicitkit.server._url_mode import ContextAdapter, FlowContext, UrlMode, Wait
from elicitkit.server._user import Caller, McpUsers, User
from elicitkit.server._vault import KEYS_ENV, KeyRing, Vault
from elicitkit.server._web.flows import Flow, HandOffFlow
from elicitkit.server._web.identity import BrowserIdentity, HookIdentity, LocalUserIdentity
from elicitkit.server._web.login import OAuthLogin
from elicitkit.server.bus import Bus, LocalBus
from elicitkit.server.store import MemoryStore, Record, State, Store

if TYPE_CHECKING:
    from elicitkit.server._oauth import OAuthConnection
    from elicitkit.server._tokens import IntrospectionVerifier, JWTVerifier
    from elicitkit.server.bus import PostgresBus, RedisBus
    from elicitkit.server.store import PostgresStore, RedisStore, SQLiteStore

__all__ = [
    "KEYS_ENV",
    "AcceptedElicitation",
    "Approval",
    "BackendURLError",
    "BackendUnavailableError",
    "BrowserIdentity",
    "Bus",
    "BusUnavailableError",
    "Caller",
    "CancelledElicitation",
    "ContextAdapter",
    "DeclinedElicitation",
    "Elicitation",
    "ElicitationError",
    "ElicitationResult",
    "ElicitationTimeoutError",
    "Flow",
    "FlowContext",
    "HandOffFlow",
    "HookIdentity",
    "IdentityRequiredError",
    "IntrospectionVerifier",
    "InvalidAnswerError",
    "JWTVerifier",
    "KeyRing",
    "LocalBus",
    "LocalUserIdentity",
    "McpUsers",
    "MemoryStore",
    "ModeNotDeclaredError",
    "NotInRequestError",
    "OAuthConfigError",
    "OAuthConnection",
    "OAuthConnectionError",
    "OAuthLogin",
    "OAuthProviderError",
    "PendingLimitError",
    "PostgresBus",
    "PostgresStore",
    "Record",
    "RecordExistsError",
    "RedisBus",
    "RedisStore",
    "RequestStateRejectedError",
    "Rotation",
    "RoundsMiddleware",
    "SQLiteStore",
    "SchemaRefusedError",
    "Secret",
    "SecretValidator",
    "State",
    "Store",
    "StoreOutcomeUnknownError",
    "StoreUnavailableError",
    "Tasks",
    "TasksExtension",
    "TokenVerifierError",
    "UrlElicitationNotCompletedError",
    "UrlMode",
    "UrlModeError",
    "User",
    "Vault",
    "VaultDecryptError",
    "VaultKeyError",
    "Wait",
    "open_bus",
    "open_store",
    "rotate",
]

#: Public names whose modules need an optional extra: imported on first use (see `elicitkit.extras`).
_OPTIONAL = {
    "PostgresBus": ("elicitkit.server.bus", "postgres"),
    "PostgresStore": ("elicitkit.server.store", "postgres"),
    "RedisBus": ("elicitkit.server.bus", "redis"),
    "RedisStore": ("elicitkit.server.store", "redis"),
    "SQLiteStore": ("elicitkit.server.store", "sqlite"),
    "OAuthConnection": ("elicitkit.server._oauth", "oauth"),
    "IntrospectionVerifier": ("elicitkit.server._tokens", "tokens"),
    "JWTVerifier": ("elicitkit.server._tokens", "tokens"),
}


__getattr__, __dir__ = lazy_names(__name__, _OPTIONAL)
