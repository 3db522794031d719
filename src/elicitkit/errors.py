"""The one base class of the errors elicitkit raises, on either side.

`elicitkit.client.ElicitationError` and `elicitkit.server.ElicitationError` are this class:
`except ElicitationError` catches every elicitkit error, whichever side raised it.
"""

from __future__ import annotations

__all__ = ["ElicitationError"]


class ElicitationError(Exception):
    """Base class: something about an elicitation went wrong; the message says what to do."""
