"""What `examine` answers: the verdict on a URL, the parts to draw and the reasons for caution."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

__all__ = ["PartRole", "UrlPart", "UrlReport", "UrlWarning", "Verdict"]

Verdict = Literal["ok", "warn", "block"]
PartRole = Literal["scheme", "userinfo", "subdomain", "domain", "port", "path", "query", "fragment"]


@dataclass(frozen=True)
class UrlWarning:
    """One reason for caution: a stable `code`, a sentence in English, and for `say` its gettext
    message (`template`) and values (`params`)."""

    code: str
    message: str
    severity: Literal["warn", "block"]
    template: str = field(default="", compare=False, repr=False)
    params: tuple[tuple[str, str], ...] = field(default=(), compare=False, repr=False)

    def say(self, gettext: Callable[[str], str]) -> str:
        """The sentence in the language of `gettext` (a UI's `Translator.gettext`)."""
        return gettext(self.template) % dict(self.params) if self.template else self.message


@dataclass(frozen=True)
class UrlPart:
    """A slice of the URL to draw; the part with role "domain" is the one to highlight.

    The parts of a report join back to the URL as a browser reads it (less surrounding
    spaces and control characters, less tabs and line breaks), so drawing them hides
    nothing. Pass `text` through `reveal` before drawing it.
    """

    text: str
    role: PartRole


@dataclass(frozen=True)
class UrlReport:
    """The verdict on a URL, its registrable domain, the parts to draw, and the warnings.

    `host` and `domain` are in ASCII (punycode) form, what the browser will really ask
    for; `host_unicode` and `domain_unicode` are how they read. `domain` is None when no
    registrable domain can be named (no host, an invalid host).
    """

    url: str
    verdict: Verdict
    host: str
    domain: str | None
    parts: tuple[UrlPart, ...]
    warnings: tuple[UrlWarning, ...]
    host_unicode: str = ""
    domain_unicode: str | None = None

    @property
    def codes(self) -> tuple[str, ...]:
        """The warning codes, in the order found."""
        return tuple(w.code for w in self.warnings)

    def to_dict(self) -> dict[str, Any]:
        """The report as plain JSON-ready data."""
        data = asdict(self)
        data["parts"] = [asdict(p) for p in self.parts]
        data["warnings"] = [
            {"code": w.code, "message": w.message, "severity": w.severity} for w in self.warnings
        ]
        return data

    def to_json(self, *, indent: int | None = None) -> str:
        """The report as JSON; non-ASCII is escaped so hidden characters stay visible."""
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=True)
