"""Each faulty server breaks exactly one rule: `elicitkit check` fails that rule and nothing else
when it is a MUST the evidence proves, and warns (never fails) for a SHOULD or a word match.

The servers (tests/check/faulty_server.py) are real processes on the raw SDK, reached over
streamable HTTP on 127.0.0.1, so the checker sees the same wire as against any server.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from support.server_process import free_port, stop, wait_until_serving

from elicitkit.check import Options, Target, run

SERVER = Path(__file__).with_name("faulty_server.py")
RULES = [
    "S-01",
    "S-02",
    "S-02-stream",
    "S-03",
    "S-10",
    "S-11",
    "S-20",
    "S-21",
    "S-21-credential",
    "S-23",
    "S-24",
]
#: a SHOULD broken, or a MUST only hinted at (a secret in prose, a parameter *like* a credential's)
WARNINGS = {
    "S-11-prose": "a word match, not proof",
    "S-12": "a SHOULD NOT",
    "S-13": "a SHOULD",
    "S-21-name": "'key', 'pin', 'api_key', 'token', named like a credential",
}


@contextmanager
def faulty(rule: str) -> Iterator[str]:
    port = free_port()
    process = subprocess.Popen([sys.executable, str(SERVER), rule, str(port)], stderr=subprocess.DEVNULL)
    try:
        wait_until_serving(process, f"http://127.0.0.1:{port}/mcp")
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        stop(process)


def verdicts(report: object) -> dict[str, str]:
    return {f.id: f.verdict for f in report.findings.all()}  # type: ignore[attr-defined]


@pytest.mark.parametrize("rule", RULES)
async def test_the_broken_rule_fails_and_nothing_else(rule: str) -> None:
    with faulty(rule) as url:
        report = await run(Target(url=url), Options(timeout=5))
    seen = verdicts(report)
    failed = sorted(r for r, v in seen.items() if v == "fail")
    assert failed == [rule[:4]], {f.id: f.evidence for f in report.findings.all() if f.verdict == "fail"}
    evidence = {f.id: f.evidence for f in report.findings.all()}
    if rule == "S-02-stream":  # told apart by the client's StandaloneStreamTap, not by a call being open
        assert "standalone GET stream" in evidence["S-02"]
    if rule == "S-11":  # the field, and the word in it, not the description's prose
        assert "/properties/password: its key 'password' names a credential ('password')" in evidence["S-11"]
    if rule == "S-21-credential":  # each credential by name; `state` is none
        for name, what in [
            ("password", "password"),
            ("access_token", "access token"),
            ("api-key", "api key"),
            ("clientSecret", "secret"),
            ("token", "token"),
        ]:
            assert f"'{name}' ({what})" in evidence["S-21"], evidence["S-21"]
        assert "'state'" not in evidence["S-21"].partition(" -- in ")[0]


async def test_every_spelling_of_a_credential_field_fails_and_is_named() -> None:
    """Snake, kebab, camel, spaced, any case; by key, by title or by `format`."""
    with faulty("S-11-spellings") as url:
        report = await run(Target(url=url), Options(timeout=5, tools={"book": None}))
    finding = {f.id: f for f in report.findings.all()}["S-11"]
    assert finding.verdict == "fail"
    for field, said in [
        ("apiKey", "its key 'apiKey' names a credential ('api key')"),
        ("token", "its key 'token' names a credential ('token')"),
        ("Access-Token", "its key 'Access-Token' names a credential ('access token')"),
        ("client_secret", "its key 'client_secret' names a credential ('secret')"),
        ("new_password2", "its key 'new_password2' names a credential ('password')"),
        ("pass_phrase", "its key 'pass_phrase' names a credential ('pass phrase')"),
        ("cardNumber", "its key 'cardNumber' names a credential ('card number')"),
        ("CVV2", "its key 'CVV2' names a credential ('cvv')"),
        ("f1", "its title 'PIN' names a credential ('pin')"),
        ("f2", "its title 'Your security code' names a credential ('security code')"),
        ("f3", "its title 'Private key' names a credential ('private key')"),
        ("f4", 'its format is "password"'),
    ]:
        assert f"/properties/{field}: {said}" in finding.evidence, (field, finding.evidence)


@pytest.mark.parametrize("rule", sorted(WARNINGS))
async def test_a_should_or_a_hint_is_a_warning_with_its_evidence_never_a_failure(rule: str) -> None:
    with faulty(rule) as url:
        report = await run(Target(url=url), Options(timeout=5))
    seen = verdicts(report)
    evidence = {f.id: f.evidence for f in report.findings.all()}
    assert "fail" not in seen.values(), {r: evidence[r] for r, v in seen.items() if v == "fail"}
    assert sorted(r for r, v in seen.items() if v == "warn") == [rule[:4]], report.findings.all()
    assert WARNINGS[rule] in evidence[rule[:4]], evidence[rule[:4]]


@pytest.mark.parametrize("rule", ["S-34", "S-34-consume", "S-34-cancel", "S-35", "good"])
async def test_the_pages_a_url_opens_in_chromium(rule: str) -> None:
    with faulty(rule) as url:
        options = Options(timeout=5, other_token="bob-token", browser=True, tools={"connect": None})
        report = await run(Target(url=url, token="alice-token"), options)
    seen = verdicts(report)
    evidence = {f.id: f.evidence for f in report.findings.all()}
    # the checker submits nothing, so what it sees of S-34 is evidence to read, not the broken
    # MUST itself; S-35's cookie flags and framing are hardening, not a MUST of the spec
    assert "fail" not in seen.values(), report.findings.all()
    warned = sorted(r for r, v in seen.items() if v == "warn")
    assert warned == ([] if rule == "good" else [rule[:4]]), report.findings.all()
    if rule == "good":
        assert seen["S-34"] == seen["S-35"] == "pass", report.findings.all()
        assert "stayed pending" in evidence["S-34"] and "still gets the page (HTTP 200)" in evidence["S-34"]
    if rule == "S-34":  # the other user is let in
        assert "was served the first user's page" in evidence["S-34"]
    if rule == "S-34-consume":  # refused, but the first user's elicitation is gone with it
        assert "refused at" in evidence["S-34"] and "consumed or cancelled" in evidence["S-34"]
    if rule == "S-34-cancel":  # refused, but the first user's client is told it is over
        assert "notifications/elicitation/complete" in evidence["S-34"] and "ended" in evidence["S-34"]


async def test_the_well_behaved_twin_passes_every_rule_it_shows() -> None:
    with faulty("good") as url:
        report = await run(Target(url=url), Options(timeout=5))
    seen = verdicts(report)
    assert "fail" not in seen.values()
    for rule in ("S-01", "S-02", "S-03", "S-10", "S-11", "S-12", "S-13", "S-20", "S-21", "S-23"):
        assert seen[rule] == "pass", (rule, report.findings.all())
    assert report.protocol_versions == ["2025-11-25", "2026-07-28"]
