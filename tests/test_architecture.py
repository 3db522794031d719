"""The layout rules of docs/architecture.md that can be checked by reading the source.

Rooms are folders; a room's private modules and names (a leading underscore) are used only
inside that room; nothing imports itself back at run time; imports run downward only.
Rooms are split by concept, not by size: there is no cap on a module's lines or a folder's modules.
"""

from __future__ import annotations

import ast
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
            if owner is None:
                continue
            inside = importer == owner or importer.startswith(owner + ".")
            if not inside or side(importer) != side(module):
                wrong.append(f"{importer}:{line} imports {module}{'.' + name if name else ''}")
    assert not wrong, "\n".join(wrong)


def test_no_sys_path_insert_in_tests() -> None:
    needle = "sys.path." + "insert"
    found = [
        str(p.relative_to(ROOT))
        for p in sorted((ROOT / "tests").rglob("*.py"))
        if "node_modules" not in p.parts and needle in p.read_text(encoding="utf-8")
    ]
    assert not found, f"tests that edit sys.path instead of importing tests.support: {found}"


LAYERS = {
    "elicitkit.errors": 0,
    "elicitkit.extras": 0,
    "elicitkit.i18n": 1,
    "elicitkit.schema": 2,
    "elicitkit.urls": 2,
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
