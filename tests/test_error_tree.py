"""One error tree: `except elicitkit.errors.ElicitationError` catches every error elicitkit
defines and offers by a public name, and the tree drawn in `elicitkit.errors`'s docstring (the
errors page of the API reference, docs/reference/errors.md) is the tree as it is.

The walk imports every public module of the package (no part of its dotted name starts with
`_`) and looks at each name the module exports: its `__all__`, or without one each attribute
whose name does not start with `_` (Python's own rule for `import *`)."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from types import ModuleType

import elicitkit
import elicitkit.errors
from elicitkit.errors import ElicitationError


def public_modules() -> list[ModuleType]:
    names = ["elicitkit"] + [
        info.name
        for info in pkgutil.walk_packages(elicitkit.__path__, "elicitkit.")
        if not any(part.startswith("_") for part in info.name.split(".")[1:])
    ]
    return [importlib.import_module(name) for name in names]


def public_errors() -> dict[type[BaseException], set[str]]:
    """Each exception class elicitkit defines, with the public names it is reachable by."""
    found: dict[type[BaseException], set[str]] = {}
    for module in public_modules():
        exported = getattr(module, "__all__", None)
        names = exported if exported is not None else [n for n in vars(module) if not n.startswith("_")]
        for name in names:
            value = getattr(module, name)
            if (
                inspect.isclass(value)
                and issubclass(value, BaseException)
                and value.__module__.split(".")[0] == "elicitkit"
            ):
                found.setdefault(value, set()).add(f"{module.__name__}.{name}")
    return found


ERRORS = public_errors()


def test_the_walk_reaches_every_room() -> None:
    """Not vacuous: errors of the client, the server, the pure rooms and the tools are all found."""
    reached = {cls.__name__ for cls in ERRORS}
    assert {
        "ElicitationDeclinedError",
        "ElicitationRefusedError",
        "NotATerminalError",
        "InvalidAnswerError",
        "RequestStateRejectedError",
        "TokenVerifierError",
        "RecordExistsError",
        "OAuthProviderError",
        "SchemaBuildError",
        "PatternError",
        "UnsupportedLocaleError",
        "MissingExtraError",
        "TargetError",
        "UpstreamAuthorizationError",
    } <= reached


def test_every_public_error_is_an_elicitation_error() -> None:
    outside = sorted(
        f"{cls.__module__}.{cls.__qualname__} (public as {', '.join(sorted(names))})"
        for cls, names in ERRORS.items()
        if not issubclass(cls, ElicitationError)
    )
    assert not outside, "errors that `except ElicitationError` misses:\n" + "\n".join(outside)


def documented_tree() -> list[tuple[int, str]]:
    """(depth, class name) of each item of the docstring's indented list, in order."""
    items = re.findall(r"^( *)- `(\w+)`", inspect.cleandoc(elicitkit.errors.__doc__ or ""), re.MULTILINE)
    return [(len(indent) // 4, name) for indent, name in items]


def test_the_documented_tree_is_the_tree_as_it_is() -> None:
    """Every public error is drawn once, under its nearest elicitkit base class."""
    by_name = {cls.__name__: cls for cls in ERRORS}
    tree = documented_tree()
    names = [name for _, name in tree]
    assert sorted(names) == sorted(by_name), "the documented tree and the package name different errors"
    parents: list[str] = []
    for depth, name in tree:
        parents[depth:] = [name]
        cls = by_name[name]
        own = [base for base in cls.__mro__[1:] if base in ERRORS]
        expected = own[0].__name__ if own else None
        actual = parents[depth - 1] if depth else None
        assert actual == expected, f"{name} is drawn under {actual}, but its nearest base is {expected}"
