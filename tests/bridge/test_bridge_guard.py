"""Who can drive `elicitkit bridge --listen`: a web page cannot, another user of the machine
cannot, and the person's host still can.

The bridge holds the person's sign-in upstream. Behind it here is a server that writes down
every request it gets (upstream_recording.py), so each refusal is checked twice: the answer
the attacker gets, and that nothing reached the server. Attacks are sent as a page would send
them (a foreign Host after DNS rebinding, a foreign or `null` Origin, a form post) on every bind
address this machine has, to a new session, to a live 2025-11-25 session that declared no
elicitation and to one that declared it, each with the right credential, so the Host, Origin and
content-type checks are shown on their own.
"""

from __future__ import annotations

import asyncio
import json
import re
import socket
import stat
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from bridge_harness import HERE, PY, ROOT, environment, http_process
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import ElicitResult
from playwright.async_api import Browser
from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Mount
from starlette.types import ASGIApp, Receive, Scope, Send
from support.oidc_peer import OidcPeer
from support.server_process import free_port, stop
from support.url_harness import serve
from test_authorization import build_mcp, call_whoami, sign_in_with_chromium

from elicitkit.bridge import Bridge, Credential, upstream_auth
from elicitkit.errors import ConfigurationError

pytestmark = pytest.mark.timeout(300)

ACCEPT = "application/json, text/event-stream"
UPSTREAM_TOKEN = "Bearer upstream-token-0b6f-never-in-argv"


# -- the server behind, and the bridge in front ---------------------------------------------


@dataclass
class Recording:
    url: str
    log: Path

    def requests(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log.read_text().splitlines() if line]


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Recording]:
    folder = tmp_path_factory.mktemp("upstream")
    log = folder / "requests.jsonl"
    log.touch()
    command = [PY, str(HERE / "upstream_recording.py"), "PORT", str(log)]
    with http_process(command, folder / "upstream.out") as url:
        yield Recording(url, log)


@dataclass
class Running:
    """A bridge process: the URL a host on this machine uses, the credential it showed, its stderr."""

    process: subprocess.Popen[bytes]
    url: str
    port: int
    credential: str | None
    stderr: Path

    def said(self) -> str:
        return self.stderr.read_text()


CONNECT = {
    "127.0.0.1": "127.0.0.1",
    "::1": "[::1]",
    "localhost": "localhost",
    "0.0.0.0": "127.0.0.1",
    "::": "[::1]",
}
"""Where a host on this machine reaches a bridge bound to each address (`::` is IPv6 only)."""


@contextmanager
def bridge(
    upstream: str, bind: str, folder: Path, *options: str, port: int = 0, env: dict[str, str] | None = None
) -> Iterator[Running]:
    """`elicitkit bridge --listen BIND:PORT` as a person runs it; yields once it says it serves."""
    port = port or free_port()
    listen = f"[{bind}]:{port}" if ":" in bind else f"{bind}:{port}"
    stderr = folder / f"bridge-{port}-{time.monotonic_ns()}.err"
    env = env or environment(XDG_STATE_HOME=str(folder / "state"))
    with stderr.open("wb") as sink:
        process = subprocess.Popen(
            [PY, "-m", "elicitkit", "bridge", "--listen", listen, *options, upstream],
            stdout=subprocess.DEVNULL,
            stderr=sink,
            env=env,
            cwd=ROOT,
        )
    try:
        deadline = time.monotonic() + 60
        while "serving MCP at" not in stderr.read_text():
            if process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the bridge did not start ({process.poll()}):\n{stderr.read_text()}")
            time.sleep(0.05)
        shown = re.search(r'"Authorization": "(Bearer [^"]+)"', stderr.read_text())
        yield Running(
            process, f"http://{CONNECT[bind]}:{port}/mcp", port, shown.group(1) if shown else None, stderr
        )
    finally:
        stop(process)


# -- a host by hand, and a real one ---------------------------------------------------------


def initialize(capabilities: dict[str, Any]) -> dict[str, Any]:
    params = {
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities,
        "clientInfo": {"name": "h", "version": "1"},
    }
    return {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}


CALL = {
    "jsonrpc": "2.0",
    "id": 7,
    "method": "tools/call",
    "params": {"name": "act", "arguments": {"what": "pay"}},
}


async def open_session(
    http: httpx.AsyncClient, url: str, credential: str | None, capabilities: dict[str, Any]
) -> dict[str, str]:
    """A live 2025-11-25 session opened as a host opens it: the headers its requests carry."""
    headers = {"accept": ACCEPT, "content-type": "application/json"}
    if credential is not None:
        headers["authorization"] = credential
    response = await http.post(url, json=initialize(capabilities), headers=headers)
    assert response.status_code == 200, response.text
    headers |= {"mcp-session-id": response.headers["mcp-session-id"], "mcp-protocol-version": "2025-11-25"}
    done = await http.post(
        url, json={"jsonrpc": "2.0", "method": "notifications/initialized"}, headers=headers
    )
    assert done.status_code == 202, done.text
    return headers


@asynccontextmanager
async def real_host(
    url: str, credential: str, *, answers: bool, **headers: str
) -> AsyncIterator[tuple[Client, list[tuple[str, str]]]]:
    """The SDK's `mcp.Client` over Streamable HTTP with the credential; with `answers`, it
    declares elicitation, else none. Yields it and, per POST, the JSON-RPC method sent and the
    type of the response."""
    seen: list[tuple[str, str]] = []

    async def note(response: httpx2.Response) -> None:
        if response.request.method == "POST":
            sent = json.loads(response.request.content or b"{}")
            seen.append((sent.get("method", ""), response.headers.get("content-type", "").split(";")[0]))

    async def accept(context: Any, params: Any) -> ElicitResult:
        return ElicitResult(action="decline")

    http = httpx2.AsyncClient(
        headers={"Authorization": credential, **headers}, event_hooks={"response": [note]}, timeout=30
    )
    transport = streamable_http_client(url, http_client=http)
    async with (
        http,
        Client(transport, mode="legacy", elicitation_callback=accept if answers else None) as client,
    ):
        yield client, seen


async def works_both_ways(url: str, credential: str, recording: Recording, **headers: str) -> None:
    """A host with the credential, declaring elicitation or not: its calls reach the server."""
    for answers in (False, True):
        before = len(recording.requests())
        async with real_host(url, credential, answers=answers, **headers) as (client, seen):
            for _ in range(2):
                result = await client.call_tool("act", {"what": "tea"})
                assert not result.is_error and result.content[0].text == "done: tea"  # type: ignore[union-attr]
        assert [method for method, _ in seen].count("tools/call") == 2, seen
        assert "tools/call" in [request["method"] for request in recording.requests()[before:]]


# -- what a web page sends ------------------------------------------------------------------

ATTACKS: dict[str, tuple[dict[str, str], int]] = {
    "a foreign Host (DNS rebinding)": ({"host": "evil.example:{port}"}, 403),
    "a foreign Origin": ({"origin": "http://evil.example"}, 403),
    "Origin: null": ({"origin": "null"}, 403),
    "a form post from a page (text/plain)": (
        {"origin": "http://evil.example", "content-type": "text/plain"},
        403,
    ),
    "a form post from a page (urlencoded)": (
        {"origin": "http://evil.example", "content-type": "application/x-www-form-urlencoded"},
        403,
    ),
    "a text/plain post with no Origin": ({"content-type": "text/plain"}, 415),
}


def refusal(response: httpx.Response, status: int) -> str | None:
    """What is wrong with `response` as a refusal: the status, and a JSON-RPC error with a sentence."""
    if response.status_code != status:
        return f"{response.status_code} {response.text[:200]!r}"
    try:
        body = response.json()
    except ValueError:
        return f"not JSON: {response.text[:200]!r}"
    error = body.get("error") if isinstance(body, dict) else None
    if (
        body.get("jsonrpc") != "2.0"
        or not isinstance(error, dict)
        or not str(error.get("message", "")).endswith(".")
    ):
        return f"not a JSON-RPC error with a sentence: {body}"
    return None


async def page_attacks(url: str, port: int, credential: str | None, recording: Recording) -> None:
    """Every attack on every path is refused, and the server behind saw nothing of them."""
    async with httpx.AsyncClient(timeout=30) as http:
        plain = await open_session(http, url, credential, {})
        answering = await open_session(http, url, credential, {"elicitation": {"form": {}, "url": {}}})
        paths = {
            "initialize": (
                initialize({}),
                {"accept": ACCEPT, "content-type": "application/json"},
            ),
            "a call, no elicitation declared": (CALL, plain),
            "a call, elicitation declared": (CALL, answering),
        }
        before = recording.requests()
        problems = []
        for path, (message, headers) in paths.items():
            for attack, (changes, status) in ATTACKS.items():
                sent = {**headers, **{k: v.format(port=port) for k, v in changes.items()}}
                if credential is not None:
                    sent["authorization"] = credential
                response = await http.post(url, content=json.dumps(message).encode(), headers=sent)
                wrong = refusal(response, status)
                if wrong is not None:
                    problems.append(f"{attack}, {path}: {wrong}")
        assert not problems, "\n".join(problems)
        assert recording.requests() == before, "a refused request reached the server"


BINDS = [
    ("127.0.0.1", ()),
    ("::1", ()),
    ("localhost", ()),
    ("0.0.0.0", ("--expose", "--allow-host", "bridge.lan")),
    ("::", ("--expose", "--allow-host", "bridge.lan")),
]


@pytest.mark.parametrize(("bind", "options"), BINDS, ids=[bind for bind, _ in BINDS])
async def test_a_web_page_cannot_drive_the_bridge_on_any_bind_address(
    bind: str, options: tuple[str, ...], recording: Recording, tmp_path: Path
) -> None:
    with bridge(recording.url, bind, tmp_path, *options) as running:
        assert running.credential is not None, running.said()
        if "--expose" in options:  # beyond loopback: said once, in one sentence
            warned = [line for line in running.said().splitlines() if "reachable from other machines" in line]
            assert len(warned) == 1 and warned[0].endswith("."), running.said()
        await page_attacks(running.url, running.port, running.credential, recording)
        await works_both_ways(running.url, running.credential, recording)
        if "--allow-host" in options:  # a name the person gave is good, on the bridge's port
            async with httpx.AsyncClient(timeout=30) as http:
                named = {"host": f"bridge.lan:{running.port}", "authorization": running.credential}
                response = await http.post(
                    running.url, json=initialize({}), headers={"accept": ACCEPT, **named}
                )
                assert response.status_code == 200, response.text


async def test_a_web_page_cannot_drive_the_library_app(recording: Recording) -> None:
    """`Bridge.asgi_app` in a program: the same guard, the same refusals, the credential it was given."""
    credential = Credential.generate()
    bridge_app = Bridge(recording.url, answer="host")
    async with serve(lambda url: bridge_app.asgi_app(credential=credential)) as base:
        port = int(base.rsplit(":", 1)[1])
        await page_attacks(f"{base}/mcp", port, credential.header, recording)
        await local_user_attacks(f"{base}/mcp", credential.header, recording)
        await works_both_ways(f"{base}/mcp", credential.header, recording)


# -- what another user of the machine can do ---------------------------------------------------

WRONG = {
    "no credential": None,
    "a wrong credential": "Bearer " + "x" * 43,
    "the credential without its scheme": "{secret}",
    "the credential as Basic": "Basic {secret}",
}


async def local_user_attacks(url: str, credential: str, recording: Recording) -> None:
    """Without the credential, or with a wrong one: 401 with `WWW-Authenticate: Bearer` and a
    sentence, on a new session and on live sessions; nothing goes upstream."""
    secret = credential.removeprefix("Bearer ")
    async with httpx.AsyncClient(timeout=30) as http:
        plain = await open_session(http, url, credential, {})
        answering = await open_session(http, url, credential, {"elicitation": {"form": {}}})
        paths = {
            "initialize": (initialize({}), {"accept": ACCEPT, "content-type": "application/json"}),
            "a session that declared no elicitation": (CALL, plain),
            "a session that declared it": (CALL, answering),
        }
        before = recording.requests()
        problems = []
        for path, (message, headers) in paths.items():
            for name, given in WRONG.items():
                sent = {k: v for k, v in headers.items() if k != "authorization"}
                if given is not None:
                    sent["authorization"] = given.format(secret=secret)
                response = await http.post(url, json=message, headers=sent)
                wrong = refusal(response, 401)
                if wrong is None and not response.headers.get("www-authenticate", "").startswith("Bearer"):
                    wrong = f"WWW-Authenticate is {response.headers.get('www-authenticate')!r}"
                if wrong is not None:
                    problems.append(f"{name}, {path}: {wrong}")
        assert not problems, "\n".join(problems)
        assert recording.requests() == before, "a request without the credential reached the server"


def modes_from(top: Path, leaf: Path) -> dict[str, str]:
    """The mode of `leaf` and of every folder from `top` down to it."""
    found = {}
    step = leaf
    while True:
        found[str(step.relative_to(top.parent))] = f"{stat.S_IMODE(step.stat().st_mode):04o}"
        if step == top:
            return found
        step = step.parent


async def test_another_local_user_without_the_credential_reaches_nothing(
    recording: Recording, tmp_path: Path
) -> None:
    with bridge(recording.url, "127.0.0.1", tmp_path) as running:
        assert running.credential is not None, running.said()
        await local_user_attacks(running.url, running.credential, recording)


async def test_the_credential_is_shown_once_and_kept_for_its_owner_alone(
    recording: Recording, tmp_path: Path
) -> None:
    state = tmp_path / "state" / "xdg"  # neither exists yet: the bridge makes both
    env = environment(XDG_STATE_HOME=str(state))
    port = free_port()
    with bridge(recording.url, "127.0.0.1", tmp_path, port=port, env=env) as first:
        assert first.credential is not None
        shown = [line for line in first.said().splitlines() if first.credential in line]
        assert len(shown) == 1, first.said()
        kept = Path(re.search(r"kept in (\S+);", first.said()).group(1))  # type: ignore[union-attr]
        assert kept.read_text().strip() == first.credential.removeprefix("Bearer ")
        modes = modes_from(tmp_path / "state", kept)
        assert modes.pop(str(kept.relative_to(tmp_path))) == "0600"
        assert set(modes.values()) == {"0700"}, modes
    with bridge(recording.url, "127.0.0.1", tmp_path, port=port, env=env) as again:
        assert again.credential is None and "Bearer" not in again.said(), again.said()
        assert str(kept) in again.said()  # where it is kept, for a person who needs it again
        async with httpx.AsyncClient(timeout=30) as http:
            await open_session(http, again.url, first.credential, {})


async def test_a_rotated_credential_takes_over_in_the_running_bridge(
    recording: Recording, tmp_path: Path
) -> None:
    with bridge(recording.url, "127.0.0.1", tmp_path) as running:
        assert running.credential is not None
        env = environment(XDG_STATE_HOME=str(tmp_path / "state"))
        rotated = subprocess.run(
            [
                PY,
                "-m",
                "elicitkit",
                "bridge",
                "--listen",
                f"127.0.0.1:{running.port}",
                "--rotate-credential",
                recording.url,
            ],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            check=False,
        )
        assert rotated.returncode == 0, rotated.stderr
        new = re.search(r'"Authorization": "(Bearer [^"]+)"', rotated.stderr)
        assert new is not None and new.group(1) != running.credential
        async with httpx.AsyncClient(timeout=30) as http:
            old = await http.post(
                running.url,
                json=initialize({}),
                headers={"accept": ACCEPT, "authorization": running.credential},
            )
            assert refusal(old, 401) is None
            await open_session(http, running.url, new.group(1), {})


@pytest.mark.parametrize("given", ["--header-env", "--header-file"])
async def test_the_upstream_token_is_in_no_command_line(
    given: str, recording: Recording, tmp_path: Path
) -> None:
    """Another user reads every process's command line (`ps`, /proc/PID/cmdline); the upstream
    token given by variable or by file is not in the bridge's, yet reaches the server."""
    env = environment(XDG_STATE_HOME=str(tmp_path / "state"), UPSTREAM_TOKEN=UPSTREAM_TOKEN)
    if given == "--header-env":
        options = ("--header-env", "Authorization=UPSTREAM_TOKEN")
    else:
        headers = tmp_path / "upstream.headers"
        headers.write_text(f"# the token for the recording server\nAuthorization: {UPSTREAM_TOKEN}\n")
        headers.chmod(0o600)
        options = ("--header-file", str(headers))
        env.pop("UPSTREAM_TOKEN")
    before = len(recording.requests())
    with bridge(recording.url, "127.0.0.1", tmp_path, *options, env=env) as running:
        assert running.credential is not None
        argv = Path(f"/proc/{running.process.pid}/cmdline").read_bytes()
        assert b"upstream-token" not in argv and running.credential.encode() not in argv
        await works_both_ways(running.url, running.credential, recording)
    sent = {request["authorization"] for request in recording.requests()[before:]}
    assert sent == {UPSTREAM_TOKEN}


def run_bridge(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [PY, "-m", "elicitkit", "bridge", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env=env or environment(),
        check=False,
        cwd=ROOT,
    )


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604], ids=["0644", "0640", "0604"])
def test_a_header_file_others_may_read_is_refused(mode: int, tmp_path: Path) -> None:
    headers = tmp_path / "upstream.headers"
    headers.write_text(f"Authorization: {UPSTREAM_TOKEN}\n")
    headers.chmod(mode)
    done = run_bridge("--header-file", str(headers), f"http://127.0.0.1:{free_port()}/mcp")
    assert done.returncode == 2, done.stderr
    said = re.sub(r"[\s│╭╰─╮╯]+", " ", done.stderr)
    assert f"mode {mode:04o}" in said and "chmod 600" in said and "upstream-token" not in said


def test_a_port_in_use_is_one_sentence_and_nothing_else(recording: Recording, tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = run_bridge(
            "--listen", f"127.0.0.1:{port}", recording.url, env=environment(XDG_STATE_HOME=str(tmp_path))
        )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("elicitkit bridge: ") and f"127.0.0.1:{port}" in lines[0]
    assert "another program listens there" in lines[0] and "choose another port" in lines[0]


@pytest.mark.parametrize(
    ("options", "said"),
    [
        (("--listen", "0.0.0.0:{port}"), "add --expose"),
        (("--listen", "[::]:{port}"), "add --expose"),
        (("--listen", "0.0.0.0:{port}", "--expose", "--no-credential"), "the credential is required"),
        (("--no-credential",), "goes with --listen"),
    ],
    ids=["0.0.0.0", "::", "no credential beyond loopback", "no credential over stdio"],
)
def test_listening_beyond_loopback_needs_expose_and_the_credential(
    options: tuple[str, ...], said: str
) -> None:
    done = run_bridge(*(option.format(port=free_port()) for option in options), "http://127.0.0.1:9/mcp")
    assert done.returncode == 2, done.stderr
    assert said in re.sub(r"[\s│╭╰─╮╯]+", " ", done.stderr)


async def test_the_library_refuses_no_credential_beyond_loopback(recording: Recording) -> None:
    with pytest.raises(ConfigurationError, match="needs a credential"):
        await Bridge(recording.url).serve_http("0.0.0.0", free_port(), credential=None)


class GatewayKey:
    """A gateway's own authentication in front of the bridge: its key, or its own 401."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and dict(scope["headers"]).get(b"x-gateway-key") != b"k" * 32:
            await JSONResponse({"error": "gateway key"}, status_code=401)(scope, receive, send)
            return
        await self.app(scope, receive, send)


async def test_a_gateway_that_authenticates_in_front_uses_the_app_without_its_credential(
    recording: Recording,
) -> None:
    """`asgi_app(credential=None)` behind the gateway's own sign-in, reached by the gateway's
    name: its hosts work on both ways, and a page is still refused by the bridge's guard."""
    crm = Bridge(recording.url, answer="host").asgi_app(credential=None, allowed_hosts=["gateway.example"])

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with crm.router.lifespan_context(crm):
            yield

    gateway = Starlette(routes=[Mount("/crm", app=GatewayKey(crm))], lifespan=lifespan)
    async with serve(lambda url: gateway) as base:
        url = f"{base}/crm/mcp"
        named = {"Host": "gateway.example", "X-Gateway-Key": "k" * 32}
        await works_both_ways(url, "Bearer the-gateway-ignores-this", recording, **named)
        async with httpx.AsyncClient(timeout=30) as http:
            named_only = {"accept": ACCEPT, "host": "gateway.example", "x-gateway-key": "k" * 32}
            assert (await http.post(url, json=initialize({}), headers=named_only)).status_code == 200
            elsewhere = {**named_only, "host": "evil.example"}
            assert refusal(await http.post(url, json=initialize({}), headers=elsewhere), 403) is None
            page = await http.post(
                url,
                json=initialize({}),
                headers={"accept": ACCEPT, "origin": "https://evil.example", **named},
            )
            assert refusal(page, 403) is None
            stranger = await http.post(
                url, json=initialize({}), headers={"accept": ACCEPT, "host": "gateway.example"}
            )
            assert stranger.status_code == 401 and stranger.json() == {"error": "gateway key"}


async def test_the_sign_in_is_stored_in_folders_for_their_owner_alone(
    chromium: Browser, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The upstream sign-in (test_authorization.py signs in the same way) lands under the user's
    data folder; that folder and every one made on the way to it are 0700, its files 0600."""
    data = tmp_path / "data" / "xdg"  # neither exists yet
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    port = free_port()
    mcp = f"http://127.0.0.1:{port}/mcp"
    with OidcPeer(
        clients=[], resources={mcp: {"scope": "mcp", "format": "jwt"}}, scopes=["mcp"], registration=True
    ) as peer:
        opened: list[asyncio.Task[str]] = []

        def open_in_chromium(url: str) -> None:
            opened.append(asyncio.get_running_loop().create_task(sign_in_with_chromium(chromium, peer, url)))

        async with serve(build_mcp(peer.issuer, mcp), port):
            assert (await call_whoami(mcp, upstream_auth(mcp, open_browser=open_in_chromium)))[
                "sub"
            ] == "alice"
            await opened[0]
    files = [path for path in (tmp_path / "data").rglob("*") if path.is_file()]
    assert files
    for path in files:
        modes = modes_from(tmp_path / "data", path)
        assert modes.pop(str(path.relative_to(tmp_path))) == "0600", path
        assert set(modes.values()) == {"0700"}, modes
