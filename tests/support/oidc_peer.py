"""panva's `oidc-provider` (OpenID Certified, written by none of us) as a real OAuth 2.0 /
OpenID Connect server for tests: started with node on a free 127.0.0.1 port, configured with
clients and resource servers, stopped at the end. `scripts/setup` installs it (`npm ci` in
tests/peers/oidc-provider); see serve.mjs there for what the configuration holds.

    async with OidcPeer(clients=[...], resources={...}) as peer:  # also usable with `with`
        callback = await peer.sign_in(http, authorize_url, "alice")

`sign_in` plays the person on the provider's own login and consent pages (real HTML forms,
real cookies): it follows the authorization request until the provider redirects to a URL
outside itself, and returns that URL (the client's redirect URI with `code` or `error`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urljoin

import httpx

PEER = Path(__file__).parents[1] / "peers" / "oidc-provider"
NODE = shutil.which("node")


class OidcPeer:
    """One oidc-provider process; `issuer` is its URL once started."""

    def __init__(
        self,
        *,
        clients: list[dict[str, Any]],
        resources: dict[str, dict[str, str]] | None = None,
        default_resource: str | None = None,
        access_token_ttl: int | None = None,
        scopes: list[str] | None = None,
        registration: bool = False,
    ) -> None:
        if NODE is None or not (PEER / "node_modules" / "oidc-provider").is_dir():
            raise RuntimeError(
                "oidc-provider is not installed: these tests need node and `npm ci` in "
                "tests/peers/oidc-provider; run scripts/setup and try again."
            )
        config: dict[str, Any] = {"clients": clients, "resources": resources or {}}
        if default_resource is not None:
            config["defaultResource"] = default_resource
        if access_token_ttl is not None:
            config["accessTokenTTL"] = access_token_ttl
        if scopes:
            config["scopes"] = scopes  # beside openid and offline_access, e.g. a resource's scopes
        if registration:
            config["registration"] = True  # RFC 7591 dynamic client registration
        self.config = config
        self.issuer = ""
        self.process: subprocess.Popen[bytes] | None = None
        self._log = tempfile.TemporaryFile()  # noqa: SIM115 - lives as long as the process

    def start(self) -> OidcPeer:
        assert NODE is not None
        self.process = subprocess.Popen(
            [NODE, str(PEER / "serve.mjs"), json.dumps(self.config)],
            cwd=PEER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self._log.seek(0)
            raise RuntimeError(f"oidc-provider did not start:\n{self._log.read().decode(errors='replace')}")
        self.issuer = json.loads(line)["issuer"]
        return self

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()

    def __enter__(self) -> OidcPeer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    async def __aenter__(self) -> OidcPeer:
        return self.start()

    async def __aexit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    async def sign_in(self, http: httpx.AsyncClient, url: str, login: str, *, abort: bool = False) -> str:
        """Play the person at the provider from `url` on; the first URL outside it is returned.

        `http` must keep cookies (the provider's interaction session lives in them). With
        `abort=True` the person cancels at the consent page (the provider answers access_denied).
        """
        for _ in range(20):
            if not url.startswith(self.issuer):
                return url
            response = await http.get(url)
            if response.is_redirect:
                url = urljoin(url, response.headers["location"])
                continue
            forms = _forms(response.text)
            if not forms:
                raise AssertionError(f"oidc-provider page without a form at {url}: {response.text[:500]}")
            action, fields = forms[0]
            if fields.get("prompt") == "login":
                fields |= {"login": login, "password": "any"}
            elif abort:
                url = urljoin(url, f"{action}/abort" if not action.endswith("/abort") else action)
                continue
            answer = await http.post(urljoin(url, action), data=fields)
            if not answer.is_redirect:
                raise AssertionError(f"oidc-provider did not move on from {url}: {answer.text[:500]}")
            url = urljoin(url, answer.headers["location"])
        raise AssertionError("oidc-provider kept the person in its pages")


class _FormReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.forms: list[tuple[str, dict[str, str]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {name: value or "" for name, value in attrs}
        if tag == "form":
            self.forms.append((found.get("action", ""), {}))
        elif tag == "input" and self.forms and found.get("name") and found.get("type") != "submit":
            self.forms[-1][1][found["name"]] = found.get("value", "")


def _forms(html: str) -> list[tuple[str, dict[str, str]]]:
    reader = _FormReader()
    reader.feed(html)
    return reader.forms
