"""The browser UI: questions on a local page at 127.0.0.1 (needs the `web` extra)."""

from elicitkit.client._web.ui import PageOpener, WebUI

__all__ = ["PageOpener", "WebUI"]
