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
from elicitkit.client._completions import UrlCompletions
from elicitkit.client._config import (
    DEFAULT_INPUT_ROUNDS,
    ElicitationConfig,
    Mode,
    StandalonePolicy,
    UrlOpener,
    open_in_system_browser,
)
from elicitkit.client._connection import Action, ServerElicitations
from elicitkit.client._eliciting import ElicitingClient
from elicitkit.client._errors import (
    ElicitationCancelledError,
    ElicitationDeclinedError,
    ElicitationError,
    ElicitationLoopError,
    ElicitationProtocolError,
    ElicitationRateLimitedError,
    ElicitationRefusedError,
    ToolTaskCancelledError,
)
from elicitkit.client._frameworks import FastMCPAnswers, for_fastmcp, for_sdk_session
from elicitkit.client._limits import PromptGate, RateLimit, Sizes
from elicitkit.client._retry import until_urls_complete
from elicitkit.client._rounds import RoundsPolicy, drive_rounds
from elicitkit.client._scripted import ScriptedUI, accept_prefilled
from elicitkit.client._ui import (
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
    from elicitkit.client._terminal import NotATerminalError, TerminalUI
    from elicitkit.client._terminal.narrated import NarratedUI, Transcript, describe_field
    from elicitkit.client._web import PageOpener, WebUI

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
    "ElicitationRefusedError",
    "ElicitationStream",
    "ElicitationUI",
    "ElicitingClient",
    "FastMCPAnswers",
    "FormQuestion",
    "Mode",
    "NarratedUI",
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
    "ToolTaskCancelledError",
    "Transcript",
    "UrlCompletions",
    "UrlOpener",
    "UrlQuestion",
    "Waiting",
    "Watch",
    "WatchedTransport",
    "WebUI",
    "accept_prefilled",
    "describe_field",
    "drive_rounds",
    "for_fastmcp",
    "for_sdk_session",
    "open_in_system_browser",
    "until_urls_complete",
]

#: Public names whose modules need an optional extra: imported on first use (see `elicitkit.extras`).
_OPTIONAL = {
    "NotATerminalError": ("elicitkit.client._terminal", "terminal"),
    "NarratedUI": ("elicitkit.client._terminal.narrated", "terminal"),
    "Transcript": ("elicitkit.client._terminal.narrated", "terminal"),
    "describe_field": ("elicitkit.client._terminal.narrated", "terminal"),
    "TerminalUI": ("elicitkit.client._terminal", "terminal"),
    "PageOpener": ("elicitkit.client._web", "web"),
    "WebUI": ("elicitkit.client._web", "web"),
}


__getattr__, __dir__ = lazy_names(__name__, _OPTIONAL)
