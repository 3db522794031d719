"""What names a credential: a form field's key or title (S-11), a URL parameter's name (S-21).

A `fail` must always be right, so a name counts only when a credential is what it names: its
last words, the head of the name, are one (`access_token`, `apiKey`, "Card number",
`password_confirm`). A name about a credential is not one (`token_count`, `password_hint`,
`private_key_path`), and words are whole words of the name once snake, kebab, camel and
spaces are split: `secretary`, `pinned`, `spin` and `passport_number` name none.

A bare `token` fails: what a form or a URL asks for under that name is a credential far more
often than a coin, and a server that means a coin can say `coin`. Left to the warnings (a
person reads them): a bare `key` (a map key, a lookup key), `code` (the user code of a device sign-in),
`pin code` (India's postal code), and `pwd` (a working directory). In a URL, `pin` also
stays a warning (a map pin: `?pin=48.85,2.35`).
"""

from __future__ import annotations

import re

#: the names of credentials, as words; each two-word name is also one word (`apikey`, `privatekey`)
_NAMES = (
    "password", "passwd", "pass word", "passcode", "pass code", "passphrase", "pass phrase",
    "secret", "secret key", "private key", "api key", "token",
    "access token", "api token", "auth token", "bearer token", "id token", "refresh token", "session token",
    "card number", "cc number", "credit card", "debit card", "security code", "cvv", "cvc",
    "pin", "pin number",
)  # fmt: skip
_CREDENTIALS = frozenset(tuple(name.split()) for name in _NAMES) | {
    (name.replace(" ", ""),) for name in _NAMES
}
#: URL parameters: a map pin travels in URLs as `pin` (`?pin=48.85,2.35`)
_URL_CREDENTIALS = _CREDENTIALS - {("pin",), ("pin", "number")}
#: words after the head that leave it the head: `password_confirm`, `new_password2`, `pin_again`
_TRAILING = frozenset({"again", "confirm", "confirmation", "current", "new", "old", "repeat", "retype"})
#: a title with one of these is a sentence about a credential, not its name ("Not your password")
_NEGATIONS = frozenset({"not", "no", "never", "without", "except", "instead", "don", "doesn"})
#: a title longer than this is prose, judged like a description (a warning at most)
_TITLE_WORDS = 6

_WORD = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")


def words(name: str) -> list[str]:
    """The words of a name, lowercased: `APIKey`, `api_key`, `api-key`, "API key" -> api, key."""
    return [w.lower() for w in _WORD.findall(name)]


def credential_in_name(name: str, *, in_url: bool = False) -> str | None:
    """The credential a key or parameter name names (its head words), or None."""
    found = words(name)
    while found and (found[-1] in _TRAILING or found[-1].isdigit()) and len(found) > 1:
        found.pop()
    table = _URL_CREDENTIALS if in_url else _CREDENTIALS
    for size in (2, 1):
        head = tuple(found[-size:])
        if len(head) == size and head in table:
            return " ".join(head)
    return None


def credential_in_title(title: str) -> str | None:
    """The credential a field's title names, if the title is a name rather than a sentence."""
    found = words(title)
    if len(found) > _TITLE_WORDS or _NEGATIONS & set(found):
        return None
    return credential_in_name(title)
