"""`elicitkit client --call`: one tool call against a real server, its form answered from a file."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).parents[2]
ELICITKIT = Path(sys.executable).with_name("elicitkit")
STDIO_SERVER = [sys.executable, str(Path(__file__).with_name("coffee_stdio_server.py"))]


def client(
    *args: str, answers: object | None = None, tmp_path: Path | None = None, lang: str | None = None
) -> subprocess.CompletedProcess[str]:
    command = [str(ELICITKIT), "client", *args]
    if answers is not None:
        assert tmp_path is not None
        path = tmp_path / "answers.json"
        path.write_text(json.dumps(answers))
        command[2:2] = ["--answers", str(path)]
    env = None
    if lang is not None:  # the language the command speaks: LANG alone decides
        env = {k: v for k, v in os.environ.items() if k not in ("LANGUAGE", "LC_ALL", "LC_MESSAGES")}
        env["LANG"] = lang
    return subprocess.run(
        command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60, env=env
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="module")
def conformance_server() -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(ROOT / "examples" / "conformance" / "server.py"), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(url, timeout=1)
                break
            except httpx.TransportError:
                assert process.poll() is None, "the conformance server exited"
                assert time.monotonic() < deadline, "the conformance server did not start"
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=10)


@pytest.mark.parametrize(("protocol", "negotiated"), [("2025-11-25", "2025-11-25"), ("auto", "2026-07-28")])
def test_conformance_server_form_answered(
    conformance_server: str, tmp_path: Path, protocol: str, negotiated: str
) -> None:
    done = client(
        conformance_server,
        "--protocol",
        protocol,
        "--call",
        "test_elicitation",
        "--args",
        '{"message": "Who are you?"}',
        answers=[{"action": "accept", "content": {"username": "alice", "email": "alice@example.com"}}],
        tmp_path=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "User provided: alice <alice@example.com>"
    assert f"Connected to elicitkit-conformance ({negotiated})" in done.stderr
    assert '"Who are you?"' in done.stderr
    assert "email     email, required" in done.stderr


def test_conformance_server_defaults_prefilled(conformance_server: str, tmp_path: Path) -> None:
    done = client(
        conformance_server,
        "--call",
        "test_elicitation_sep1034_defaults",
        answers=[{"action": "accept"}],
        tmp_path=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "accept" in done.stdout and "John Doe" in done.stdout and "95.5" in done.stdout


@pytest.mark.parametrize("protocol", ["2025-11-25", "2026-07-28"])
def test_stdio_server_form_answered(tmp_path: Path, protocol: str) -> None:
    done = client(
        "--protocol",
        protocol,
        "--call",
        "order_coffee",
        "--args",
        '{"name": "Ada"}',
        "--",
        *STDIO_SERVER,
        answers=[{"action": "accept", "content": {"size": "large", "cups": 2}}],
        tmp_path=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2 large coffee(s) for Ada, no milk."
    asker = (
        "tiny-stdio" if protocol == "2025-11-25" else "coffee_stdio_server.py"
    )  # a pinned 2026 client skips discovery
    assert f"{asker}  asks the script to fill in a form:" in done.stderr
    assert "Cups   integer from 1 to 5, default 1" in done.stderr


def test_stdio_server_declined(tmp_path: Path) -> None:
    done = client(
        "--call",
        "order_coffee",
        "--args",
        '{"name": "Ada"}',
        "--",
        *STDIO_SERVER,
        answers=[{"action": "decline"}],
        tmp_path=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "No coffee for Ada (decline)."


def test_an_answer_outside_the_schema_is_never_sent_and_fails_the_command(tmp_path: Path) -> None:
    """The client validates before sending: the question is cancelled, and the command says which
    answer was wrong and why, exiting 2 (not "the person chose cancel" with 0)."""
    done = client(
        "--call",
        "order_coffee",
        "--args",
        '{"name": "Ada"}',
        "--",
        *STDIO_SERVER,
        answers=[{"action": "accept", "content": {"size": "huge"}}],
        tmp_path=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert "elicitkit client  does not send that: 'size'" in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith('Answer 1 of --answers is not valid for "How does Ada like the coffee?"'), last
    assert "'size'" in last and "huge" in last
    assert done.stdout == "" and "Traceback" not in done.stderr


def test_a_question_the_answers_do_not_cover_fails_the_command(tmp_path: Path) -> None:
    done = client("--call", "order_coffee", "--args", '{"name": "Ada"}', "--", *STDIO_SERVER)
    assert done.returncode == 2, done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last == '--answers has no answer 1, for "How does Ada like the coffee?"; add one to the list.'


def test_without_a_terminal_it_says_so_and_names_web_and_answers() -> None:
    done = client("--", *STDIO_SERVER)  # stdin is /dev/null here
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and "NotATerminalError" not in done.stderr
    assert "not one" in done.stderr and "--web" in done.stderr and "--answers" in done.stderr


NOT_FOUND = """
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

class NotFound(BaseHTTPRequestHandler):
    def answer(self):
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()
    do_GET = do_POST = do_DELETE = answer
    def log_message(self, *args):
        pass

HTTPServer(("127.0.0.1", int(sys.argv[1])), NotFound).serve_forever()
"""


def test_a_url_that_answers_404_is_named_with_its_status() -> None:
    port = free_port()
    page = subprocess.Popen([sys.executable, "-c", NOT_FOUND, str(port)], stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}/no/such/mcp"
    try:
        deadline = time.monotonic() + 20
        while httpx_status(url) is None and time.monotonic() < deadline:
            time.sleep(0.1)
        for args in (("--call", "anything"), ("--web",)):
            done = client(url, *args)
            assert done.returncode == 1, done.stderr
            assert "Traceback" not in done.stderr
            assert f"{url} answered HTTP 404" in done.stderr and "MCP endpoint" in done.stderr
    finally:
        page.terminate()
        page.wait(10)


def httpx_status(url: str) -> int | None:
    try:
        return httpx.get(url, timeout=1).status_code
    except httpx.HTTPError:
        return None


def test_a_command_that_is_not_an_mcp_server_ends_in_a_sentence() -> None:
    done = client("--call", "x", "--", sys.executable, "-c", "print('{\"jsonrpc\": 1}')")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr and "ValidationError" not in done.stderr
    assert done.stderr.strip().endswith("Is it an MCP server?"), done.stderr


def test_a_bare_word_is_never_run(tmp_path: Path) -> None:
    made = tmp_path / "made"
    done = client("--call", "x", "touch", str(made))
    assert done.returncode == 2 and not made.exists()
    assert "after --" in done.stderr and "stdio:" in done.stderr
    schemeless = client("--call", "x", "localhost:8000/mcp")
    assert schemeless.returncode == 2 and "http://localhost:8000/mcp" in schemeless.stderr


def test_bad_answers_file_is_a_usage_error(tmp_path: Path) -> None:
    done = client(
        "--call", "order_coffee", "--", *STDIO_SERVER, answers={"action": "accept"}, tmp_path=tmp_path
    )
    assert done.returncode == 2
    assert "The answers must be a JSON list" in done.stderr


def test_arguments_must_be_a_json_object() -> None:
    done = client("--call", "order_coffee", "--args", "[1]", "--", *STDIO_SERVER)
    assert done.returncode == 2
    assert "give the arguments as a JSON object" in done.stderr


def test_a_server_that_is_not_there_is_named_in_a_sentence() -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    done = client(url, "--call", "anything")
    assert done.returncode == 1
    assert done.stderr.strip() == f"Cannot reach {url} (ConnectError); is the server running there?"


def test_a_command_that_does_not_exist_is_named_in_a_sentence() -> None:
    done = client("--call", "anything", "--", "no-such-mcp-server-command")
    assert done.returncode == 1
    assert "Cannot start 'no-such-mcp-server-command': No such file or directory." in done.stderr


def test_the_command_speaks_chinese_under_a_chinese_lang(tmp_path: Path) -> None:
    """Its own lines and the narration in Chinese; the server's words and the result as sent."""
    answers = [{"action": "accept", "content": {"size": "large", "cups": 2}}]
    args = ("--call", "order_coffee", "--args", '{"name": "Ada"}', "--", *STDIO_SERVER)
    done = client(*args, answers=answers, tmp_path=tmp_path, lang="zh_CN.UTF-8")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "2 large coffee(s) for Ada, no milk."  # the tool's result, as sent
    for chinese in (
        "已连接到 tiny-stdio",
        '正在调用 order_coffee {"name": "Ada"}',
        "tiny-stdio  请脚本填写表单",
    ):
        assert chinese in done.stderr, done.stderr
    for english in ("Connected to", "Calling", "asks the script"):
        assert english not in done.stderr, done.stderr
    assert "Connected to tiny-stdio" in client(*args, answers=answers, tmp_path=tmp_path, lang="C").stderr
    gone = client("--call", "anything", "--", "no-such-mcp-server-command", lang="zh_CN.UTF-8")
    assert gone.returncode == 1 and "无法启动 'no-such-mcp-server-command'" in gone.stderr, gone.stderr
    chosen = client(
        "--locale", "en", "--call", "anything", "--", "no-such-mcp-server-command", lang="zh_CN.UTF-8"
    )
    assert "Cannot start 'no-such-mcp-server-command'" in chosen.stderr, chosen.stderr
