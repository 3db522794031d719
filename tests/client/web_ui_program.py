"""`WebUI` as a program uses it, with its default opener (the system browser through
`webbrowser`, so $BROWSER): one form question, then the reply as JSON on stdout."""

import asyncio
import json

from elicitkit.client import FormQuestion
from elicitkit.client._web import WebUI

NAME = {
    "type": "object",
    "properties": {"name": {"type": "string", "title": "Your name"}},
    "required": ["name"],
}


async def main() -> None:
    async with WebUI(locale="en") as ui:
        reply = await ui.ask_form(FormQuestion("Bistro", "Who is booking?", NAME, {}))
    print(json.dumps({"action": reply.action, "content": getattr(reply, "data", None)}), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
