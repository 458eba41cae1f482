"""The package layout: data flows one way.

`cogit/store/` is the local store with its one write path; `cogit/sync/` (remotes,
transport, pull validation, integration, merge) sits beside it and uses the store,
never the other way round. Inside both packages no two modules import each other,
even lazily inside a function (a lazy import hides a circle; it does not remove it).
"""

from __future__ import annotations

import ast
from pathlib import Path

import cogit

ROOT = Path(cogit.__file__).parent


def _graph() -> dict[str, set[str]]:
    modules = {"cogit." + ".".join(p.relative_to(ROOT).with_suffix("").parts): p for pkg in ("store", "sync")
               for p in (ROOT / pkg).rglob("*.py") if p.stem != "__init__"}
    graph = {}
    for name, path in modules.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                deps |= {node.module} & modules.keys()
                deps |= {f"{node.module}.{a.name}" for a in node.names} & modules.keys()
            elif isinstance(node, ast.Import):
                deps |= {a.name for a in node.names} & modules.keys()
        graph[name] = deps - {name}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    found, state = [], {}

    def visit(node, stack):
        state[node] = "open"
        stack.append(node)
        for dep in sorted(graph[node]):
            if state.get(dep) == "open":
                found.append(stack[stack.index(dep):] + [dep])
            elif dep not in state:
                visit(dep, stack)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [])
    return found


def test_store_and_sync_have_no_import_circles():
    graph = _graph()
    assert "cogit.store.write.transact" in graph and "cogit.sync.remote" in graph
    assert _cycles(graph) == []


def test_the_store_never_imports_sync():
    upward = sorted((m, d) for m, deps in _graph().items() if m.startswith("cogit.store.")
                    for d in deps if d.startswith("cogit.sync."))
    assert upward == []


def test_the_remote_half_lives_in_sync():
    store = {p.stem for p in (ROOT / "store").rglob("*.py")}
    # canonical_reader stays in the store: history reads use it too, and the store never imports sync.
    assert not store & {"transport", "incoming", "integrate", "merge", "sync"}
