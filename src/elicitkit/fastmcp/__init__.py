"""elicitkit on FastMCP servers: `Elicitation`, `Secret`, `OAuthConnection` and custom URL-mode
flows, on 2025-11-25 and 2026-07-28, with the pages mounted on FastMCP's own HTTP app.

Needs the `fastmcp` extra (`pip install 'elicitkit[fastmcp]'`). `Secret` and `OAuthConnection`
here are `elicitkit.server`'s, typed for FastMCP's `Context`; everything else (`UrlMode`, the
outcomes and errors) is imported from `elicitkit.server` as usual.
"""

from elicitkit.fastmcp._elicitation import Elicitation, install_url_mode
from elicitkit.fastmcp._flows import AnyContext, OAuthConnection, Secret

__all__ = ["AnyContext", "Elicitation", "OAuthConnection", "Secret", "install_url_mode"]
