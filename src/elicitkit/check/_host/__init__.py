"""`elicitkit check --host`: audit a host (an MCP client a person uses) instead of a server.

`HostAudit` is an MCP server whose tools ask the battery (`_battery.py`); `Tap` keeps what the
host sent back; `grade` judges it against the client rules and `HostReport` writes it out;
`audit_host` runs it unattended against a `HostDriver`.
"""

from elicitkit.check._host._audit import REPORT_TOOL, HostAudit
from elicitkit.check._host._battery import BATTERY, Question, policy_answer
from elicitkit.check._host._driving import TOOLS, HostDriver, HostEndpoint, audit_host, stdio_command
from elicitkit.check._host._records import Asked, HostSeen
from elicitkit.check._host._report import HostReport, matrix

__all__ = [
    "BATTERY",
    "REPORT_TOOL",
    "TOOLS",
    "Asked",
    "HostAudit",
    "HostDriver",
    "HostEndpoint",
    "HostReport",
    "HostSeen",
    "Question",
    "audit_host",
    "matrix",
    "policy_answer",
    "stdio_command",
]
