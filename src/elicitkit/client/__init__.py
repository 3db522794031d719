"""The client side: protocol rules for `elicitation/create`, and UIs a person can trust."""

from __future__ import annotations

from typing import TYPE_CHECKING

from elicitkit.client._association import (
    ElicitationStream,
    StandaloneStreamTap,
    StandaloneWatch,
    Watch,
    WatchedTransport,
)
from elicitkit.client.completions import UrlCompletions
from elicitkit.client.connection import Action, ServerElicitations
from elicitkit.client.eliciting import ElicitingClient
from elicitkit.client.errors import (
    ElicitationCancelledError,
    ElicitationDeclinedError,
    ElicitationError,
    ElicitationLoopError,
    ElicitationProtocolError,
    ElicitationRateLimitedError,
)
from elicitkit.client.handler import (
    DEFAULT_INPUT_ROUNDS,
    ElicitationConfig,
    Mode,
    StandalonePolicy,
    UrlOpener,
    open_in_system_browser,
)
from elicitkit.client.limits import PromptGate, RateLimit, Sizes
from elicitkit.client.retry import until_urls_complete
from elicitkit.client.rounds import RoundsPolicy, drive_rounds
from elicitkit.client.scripted import ScriptedUI, accept_prefilled
from elicitkit.client.ui import (
    AcceptedElicitation,
    CancelledElicitation,
    DeclinedElicitation,
    ElicitationUI,
    FormQuestion,
    Notice,
    Reply,
    UrlQuestion,
    Waiting,
)
from elicitkit.extras import lazy_names

if TYPE_CHECKING:
    from elicitkit.client.terminal import NotATerminalError, TerminalUI
    from elicitkit.client.web import PageOpener, WebUI

__all__ = [
    "DEFAULT_INPUT_ROUNDS",
    "AcceptedElicitation",
    "Action",
    "CancelledElicitation",
    "DeclinedElicitation",
    "ElicitationCancelledError",
    "ElicitationConfig",
    "ElicitationDeclinedError",
    "ElicitationError",
    "ElicitationLoopError",
    "ElicitationProtocolError",
    "ElicitationRateLimitedError",
    "ElicitationStream",
    "ElicitationUI",
    "ElicitingClient",
    "FormQuestion",
    "Mode",
    "NotATerminalError",
    "Notice",
    "PageOpener",
    "PromptGate",
    "RateLimit",
    "Reply",
    "RoundsPolicy",
    "ScriptedUI",
    "ServerElicitations",
    "Sizes",
    "StandalonePolicy",
    "StandaloneStreamTap",
    "StandaloneWatch",
    "TerminalUI",
    "UrlCompletions",
    "UrlOpener",
    "UrlQuestion",
    "Waiting",
    "Watch",
    "WatchedTransport",
    "WebUI",
    "accept_prefilled",
    "drive_rounds",
    "open_in_system_browser",
    "until_urls_complete",
]

#: Public names whose modules need an optional extra: imported on first use (see `elicitkit.extras`).
_OPTIONAL = {
    "NotATerminalError": ("elicitkit.client.terminal", "terminal"),
    "TerminalUI": ("elicitkit.client.terminal", "terminal"),
    "PageOpener": ("elicitkit.client.web", "web"),
    "WebUI": ("elicitkit.client.web", "web"),
}


__getattr__, __dir__ = lazy_names(__name__, _OPTIONAL)
