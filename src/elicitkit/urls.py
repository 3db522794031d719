"""What a person should know about a URL before deciding to open it (C-22, C-23).

`inspect` is pure: it parses and judges, and never fetches anything (not the page, not
DNS, not the public-suffix list: that data ships offline).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Verdict = Literal["ok", "warn", "block"]
PartRole = Literal["scheme", "userinfo", "subdomain", "domain", "port", "path", "query", "fragment"]


@dataclass(frozen=True)
class UrlWarning:
    """One reason for caution, with a stable `code` and a sentence for a person."""

    code: str
    message: str
    severity: Literal["warn", "block"]


@dataclass(frozen=True)
class UrlPart:
    """A slice of the URL to draw; the part with role "domain" is the one to highlight."""

    text: str
    role: PartRole


@dataclass(frozen=True)
class UrlReport:
    """The verdict on a URL, its registrable domain, the parts to draw, and the warnings."""

    url: str
    verdict: Verdict
    host: str
    domain: str | None
    parts: tuple[UrlPart, ...]
    warnings: tuple[UrlWarning, ...]


def inspect(url: str, *, allow_http: bool = False) -> UrlReport:
    """Judge `url` without fetching it. Plain http passes only for loopback unless `allow_http`."""
    raise NotImplementedError
