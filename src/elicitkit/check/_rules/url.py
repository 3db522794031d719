"""URL mode: S-20 (shape, unique ids), S-21 (what the URL carries), S-23 (notices), S-24 (-32042).

S-21 fails only on proof: user info (`user:pass@`) in the URL, the client's own bearer
token in it, or a parameter with a value whose name is a credential's (`access_token`,
`api_key`, `password`, `client_secret`: `credentials` says what names one). A parameter
merely *like* a credential or a person's data (`token`, `key`, `code`, `session`, `email`),
something that looks like an email address, a URL a client would refuse to open, and plain
http are `warn`s: a hint for a person to read, not evidence.
"""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from collections.abc import Sequence
from typing import Any

from elicitkit.check._findings import Findings
from elicitkit.check._observed import Asked, Observations, short
from elicitkit.check._rules.credentials import credential_in_name
from elicitkit.check._session import MODERN
from elicitkit.urls import examine

#: query or path-parameter names that carry a credential or a person's data (S-21)
_CREDENTIAL = re.compile(
    r"(^|[_-])(access[_-]?token|id[_-]?token|refresh[_-]?token|token|api[_-]?key|apikey|key|secret|"
    r"password|passwd|pwd|session|sessionid|auth|authorization|bearer|jwt|otp|pin|ssn|card|email|"
    r"phone|user(name)?|login)($|[_-])",
    re.IGNORECASE,
)
_EMAIL = re.compile(r"[^/?&=@\s]+@[^/?&=@\s]+\.[a-z]{2,}", re.IGNORECASE)


def judge(seen: Observations, findings: Findings, *, secrets: Sequence[str] = ()) -> None:
    urls = [a for a in seen.asked if a.mode == "url"]
    ids: dict[str, Asked] = {}
    for a in urls:
        _shape(a, ids, findings, seen.one_server)
        _carries(a, findings, secrets)
    if urls:
        findings.add(
            "S-20", "pass", f"{len(urls)} URL-mode elicitations, each well formed with its own elicitationId"
        )
        findings.add(
            "S-21",
            "pass",
            f"{len(urls)} URLs: https or loopback, nothing that reads as a credential or a person's data",
        )
    else:
        for rule in ("S-20", "S-21"):
            findings.note(rule, "no URL-mode elicitation was seen")
    _notices(seen, findings)
    _url_required(seen, findings)


def _shape(a: Asked, ids: dict[str, Asked], findings: Findings, shared: bool) -> None:
    url = a.params.get("url")
    if not _absolute(url):
        findings.add("S-20", "fail", f"url is missing or not an absolute URL: {a.quote()}")
    if a.source == "input-required":
        return  # 2026-07-28 has no elicitationId (M-03)
    eid = a.params.get("elicitationId")
    if not isinstance(eid, str) or not eid:
        findings.add("S-20", "fail", f"no elicitationId: {a.quote()}")
        return
    # each stdio connection is a server process of its own: its ids need be unique only there
    key = eid if shared else f"{a.connection.number}:{eid}"
    first = ids.setdefault(key, a)
    if first is a:
        return
    if a.source == first.source == "request" and first.connection is not a.connection:
        findings.add(
            "S-20",
            "fail",
            f"elicitationId {eid!r} sent to two client sessions: {first.quote()} and {a.quote()}",
        )
    elif (first.params.get("url"), first.params.get("message")) != (url, a.params.get("message")):
        findings.add(
            "S-20",
            "fail",
            f"elicitationId {eid!r} given to two different elicitations: {first.quote()} and {a.quote()}",
        )


def _carries(a: Asked, findings: Findings, secrets: Sequence[str]) -> None:
    url = a.params.get("url")
    if not isinstance(url, str):
        return
    for secret in secrets:
        if secret and secret in url:
            findings.add("S-21", "fail", f"the client's own bearer token is in the URL: {a.quote()}")
    report = examine(url, allow_http=True)
    blocked = [w.message for w in report.warnings if w.severity == "block"]
    try:
        split = urllib.parse.urlsplit(url)
        password = bool(split.password)
    except ValueError:  # a URL the parser cannot split; inspect() has blocked it
        return
    if password:
        findings.add("S-21", "fail", f"the URL carries a password (user:password@host): {a.quote()}")
    pairs = urllib.parse.parse_qsl(split.query + "&" + split.fragment, keep_blank_values=True)
    pairs += [(name, value) for name, _, value in (p.partition("=") for p in split.path.split(";")[1:])]
    carried = [
        f"{name!r} ({found})"
        for name, value in pairs
        if value.strip() and (found := credential_in_name(name, in_url=True))
    ]
    if carried:
        findings.add(
            "S-21",
            "fail",
            f"the URL carries a credential, named for what it is and with a value: {', '.join(carried)} "
            f"-- in {a.quote()}",
        )
    if blocked:
        reasons = "; ".join(blocked)
        findings.add("S-21", "warn", f"a client will refuse to open it: {reasons} -- in {a.quote()}")
        return
    names = [name for name, _ in pairs]
    flagged = [name for name in names if _CREDENTIAL.search(name)]
    if flagged:
        findings.add(
            "S-21",
            "warn",
            f"the URL carries {', '.join(map(repr, flagged))}, named like a credential or a person's "
            f"data (a name match: check what it holds): {a.quote()}",
        )
    elif _EMAIL.search(urllib.parse.unquote(split.path + "?" + split.query)):
        findings.add(
            "S-21", "warn", f"the URL carries what looks like an email address (whose?): {a.quote()}"
        )
    if split.scheme == "http" and not _loopback(split.hostname or ""):
        findings.add(
            "S-21", "warn", f"plain http outside localhost (the spec says SHOULD use https): {a.quote()}"
        )


def _absolute(url: Any) -> bool:
    try:
        split = urllib.parse.urlsplit(url) if isinstance(url, str) else None
    except ValueError:  # e.g. an unclosed [ in the host
        return False
    return split is not None and bool(split.scheme) and bool(split.netloc)


def _loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _notices(seen: Observations, findings: Findings) -> None:
    for notice in seen.notices:
        if notice.elicitation_id not in notice.known:
            findings.add(
                "S-23",
                "fail",
                f"{notice.connection.label} got notifications/elicitation/complete for "
                f"{short(notice.elicitation_id)}, an id it was never given (it has {sorted(notice.known)})",
            )
    if seen.notices:
        findings.add(
            "S-23", "pass", f"{len(seen.notices)} completion notices, each for an id that client was given"
        )
    elif any(a.mode == "url" for a in seen.asked):
        findings.note("S-23", "no completion notice came (the checker opens no URL without --browser)")


def _url_required(seen: Observations, findings: Findings) -> None:
    for connection, tool, error in seen.url_required:
        where = f"{connection.label}, tool {tool!r}: {short(error)}"
        if connection.revision == MODERN:
            findings.add(
                "S-24", "fail", f"-32042 on a {MODERN} connection, where it does not exist (M-03): {where}"
            )
            continue
        data: Any = error.get("data")
        listed = data.get("elicitations") if isinstance(data, dict) else None
        if not isinstance(listed, list) or not listed:
            findings.add(
                "S-24",
                "fail",
                f"-32042 without a list of URL-mode elicitations in data.elicitations: {where}",
            )
            continue
        for entry in listed:
            if (
                not isinstance(entry, dict)
                or entry.get("mode") != "url"
                or not all(
                    isinstance(entry.get(k), str) and entry.get(k)
                    for k in ("elicitationId", "url", "message")
                )
            ):
                findings.add(
                    "S-24",
                    "fail",
                    f"an entry of data.elicitations lacks mode url, elicitationId, url or message: {where}",
                )
                break
    if seen.url_required:
        findings.add(
            "S-24", "pass", f"{len(seen.url_required)} -32042 errors, each listing URL-mode elicitations"
        )
    else:
        findings.note("S-24", "no -32042 error was seen")
