"""The server a command is pointed at: an `http(s)://` URL, or a command it was *clearly* given.

A command runs only when it comes after `--` (`elicitkit check -- python server.py`) or in the
explicit `stdio:` form (`elicitkit check "stdio:python server.py"`). Anything else is a URL or
a usage error that shows both forms: `elicitkit check touch FILE` must never run `touch`.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any

import typer

from elicitkit.cli._help import Command

__all__ = ["USAGE", "AfterDashes", "Named", "name_target"]

USAGE = (
    "Give the server as an http(s):// URL (e.g. http://127.0.0.1:8000/mcp), or the command that "
    "starts it after -- (e.g. -- python server.py) or as stdio:COMMAND."
)

#: `host:port[/path]`, `localhost[...]`, an IP address, or `name.tld/path`: a URL without its scheme
_SCHEMELESS = re.compile(
    r"^(?:localhost(?=$|[:/])|\[[0-9a-f:.]+\]|\d{1,3}(?:\.\d{1,3}){3}|[\w-]+(?:\.[\w-]+)*(?=:\d+)"
    r"|[\w-]+(?:\.[\w-]+)+(?=/))(?::\d+)?(?:/\S*)?$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Named:
    """What the command line named: exactly one of `url` and `command`."""

    url: str | None = None
    command: tuple[str, ...] = ()


class AfterDashes(Command):
    """A command that remembers the words after `--` (click drops the `--` itself).

    They are in `ctx.meta["after --"]`, or the key is absent when the line had no `--`."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        takes_value = {
            name
            for param in self.params
            if param.param_type_name == "option" and not getattr(param, "is_flag", False)
            for name in param.opts
        }
        index = 0
        while index < len(args):
            word = args[index]
            if word == "--":
                ctx.meta["after --"] = tuple(args[index + 1 :])
                break
            index += 2 if word in takes_value else 1
        return super().parse_args(ctx, args)


def name_target(words: list[str], ctx: typer.Context | None) -> Named:
    """The URL or command in `words` (`ctx`: the command's, see `AfterDashes`); a usage error
    that shows both forms for anything else."""
    after: Any = ctx.meta.get("after --") if ctx is not None else None
    if after is not None:
        before = words[: len(words) - len(after)]
        if before:
            raise _bad(f"{shlex.join(before)!r} comes before --; put only the command after --.")
        if not after:
            raise _bad("-- is followed by no command.")
        return Named(command=tuple(after))
    if not words:
        raise _bad("no server named.")
    first = words[0]
    if first.startswith("stdio:"):
        command = (*shlex.split(first[len("stdio:") :]), *words[1:])
        if not command:
            raise _bad("stdio: is followed by no command.")
        return Named(command=command)
    if len(words) == 1 and first.lower().startswith(("http://", "https://")):
        return Named(url=first)
    if len(words) == 1 and _SCHEMELESS.match(first):
        raise _bad(f"{first!r} is a URL without its scheme; did you mean http://{first} ?")
    if len(words) > 1:
        raise _bad(
            f"{shlex.join(words)!r} is not a URL; a command goes after --, e.g. -- {shlex.join(words)}."
        )
    raise _bad(f"{first!r} is not an http(s):// URL.")


def _bad(what: str) -> typer.BadParameter:
    return typer.BadParameter(f"{what} {USAGE}", param_hint="TARGET")
