"""`examine`: one URL read as a browser reads it and judged part by part, without fetching anything."""

from __future__ import annotations

import ipaddress
import re
import socket
import urllib.parse
from typing import Literal

import idna

from elicitkit.i18n import noop
from elicitkit.urls._characters import (
    is_bidi,
    is_control,
    is_invisible,
    is_mixed,
    is_phonetic,
    looks_ascii,
    reveal,
    scripts_of,
)
from elicitkit.urls._names import embedded_domain, label_forms, registrable
from elicitkit.urls._report import UrlPart, UrlReport, UrlWarning, Verdict

__all__ = ["examine"]


def examine(url: str, *, allow_http: bool = False) -> UrlReport:
    """Judge `url` without fetching it. Plain http passes only for loopback unless `allow_http`.

    Never raises: anything that cannot be read as a URL is blocked.
    """
    try:
        return _Inspection(url, allow_http).report()
    except Exception:  # a safety net: a client must get a verdict, whatever it was sent
        return _unreadable(url if isinstance(url, str) else "")


_LONG_HOST = 60
_DEEP_SUBDOMAIN = 4
_DEFAULT_PORTS = {"http": 80, "https": 443}
_C0_OR_SPACE = "".join(map(chr, range(0x21)))
_DROPPED = str.maketrans("", "", "\t\n\r")
_DOTS = re.compile("[.\u3002\uff0e\uff61]")
_IPV4_LIKE = re.compile(r"[0-9a-fx.]+")
_NUMBER = re.compile(r"[0-9]+|0x[0-9a-f]*")


def _quote(text: str) -> str:
    return f"'{reveal(text)}'"


def _unreadable(url: str) -> UrlReport:
    template = noop("This cannot be read as a URL.")
    warning = UrlWarning("unparseable", template, "block", template)
    return UrlReport(url=url, verdict="block", host="", domain=None, parts=(), warnings=(warning,))


class _Inspection:
    """One URL on its way to a report; each check adds warnings, none raises on bad input."""

    def __init__(self, url: str, allow_http: bool) -> None:
        self.url = url
        self.allow_http = allow_http
        self.warnings: dict[str, UrlWarning] = {}
        self.parts: list[UrlPart] = []
        self.host = ""
        self.host_unicode = ""
        self.domain: str | None = None
        self.domain_unicode: str | None = None
        self.loopback = False

    def warn(self, code: str, template: str, **params: object) -> None:
        self.add(code, "warn", template, params)

    def block(self, code: str, template: str, **params: object) -> None:
        self.add(code, "block", template, params)

    def add(
        self, code: str, severity: Literal["warn", "block"], template: str, params: dict[str, object]
    ) -> None:
        if code not in self.warnings:
            values = {name: str(value) for name, value in params.items()}
            self.warnings[code] = UrlWarning(
                code, template % values, severity, template, tuple(values.items())
            )

    def report(self) -> UrlReport:
        if not isinstance(self.url, str):
            return _unreadable("")
        self.check_characters(self.url)
        text = self.url.strip(_C0_OR_SPACE).translate(_DROPPED)  # as browsers do; flagged above
        if not text:
            return _unreadable(self.url)
        before_query, rest = _split_query(text)
        read_as = before_query.replace("\\", "/") + rest  # as browsers read it; same offsets
        try:
            split = urllib.parse.urlsplit(read_as)
        except ValueError:
            return _unreadable(self.url)
        self.read(text, read_as, split)
        warnings = tuple(self.warnings.values())
        severities = {w.severity for w in warnings}
        verdict: Verdict = "block" if "block" in severities else "warn" if warnings else "ok"
        return UrlReport(
            url=self.url,
            verdict=verdict,
            host=self.host,
            domain=self.domain,
            parts=tuple(p for p in self.parts if p.text),
            warnings=warnings,
            host_unicode=self.host_unicode,
            domain_unicode=self.domain_unicode,
        )

    def check_characters(self, text: str) -> None:
        if any(map(is_control, text)):
            self.block(
                "control-character",
                noop("The URL contains control characters or line breaks, which browsers drop or change."),
            )
        if any(map(is_bidi, text)):
            self.block(
                "bidi-control",
                noop(
                    "The URL contains right-to-left or other direction controls, "
                    "which can make it read differently from what it is."
                ),
            )
        if any(map(is_invisible, text)):
            self.block("invisible-character", noop("The URL contains invisible characters."))
        if any(c.isspace() for c in text if not is_control(c)):
            self.warn("whitespace", noop("The URL contains spaces, which a browser will change."))

    def read(self, text: str, read_as: str, split: urllib.parse.SplitResult) -> None:
        """Draw `text` in parts, judging it by `read_as`, the same URL as a browser reads it."""
        scheme = split.scheme
        at = len(scheme) + 1 if scheme else 0
        has_authority = read_as[at : at + 2] == "//"
        at += 2 if has_authority else 0
        self.parts.append(UrlPart(text[:at], "scheme"))
        rest = text[at + len(split.netloc) :]
        if "\\" in text[: len(text) - len(rest) + 1]:
            self.block(
                "backslash",
                noop(
                    "The URL has a backslash in its host part, which browsers read as a slash, "
                    "so it may go somewhere other than it seems."
                ),
            )
        before_fragment, hash_, fragment = rest.partition("#")
        path, qmark, query = before_fragment.partition("?")

        if not scheme:
            self.block(
                "missing-scheme", noop("The URL has no scheme; only https (and http) links can be opened.")
            )
        elif scheme not in _DEFAULT_PORTS:
            self.block(
                "scheme-not-allowed",
                noop("The scheme %(scheme)s is not allowed; only https (and http) links can be opened."),
                scheme=_quote(scheme + ":"),
            )
        if split.netloc:
            self.read_authority(split.netloc, scheme)
        elif scheme in _DEFAULT_PORTS:
            self.block("missing-host", noop("The URL names no host."))
        if scheme == "http":
            self.check_http()

        self.parts += [
            UrlPart(path, "path"),
            UrlPart(qmark + query, "query"),
            UrlPart(hash_ + fragment, "fragment"),
        ]

    def check_http(self) -> None:
        if self.loopback:
            return
        if self.allow_http:
            self.warn(
                "insecure-http",
                noop("The link uses plain http, so the page and what you type into it are not encrypted."),
            )
        else:
            self.block(
                "insecure-http",
                noop(
                    "The link uses plain http, so the page and what you type into it are not encrypted. "
                    "Only https is allowed except for this computer."
                ),
            )

    def read_authority(self, netloc: str, scheme: str) -> None:
        userinfo, at_sign, hostport = netloc.rpartition("@")
        if hostport.startswith("["):
            host, bracket, port = hostport.partition("]")
            host += bracket
        else:
            host, colon, port = hostport.partition(":")
            port = colon + port
        if at_sign:
            self.parts.append(UrlPart(userinfo + at_sign, "userinfo"))
            self.block(
                "userinfo",
                noop(
                    "The text before '@' (%(userinfo)s) is a user name, not the site; the site is %(host)s."
                ),
                userinfo=_quote(userinfo),
                host=_quote(host),
            )
        self.read_host(host)
        if port:
            self.parts.append(UrlPart(port, "port"))
            self.check_port(port, scheme)

    def check_port(self, port: str, scheme: str) -> None:
        digits = port[1:]
        if not port.startswith(":") or (digits and not (digits.isascii() and digits.isdigit())):
            self.block("invalid-port", noop("The port %(port)s is not a number."), port=_quote(port))
        elif digits and int(digits) > 65535:
            self.block("invalid-port", noop("The port %(port)s is out of range."), port=_quote(digits))
        elif digits and int(digits) != _DEFAULT_PORTS.get(scheme) and not self.loopback:
            self.warn("unusual-port", noop("The link uses the unusual port %(port)s."), port=digits)

    def read_host(self, raw: str) -> None:
        if not raw:
            self.block("missing-host", noop("The URL names no host."))
            return
        self.host = self.host_unicode = raw
        if raw.startswith("["):
            self.read_ipv6(raw)
            return
        host = raw
        if "%" in host:
            self.block(
                "percent-encoded-host",
                noop("The host %(host)s is percent-encoded, which hides the name a browser will go to."),
                host=_quote(raw),
            )
            host = urllib.parse.unquote(host)
        try:
            mapped = idna.uts46_remap(host, std3_rules=False, transitional=False)
        except (idna.IDNAError, UnicodeError, ValueError):
            self.invalid_host(raw)
            return
        if mapped.endswith("."):
            mapped = mapped[:-1]
        labels = mapped.split(".")
        if _NUMBER.fullmatch(labels[-1]):  # browsers then read the whole host as IPv4
            self.read_ipv4(raw, mapped)
            return
        self.read_name(raw, labels)

    def invalid_host(self, raw: str) -> None:
        self.block("invalid-host", noop("The host %(host)s is not a valid name."), host=_quote(raw))
        self.parts.append(UrlPart(raw, "domain"))

    def read_ipv6(self, raw: str) -> None:
        try:
            address = ipaddress.IPv6Address(raw[1:-1]) if raw.endswith("]") and "%" not in raw else None
        except ValueError:
            address = None
        if address is None:
            self.invalid_host(raw)
            return
        self.parts.append(UrlPart(raw, "domain"))
        self.host = self.host_unicode = self.domain = self.domain_unicode = str(address)
        if address.ipv4_mapped is not None:
            self.block(
                "encoded-ip",
                noop("The host %(host)s is the IPv4 address %(address)s written as IPv6."),
                host=_quote(raw),
                address=address.ipv4_mapped,
            )
        self.check_ip(address)

    def read_ipv4(self, raw: str, mapped: str) -> None:
        """Browsers read a host ending in a number as IPv4, in decimal, octal or hex, whole or in parts."""
        try:
            if not _IPV4_LIKE.fullmatch(mapped):
                raise ValueError(mapped)
            address = ipaddress.IPv4Address(socket.inet_aton(mapped))
        except (OSError, ValueError):
            self.invalid_host(raw)
            return
        self.parts.append(UrlPart(raw, "domain"))
        self.host = self.host_unicode = self.domain = self.domain_unicode = str(address)
        if str(address) != mapped:
            self.block(
                "encoded-ip",
                noop("The host %(host)s is the IP address %(address)s written in disguise."),
                host=_quote(raw),
                address=address,
            )
        self.check_ip(address)

    def check_ip(self, address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> None:
        self.loopback = address.is_loopback
        if not self.loopback:
            self.warn(
                "ip-address",
                noop("The host is the bare IP address %(address)s, with no name to check."),
                address=address,
            )

    def read_name(self, raw: str, labels: list[str]) -> None:
        try:
            ascii_labels, unicode_labels = map(list, zip(*map(label_forms, labels), strict=True))
        except (idna.IDNAError, UnicodeError, ValueError):
            self.invalid_host(raw)
            return
        self.host = ".".join(ascii_labels)
        self.host_unicode = ".".join(unicode_labels)
        if len(self.host) > 253:
            self.invalid_host(raw)
            return
        self.loopback = labels[-1] == "localhost"  # and its subdomains (RFC 6761)

        found = registrable(self.host)
        size = len(found[0].split(".")) if found is not None else len(labels)
        self.domain = ".".join(ascii_labels[-size:])
        self.domain_unicode = ".".join(unicode_labels[-size:])
        self.draw_name(raw, size, len(labels))

        if any("xn--" in label for label in _DOTS.split(raw.lower())):
            self.warn(
                "punycode",
                noop("The host is written in punycode (%(host)s), which reads as %(unicode)s."),
                host=_quote(self.host),
                unicode=_quote(self.host_unicode),
            )
        if not raw.isascii():
            self.warn(
                "idn",
                noop("The host %(host)s uses international characters; its ASCII form is %(ascii)s."),
                host=_quote(raw),
                ascii=_quote(self.host),
            )
        self.check_labels(unicode_labels)
        if found is None and not self.loopback:
            self.warn(
                "no-registrable-domain",
                noop(
                    "The host %(host)s is not under a known public suffix, "
                    "so there is no registered domain to check."
                ),
                host=_quote(self.host_unicode),
            )
        self.check_depth(unicode_labels[:-size])

    def draw_name(self, raw: str, size: int, count: int) -> None:
        """Split the host as written into subdomain and domain, so the domain can be highlighted."""
        raw_labels = _DOTS.split(raw)
        if len(raw_labels) > 1 and not raw_labels[-1]:
            raw_labels.pop()  # a trailing dot
        if len(raw_labels) != count or size >= count:
            self.parts.append(UrlPart(raw, "domain"))
            return
        cut = sum(len(label) + 1 for label in raw_labels[: count - size])
        self.parts += [UrlPart(raw[:cut], "subdomain"), UrlPart(raw[cut:], "domain")]

    def check_labels(self, labels: list[str]) -> None:
        """Mixed alphabets and look-alike letters. A name wholly in the alphabet of its
        top-level domain (Cyrillic under .рф) is what it seems, unless that alphabet is Latin.
        A letter for phonetic notation (a small capital P, G or L) is in no real name, whatever
        the table of look-alikes says of it."""
        home = scripts_of(labels[-1])
        for label in labels:
            scripts = scripts_of(label)
            if is_mixed(scripts):
                self.block(
                    "mixed-scripts",
                    noop("The host part %(label)s mixes letters from different alphabets."),
                    label=_quote(label),
                )
            phonetic = dict.fromkeys(c for c in label if is_phonetic(c))
            if phonetic:
                self.block(
                    "phonetic-letter",
                    noop(
                        "The host part %(label)s contains phonetic letters that pass for ordinary ones "
                        "(%(letters)s), which no real name uses."
                    ),
                    label=_quote(label),
                    letters=", ".join(f"{_quote(c)} (U+{ord(c):04X})" for c in phonetic),
                )
            imitated = looks_ascii(label)
            if imitated is not None and (scripts != home or "LATIN" in scripts):
                self.block(
                    "confusable",
                    noop("The host part %(label)s imitates %(imitated)s with look-alike letters."),
                    label=_quote(label),
                    imitated=_quote(imitated),
                )

    def check_depth(self, subdomain: list[str]) -> None:
        embedded = embedded_domain(subdomain)
        if embedded is not None:
            self.warn(
                "domain-in-subdomain",
                noop("The host begins with %(embedded)s, but the site is %(domain)s."),
                embedded=_quote(embedded),
                domain=_quote(self.domain_unicode or ""),
            )
        if len(self.host_unicode) > _LONG_HOST or len(subdomain) >= _DEEP_SUBDOMAIN:
            self.warn(
                "long-host",
                noop(
                    "The host is long or deeply nested, so the real domain, %(domain)s, "
                    "may be cut off on screen."
                ),
                domain=_quote(self.domain_unicode or ""),
            )


def _split_query(text: str) -> tuple[str, str]:
    """The URL up to its query or fragment, and the rest."""
    end = min((i for i in (text.find("?"), text.find("#")) if i >= 0), default=len(text))
    return text[:end], text[end:]
