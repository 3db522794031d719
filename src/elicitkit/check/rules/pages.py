"""Identity and pages: S-34 and S-35, from what the optional browser run (`--browser`) saw."""

from __future__ import annotations

from typing import cast

from elicitkit.check.findings import Findings, Verdict
from elicitkit.check.observed import Observations


def judge(seen: Observations, findings: Findings) -> None:
    for rule, verdict, evidence in seen.browser:
        findings.add(rule, cast(Verdict, verdict), evidence)
    for rule in ("S-34", "S-35"):
        findings.note(rule, "needs --browser (and, for S-34, --user-token and --other-token)")
