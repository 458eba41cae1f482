"""The package layout: data flows one way, and the layers hold even inside functions.

The house, lowest first (docs/architecture.md):

    cogit/domain/    pure: ledger arithmetic, ranking score, tombstones, section names, times
    cogit/digest/    pure: what the agent is shown, assembled from states
    cogit/store/     persistence, in rooms: git/ -> state/ -> cache/ -> write/ -> history/,
                     and on top of them the operations (memory, scopes, scoped, ...)
    cogit/learn/, cogit/sync/   above the store
    cogit/cli/, cogit/mcpserver.py, report, doctor, status ...   above everything they use

`cogit/hooks/` is beside all of it and imports only the standard library (and the few
standard-library-only modules of cogit it needs). Every import counts, also one inside a
function: a lazy import hides a circle, it does not remove it.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import cogit

ROOT = Path(cogit.__file__).parent
THIRD_PARTY = {"dulwich", "click", "ruamel", "jsonschema", "mcp", "yaml"}


def _modules() -> dict[str, Path]:
    out = {}
    for p in ROOT.rglob("*.py"):
        parts = p.relative_to(ROOT).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(("cogit",) + parts)] = p
    return out


MODULES = _modules()


def _imports(name: str) -> set[str]:
    """Every module `name` imports, anywhere in it (top level or inside a function)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names if f"{base}.{a.name}" in MODULES}
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
    return found


def _cogit_graph(names) -> dict[str, set[str]]:
    return {n: {d for d in _imports(n) if d in MODULES and d != n} for n in names}


def _graph() -> dict[str, set[str]]:
    """Modules of store and sync -> the modules of store and sync they import."""
    names = [n for n, p in MODULES.items() if n.startswith(("cogit.store.", "cogit.sync.")) and p.name != "__init__.py"]
    return {n: deps & set(names) for n, deps in _cogit_graph(names).items()}


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


def room(name: str) -> str:
    """The room a module lives in: a sub-package of the store, else a package of cogit,
    else the top-level module itself (doctor, report, status, ...)."""
    parts = name.split(".")
    if parts[:2] == ["cogit", "store"] and len(parts) > 2:
        sub = ".".join(parts[:3])
        return sub if (ROOT / "store" / parts[2]).is_dir() else "cogit.store"
    if len(parts) > 1 and (ROOT / parts[1]).is_dir():
        return ".".join(parts[:2])
    return name


def _rooms() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for name, deps in _cogit_graph(MODULES).items():
        here = room(name)
        # Importing cogit.store.git.repo loads the package cogit.store too: not a dependency.
        out.setdefault(here, set()).update(room(d) for d in deps if room(d) != here and d not in ("cogit", "cogit.store"))
    return out


def _reaching(prefix: str, forbidden: tuple[str, ...]) -> list[tuple[str, str]]:
    return sorted((n, d) for n in MODULES if n == prefix or n.startswith(prefix + ".")
                  for d in _imports(n) if d.split(".")[0] in THIRD_PARTY and "third-party" in forbidden
                  or any(d == f or d.startswith(f + ".") for f in forbidden))


def test_store_and_sync_have_no_import_circles():
    graph = _graph()
    assert "cogit.store.write.transact" in graph and "cogit.sync.remote" in graph
    assert _cycles(graph) == []


def test_no_package_imports_another_that_imports_it_back():
    rooms = _rooms()
    assert {"cogit.domain", "cogit.digest", "cogit.store.git", "cogit.store.write", "cogit.store.state",
            "cogit.store.history", "cogit.store.cache", "cogit.learn", "cogit.cli"} <= rooms.keys()
    assert _cycles(rooms) == []


def test_the_store_imports_nothing_above_it_not_even_inside_a_function():
    above = ("cogit.learn", "cogit.cli", "cogit.hooks", "cogit.sync", "cogit.report", "cogit.mcpserver",
             "cogit.doctor", "cogit.status", "cogit.checks", "cogit.imports", "cogit.search", "cogit.demo")
    assert _reaching("cogit.store", above) == []


def test_learning_sits_above_the_store():
    assert any(d.startswith("cogit.store.") for n in MODULES if n.startswith("cogit.learn.") for d in _imports(n))
    assert _reaching("cogit.learn", ("cogit.cli", "cogit.sync", "cogit.report", "cogit.mcpserver", "cogit.doctor")) == []


# Text functions with no cogit import and no I/O of their own, which the domain and the
# digest may use: redaction (a tombstone or a prompt is stored redacted, then cut) and the
# injection frame (no item text can end the block it is shown in).
# Redaction is two modules: the engine (redact.py) and the table of secret kinds it reads
# (secret_kinds.py), which imports nothing of cogit.
PURE_TEXT = {"cogit.redact", "cogit.secret_kinds", "cogit.frame"}


def test_the_pure_text_modules_stand_alone():
    for n in PURE_TEXT:
        imported = _imports(n)
        assert not {d for d in imported if d.startswith("cogit")} - {"cogit.secret_kinds"}, n
        assert not {d.split(".")[0] for d in imported} & (THIRD_PARTY | {"os", "pathlib", "subprocess", "io", "shutil"}), n


def test_the_domain_is_pure():
    """No I/O layer below it: nothing of cogit but the domain, no git, no YAML, no files."""
    names = [n for n in MODULES if n.startswith("cogit.domain")]
    assert {"cogit.domain.ledger", "cogit.domain.rank", "cogit.domain.tombstones", "cogit.domain.times"} <= set(names)
    for n in names:
        imported = _imports(n)
        assert {d for d in imported if d.startswith("cogit") and not d.startswith("cogit.domain")} <= {"cogit.errors"} | PURE_TEXT, n
        assert not {d.split(".")[0] for d in imported} & (THIRD_PARTY | {"os", "pathlib", "subprocess", "io", "shutil"}), n


def test_the_digest_is_assembled_from_the_domain_alone():
    for n in (n for n in MODULES if n.startswith("cogit.digest")):
        assert {d for d in _imports(n) if d.startswith("cogit")} <= {d for d in MODULES if d.startswith("cogit.domain")} | {"cogit.domain"} | PURE_TEXT, n


def test_the_hooks_reach_only_standard_library_modules():
    """Everything the hook path can import, followed through cogit's own modules (also
    the imports inside functions), is the standard library or a cogit module of it."""
    graph = _cogit_graph(MODULES)
    seen, todo = set(), [n for n in MODULES if n.startswith("cogit.hooks")]
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo += graph[n]
    assert {room(n) for n in seen} <= {"cogit", "cogit.hooks", "cogit.senses", "cogit.learn", "cogit.bounds", "cogit.heads",
                                       "cogit.jsonio", "cogit.launch", "cogit.locking", "cogit.paths", "cogit.redact", "cogit.secret_kinds", "cogit.spatial_index",
                                       "cogit.runtime", "cogit.scope", "cogit.frame", "cogit.programs", "cogit.projectfile",
                                       "cogit.local_settings"}
    assert {n for n in seen if n.startswith("cogit.learn.")} <= {"cogit.learn.record", "cogit.learn.prompts", "cogit.learn.remember"}
    outside = {d.split(".")[0] for n in seen for d in _imports(n) if not d.startswith("cogit")}
    assert outside <= set(sys.stdlib_module_names) | {"_sha1"}, outside - set(sys.stdlib_module_names)


def test_the_store_never_imports_sync():
    upward = sorted((m, d) for m, deps in _graph().items() if m.startswith("cogit.store.")
                    for d in deps if d.startswith("cogit.sync."))
    assert upward == []


def test_the_remote_half_lives_in_sync():
    store = {p.stem for p in (ROOT / "store").rglob("*.py")}
    # canonical_reader stays in the store: history reads use it too, and the store never imports sync.
    assert not store & {"transport", "incoming", "integrate", "merge", "sync"}


def test_no_module_is_much_over_500_lines():
    sizes = {n: len(p.read_text("utf-8").splitlines()) for n, p in MODULES.items()}
    too_big = {n: s for n, s in sizes.items() if s > 520}
    assert too_big == {}
