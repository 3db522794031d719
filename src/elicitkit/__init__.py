"""elicitkit: MCP elicitation done completely and safely, on the official MCP SDK.

The two sides live in `elicitkit.server` and `elicitkit.client`; both stand on the pure
helpers in `elicitkit.schema` (the form-mode schema subset) and `elicitkit.urls` (what a
person should know about a URL before opening it).
"""

__version__ = "1.0.0"

__all__: list[str] = []  # the package itself lists nothing: import from its packages
