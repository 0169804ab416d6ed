#!/usr/bin/env python3
# No import circles in the Python client package (python/src/analysis_api/), the Python twin of
# `npm run check:circles` (dependency-cruiser on src/, scripts/checks/depcruise.cjs).
#
# Standard library only (`ast`): no third-party package (pydeps, import-linter, ...) is available offline, and the
# package itself promises the standard library alone.
#
# Every intra-package import counts, wherever it is in the file: at module level, under `if TYPE_CHECKING:`, and
# inside functions. A type-only or deferred back-arrow still hides which module is the lower layer; the fix is
# to move the shared piece into a module below both.
#
#   python3 scripts/checks/check-python-circles.py [PACKAGE_DIR]     (default python/src/analysis_api)
#
# Edges: `from . import x`, `from ._x import y`, `from .. import z`, `import analysis_api._x`,
# `from analysis_api import x`. `from BASE import name` is an edge to the submodule BASE.name when there is one,
# else to BASE (its `__init__.py`); importing a module also imports the packages above it, which counts unless the
# importer is inside that package (then the package is already being imported). Imports made by name at run time
# (`importlib.import_module`, `__import__`) are not seen.
#
# Exit 0: `no python import circles (N modules)`. Exit 1: one `python circle: a.py → b.py → a.py` line per circle
# (for every arrow inside a circle, the shortest circle through it), each arrow's import listed below it.
# Exit 2: a file does not parse (reported as file:line:col), or the directory is not a package.

import ast
import os
import sys
from collections import deque
from pathlib import Path
from typing import Dict, List, NamedTuple, Optional, Set, Tuple

DEFAULT_PACKAGE = Path(__file__).resolve().parent.parent.parent / "python" / "src" / "analysis_api"


class Edge(NamedTuple):
    target: str
    line: int
    where: str
    """`module level`, `under TYPE_CHECKING` or `inside a function`."""
    text: str


class Failure(Exception):
    pass


def shown(path: Path) -> str:
    """A path as the user will recognize it: relative to the working directory when it is under it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return str(path) if relative.startswith("..") else relative


def modules_of(package: Path) -> Dict[str, Path]:
    """Dotted name (`analysis_api`, `analysis_api._core`, `analysis_api.sub.x`) → file, for every module of the
    package and of its subpackages (directories with an `__init__.py`)."""
    root = package.name
    found: Dict[str, Path] = {}

    def walk(directory: Path, dotted: str) -> None:
        found[dotted] = directory / "__init__.py"
        for entry in sorted(directory.iterdir()):
            if entry.is_dir() and (entry / "__init__.py").is_file() and entry.name.isidentifier():
                walk(entry, f"{dotted}.{entry.name}")
            elif entry.is_file() and entry.suffix == ".py" and entry.name != "__init__.py" and entry.stem.isidentifier():
                found[f"{dotted}.{entry.stem}"] = entry

    walk(package, root)
    return found


def is_type_checking(test: ast.expr) -> bool:
    """`if TYPE_CHECKING:` or `if typing.TYPE_CHECKING:` (any alias ending in TYPE_CHECKING)."""
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


class ImportCollector(ast.NodeVisitor):
    """Every `import` / `from ... import` statement of a file, with where it runs."""

    def __init__(self) -> None:
        self.found: List[Tuple[ast.stmt, str]] = []
        self._where: List[str] = ["module level"]

    def _within(self, where: str, nodes: List[ast.stmt]) -> None:
        self._where.append(where)
        for node in nodes:
            self.visit(node)
        self._where.pop()

    def visit_Import(self, node: ast.Import) -> None:
        self.found.append((node, self._where[-1]))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self.found.append((node, self._where[-1]))

    def visit_If(self, node: ast.If) -> None:
        self.visit(node.test)
        if is_type_checking(node.test):
            self._within("inside a function" if self._where[-1] == "inside a function" else "under TYPE_CHECKING", node.body)
            self._within(self._where[-1], node.orelse)
        else:
            self.generic_visit(node)

    def _function(self, node: ast.AST) -> None:
        self._where.append("inside a function")
        self.generic_visit(node)
        self._where.pop()

    visit_FunctionDef = _function
    visit_AsyncFunctionDef = _function
    visit_Lambda = _function


class Package:
    def __init__(self, directory: Path) -> None:
        if not (directory / "__init__.py").is_file():
            raise Failure(f"{shown(directory)} is not a Python package (no __init__.py)")
        self.directory = directory
        self.root = directory.name
        self.modules = modules_of(directory)

    def containing_package(self, module: str) -> str:
        """The package a module's relative imports start from: itself for an `__init__.py`, else its parent."""
        return module if self.modules[module].name == "__init__.py" else module.rsplit(".", 1)[0]

    def is_ancestor(self, package: str, module: str) -> bool:
        """Is `package` the importer's own package or one above it (then it is already being imported)?"""
        own = self.containing_package(module)
        return own == package or own.startswith(package + ".")

    def parents(self, name: str) -> List[str]:
        parts = name.split(".")
        return [".".join(parts[:i]) for i in range(1, len(parts))]

    def targets(self, module: str, node: ast.stmt) -> List[str]:
        """The package's modules an import statement of `module` runs."""
        named: List[str] = []  # what the statement names itself
        implied: List[str] = []  # the packages above them, imported first
        if isinstance(node, ast.Import):
            for alias in node.names:
                named.append(alias.name)
                implied.extend(self.parents(alias.name))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = self.containing_package(module).split(".")
                if node.level - 1 >= len(base_parts):
                    return []  # beyond the top of the package: not this package's
                base = ".".join(base_parts[: len(base_parts) - (node.level - 1)])
                if node.module:
                    base = f"{base}.{node.module}"
            else:
                base = node.module or ""
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                named.append(sub if alias.name != "*" and sub in self.modules else base)
            implied.extend(self.parents(base) + [base])
        result: List[str] = []
        for name in named:
            if name in self.modules and name not in result:
                result.append(name)
        for name in implied:
            if name in self.modules and name not in result and not self.is_ancestor(name, module):
                result.append(name)
        return result

    def graph(self) -> Dict[str, List[Edge]]:
        edges: Dict[str, List[Edge]] = {}
        for module, path in self.modules.items():
            source = path.read_bytes()
            try:
                tree = ast.parse(source, filename=str(path))
            except SyntaxError as error:
                where = f"{shown(path)}:{error.lineno or 1}" + (f":{error.offset}" if error.offset else "")
                raise Failure(f"{where}: syntax error: {error.msg}") from None
            except ValueError as error:  # e.g. a null byte, before Python 3.12
                raise Failure(f"{shown(path)}:1: cannot parse: {error}") from None
            collector = ImportCollector()
            collector.visit(tree)
            lines = source.decode("utf-8", "replace").splitlines()
            found: List[Edge] = []
            for node, where in collector.found:
                text = lines[node.lineno - 1].strip() if 0 < node.lineno <= len(lines) else ""
                for target in self.targets(module, node):
                    found.append(Edge(target, node.lineno, where, text))
            edges[module] = found
        return edges


def strongly_connected(nodes: List[str], succ: Dict[str, List[str]]) -> List[List[str]]:
    """Tarjan's strongly connected components, iteratively (no recursion limit on deep chains)."""
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    on_stack: Set[str] = set()
    stack: List[str] = []
    components: List[List[str]] = []
    counter = 0
    for start in nodes:
        if start in index:
            continue
        work: List[Tuple[str, int]] = [(start, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = counter
                counter += 1
                stack.append(node)
                on_stack.add(node)
            recursed = False
            children = succ[node]
            while i < len(children):
                child = children[i]
                i += 1
                if child not in index:
                    work.append((node, i))
                    work.append((child, 0))
                    recursed = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if recursed:
                continue
            if low[node] == index[node]:
                component: List[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(component)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return components


def shortest_path(start: str, goal: str, succ: Dict[str, List[str]], allowed: Set[str]) -> Optional[List[str]]:
    previous: Dict[str, Optional[str]] = {start: None}
    queue = deque([start])
    while queue:
        node = queue.popleft()
        if node == goal:
            path: List[str] = []
            at: Optional[str] = node
            while at is not None:
                path.append(at)
                at = previous[at]
            return path[::-1]
        for child in succ[node]:
            if child in allowed and child not in previous:
                previous[child] = node
                queue.append(child)
    return None


def circles(edges: Dict[str, List[Edge]]) -> List[List[str]]:
    """For every arrow inside a strongly connected component, the shortest circle through it; each circle once,
    starting at its smallest module."""
    nodes = sorted(edges)
    succ = {m: sorted({e.target for e in edges[m]}) for m in nodes}
    found: List[List[str]] = []
    seen: Set[Tuple[str, ...]] = set()
    for component in strongly_connected(nodes, succ):
        members = set(component)
        if len(component) == 1 and component[0] not in succ[component[0]]:
            continue
        for source in sorted(members):
            for target in succ[source]:
                if target not in members:
                    continue
                back = shortest_path(target, source, succ, members)
                assert back is not None  # same component
                cycle = [source] + back[:-1] if target != source else [source]
                turn = cycle.index(min(cycle))
                key = tuple(cycle[turn:] + cycle[:turn])
                if key not in seen:
                    seen.add(key)
                    found.append(list(key))
    return sorted(found, key=lambda c: (len(c), c))


def main(argv: List[str]) -> int:
    if len(argv) > 1 or (argv and argv[0] in ("-h", "--help")):
        asked = argv[0] in ("-h", "--help")
        print("usage: check-python-circles.py [PACKAGE_DIR]  (default python/src/analysis_api)", file=sys.stdout if asked else sys.stderr)
        return 0 if asked else 2
    directory = Path(argv[0]) if argv else DEFAULT_PACKAGE
    try:
        package = Package(directory.resolve())
        edges = package.graph()
    except Failure as error:
        print(f"check-python-circles: {error}", file=sys.stderr)
        return 2
    found = circles(edges)
    if not found:
        print(f"no python import circles ({len(package.modules)} modules)")
        return 0
    for cycle in found:
        ring = cycle + [cycle[0]]
        print("python circle: " + " → ".join(shown(package.modules[m]) for m in ring))
        for source, target in zip(ring, ring[1:]):
            edge = min((e for e in edges[source] if e.target == target), key=lambda e: (e.where != "module level", e.line))
            print(f"  {shown(package.modules[source])}:{edge.line} ({edge.where}): {edge.text}")
    tangled = {m for cycle in found for m in cycle}
    print(f"{len(found)} python import circle{'s' if len(found) != 1 else ''} through {len(tangled)} of {len(package.modules)} modules in {shown(package.directory)}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
