"""What a person should know about a URL before deciding to open it (C-22, C-23).

`examine` is pure: it parses and judges, and never fetches anything (not the page, not
DNS, not the public-suffix list: that data ships offline inside `publicsuffixlist`).

A verdict is "block" when the URL cannot be trusted to go where it seems to (a scheme
other than http(s), userinfo, hidden or reordering characters, an encoded IP, a host
that imitates another), "warn" when it can but a person should look twice (punycode,
raw IPs, odd ports, a domain pushed out of view), and "ok" otherwise.

Userinfo is always blocked: nothing an MCP server asks a person to open needs a user
name or password in the URL, and `https://good.com@evil.com` exists only to make the
part before "@" look like the destination.
"""

from __future__ import annotations

from elicitkit.urls._characters import reveal
from elicitkit.urls._inspection import examine
from elicitkit.urls._report import PartRole, UrlPart, UrlReport, UrlWarning, Verdict

__all__ = ["PartRole", "UrlPart", "UrlReport", "UrlWarning", "Verdict", "examine", "reveal"]
