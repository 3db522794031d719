"""The client side: protocol rules for `elicitation/create`, and UIs a person can trust."""

from elicitkit.client.ui import (
    Accept,
    Cancel,
    Decline,
    ElicitationUI,
    FormQuestion,
    Reply,
    UrlQuestion,
    Waiting,
)

__all__ = [
    "Accept",
    "Cancel",
    "Decline",
    "ElicitationUI",
    "FormQuestion",
    "Reply",
    "UrlQuestion",
    "Waiting",
]
