"""The server side: what an MCP server author adds to `MCPServer` to elicit safely."""

from elicitkit.server._outcomes import Accepted, Cancelled, Declined, FormOutcome
from elicitkit.server.elicitation import Elicitation
from elicitkit.server.errors import (
    ElicitationError,
    ElicitationTimeoutError,
    InvalidAnswerError,
    ModeNotDeclaredError,
    NotInRequestError,
    SchemaRefusedError,
)

__all__ = [
    "Accepted",
    "Cancelled",
    "Declined",
    "Elicitation",
    "ElicitationError",
    "ElicitationTimeoutError",
    "FormOutcome",
    "InvalidAnswerError",
    "ModeNotDeclaredError",
    "NotInRequestError",
    "SchemaRefusedError",
]
