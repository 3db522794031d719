"""`elicitkit check`: audit any MCP server's elicitation against the spec, as a client sees it.

It connects as a raw client several times (declaring no elicitation, form only, URL only,
both; at each protocol revision the server speaks), calls the tools, answers every question
validly, by declining, by cancelling and with deliberately invalid content, and judges what
came back against the server-side requirement IDs (S-01 ... S-35) a client can observe; a
server with tasks (2025-11-25) has its task tools called as tasks and is judged on T-01 ... T-09 and T-40.
It never opens a URL unless asked to (`browser=True`).

`elicitkit check --host` turns it around: `HostAudit` is an MCP server a person adds to a host
(an MCP client), whose tools ask a battery of questions and grade what the host sends back
against the client-side IDs (C-01 ... C-30, R-01, M-01) in a `HostReport`; `audit_host` runs
it unattended against a `HostDriver` that connects a host program to a `HostEndpoint`.
"""

from elicitkit.check._findings import RULES, Finding, Findings, Verdict
from elicitkit.check._host import HostAudit, HostDriver, HostEndpoint, HostReport, audit_host
from elicitkit.check._runner import Options, Report, run
from elicitkit.check._target import Target, TargetError

__all__ = [
    "RULES",
    "Finding",
    "Findings",
    "HostAudit",
    "HostDriver",
    "HostEndpoint",
    "HostReport",
    "Options",
    "Report",
    "Target",
    "TargetError",
    "Verdict",
    "audit_host",
    "run",
]
