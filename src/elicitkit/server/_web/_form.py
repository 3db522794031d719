"""A page's form POST, read within bounds: what a stranger's upload can cost is capped.

The body is read only after the page has checked the session (see `Site`), at most
`MAX_BODY` bytes within `BODY_DEADLINE` seconds. A browser that goes away mid-body, sends
too much or too slowly gets a plain answer and one log line, never a traceback in the log
(anyone can make those).
"""

from __future__ import annotations

import logging
from typing import Any

import anyio
from starlette.datastructures import FormData
from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

__all__ = ["BODY_DEADLINE", "MAX_BODY", "read_form"]

logger = logging.getLogger(__name__)

MAX_BODY = 64 * 1024
"""Bytes a form POST may carry: a secret is at most 8192 characters, the rest is a few fields."""
BODY_DEADLINE = 30.0
"""Seconds a browser has to send a form's body once its headers arrived."""


async def read_form(request: Request) -> FormData | Response:
    """The form of `request`, or the answer to give instead (413, 408, or 400 to no one)."""
    length = request.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_BODY:
        return _too_large()
    chunks: list[bytes] = []
    size = 0
    try:
        with anyio.fail_after(BODY_DEADLINE):
            async for chunk in request.stream():
                size += len(chunk)
                if size > MAX_BODY:
                    return _too_large()
                chunks.append(chunk)
    except ClientDisconnect:
        logger.info("URL-mode POST abandoned: the browser went away before sending its form")
        return Response(status_code=400)  # no one is left to read it
    except TimeoutError:
        logger.info("URL-mode POST refused: its form did not arrive within %s s", BODY_DEADLINE)
        return Response("Request body too slow.", status_code=408, media_type="text/plain")
    body = b"".join(chunks)
    sent = False

    async def replay() -> dict[str, Any]:
        nonlocal sent
        if sent:
            return {"type": "http.disconnect"}
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return await Request(request.scope, replay).form()


def _too_large() -> Response:
    return Response("Request body too large.", status_code=413, media_type="text/plain")
