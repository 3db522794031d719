"""Registrable domains (the offline public-suffix list) and the two forms of a host's labels."""

from __future__ import annotations

import functools
import re

import idna
from publicsuffixlist import PublicSuffixList

__all__ = ["embedded_domain", "label_forms", "registrable"]


@functools.cache
def _psl() -> PublicSuffixList:
    """The offline public-suffix list: the snapshot inside the package, no download, no disk cache.

    Private suffixes count (github.io, ...): there each name has its own owner. A name under no
    listed suffix has no registrable domain (no implicit "*" rule).
    """
    return PublicSuffixList(only_icann=False, accept_unknown=False)


def registrable(host: str) -> tuple[str, str] | None:
    """The registrable domain of `host` and its public suffix, or None when it has none."""
    domain = _psl().privatesuffix(host)
    if not isinstance(domain, str):
        return None
    return domain, domain.partition(".")[2]


_CLASSIC_TLDS = {"com", "net", "org", "edu", "gov", "mil", "int", "info", "biz"}
_ASCII_LABEL = re.compile(r"[a-z0-9_-]{1,63}")


def embedded_domain(labels: list[str]) -> str | None:
    """A well-known domain spelled inside the subdomain, like microsoft.com in login.microsoft.com.evil.io."""
    for end in range(2, len(labels) + 1):
        found = registrable(".".join(labels[:end]))
        if found is not None and (found[1] in _CLASSIC_TLDS or "." in found[1]):
            return found[0]
    return None


def label_forms(label: str) -> tuple[str, str]:
    """The ASCII and Unicode forms of one mapped label; plain ASCII may use "_", as browsers allow."""
    if label.startswith("xn--"):
        return label, idna.ulabel(label)  # decoding validates it
    if label.isascii():
        if not _ASCII_LABEL.fullmatch(label):
            raise idna.IDNAError(f"{label!r} is not a hostname label")  # as idna says of the others
        return label, label
    return idna.alabel(label).decode("ascii"), label
