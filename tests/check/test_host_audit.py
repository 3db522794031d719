"""`elicitkit check --host` run unattended: a correct host gets no `fail`, planted broken hosts
get the right ones, with the answer that shows it as evidence (docs/hosts.md)."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import anyio
from mcp_types import ElicitResult
from support.host_drivers import ElicitkitHost, SdkHost, policy

from elicitkit.check import HostReport, audit_host


def verdicts(report: HostReport) -> dict[str, str]:
    return {f.id: f.verdict for f in report.findings.all()}


def evidence(report: HostReport, rule: str) -> str:
    return next(f.evidence for f in report.findings.all() if f.id == rule)


async def test_elicitkit_client_gets_no_fail_and_no_warning_on_2025_11_25() -> None:
    report = await audit_host(ElicitkitHost("legacy"), deadline=30)
    got = verdicts(report)
    assert report.seen.protocol == "2025-11-25" and report.seen.modes == ("form", "url")
    assert {got[rule] for rule in ("C-01", "C-11", "C-12", "C-23", "C-30", "R-01")} == {"pass"}
    assert "fail" not in got.values() and "warn" not in got.values(), report.to_text()
    assert '"action": "decline"' in evidence(report, "C-23")  # it refused the look-alike domain


async def test_elicitkit_client_over_stdio_answers_every_2026_round() -> None:
    report = await audit_host(ElicitkitHost("auto"), transport="stdio", deadline=30)
    got = verdicts(report)
    assert report.seen.protocol == "2026-07-28"
    assert got["M-01"] == "pass" and "fail" not in got.values(), report.to_text()
    assert report.questions == 14  # all but the undeclared-mode question, asked on 2025-11-25 only


async def declines_unseen(context: Any, params: Any) -> ElicitResult:
    return ElicitResult(action="decline")


async def test_a_host_that_declares_url_and_declines_unseen_fails_c01() -> None:
    report = await audit_host(
        SdkHost("declines unseen", mode="legacy", callback=declines_unseen), deadline=30
    )
    assert report.seen.modes == ("form", "url")
    assert verdicts(report)["C-01"] == "fail"
    said = evidence(report, "C-01")
    # the eleven form questions and the task-augmented one, which this host answers as a plain question
    assert "declared form mode but refused every question it was told to accept (12 of 12)" in said
    url = "declared url mode but refused every question it was told to accept (1 of 1), e.g. url-consent"
    assert f'{url}: came back {{"action": "decline"}}' in said


async def content_on_decline(context: Any, params: Any) -> ElicitResult:
    answer = await policy(context, params)
    if answer.action == "accept":
        return answer
    return ElicitResult(action=answer.action, content={"note": "kept anyway"})


async def test_a_host_that_sends_content_on_decline_fails_r01() -> None:
    report = await audit_host(
        SdkHost("content on decline", mode="legacy", callback=content_on_decline), deadline=30
    )
    assert verdicts(report)["R-01"] == "fail"
    assert evidence(report, "R-01") == (
        'decline: came back {"action": "decline", "content": {"note": "kept anyway"}}: '
        "content came with a decline"
    )


async def unchecked(context: Any, params: Any) -> ElicitResult:
    """Accepts what a person typed without checking it: 150 Guests (at most 100), "7" as a number."""
    answer = await policy(context, params)
    content = dict(answer.content or {})
    if "guests" in content:
        content["guests"] = 150
    if "whole" in content:
        content["whole"] = "7"
    return ElicitResult(action=answer.action, content=content or None)


async def test_a_host_that_skips_validation_fails_r01_with_what_it_sent() -> None:
    report = await audit_host(SdkHost("skips validation", callback=unchecked), deadline=30)
    got = verdicts(report)
    assert got["R-01"] == "fail" and got["C-12"] == "warn"
    assert evidence(report, "R-01").startswith(
        'types: came back {"action": "accept", "content": {"text": "ok", "whole": "7"'
    )
    sent = {a.key: a.answer for a in report.asked}
    assert sent["bounds"] == {"action": "accept", "content": {"guests": 150, "code": "abc", "ratio": 0.5}}


async def raw_json_unchecked(context: Any, params: Any) -> ElicitResult:
    """Has a raw JSON mode and sends what the person writes there without checking it."""
    told = re.search(r"as raw JSON, send (\{.*?\}) that way", params.message)
    if told is None:
        return await policy(context, params)
    return ElicitResult(action="accept", content=json.loads(told.group(1)))


async def test_a_host_whose_raw_json_mode_skips_validation_fails_r01_with_what_it_sent() -> None:
    report = await audit_host(SdkHost("raw JSON", mode="legacy", callback=raw_json_unchecked), deadline=30)
    got = verdicts(report)
    assert got["R-01"] == "fail" and got["C-12"] == "warn"
    assert evidence(report, "R-01") == (
        'json-mode: came back {"action": "accept", "content": {"guests": 150, "age": -5}}: it breaks '
        "the schema: 'guests' must be at most 100, not 150. 'age' must be at least 0, not -5."
    )


async def clamps(context: Any, params: Any) -> ElicitResult:
    """Turns the 150 the person typed into the bound, 100, without a word."""
    answer = await policy(context, params)
    if answer.content and "guests" in answer.content:
        return ElicitResult(action="accept", content={**answer.content, "guests": 100})
    return answer


async def test_a_host_that_clamps_a_number_is_warned_about() -> None:
    report = await audit_host(SdkHost("clamps", mode="legacy", callback=clamps), deadline=30)
    got = verdicts(report)
    assert got["C-12"] == "warn" and got["R-01"] == "pass"
    assert "Guests came back as its maximum, 100" in evidence(report, "C-12")


async def never_answers(context: Any, params: Any) -> ElicitResult:
    await anyio.sleep_forever()
    raise AssertionError("unreachable")


async def test_a_host_that_declares_but_never_answers_fails_c01_within_one_deadline() -> None:
    started = time.monotonic()
    report = await audit_host(SdkHost("never answers", mode="legacy", callback=never_answers), deadline=3)
    assert time.monotonic() - started < 3 + 6  # one deadline for the whole audit, not one per question
    assert verdicts(report)["C-01"] == "fail"
    assert evidence(report, "C-01") == (
        "declared form mode but never answered types: no answer came back "
        "(no answer before the audit's deadline)"
    )


async def test_the_report_as_json_and_html_carries_each_verdict_and_its_evidence() -> None:
    report = await audit_host(
        SdkHost("content on decline", mode="legacy", callback=content_on_decline), deadline=30
    )
    data = json.loads(report.to_json())
    assert {"id": "R-01", "verdict": "fail", "evidence": evidence(report, "R-01")} in data["findings"]
    assert HostReport.from_dict(data).to_dict() == data
    page = report.to_html()
    assert (
        page.startswith("<!doctype html>") and "<script" not in page and "http" not in page.split("<body>")[0]
    )
    assert '<tr class="fail"><td>R-01</td>' in page and "kept anyway" in page
