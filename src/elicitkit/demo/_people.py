"""The demo's people: who can sign in to the demo servers, and with which password.

The passwords are public on purpose: this is a demo, and a person trying it must be able to
sign in. Nothing outside `elicitkit.demo` may ever accept them.
"""

from __future__ import annotations

import hmac

PERSON = "alice"
"""The person the story follows; bob is the one who tries her link."""

DEMO_SERVER_NAME = "Demo Assistant"
"""The demo MCP server's name: what it tells clients, and the name it registers as an OAuth client."""
DEMO_CLIENT_NAME = "Demo AI app"
"""The name alice's MCP client registered: what consent and sign-in pages call it."""

DEMO_PASSWORDS: dict[str, str] = {
    "alice": "alice-demo-password",
    "bob": "bob-demo-password",
}


def check_password(passwords: dict[str, str], username: str, password: str) -> bool:
    """True when `password` is `username`'s, compared in constant time."""
    expected = passwords.get(username, "")
    return hmac.compare_digest(expected.encode(), password.encode()) and username in passwords
