"""The layout rules of docs/architecture.md that can be checked by reading the source.

Rooms are folders; a room's private modules and names (a leading underscore) are used only
inside that room; nothing imports itself back at run time; imports run downward only.
Rooms are split by concept, not by size: there is no cap on a module's lines or a folder's modules.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src"
PACKAGE = SRC / "elicitkit"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}
PACKAGES = {module_name(p) for p in PACKAGE.rglob("__init__.py")}


def is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def run_time_imports(tree: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that runs (at import or in a function), not those under TYPE_CHECKING."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and is_type_checking(node.test):
            yield from (n for child in node.orelse for n in run_time_imports_of(child))
            continue
        yield from run_time_imports_of(node)


def run_time_imports_of(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
    if isinstance(node, ast.Import | ast.ImportFrom):
        yield node
    else:
        yield from run_time_imports(node)


def imported(importer: str, node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, str | None]]:
    """(module, name) pairs: the elicitkit module imported and, for `from M import n`, the name
    when it is not itself a module."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            yield alias.name, None
        return
    if node.level:
        base = importer.split(".")
        if importer not in PACKAGES:
            base = base[:-1]
        base = base[: len(base) - node.level + 1]
        target = ".".join([*base, node.module] if node.module else base)
    else:
        target = node.module or ""
    for alias in node.names:
        sub = f"{target}.{alias.name}"
        if sub in MODULES:
            yield sub, None
        else:
            yield target, alias.name


def elicitkit_imports(importer: str) -> Iterator[tuple[str, str | None, int]]:
    tree = ast.parse(MODULES[importer].read_text(encoding="utf-8"))
    for node in run_time_imports(tree):
        for module, name in imported(importer, node):
            if module == "elicitkit" or module.startswith("elicitkit."):
                yield module, name, node.lineno


def private_part(dotted: str) -> str | None:
    """The owner of the first private component of a dotted path: `a.b._c.d` -> `a.b`."""
    parts = dotted.split(".")
    for i, part in enumerate(parts):
        if part.startswith("_") and not part.startswith("__"):
            return ".".join(parts[:i])
    return None


def side(module: str) -> str:
    return ".".join(module.split(".")[:2])


def test_no_import_cycle_at_run_time() -> None:
    graph = {
        name: sorted({m for m, _, _ in elicitkit_imports(name) if m in MODULES and m != name})
        for name in MODULES
    }
    cycles = strongly_connected(graph)
    assert not cycles, f"run-time import cycles: {cycles}"


def strongly_connected(graph: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's algorithm (iterative): the components with more than one module."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(graph[start]))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(graph[nxt])))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_no_module_imports_another_sides_private_module_or_name() -> None:
    """A private module is used only by its own room (the package that holds it), a private name
    only by its own module, and neither across sides (client, server, schema, urls, demo, cli)."""
    wrong = []
    for importer in MODULES:
        for module, name, line in elicitkit_imports(importer):
            owner = private_part(module)
            if owner is None and name is not None and name.startswith("_") and not name.startswith("__"):
                owner = f"{module}.{name}"  # a private name is its module's own: share helpers publicly
            if owner is None or module in SDK_ADAPTERS:  # an adapter serves every room (below)
                continue
            inside = importer == owner or importer.startswith(owner + ".")
            if not inside or side(importer) != side(module):
                wrong.append(f"{importer}:{line} imports {module}{'.' + name if name else ''}")
    assert not wrong, "\n".join(wrong)


PEER_INSTALLS = {"node_modules", ".venv"}
"""What scripts/setup installs under tests/peers/: third-party code, not elicitkit's tests."""


def test_no_sys_path_insert_in_tests() -> None:
    needle = "sys.path." + "insert"
    found = [
        str(p.relative_to(ROOT))
        for p in sorted((ROOT / "tests").rglob("*.py"))
        if not PEER_INSTALLS.intersection(p.parts) and needle in p.read_text(encoding="utf-8")
    ]
    assert not found, f"tests that edit sys.path instead of importing tests.support: {found}"


LAYERS = {
    "elicitkit._sdk": 0,  # the SDK adapter: imports nothing of elicitkit
    "elicitkit.errors": 0,
    "elicitkit.results": 0,
    "elicitkit.extras": 0,
    "elicitkit.i18n": 1,
    "elicitkit.schema": 2,
    "elicitkit.urls": 2,
    "elicitkit.asgi": 2,
    "elicitkit.client": 3,
    "elicitkit.server": 3,
    "elicitkit.check": 4,
    "elicitkit.fastmcp": 4,
    "elicitkit.bridge": 4,
    "elicitkit.demo": 5,
    "elicitkit.cli": 5,
}


def layer(module: str) -> int | None:
    return LAYERS.get(side(module))


def test_imports_run_downward_only() -> None:
    """i18n < schema, urls < client, server (neither imports the other) < what wires them for
    people and frameworks; nothing in the library imports `demo` or `cli`."""
    wrong = []
    for importer in MODULES:
        mine = layer(importer)
        if mine is None:
            continue
        for module, name, line in elicitkit_imports(importer):
            theirs = layer(module)
            if theirs is None or side(module) == side(importer):
                continue
            if theirs > mine or (theirs == mine and mine in (2, 3)):
                wrong.append(f"{importer}:{line} imports {module}{'.' + name if name else ''}")
    assert not wrong, "\n".join(wrong)


SDK_ADAPTERS = {"elicitkit._sdk": ("mcp", "mcp_types"), "elicitkit.fastmcp._fastmcp": ("fastmcp",)}
"""The one module per dependency that may use its private surface (tests/test_sdk_adapter.py pins it)."""
ELICITKIT_OWN = {"_mount": "UrlMode._mount, elicitkit's own", "_replace": "a namedtuple's public method"}
"""Private names elicitkit reaches on its own objects that the dependencies happen to define too."""


def private_names_of(dependency: str) -> set[str]:
    """Every `_name` a dependency defines: functions, classes, attributes, module names."""
    import importlib.util
    import re

    spec = importlib.util.find_spec(dependency)
    assert spec is not None and spec.origin is not None, dependency
    defined = re.compile(r"(?:def |class |\.|^\s*)(_[a-z][A-Za-z0-9_]*)\s*(?:[:=(]|$)", re.MULTILINE)
    names: set[str] = set()
    for path in Path(spec.origin).parent.rglob("*.py"):
        names.update(defined.findall(path.read_text(encoding="utf-8")))
    return names


def private_reach(
    tree: ast.AST, dependencies: tuple[str, ...], private: set[str]
) -> Iterator[tuple[int, str]]:
    """Where `tree` imports a private module or name of `dependencies`, reads or sets a private
    attribute they define on something not its own (`x._a`, `super()._a`, `getattr(x, "_a")`), or
    overrides a private method of a class imported from them."""

    def is_private(name: str) -> bool:
        return name.startswith("_") and not name.startswith("__")

    def ours(dotted: str) -> bool:
        return dotted.split(".")[0] in dependencies

    def root(expr: ast.expr) -> str | None:
        while isinstance(expr, ast.Attribute):
            expr = expr.value
        return expr.id if isinstance(expr, ast.Name) else None

    imported_classes: set[str] = set()  # names bound to a dependency's module or class
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if ours(alias.name):
                    imported_classes.add(alias.asname or alias.name.split(".")[0])
                if ours(alias.name) and any(is_private(p) for p in alias.name.split(".")):
                    yield node.lineno, f"import {alias.name}"
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level and ours(node.module):
            for alias in node.names:
                imported_classes.add(alias.asname or alias.name)
                if any(is_private(p) for p in [*node.module.split("."), alias.name]):
                    yield node.lineno, f"from {node.module} import {alias.name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and is_private(node.attr) and node.attr in private:
            own = isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            if not own and node.attr not in ELICITKIT_OWN:
                yield node.lineno, ast.unparse(node)
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) > 1
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and is_private(node.args[1].value)
            and node.args[1].value in private
        ):
            yield node.lineno, ast.unparse(node)
        elif isinstance(node, ast.ClassDef) and any(root(base) in imported_classes for base in node.bases):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name in private:
                    yield item.lineno, f"{node.name}.{item.name} overrides a private method"


TEST_PRIVATE_READS = {
    ("tests/support/redis_topology.py", "_wait"): "SentinelGroup's own method, not the SDK's",
    ("tests/i18n/catalogs.py", "_catalog"): "the standard library's gettext catalog, no public view",
    ("tests/client/test_terminal.py", "_screens"): "whether a screen is up: to do, a public figure",
    ("tests/client/test_flood.py", "_watch"): "the flood watch's verdicts: to do, a public figure",
    ("tests/client/test_flood.py", "_verdicts"): "the flood watch's verdicts: to do, a public figure",
    ("tests/i18n/test_i18n_client_notices.py", "_board"): "the notices shown: to do, a public figure",
    ("tests/server/oauth/test_oauth_replicas.py", "_REFRESH_WAIT"): "10 s, the refresh's deadline too",
}
"""(test file, private name) reads allowed, each with its reason."""


def test_no_test_reaches_a_private_attribute_of_elicitkit_or_the_sdk() -> None:
    """A test asserts behaviour through the public API: it neither reads, sets nor patches a
    private attribute that elicitkit, the SDK or FastMCP defines, on an object not its own, nor
    imports a private SDK module (tests/test_sdk_adapter.py pins those; a private module of
    elicitkit may still be imported to test its functions' results)."""
    dependencies = ("mcp", "mcp_types", "fastmcp")
    private = set().union(*(private_names_of(d) for d in (*dependencies, "elicitkit")))
    constant = re.compile(r"^(_[A-Z][A-Z0-9_]*)\s*[:=]", re.MULTILINE)  # elicitkit's _CACHE_SIZE and kin
    for path in PACKAGE.rglob("*.py"):
        private.update(constant.findall(path.read_text(encoding="utf-8")))
    wrong = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if PEER_INSTALLS.intersection(path.parts) or name == "tests/test_sdk_adapter.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found = [
            (line, re.findall(r"_\w+", what)[-1], what)
            for line, what in private_reach(tree, dependencies, private)
        ]
        for node in ast.walk(tree):  # monkeypatch.setattr(x, "_name", ...) and the like
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("setattr", "getattr", "delattr")
                and len(node.args) > 1
                and isinstance(node.args[1], ast.Constant)
                and isinstance(node.args[1].value, str)
                and node.args[1].value.startswith("_")
                and not node.args[1].value.startswith("__")
            ):
                found.append((node.lineno, str(node.args[1].value), ast.unparse(node)))
        wrong += [f"{name}:{n} {what}" for n, attr, what in found if (name, attr) not in TEST_PRIVATE_READS]
    assert not wrong, "a test reaches a private attribute:\n" + "\n".join(wrong)


def test_private_sdk_and_fastmcp_surface_is_used_only_in_their_adapters() -> None:
    """An SDK or FastMCP release may move anything private: one module per dependency holds every
    use of it, so that release fails in tests/test_sdk_adapter.py first (docs/upstream.md asks
    for the public hooks)."""
    wrong = []
    for dependencies in SDK_ADAPTERS.values():
        private = set().union(*(private_names_of(d) for d in dependencies))
        for name, path in MODULES.items():
            if name in SDK_ADAPTERS:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            wrong += [f"{name}:{line} {what}" for line, what in private_reach(tree, dependencies, private)]
    assert not wrong, "private SDK/FastMCP use outside its adapter module:\n" + "\n".join(wrong)


CLIENT_CONFIGURATION = ["_ui", "_errors", "_limits", "_completions", "_config"]
"""What a host configures the client with, and what that is made of."""
CLIENT_ENGINE = [
    "_association",
    "_connection",
    "_retry",
    "_rounds",
    "_tasks",
    "_tool_tasks",
    "_task_extension",
    "_eliciting",
]
"""What answers a connection under that configuration, each using only those before it."""
CLIENT_WAY_UP = {
    ("_config", "_eliciting"): "ElicitationConfig.connect, a convenience, imports it when called"
}


def test_the_client_configuration_imports_nothing_of_the_engine_and_the_engine_runs_one_way() -> None:
    wrong = []
    order = [*CLIENT_CONFIGURATION, *CLIENT_ENGINE]
    for short in order:
        importer = f"elicitkit.client.{short}"
        for module, _, line in elicitkit_imports(importer):
            target = module.removeprefix("elicitkit.client.")
            if target not in order or (short, target) in CLIENT_WAY_UP:
                continue
            if short in CLIENT_CONFIGURATION and target in CLIENT_ENGINE:
                wrong.append(f"{importer}:{line} (configuration) imports the engine's {module}")
            elif order.index(target) > order.index(short):
                wrong.append(f"{importer}:{line} imports {module}, which comes after it")
    assert not wrong, "\n".join(wrong)
