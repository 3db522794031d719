"""The server side: what an MCP server author adds to `MCPServer` to elicit safely."""

__all__: list[str] = []
