"""The rules, grouped by area as the spec groups them; `judge` runs them all over a run's observations."""

from __future__ import annotations

from collections.abc import Sequence

from elicitkit.check._findings import Findings
from elicitkit.check._observed import Observations
from elicitkit.check._rules import capabilities, form, pages, tasks, url


def judge(seen: Observations, *, secrets: Sequence[str] = ()) -> Findings:
    """Every finding this run's observations support."""
    findings = Findings()
    capabilities.judge(seen, findings)
    form.judge(seen, findings)
    url.judge(seen, findings, secrets=secrets)
    pages.judge(seen, findings)
    tasks.judge(seen, findings)
    return findings
