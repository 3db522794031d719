"""No public call raises a bare built-in: every `raise` in src/elicitkit is read (AST), and one
that raises a built-in exception class (`ValueError`, `TypeError`, `RuntimeError`, `KeyError`,
`LookupError`, `OSError`, `Exception`, ...) fails the test with its file, line and a sentence.
Private code counts: a public call reaches it. Raise an `elicitkit.errors.ElicitationError`
instead; where a caller acts on the standard type, a class that is both, as
`ConfigurationError` (a `ValueError`) and `LifecycleError` (a `RuntimeError`) are.

Not read, because what they raise never reaches a caller of the library:

- `elicitkit.cli`, `elicitkit.demo` and `elicitkit.__main__`: the commands turn every error
  into a sentence and an exit status, and the demo is a story to watch, not an API;
- a re-raise (`raise`, `raise error`): what it raises was raised elsewhere, and read there.

Allowed, each for its reason:

- caught where it is raised: the `raise` sits in the body of a `try`, in the same function,
  whose `except` catches that class;
- what a Python protocol asks of the function: `AttributeError` from a `__getattr__`,
  `StopIteration` from `__next__`, `StopAsyncIteration` from `__anext__`, and `TypeError`
  from a function the module gives `json.dumps` as `default=`;
- `NotImplementedError` as the whole body of a method: a subclass must override it;
- `AssertionError`: a line that cannot run.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.responses import PlainTextResponse

import elicitkit
from elicitkit.asgi import EmbeddedServer
from elicitkit.bridge import Bridge, Upstream
from elicitkit.client import ElicitationConfig, ElicitingClient, RateLimit, RoundsPolicy, ScriptedUI, WebUI
from elicitkit.client._frameworks import for_fastmcp
from elicitkit.errors import ConfigurationError, ElicitationError, LifecycleError
from elicitkit.fastmcp import Elicitation

SOURCE = Path(elicitkit.__file__).parent
NOT_READ = ("cli", "demo", "__main__.py")
"""Relative to the package: the command line and the demo (see the docstring)."""

BUILTIN_ERRORS = {
    name: value
    for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
}
PROTOCOL = {"__getattr__": AttributeError, "__next__": StopIteration, "__anext__": StopAsyncIteration}

Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef | ast.Module


@dataclass(frozen=True)
class Offence:
    path: str
    line: int
    error: str
    function: str

    def __str__(self) -> str:
        return (
            f"{self.path}:{self.line}: {self.function} raises a bare {self.error}; raise an "
            f"elicitkit error instead (ConfigurationError is a ValueError, LifecycleError a RuntimeError)."
        )


def raised_name(node: ast.Raise) -> str | None:
    """The name of the class a `raise` names (`raise X` or `raise X(...)`); None for a re-raise."""
    exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
    return exc.id if isinstance(exc, ast.Name) else None


def shadowed(tree: ast.Module) -> set[str]:
    """Names the module binds itself at its top, which then are not the built-ins."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {alias.asname or alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    return names


def json_default_hooks(tree: ast.Module) -> set[str]:
    """Functions the module passes to `json.dumps`/`json.dump` as `default=`."""
    hooks: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute | ast.Name):
            called = node.func.attr if isinstance(node.func, ast.Attribute) else node.func.id
            if called in ("dumps", "dump"):
                hooks |= {
                    kw.value.id
                    for kw in node.keywords
                    if kw.arg == "default" and isinstance(kw.value, ast.Name)
                }
    return hooks


def caught_here(error: type[BaseException], ancestry: list[ast.AST]) -> bool:
    """Whether a `try` of the same function around the raise catches `error`."""
    for parent, child in zip(reversed(ancestry[:-1]), reversed(ancestry[1:]), strict=True):
        if isinstance(parent, Scope):
            return False
        if isinstance(parent, ast.Try | ast.TryStar) and child in parent.body:
            for handler in parent.handlers:
                if handler.type is None:
                    return True
                listed = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
                for name in listed:
                    catches = BUILTIN_ERRORS.get(name.id) if isinstance(name, ast.Name) else None
                    if catches is not None and issubclass(error, catches):
                        return True
    return False


def whole_body(function: ast.AST, node: ast.Raise) -> bool:
    """`node` is all the function does (after its docstring)."""
    if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return body == [node]


def offences_in(source: str, path: str) -> list[Offence]:
    tree = ast.parse(source)
    own, hooks = shadowed(tree), json_default_hooks(tree)
    found: list[Offence] = []

    def visit(node: ast.AST, ancestry: list[ast.AST]) -> None:
        ancestry = [*ancestry, node]
        if isinstance(node, ast.Raise) and node.exc is not None:
            name = raised_name(node)
            error = BUILTIN_ERRORS.get(name or "") if name not in own else None
            function = next((a for a in reversed(ancestry) if isinstance(a, Scope)), tree)
            function_name = getattr(function, "name", "<module>")
            allowed = error is None or (
                error is AssertionError
                or (error is NotImplementedError and whole_body(function, node))
                or PROTOCOL.get(function_name) is error
                or (error is TypeError and function_name in hooks)
                or caught_here(error, ancestry)
            )
            if not allowed and error is not None:
                found.append(Offence(path, node.lineno, error.__name__, f"`{function_name}`"))
        for child in ast.iter_child_nodes(node):
            visit(child, ancestry)

    visit(tree, [])
    return found


def library_files() -> list[Path]:
    return [
        path for path in sorted(SOURCE.rglob("*.py")) if path.relative_to(SOURCE).parts[0] not in NOT_READ
    ]


def test_no_public_call_raises_a_bare_builtin() -> None:
    offences = [
        offence
        for path in library_files()
        for offence in offences_in(path.read_text(), str(path.relative_to(SOURCE.parent.parent)))
    ]
    assert not offences, f"{len(offences)} raises of a bare built-in:\n" + "\n".join(map(str, offences))


def test_the_scan_reads_the_whole_library() -> None:
    """Not vacuous: every room is read, and hundreds of raises with it."""
    files = library_files()
    rooms = {path.relative_to(SOURCE).parts[0] for path in files}
    assert {"client", "server", "bridge", "asgi", "schema", "urls", "i18n", "check", "fastmcp"} <= rooms
    assert not rooms & {"cli", "demo"}
    raises = sum(
        isinstance(node, ast.Raise) for path in files for node in ast.walk(ast.parse(path.read_text()))
    )
    assert raises > 200


SAMPLE = '''
import json

def bare(x):
    if x:
        raise ValueError("no")
    raise RuntimeError

def caught(x):
    try:
        raise ValueError(x)
    except (KeyError, ValueError):
        pass

def caught_by_a_base(x):
    try:
        raise ConnectionError(x)
    except Exception:
        pass

def not_caught_by_the_handler(x):
    try:
        pass
    except ValueError:
        raise TypeError(x)

def nested(x):
    try:
        def inner():
            raise KeyError(x)
    except KeyError:
        pass

def __getattr__(name):
    raise AttributeError(name)

def hook(value):
    raise TypeError(value)

json.dumps({}, default=hook)

class Base:
    def must(self):
        """Override me."""
        raise NotImplementedError

    def partly(self, x):
        if x:
            raise NotImplementedError

def reraise():
    try:
        pass
    except ValueError as error:
        raise error
    raise AssertionError("unreachable")
'''


def test_the_scan_tells_a_bare_builtin_from_an_allowed_one() -> None:
    found = {(o.line, o.error, o.function) for o in offences_in(SAMPLE, "sample.py")}
    assert found == {
        (6, "ValueError", "`bare`"),
        (7, "RuntimeError", "`bare`"),
        (25, "TypeError", "`not_caught_by_the_handler`"),
        (30, "KeyError", "`inner`"),
        (49, "NotImplementedError", "`partly`"),
    }


def _app(url: str) -> Any:
    return PlainTextResponse("up")


MISTAKES: dict[str, tuple[Callable[[], object], type[ElicitationError], type[Exception]]] = {
    "no modes": (lambda: ElicitationConfig(ScriptedUI(), modes=()), ConfigurationError, ValueError),
    "an unknown standalone policy": (
        lambda: ElicitationConfig(ScriptedUI(), standalone_stream="sometimes"),  # type: ignore[arg-type]
        ConfigurationError,
        ValueError,
    ),
    "a config called as a callback": (
        lambda: ElicitationConfig(ScriptedUI())("message", None, None, None),  # type: ignore[operator]
        ConfigurationError,
        ValueError,
    ),
    "a rate limit of no burst": (lambda: RateLimit(burst=0), ConfigurationError, ValueError),
    "a negative backoff": (lambda: RoundsPolicy(first_delay=-1.0), ConfigurationError, ValueError),
    "a client without a config": (
        lambda: ElicitingClient("http://127.0.0.1:1/mcp"),
        ConfigurationError,
        ValueError,
    ),
    "a second elicitation handler": (
        lambda: for_fastmcp(ElicitationConfig(ScriptedUI())).client(
            "http://127.0.0.1:1/mcp", elicitation_handler=None
        ),
        ConfigurationError,
        ValueError,
    ),
    "a FastMCP adapter given no FastMCP server": (
        lambda: Elicitation(object()),  # type: ignore[arg-type]
        ConfigurationError,
        ValueError,
    ),
    "a bridge nobody answers": (
        lambda: Bridge("http://127.0.0.1:1/mcp", answer="nobody"),  # type: ignore[arg-type]
        ConfigurationError,
        ValueError,
    ),
    "an upstream with neither URL nor command": (lambda: Upstream(), ConfigurationError, ValueError),
    "the web UI's address before it runs": (lambda: WebUI().url, LifecycleError, RuntimeError),
    "an embedded server's address before it runs": (
        lambda: EmbeddedServer(_app).url,
        LifecycleError,
        RuntimeError,
    ),
}


@pytest.mark.parametrize("mistake", list(MISTAKES))
def test_a_mistake_is_an_elicitation_error_with_one_sentence(mistake: str) -> None:
    """What a caller gets for a setting that cannot work, or a call before a start: an
    `ElicitationError` (and the built-in older `except` clauses name), saying what to do."""
    call, error, builtin = MISTAKES[mistake]
    with pytest.raises(ElicitationError) as raised:
        call()
    assert isinstance(raised.value, error) and isinstance(raised.value, builtin)
    said = str(raised.value)
    assert "\n" not in said and said.endswith((".", ".)")), said
