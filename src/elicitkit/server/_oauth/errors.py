"""What can go wrong with a third-party OAuth connection, each with a sentence for the author.

An `OAuthProviderError` is in English (a tool error, a log line) and, for the page a person
sees, `say(gettext)` gives the same sentences in the page's language: each a whole gettext
message with named values, never a sentence glued from translated pieces.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from mcp.server.mcpserver.exceptions import ToolError

from elicitkit.i18n import noop
from elicitkit.server._errors import UrlModeError

__all__ = ["Explanation", "OAuthConfigError", "OAuthConnectionError", "OAuthProviderError", "explain"]


@dataclass(frozen=True)
class Explanation:
    """Sentences for a person: gettext messages and the values they name (`service`, `code`)."""

    sentences: tuple[str, ...]
    values: tuple[tuple[str, str], ...] = ()

    def say(self, gettext: Callable[[str], str]) -> str:
        """The sentences in the language of `gettext` (a page's `Translator.gettext`)."""
        values = dict(self.values)
        return " ".join(gettext(sentence) % values for sentence in self.sentences)

    def __str__(self) -> str:
        return self.say(str)


class OAuthConnectionError(UrlModeError, ToolError):
    """A third-party connection could not give a token. Left uncaught in a tool, the call ends as
    a tool error carrying this message (never a token, never a stack trace)."""


class OAuthConfigError(OAuthConnectionError):
    """The connection is configured in a way that cannot work or is not safe (S-32 included)."""


class OAuthProviderError(OAuthConnectionError):
    """The provider could not be reached, or answered in a way we cannot use."""

    def __init__(self, message: str | Explanation) -> None:
        super().__init__(str(message))
        self.explanation = message if isinstance(message, Explanation) else None

    def say(self, gettext: Callable[[str], str]) -> str:
        """The message in the language of `gettext`; as is when it is not one of elicitkit's."""
        return self.explanation.say(gettext) if self.explanation is not None else str(self)


_SAID = {
    "invalid_client": noop(
        "%(service)s did not accept this server's client credentials; the server's administrator must "
        "check the client id and secret or key registered there (%(code)s)."
    ),
    "unauthorized_client": noop(
        "%(service)s does not allow this server's client to connect accounts this way; the server's "
        "administrator must check the client's registration (%(code)s)."
    ),
    "invalid_scope": noop("%(service)s does not allow the access this tool asks for (%(code)s)."),
    "invalid_target": noop("%(service)s does not know the API this tool asks access to (%(code)s)."),
    "unsupported_grant_type": noop(
        "%(service)s does not support the kind of sign-in this server uses (%(code)s)."
    ),
    "invalid_request": noop(
        "%(service)s rejected the request as malformed; the server's administrator should check the "
        "connection's settings (%(code)s)."
    ),
    "server_error": noop("%(service)s had an internal error (%(code)s)."),
    "temporarily_unavailable": noop("%(service)s is temporarily unavailable (%(code)s)."),
    "login_required": noop("%(service)s needs you to sign in there first (%(code)s)."),
    "consent_required": noop("%(service)s needs your consent there first (%(code)s)."),
    "interaction_required": noop(
        "%(service)s needs you to finish something on its own pages first (%(code)s)."
    ),
    "account_selection_required": noop("%(service)s needs you to choose an account there first (%(code)s)."),
}
_OTHER = noop("%(service)s answered with an error (%(code)s).")
_GRANT = noop(
    "%(service)s refused the sign-in: it has expired, was already used or was meant for another address "
    "(%(code)s)."
)
_GRANT_OVER = noop(
    "%(service)s no longer accepts this server's access (it was revoked or has run out) (%(code)s)."
)
_AGAIN = noop("Nothing was stored. Open the link from your application again to retry.")
_LATER = noop("Nothing was stored. Try again in a few minutes.")
_REFRESH_AGAIN = noop("Try again later, or connect the account again.")
_REFRESH_LATER = noop("Try again in a few minutes.")
UNREADABLE = noop(
    "%(service)s could not be reached or gave an answer we cannot read. Nothing was stored. Try again "
    "in a moment."
)
"""The code exchange got no answer it could use (the network, or not OAuth): for the person's page."""


def explain(service: str, code: str, when: str) -> Explanation:
    """What `code` (an OAuth error code) means for the person, and what to do next.

    `when` is "authorize", "token" (the code exchange) or "refresh". Only the code is shown,
    never the provider's `error_description` (free text meant for a client's developer, of any
    length, that may echo what it was sent), and never a token, code or secret.
    """
    refresh = when == "refresh"
    said = (_GRANT_OVER if refresh else _GRANT) if code == "invalid_grant" else _SAID.get(code, _OTHER)
    later = code in ("server_error", "temporarily_unavailable")
    again = (_REFRESH_LATER if later else _REFRESH_AGAIN) if refresh else (_LATER if later else _AGAIN)
    return Explanation((said, again), (("service", service), ("code", code)))
