"""The README's terminal screenshots, taken from TerminalUI running in a real pseudo-terminal.

tmux runs this file as a program (`python test_terminal_screenshots.py SCENARIO OUT.json`),
the test fills the form or reaches the consent screen with real keys, captures the pane with
its escape codes, and turns it into a PNG: rich reads the escapes and exports an SVG, and
Debian's Chromium (driven by Playwright, never `playwright install`) renders it. Writes
docs/images/terminal-form.png and docs/images/terminal-consent.png
(ELICITKIT_SCREENSHOTS=docs/images to refresh them).
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import shutil
import struct
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.chromium import CHROMIUM, CHROMIUM_ARGS

WIDTH = 92

BOOKING: dict[str, Any] = {
    "type": "object",
    "properties": {
        "day": {"type": "string", "title": "Day", "format": "date"},
        "party": {"type": "integer", "title": "Party size", "minimum": 1, "maximum": 12, "default": 2},
        "seating": {
            "type": "string",
            "title": "Seating",
            "oneOf": [
                {"const": "inside", "title": "Inside"},
                {"const": "terrace", "title": "On the terrace"},
                {"const": "bar", "title": "At the bar"},
            ],
            "default": "inside",
        },
        "diet": {
            "type": "array",
            "title": "Dietary needs",
            "maxItems": 3,
            "items": {
                "anyOf": [
                    {"const": "vegetarian", "title": "Vegetarian"},
                    {"const": "vegan", "title": "Vegan"},
                    {"const": "gluten-free", "title": "Gluten-free"},
                    {"const": "nut-free", "title": "Nut allergy"},
                ]
            },
        },
        "email": {"type": "string", "title": "Email for the confirmation", "format": "email"},
        "high_chair": {"type": "boolean", "title": "High chair", "default": False},
        "note": {"type": "string", "title": "Note", "maxLength": 200, "default": "A quiet table, please"},
    },
    "required": ["day", "party", "email"],
}
CONSENT_URL = "https://accounts.example.com/elicit/7Hq2xVb9"


# -- the program tmux runs --------------------------------------------------------------------


async def _ask(scenario: str) -> Any:
    from elicitkit.client import FormQuestion, TerminalUI, UrlQuestion
    from elicitkit.schema import defaults
    from elicitkit.urls import examine

    ui = TerminalUI()
    if scenario == "form":
        message = "Book a table: which day, how many of you, and where would you like to sit?"
        return await ui.ask_form(FormQuestion("Bistro Tables", message, BOOKING, defaults(BOOKING)))
    report = examine(CONSENT_URL)  # the real inspection, as the handler does it
    message = "Sign in to your calendar account so I can find a free evening."
    return await ui.ask_url_consent(UrlQuestion("Calendar Assistant", message, report))


def _main() -> None:
    scenario, out = sys.argv[1], sys.argv[2]
    reply = asyncio.run(_ask(scenario))
    Path(out).write_text(
        json.dumps({"action": reply.action, **({"data": reply.data} if reply.action == "accept" else {})})
    )
    print("[driver done]")


# -- capture and render -------------------------------------------------------------------------


def _svg(screen: str, title: str) -> str:
    """The captured screen, escapes and all, as rich's terminal-window SVG."""
    from rich.console import Console
    from rich.text import Text

    console = Console(
        record=True, width=WIDTH, force_terminal=True, color_system="truecolor", file=io.StringIO()
    )
    # One decode for the whole screen: tmux does not repeat a style that carries over a line end.
    console.print(Text.from_ansi(screen.rstrip()), overflow="crop", no_wrap=True)
    svg = console.export_svg(title=title)
    # rich links a web font; nothing may be fetched, so use the local monospace font instead.
    svg = re.sub(r"@font-face\s*\{[^}]*\}", "", svg)
    return svg.replace("font-family: Fira Code, monospace", 'font-family: "DejaVu Sans Mono", monospace')


def _png(svg: str, path: Path) -> None:
    from playwright.sync_api import sync_playwright

    html = f"<!doctype html><html><body style='margin:0;background:#ffffff'>{svg}</body></html>"
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(device_scale_factor=2, viewport={"width": 1400, "height": 1000})
            page.route("**/*", lambda route: route.abort())  # nothing leaves the machine
            page.set_content(html)
            page.locator("svg").first.screenshot(path=str(path), omit_background=True)
        finally:
            browser.close()


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _styles_before(line: str, text: str) -> list[str]:
    """The SGR parameters in force where `text` first starts on a line captured with escapes."""
    codes: list[str] = []
    for seq in re.findall(r"\x1b\[([0-9;]*)m", line[: line.index(text)]):
        for code in seq.split(";") if seq else ["0"]:
            codes = [] if code == "0" else [*codes, code]
    return codes


needs_tools = pytest.mark.skipif(
    not (shutil.which("tmux") and CHROMIUM.exists()), reason="needs tmux and /usr/bin/chromium"
)


@pytest.fixture
def pane(tmp_path: Path) -> Any:
    from support.tmux_pane import Pane

    started: list[Pane] = []

    def start(scenario: str, height: int) -> tuple[Pane, Path]:
        out = tmp_path / f"{scenario}.json"
        tests = str(Path(__file__).parents[1])  # this file runs as the program and imports `support`
        command = ["env", f"PYTHONPATH={tests}", sys.executable, __file__, scenario, str(out)]
        started.append(Pane(command, width=WIDTH, height=height))
        return started[-1], out

    yield start
    for p in started:
        p.close()


@needs_tools
def test_form_review_screenshot(pane: Any, screenshots: Path) -> None:
    term, out = pane("form", 22)
    term.wait_for("Day ✱  (1/7)")
    term.type("2026-12-24")
    term.keys("Enter")
    term.wait_for("Party size ✱  (2/7)", "▶ 2")  # pre-filled from the default (C-11)
    term.keys("C-u")
    term.type("4")
    term.keys("Enter")
    term.wait_for("Seating  (3/7)", "On the terrace")
    term.keys("2", "Enter")
    term.wait_for("Dietary needs  (4/7)", "Nut allergy")
    term.keys("Space", "Down", "Down", "Space", "Enter")
    term.wait_for("Email for the confirmation ✱  (5/7)")
    term.type("ada@example.org")
    term.keys("Enter")
    term.wait_for("High chair  (6/7)")
    term.keys("y")
    term.wait_for("Note  (7/7)", "A quiet table, please")
    term.keys("Enter")
    screen = term.wait_for("Review your answers", "▶ Submit answers")
    assert "The server “Bistro Tables” asks you to fill in a form" in screen  # who asks stays in view
    for row in ("Party size", "On the terrace", "Vegetarian, Gluten-free", "ada@example.org"):
        assert row in screen, screen

    time.sleep(0.5)  # let the screen settle before the picture
    captured = term.screen(escapes=True)
    assert "\x1b[" in captured  # the capture holds the real styling, not plain text
    path = screenshots / "terminal-form.png"
    _png(_svg(captured, "elicitkit · TerminalUI · review"), path)
    width, height = _png_size(path)
    assert width > 1000 and height > 600 and path.stat().st_size > 40_000

    term.keys("s")  # and the form really submits what the picture shows
    term.wait_for("[exit 0]")
    assert json.loads(out.read_text()) == {
        "action": "accept",
        "data": {
            "day": "2026-12-24",
            "party": 4,
            "seating": "terrace",
            "diet": ["vegetarian", "gluten-free"],
            "email": "ada@example.org",
            "high_chair": True,
            "note": "A quiet table, please",
        },
    }


@needs_tools
def test_url_consent_screenshot(pane: Any, screenshots: Path) -> None:
    term, out = pane("consent", 12)
    screen = term.wait_for("Open this page?", "Open it in my browser")
    assert f"URL     {CONSENT_URL}" in screen
    assert "Domain  example.com" in screen
    assert "The server “Calendar Assistant” asks you to open a web page" in screen

    time.sleep(0.5)  # let the screen settle before the picture
    captured = term.screen(escapes=True)
    url_line = next(line for line in captured.splitlines() if "7Hq2xVb9" in line)
    assert "7" in _styles_before(url_line, "example.com")  # the registrable domain in reverse video
    assert "7" not in _styles_before(url_line, "accounts.")  # and only the domain
    path = screenshots / "terminal-consent.png"
    _png(_svg(captured, "elicitkit · TerminalUI · URL consent"), path)
    width, height = _png_size(path)
    assert width > 1000 and height > 300 and path.stat().st_size > 20_000

    term.keys("d")
    term.wait_for("[exit 0]")
    assert json.loads(out.read_text()) == {"action": "decline"}


if __name__ == "__main__":
    _main()
