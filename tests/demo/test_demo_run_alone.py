"""`python -m elicitkit.demo.auth_server` and `python -m elicitkit.demo.provider` for trying by hand."""

import asyncio
import re
import signal
import sys

import httpx
import pytest
from demo_oauth_helpers import CALLBACK, authorize_url, query_of

from elicitkit.demo._scripted import pkce_pair, sign_in
from elicitkit.demo.auth_server import IntrospectionTokenVerifier


async def run_until_url(*args: str) -> tuple[asyncio.subprocess.Process, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None
    banner = ""
    while "Ctrl-C" not in banner:
        line = await asyncio.wait_for(process.stdout.readline(), timeout=30)
        assert line, f"the server exited early: {(await process.stderr.read()).decode()}"  # type: ignore[union-attr]
        banner += line.decode()
    match = re.search(r"http://127\.0\.0\.1:\d+", banner)
    assert match, banner
    return process, match.group(0), banner


async def stop(process: asyncio.subprocess.Process) -> None:
    process.send_signal(signal.SIGINT)
    assert await asyncio.wait_for(process.wait(), timeout=15) == 0


@pytest.mark.parametrize("module", ["elicitkit.demo.auth_server", "elicitkit.demo.provider"])
async def test_runs_alone_and_prints_its_url(module: str) -> None:
    process, url, banner = await run_until_url("-m", module)
    try:
        async with httpx.AsyncClient() as http:
            document = (await http.get(f"{url}/.well-known/oauth-authorization-server")).json()
        assert document["issuer"] == url
        assert "alice-demo-password" in banner
    finally:
        await stop(process)


async def test_auth_server_alone_offers_introspection_to_a_separate_mcp_server() -> None:
    process, url, banner = await run_until_url("-m", "elicitkit.demo.auth_server")
    try:
        match = re.search(r"introspection client for an MCP server: (\S+) / (\S+)", banner)
        assert match, banner
        verifier = IntrospectionTokenVerifier(
            f"{url}/introspect", client_id=match.group(1), client_secret=match.group(2), issuer=url
        )
        async with httpx.AsyncClient() as http:
            client = (
                await http.post(
                    f"{url}/register",
                    json={"redirect_uris": [CALLBACK], "token_endpoint_auth_method": "none"},
                )
            ).json()
            verifier_, challenge = pkce_pair()
            location = await sign_in(
                http, authorize_url(url, client["client_id"], challenge), "alice", "alice-demo-password"
            )
            form = {
                "grant_type": "authorization_code",
                "client_id": client["client_id"],
                "code": query_of(location)["code"],
                "code_verifier": verifier_,
                "redirect_uri": CALLBACK,
            }
            tokens = (await http.post(f"{url}/token", data=form)).json()
        verified = await verifier.verify_token(tokens["access_token"])
        assert verified is not None
        assert (verified.subject, (verified.claims or {})["iss"]) == ("alice", url)
    finally:
        await stop(process)


async def test_provider_takes_its_client_from_the_command_line() -> None:
    process, url, banner = await run_until_url(
        "-m",
        "elicitkit.demo.provider",
        "--client-id",
        "cli-client",
        "--client-secret",
        "cli-secret",
        "--redirect-uri",
        "http://127.0.0.1:9/cb",
    )
    try:
        assert "cli-client / cli-secret" in banner
        async with httpx.AsyncClient() as http:
            authorize = await http.get(
                f"{url}/authorize",
                params={
                    "response_type": "code",
                    "client_id": "cli-client",
                    "redirect_uri": "http://127.0.0.1:9/cb",
                    "code_challenge": "x" * 43,
                    "state": "s",
                },
            )
        assert authorize.status_code == 302
        assert authorize.headers["location"].startswith(f"{url}/login?request=")
    finally:
        await stop(process)
