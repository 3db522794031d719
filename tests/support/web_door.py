"""Into a `WebUI`'s page the way a browser gets in: read the file it opens, post its code.

`WebUI.url` (what the UI hands a browser) is the `file://` URL of a page only this user can
read; that page posts a one-time code to the page's address, and the answer sets the session
cookie. A test's HTTP client does the same and then holds the cookie.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import httpx


def way_in(url: str) -> tuple[str, str]:
    """The page's address (`http://127.0.0.1:PORT/`) and the code the file at `url` holds now."""
    html = Path(unquote(urlsplit(url).path)).read_text(encoding="utf-8")
    action = re.search(r'<form method="post" action="([^"]+)/enter"', html)
    code = re.search(r'name="code" value="([^"]+)"', html)
    assert action is not None and code is not None, html
    return action.group(1) + "/", code.group(1)


async def enter(http: httpx.AsyncClient, url: str) -> str:
    """Let `http` in through the file at `url`; returns the page's address."""
    address, code = way_in(url)
    response = await http.post(address + "enter", data={"code": code})
    assert response.status_code == 200 and response.cookies, response.text
    return address


def enter_now(http: httpx.Client, url: str) -> str:
    """`enter`, for a blocking client."""
    address, code = way_in(url)
    response = http.post(address + "enter", data={"code": code})
    assert response.status_code == 200 and response.cookies, response.text
    return address


def command_lines() -> list[str]:
    """Every argument of every process on this machine, as any local user reads them
    (`/proc/PID/cmdline` is world-readable)."""
    found: list[str] = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            found += [part.decode(errors="replace") for part in cmdline.read_bytes().split(b"\0") if part]
        except OSError:  # the process ended meanwhile
            continue
    return found


_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,}")
_LINK = re.compile(r"https?://[^\s\"'<>]+")


def usable_secrets(address: str, texts: list[str], asked: str) -> list[str]:
    """The pieces of `texts` that let a stranger (a client with no cookie) see the page at
    `address` showing `asked`: a URL, a path token after the address, or a code at its door."""
    pieces = {match for text in texts for match in _LINK.findall(text) if match.startswith(address)}
    pieces |= {match for text in texts for match in _TOKEN.findall(text)}
    usable: list[str] = []
    for piece in sorted(pieces):
        with httpx.Client(timeout=10) as stranger:
            tries = [piece] if piece.startswith("http") else [f"{address}{piece}/", f"{address}{piece}"]
            seen = [stranger.get(url) for url in tries]
            if not piece.startswith("http"):
                stranger.post(address + "enter", data={"code": piece})
                seen.append(stranger.get(address))
        if any(response.status_code == 200 and asked in response.text for response in seen):
            usable.append(piece)
    return usable
