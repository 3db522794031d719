"""Identity and pages: S-34 and S-35, from what the optional browser run (`--browser`) saw."""

from __future__ import annotations

from typing import cast

from elicitkit.check._findings import Findings, Verdict
from elicitkit.check._observed import Observations


def judge(seen: Observations, findings: Findings) -> None:
    for rule, verdict, evidence in seen.browser:
        if verdict == "not-observed":
            findings.note(rule, evidence)
        else:
            findings.add(rule, cast(Verdict, verdict), evidence)
    if not any(rule == "S-34" for rule, _, _ in seen.browser):
        findings.note("S-34", "needs --browser, --user-token and --other-token, and a URL-mode elicitation")
    if not any(rule == "S-35" for rule, _, _ in seen.browser):
        findings.note("S-35", "needs --browser and a URL-mode elicitation")
