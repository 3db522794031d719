"""A client that answers elicitations in the terminal (or the browser with --web)."""

import sys

import anyio

from elicitkit.client import ElicitationConfig, TerminalUI, WebUI


async def main(url: str, web: bool) -> None:
    config = ElicitationConfig(WebUI() if web else TerminalUI(), modes=("form", "url"))
    async with config.connect(url) as client:
        result = await client.call_tool("book", {})
        print(result.content[0].text)  # type: ignore[union-attr]


if __name__ == "__main__":
    anyio.run(main, sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:8000/mcp", "--web" in sys.argv)
