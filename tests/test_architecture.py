"""The shape of the code, kept by a test: layers that import one way, no import cycles, small
modules.

Read from the source with :mod:`ast` (nothing is imported). Every import counts, at module
level or inside a function, except those under ``if TYPE_CHECKING:`` (types only). What is
not so yet is listed in ``KNOWN_*`` below, each entry exactly: a fix must remove its entry (the
test fails on an entry that no longer applies), and nothing new may join the lists.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("recall", "lsp_server", "mcp_server")
MAX_LINES = 400

# Layer contracts: a module under the first prefix never imports one under the second.
FORBIDDEN: tuple[tuple[str, str], ...] = (
    ("recall", "lsp_server"),  # the engine knows nothing of LSP
    ("recall", "mcp_server"),
    ("mcp_server", "recall.cli"),  # surfaces build on the core, not on each other
    ("mcp_server", "lsp_server"),
    ("lsp_server", "recall.cli"),
    ("lsp_server", "mcp_server"),
    ("recall.browse", "recall.cli"),
)

# Still to do (the one-core redesign): each entry is removed by the change that fixes it.
KNOWN_WRONG_WAY: frozenset[tuple[str, str]] = frozenset()
KNOWN_CYCLES: frozenset[frozenset[str]] = frozenset()
KNOWN_LONG: frozenset[str] = frozenset()


def modules() -> dict[str, Path]:
    """Every project module by dotted name."""
    found: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "node_modules" in path.parts:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(tree: ast.AST, name: str, is_package: bool) -> Iterator[str]:
    """The dotted names ``tree`` imports, leaving out ``if TYPE_CHECKING:`` blocks."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for other in node.orelse:
                yield from _imports(other, name, is_package)
            continue
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if is_package else name.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join([*package, base] if base else package)
            yield base
            yield from (f"{base}.{alias.name}" for alias in node.names)
        yield from _imports(node, name, is_package)


def graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports."""
    known = modules()
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets = set()
        for imported in _imports(tree, name, path.name == "__init__.py"):
            if imported in known and imported != name:
                targets.add(imported)
        edges[name] = targets
    return edges


def cycles(edges: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            # A package's __init__ that only re-exports its own modules is not a cycle member.
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == node:
                    break
            if len(group) > 1:
                found.add(frozenset(group))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def test_layers_import_one_way() -> None:
    wrong = {
        (source, target)
        for source, targets in graph().items()
        for target in targets
        for low, high in FORBIDDEN
        if _under(source, low) and _under(target, high)
    }
    assert wrong - KNOWN_WRONG_WAY == set(), "imports that go the wrong way"
    assert KNOWN_WRONG_WAY - wrong == set(), "fixed: remove from KNOWN_WRONG_WAY"


def test_no_import_cycles() -> None:
    found = cycles(graph())
    assert found - KNOWN_CYCLES == set(), "new import cycles"
    assert KNOWN_CYCLES - found == set(), "fixed or changed: update KNOWN_CYCLES"


def test_no_module_over_the_line_limit() -> None:
    long = {
        path.relative_to(ROOT).as_posix()
        for path in modules().values()
        if len(path.read_text(encoding="utf-8").splitlines()) > MAX_LINES
    }
    assert long - KNOWN_LONG == set(), f"modules over {MAX_LINES} lines"
    assert KNOWN_LONG - long == set(), "now short enough: remove from KNOWN_LONG"


def test_the_checks_see_a_cycle_and_a_wrong_way_import() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == {frozenset({"a", "b", "c"})}
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from recall.store import MemoryStore\n"
        "def f():\n    from lsp_server import server\n"
        "from . import sibling\n"
    )
    seen = set(_imports(tree, "recall.cli.x", False))
    assert "lsp_server.server" in seen and "recall.cli.sibling" in seen
    assert "recall.store" not in seen


def test_the_cli_finds_the_servers_by_entry_point() -> None:
    from lsp_server.setup import run as lsp_run
    from mcp_server.server import run as mcp_run
    from recall.cli.servers import server
    from recall.errors import TetherError

    assert server("lsp") is lsp_run and server("mcp") is mcp_run
    try:
        server("dap")
    except TetherError as error:
        assert "no 'dap' entry point" in str(error) and "reinstall" in str(error)
    else:
        raise AssertionError("an unknown server must be refused")
