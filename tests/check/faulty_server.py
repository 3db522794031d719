"""A small raw-SDK MCP server that breaks exactly one elicitation rule, named on the command line.

`python faulty_server.py RULE [PORT]`: RULE is "good" or one of the IDs below; with PORT it
serves streamable HTTP on 127.0.0.1, without it stdio. Every rule it does not break, it keeps:
it asks only in declared modes, inside the tool call, validates answers, gives each URL
elicitation its own id, and sends completion notices only to the session that was asked.
The tools ask through `ctx.session` directly (not elicitkit), so the checker meets the wire
shapes any server could send.
"""

from __future__ import annotations

import os
import sys
import uuid
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import MCPError
from mcp_types import (
    URL_ELICITATION_REQUIRED,
    ElicitCompleteNotification,
    ElicitCompleteNotificationParams,
    ElicitRequest,
    ElicitRequestFormParams,
    ElicitRequestURLParams,
    ElicitResult,
)
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from elicitkit.schema import validate

RULE = sys.argv[1] if len(sys.argv) > 1 else "good"
PORT = int(sys.argv[2]) if len(sys.argv) > 2 else None
owners: dict[str, str] = {}
asked_in: dict[str, Any] = {}  # elicitation id -> the session it was sent to
server = MCPServer(f"faulty-{RULE}")
sessions: list[Any] = []

NAME = {"type": "string", "title": "Name", "maxLength": 40}
SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": NAME,
        "guests": {"type": "integer", "title": "Guests", "minimum": 1, "maximum": 9},
    },
    "required": ["name"],
}
if RULE == "S-10":
    SCHEMA["properties"]["address"] = {"type": "object", "properties": {"street": {"type": "string"}}}
if RULE == "S-11":  # a password asked in a form: a broken MUST
    SCHEMA["properties"]["password"] = {
        "type": "string",
        "title": "Password",
        "description": "Your account password",
    }
if RULE == "S-11-spellings":  # every way a credential field is spelled, by key, title or format
    for key, title in [
        ("apiKey", None),
        ("token", None),
        ("Access-Token", None),
        ("client_secret", None),
        ("new_password2", None),
        ("pass_phrase", None),
        ("cardNumber", None),
        ("CVV2", None),
        ("f1", "PIN"),
        ("f2", "Your security code"),
        ("f3", "Private key"),
    ]:
        SCHEMA["properties"][key] = {"type": "string", **({"title": title} if title else {})}
    SCHEMA["properties"]["f4"] = {"type": "string", "format": "password"}
if RULE == "S-11-prose":  # a secret only in prose, and names that merely contain a credential's letters
    SCHEMA["properties"].update(
        {
            "note": {"type": "string", "title": "Note", "description": "Never type your password here."},
            "token_count": {"type": "integer", "title": "Token count"},
            "coin": {"type": "string", "title": "Token to swap", "description": "A coin, like ETH."},
            "secretary": {"type": "string", "title": "Secretary"},
            "passport_number": {"type": "string", "title": "Passport number"},
            "pin": {"type": "boolean", "title": "Pin this booking to the top?"},
            "pinned": {"type": "string", "title": "Pinned note"},
            "spin": {"type": "string", "title": "Spin"},
            "password_hint": {"type": "string", "title": "Password hint (not your password)"},
        }
    )
if RULE == "S-12":
    SCHEMA["properties"]["name"] = {**NAME, "description": "See https://example.com/help for the rules."}


def declared(ctx: Context) -> set[str]:
    caps = ctx.client_capabilities
    elicitation = caps.elicitation if caps is not None else None
    if elicitation is None:
        return set()
    modes = {m for m in ("form", "url") if getattr(elicitation, m) is not None}
    return modes or {"form"}


@server.tool()
async def book(ctx: Context) -> str:
    """Ask for a name and a number of guests."""
    if RULE == "dies":  # a server that crashes in the middle of the checker's run
        os._exit(3)
    if "form" not in declared(ctx) and RULE != "S-01":
        return "This client takes no forms."
    message = "" if RULE == "S-03" else "Who is the booking for?"
    params = ElicitRequestFormParams(message=message, requested_schema=SCHEMA)
    result = await ctx.session.send_request(
        ElicitRequest(params=params), ElicitResult, metadata=_related(ctx)
    )
    if result.action != "accept":
        return f"Nothing booked ({result.action})."
    problems = validate(SCHEMA, result.content)
    if problems and RULE != "S-13":
        raise ValueError("; ".join(p.message for p in problems))
    return f"Booked for {result.content}."


_count = 0


@server.tool()
async def connect(ctx: Context) -> str:
    """Ask the person to open a page (URL mode), then tell every session it is done."""
    global _count
    if "url" not in declared(ctx):
        return "This client takes no URLs."
    _count += 1
    elicitation_id = "always-the-same" if RULE == "S-20" else uuid.uuid4().hex
    url = f"https://example.com/connect/{uuid.uuid4().hex}"
    if PORT is not None:  # the page below, which the browser checks open
        url = f"http://127.0.0.1:{PORT}/page/{elicitation_id}"
        request = ctx.request_context.request
        owners[elicitation_id] = request.headers.get("authorization", "") if request is not None else ""
        asked_in[elicitation_id] = ctx.session
    if RULE == "S-20":  # the same id for two different elicitations
        url += f"?attempt={uuid.uuid4().hex}"
    if RULE == "S-21":  # a password in the URL itself: proof, so a fail
        url = url.replace("://", "://checker:hunter2@", 1)
    if RULE == "S-21-credential":  # credentials named for what they are, with values: proof
        url += ";password=hunter2?access_token=eyJhbGciOi.secret.value&state=xyz&api-key=k1&clientSecret=s1"
        url += "&token=t0k3n"
    if RULE == "S-21-name":  # parameters only named like a credential, or empty: a hint, so a warn
        url += "?key=42&code=WDJB-MJHT&state=xyz&pin=48.85,2.35&api_key=&token="
    params = ElicitRequestURLParams(message="Connect your account.", url=url, elicitation_id=elicitation_id)
    if ctx.session not in sessions:
        sessions.append(ctx.session)
    result = await ctx.session.send_request(
        ElicitRequest(params=params), ElicitResult, metadata=_related(ctx)
    )
    if result.action == "accept":
        notice = ElicitCompleteNotification(
            params=ElicitCompleteNotificationParams(elicitation_id=elicitation_id)
        )
        for session in sessions if RULE == "S-23" else [ctx.session]:
            await session.send_notification(notice)
    return f"Connection {result.action}."


@server.custom_route("/page/{elicitation_id}", methods=["GET"])
async def page(request: Request) -> Response:
    """The page a URL opens: only for the user who was asked (unless S-34), hardened (unless S-35).

    A browser without a bearer header stands for the signed-in owner; one with another user's
    token is that other user. "S-34-consume" refuses the other user but throws the owner's
    elicitation away; "S-34-cancel" refuses them but tells the owner's client it is over.
    """
    elicitation_id = request.path_params["elicitation_id"]
    owner = owners.get(elicitation_id)
    sent = request.headers.get("authorization")
    stranger = owner is not None and sent is not None and sent != owner
    if stranger and RULE == "S-34-consume":
        owners.pop(elicitation_id)
    if stranger and RULE == "S-34-cancel":
        notice = ElicitCompleteNotification(
            params=ElicitCompleteNotificationParams(elicitation_id=elicitation_id)
        )
        await asked_in[elicitation_id].send_notification(notice)
    if owner is None or (stranger and RULE != "S-34"):
        return HTMLResponse("<h1>Not yours</h1>", status_code=403)
    response = HTMLResponse("<h1>Connect your account</h1><form method=post><button>Connect</button></form>")
    if RULE == "S-35":
        response.set_cookie("session", "abc")
    else:
        response.headers["X-Frame-Options"] = "DENY"
        response.set_cookie("__Host-session", "abc", secure=True, httponly=True, samesite="lax")
    return response


if RULE == "S-24":

    @server.tool()
    async def busy(ctx: Context) -> str:
        """Uses -32042 for something that is not a URL elicitation."""
        raise MCPError(URL_ELICITATION_REQUIRED, "Busy, try later.", {"retryAfter": 5})


if RULE == "S-02":

    @server.tool()
    async def later(ctx: Context) -> str:
        """Returns at once, then asks on its own once the call is over."""
        session = ctx.session

        async def ask_later() -> None:
            await anyio.sleep(0.3)
            params = ElicitRequestFormParams(message="One more thing?", requested_schema=SCHEMA)
            try:
                await session.send_request(ElicitRequest(params=params), ElicitResult)
            except Exception:  # the client may refuse it (C-03) or be gone; this server goes on
                return

        server_tasks.start_soon(ask_later)
        return "Done."


def _related(ctx: Context) -> Any:
    """Ties a question to the call it belongs to; "S-02-stream" leaves it loose (the standalone stream)."""
    from mcp.shared.message import ServerMessageMetadata

    if RULE == "S-02-stream":
        return None
    return ServerMessageMetadata(related_request_id=ctx.request_id)


server_tasks: Any = None


async def main() -> None:
    global server_tasks
    async with anyio.create_task_group() as tasks:
        server_tasks = tasks
        if len(sys.argv) > 2:
            await server.run_streamable_http_async(host="127.0.0.1", port=int(sys.argv[2]))
        else:
            await server.run_stdio_async()
        tasks.cancel_scope.cancel()


if __name__ == "__main__":
    anyio.run(main)
