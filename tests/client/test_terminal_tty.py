"""TerminalUI on a real pseudo-terminal: tmux runs the driver, these tests type and read the screen."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from support import tmux_pane

DRIVER = Path(__file__).parent / "terminal_app" / "driver.py"


class Pane(tmux_pane.Pane):
    """The driver in a pane; its reply is the JSON it writes to `out`."""

    def __init__(self, scenario: str, out: Path, width: int, height: int) -> None:
        super().__init__([sys.executable, str(DRIVER), scenario, str(out)], width, height)
        self.out = out

    def reply(self) -> Any:
        screen = self.wait_for("[exit ")
        assert "[exit 0]" in screen, screen
        return json.loads(self.out.read_text())


@pytest.fixture
def start(tmp_path: Path) -> Iterator[Callable[..., Pane]]:
    panes: list[Pane] = []

    def _start(scenario: str, width: int = 100, height: int = 40) -> Pane:
        pane = Pane(scenario, tmp_path / f"{scenario}.json", width, height)
        panes.append(pane)
        return pane

    yield _start
    for pane in panes:
        pane.close()


def test_form_with_every_widget_filled_and_one_answer_changed_on_review(start: Callable[..., Pane]) -> None:
    pane = start("form")
    screen = pane.wait_for("Full name ✱  (1/13)")
    # Who asks and why (C-30); the server's escape sequence is shown, not obeyed.
    assert "The server “Demo \\u001b[31mserver” asks you to fill in a form" in screen
    assert "Tell us about you." in screen
    assert "✱ required answer   Ctrl-D declines   Ctrl-C cancels" in screen
    assert "2 to 40 characters · pattern ^[A-Za-z ]+$" in screen
    pane.type("R2")
    pane.keys("Enter")
    pane.wait_for("Must match the pattern ^[A-Za-z ]+$.")
    pane.keys("C-u")
    pane.type("Ada Lovelace")
    pane.keys("Enter")

    pane.wait_for("Email ✱  (2/13)", "an email address")
    pane.type("ada@")
    pane.keys("Enter")
    pane.wait_for("Enter an email address, like name@example.com.")
    pane.type("example.org")
    pane.keys("Enter")

    pane.wait_for("Homepage  (3/13)")
    pane.type("https://ada.example.org/")
    pane.keys("Enter")

    pane.wait_for("Birthday  (4/13)", "a date, YYYY-MM-DD", "▶ e.g. YYYY-MM-DD")  # a faint example
    pane.type("1815-12-10")
    pane.keys("Enter")

    pane.wait_for("Meeting time  (5/13)")
    pane.type("2025-06-01T09:30:00")
    pane.keys("Enter")
    pane.wait_for("Enter a date and time with a time zone")
    pane.type("Z")
    pane.keys("Enter")

    pane.wait_for("Age ✱  (6/13)", "a whole number · 0 to 150")
    pane.type("200")
    pane.keys("Enter")
    pane.wait_for("Must be at most 150.")
    pane.keys("C-u")
    pane.type("36")
    pane.keys("Enter")

    pane.wait_for("Budget  (7/13)", "▶ 2.5")  # pre-filled from `initial` (C-11)
    pane.keys("Enter")

    pane.wait_for("Newsletter  (8/13)", "Yes", "No")
    pane.keys("y")

    pane.wait_for("Size ✱  (9/13)", "1. s", "2. m", "3. l")
    pane.keys("Down", "Enter")

    pane.wait_for("Color  (10/13)", "1. Red", "2. Green", "3. Blue", "4. No answer")
    pane.keys("3", "Enter")

    pane.wait_for("Plan  (11/13)", "1. Free", "2. Pro")  # legacy enumNames titles
    pane.keys("2", "Enter")

    pane.wait_for("Toppings ✱  (12/13)", "choose 1 to 2", "[ ] cheese")
    pane.keys("Space", "Down", "Space", "Down", "Space", "Enter")
    pane.wait_for("Choose at most 2.")
    pane.keys("Space")
    pane.wait_for("2 chosen")
    pane.keys("Enter")

    pane.wait_for("Days  (13/13)", "[ ] Monday", "[ ] Tuesday")
    pane.keys("Down", "Space", "Enter")

    screen = pane.wait_for("Review your answers", "▶ Submit answers")
    for row in (
        "Full name    ✱ Ada Lovelace",
        "Age          ✱ 36",
        "Newsletter     yes",
        "Size         ✱ m",
        "Color          Blue",
        "Plan           Pro",
        "Toppings     ✱ cheese, olives",
        "Days           Tuesday",
    ):
        assert row in screen, screen

    # Change one answer from the review screen (C-10).
    pane.keys(*["Up"] * 8)
    pane.wait_for("▶ Age")
    pane.keys("Enter")
    pane.wait_for("Age ✱  (change)", "▶ 36")
    pane.keys("C-u")
    pane.type("37")
    pane.keys("Enter")
    pane.wait_for("Review your answers", "Age          ✱ 37")
    pane.keys("s")

    assert pane.reply() == {
        "action": "accept",
        "data": {
            "name": "Ada Lovelace",
            "email": "ada@example.org",
            "homepage": "https://ada.example.org/",
            "birthday": "1815-12-10",
            "meeting": "2025-06-01T09:30:00Z",
            "age": 37,
            "budget": 2.5,
            "newsletter": True,
            "size": "m",
            "color": "#00f",
            "plan": "pro",
            "toppings": ["cheese", "olives"],
            "days": ["tue"],
        },
    }
    assert "✓ Answers submitted:" in pane.screen()


def test_ctrl_d_declines_a_form(start: Callable[..., Pane]) -> None:
    pane = start("small")
    pane.wait_for("Name ✱  (1/1)", "Ctrl-D: decline")
    pane.keys("C-d")
    assert pane.reply() == {"action": "decline"}
    assert "Declined." in pane.screen()


@pytest.mark.parametrize(
    ("key", "action", "said"), [("C-d", "decline", "Declined."), ("C-c", "cancel", "Cancelled.")]
)
def test_a_key_pressed_as_soon_as_the_question_shows_reaches_its_screen(
    start: Callable[..., Pane], key: str, action: str, said: str
) -> None:
    """On a slow terminal the header shows seconds before the first screen is up: a key pressed
    then waits for that screen (it used to reach the terminal's line discipline, which turned
    Ctrl-D into an end of file the form never saw and Ctrl-C into SIGINT, which killed the program)."""
    pane = start("slow")
    screen = pane.wait_for("What is your name?")
    assert "Name ✱  (1/1)" not in screen  # the first screen is not up yet
    pane.keys(key)
    assert pane.reply() == {"action": action}
    assert said in pane.screen()


def test_d_on_the_review_screen_declines(start: Callable[..., Pane]) -> None:
    pane = start("small")
    pane.wait_for("Name ✱  (1/1)")
    pane.type("Ada")
    pane.keys("Enter")
    pane.wait_for("Review your answers", "d: decline")
    pane.keys("d")
    assert pane.reply() == {"action": "decline"}


def test_ctrl_c_cancels_a_form(start: Callable[..., Pane]) -> None:
    pane = start("small")
    pane.wait_for("Name ✱  (1/1)", "Ctrl-C: cancel")
    pane.type("Ad")
    pane.keys("C-c")
    assert pane.reply() == {"action": "cancel"}
    assert "Cancelled." in pane.screen()


def test_required_answer_cannot_be_left_empty(start: Callable[..., Pane]) -> None:
    pane = start("small")
    pane.wait_for("Name ✱  (1/1)")
    pane.keys("Enter")
    pane.wait_for("This answer is required.")
    pane.type("Ada")
    pane.keys("Enter")
    pane.wait_for("Review your answers")
    pane.keys("Enter")  # Submit is selected
    assert pane.reply() == {"action": "accept", "data": {"name": "Ada"}}


def test_a_refused_line_says_why_right_under_its_field_and_its_rules(start: Callable[..., Pane]) -> None:
    """The refusal stands between the field's rules and the line typed, not at the screen's foot."""
    pane = start("form", width=80, height=40)
    pane.wait_for("Full name ✱  (1/13)")
    pane.type("x")
    pane.keys("Enter")
    screen = pane.wait_for("Must be at least 2 characters.")
    lines = [line.rstrip() for line in screen.splitlines()]
    at = next(i for i, line in enumerate(lines) if "Must be at least 2 characters." in line)
    assert "2 to 40 characters" in lines[at - 1], screen
    assert lines[at + 1] == "▶ x", screen
    pane.type("y")  # typing again clears the refusal; Enter says the next thing wrong
    screen = pane.wait_for("▶ xy")
    assert "Must be at least" not in screen, screen
    pane.keys("C-c")
    assert pane.reply()["action"] == "cancel"


def test_the_form_header_is_never_cut_at_a_narrow_width(start: Callable[..., Pane]) -> None:
    """Who asks, and the keys, are read whole: wrapped inside the panel when the border is too short."""
    pane = start("form", width=44, height=40)
    screen = pane.wait_for("Full name ✱  (1/13)")
    header = screen.split("Full name")[0]
    words = " ".join(re.sub(r"[╭╮╰╯│─]", " ", header).split())
    assert "asks you to fill in a form" in words, screen
    assert "✱ required answer Ctrl-D declines Ctrl-C cancels" in words, screen
    assert all(len(line.rstrip()) <= 44 for line in header.splitlines())
    pane.keys("C-c")
    assert pane.reply()["action"] == "cancel"


def test_refused_answer_shows_its_problem_next_to_the_field(start: Callable[..., Pane]) -> None:
    pane = start("problems")
    screen = pane.wait_for("Review your answers", "Some answers need fixing.")
    assert "▶  1. Name ✱ R2D2   ⚠ Letters only, please." in screen  # selected: the answer to fix
    pane.keys("Enter")
    pane.wait_for("Name ✱  (change)", "⚠ Letters only, please.", "▶ R2D2")
    pane.keys("C-u")
    pane.type("Artoo")
    pane.keys("Enter")
    screen = pane.wait_for("Name ✱ Artoo")
    assert "Letters only" not in screen.split("Review your answers")[-1]
    pane.keys("s")
    assert pane.reply() == {"action": "accept", "data": {"name": "Artoo"}}


def _styles_before(line: str, text: str) -> list[str]:
    """The SGR parameters in force where `text` first starts on a line captured with escapes."""
    codes: list[str] = []
    for seq in re.findall(r"\x1b\[([0-9;]*)m", line[: line.index(text)]):
        for code in seq.split(";") if seq else ["0"]:
            codes = [] if code == "0" else [*codes, code]
    return codes


def test_url_consent_highlights_the_registrable_domain(start: Callable[..., Pane]) -> None:
    pane = start("url-ok")
    screen = pane.wait_for("Open this page?", "Open it in my browser")
    assert "The server “Demo server” asks you to open a web page" in screen
    assert "URL     https://login.example.com/elicit/abc123" in screen
    assert "Domain  example.com" in screen
    assert "Host    login.example.com" in screen
    url_line = next(line for line in pane.screen(escapes=True).splitlines() if "abc123" in line)
    assert "7" in _styles_before(url_line, "example.com")  # reverse video on the domain
    assert "7" not in _styles_before(url_line, "login.")
    after = url_line[url_line.index("example.com") + len("example.com") :]
    assert after.startswith("\x1b[") and "/elicit/abc123" in after  # the highlight ends with the domain
    pane.keys("o")
    assert pane.reply() == {"action": "accept", "data": None}
    assert "the page opens in your system browser" in pane.screen()


def test_url_consent_shows_both_host_forms_and_warnings_and_defaults_to_decline(
    start: Callable[..., Pane],
) -> None:
    pane = start("url-idn")
    screen = pane.wait_for("Open this page?")
    assert "URL     https://xn--exmple-cua.com/pay" in screen
    assert "Domain  exämple.com\n        xn--exmple-cua.com  (punycode: what the browser uses)" in screen
    assert "⚠ Look closely before opening it:" in screen
    assert "[punycode]" in screen
    assert "▶  2. Don't open it (decline)" in screen  # a warning never defaults to opening
    pane.keys("Enter")
    assert pane.reply() == {"action": "decline"}


def test_blocked_url_offers_no_open_choice_and_ctrl_c_cancels(start: Callable[..., Pane]) -> None:
    pane = start("url-block")
    screen = pane.wait_for("Open this page?")
    assert "URL     https://good.com@evil.example.co.uk/pay" in screen
    assert "Domain  example.co.uk" in screen
    assert "Host    evil.example.co.uk" in screen
    assert "✖ This URL is blocked: it will not be opened." in screen
    assert "[userinfo]" in screen
    assert "Open it in my browser" not in screen and "o: open" not in screen
    url_line = next(line for line in pane.screen(escapes=True).splitlines() if "/pay" in line)
    assert "7" in _styles_before(url_line, "example.co.uk")
    assert "4" in _styles_before(url_line, "good.com@")  # the userinfo trick is marked
    pane.keys("o")  # no such key here
    time.sleep(0.3)
    assert "Open this page?" in pane.screen()
    pane.keys("C-c")
    assert pane.reply() == {"action": "cancel"}


def test_wait_ticks_shows_notices_and_retries_on_r(start: Callable[..., Pane]) -> None:
    pane = start("wait")
    screen = pane.wait_for("Waiting for “Demo server”: 1 step to finish in your browser", "r: retry now")
    assert "• Connect your calendar  (el-1)" in screen
    first = re.search(r"(\d\d:\d\d)\n", screen)
    assert first is not None and first.group(1) >= "01:05"
    pane.wait_for("◆ elicitation el-1 completed", "Waiting for")  # a notice lands above the live panel
    deadline = time.monotonic() + tmux_pane.PATIENCE
    while re.search(r"(\d\d:\d\d)\n", pane.screen()).group(1) == first.group(1):  # type: ignore[union-attr]
        assert time.monotonic() < deadline, "the elapsed time never ticked"
        time.sleep(0.1)
    pane.keys("r")
    assert pane.reply() == "retry"


def test_wait_presses_the_choice_after_a_timeout_and_c_cancels(start: Callable[..., Pane]) -> None:
    pane = start("wait-timeout")
    pane.wait_for("No completion came in time. Retry the call now (r), or cancel it (c)?")
    pane.keys("c")
    assert pane.reply() == "cancel"


def test_the_terminal_works_again_after_the_handler_stops_a_wait(start: Callable[..., Pane]) -> None:
    pane = start("wait-done")
    pane.wait_for("Waiting for")
    screen = pane.wait_for("Name ✱  (1/1)")
    assert "Waiting for" not in screen
    pane.type("Ada")
    pane.keys("Enter")
    pane.wait_for("Review your answers")
    pane.keys("s")
    assert pane.reply() == {
        "wait": "stopped by the handler",
        "then": {"action": "accept", "data": {"name": "Ada"}},
    }


def test_a_notice_and_an_anyio_cancel_scope_end_the_wait_cleanly(start: Callable[..., Pane]) -> None:
    pane = start("wait-anyio")
    pane.wait_for("Waiting for")
    screen = pane.wait_for("◆ Demo server: an elicitation completed.", "Name ✱  (1/1)")
    assert "Waiting for" not in screen
    pane.type("Ada")
    pane.keys("Enter")
    pane.wait_for("Review your answers")
    pane.keys("s")
    assert pane.reply() == {
        "wait": "stopped by the handler",
        "then": {"action": "accept", "data": {"name": "Ada"}},
    }


def test_refuses_to_start_without_a_terminal(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(DRIVER), "small", str(tmp_path / "out.json")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 3
    assert "TerminalUI needs a person at a terminal, but stdin is not a TTY" in done.stderr
