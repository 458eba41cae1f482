"""Every module path the code and the docs name is a real file (issue 21: after the house was
reorganised, some 50 comments still sent readers to modules from before it: the store's old
digest, repo, state and history-index modules, learn's rank and ledger).

Scanned: the comments and docstrings of every Python file in cogit/, tests/ and bench/ (string
literals are data: test fixtures name made-up projects' files), and every line of the docs
pages. A mention is `a/b.py` (resolved from the repository, from cogit/, from cogit/store/ for
the store's rooms, or from the mentioning file's folder) or a dotted `cogit.store.x` /
`store.git.repo.func` (a module, and at most one attribute after it). Paths of other projects
(a sense's example `pkg/core.py`) start with a folder this repository does not have and are
not checked; the few examples and history notes that look like ours are listed in EXAMPLES.
A help text that sends people to a README section names one the README has.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OURS = {"cogit", "tests", "bench", "docs", "store", "learn", "cli", "hooks", "senses", "domain", "digest", "sync",
        "checks", "install", "imports", "git", "state", "cache", "write", "history"}
PATH = re.compile(r"(?<![\w./-])((?:[\w.-]+/)+[\w-]+\.py)\b")
DOTTED = re.compile(r"(?<![\w./`-])((?:cogit\.)?(?:store|learn|cli|hooks|senses|domain|digest|sync|checks|install|imports)"
                    r"\.[a-z_]+(?:\.[a-z_]+)*)")
# (page, path): examples of what a user types or an agent reads, and notes of what moved where.
EXAMPLES = {
    ("docs/architecture.md", "domain/items.py"),  # a planned move
    ("docs/decisions.md", "domain/items.py"),
    ("docs/decisions.md", "learn/ledger.py"),  # "The house in rooms": where modules came from
    ("docs/decisions.md", "learn/rank.py"),
    ("docs/decisions.md", "store/state.py"),
    ("docs/decisions.md", "store/sections.py"),
    ("docs/decisions.md", "store/status.py"),
    ("docs/development.md", "tests/FILE.py"),  # a placeholder
    ("docs/security.md", "tests/test_x.py"),  # a command line redaction must leave alone
    ("README.md", "tests/test_store.py"),  # a rule's text in an example session
    ("docs/senses.md", "tests/test_api.py"),  # the senses' examples: another project's files
    ("docs/senses.md", "tests/test_tokenizer_negative.py"),
    ("docs/senses.md", "cache/ttl.py"),
    ("docs/senses.md", "cli/export.py"),
    ("docs/senses.md", "cogit/cli/log.py"),  # a prompt in drift's example
}


def _texts_py(path: Path) -> list[tuple[int, str]]:
    source = path.read_text("utf-8")
    out = [(t.start[0], t.string) for t in tokenize.generate_tokens(io.StringIO(source).readline)
           if t.type == tokenize.COMMENT]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
                out += [(first.lineno + i, line) for i, line in enumerate(first.value.value.splitlines())]
    return out


def _sources():
    for folder in ("cogit", "tests", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" not in path.parts:
                yield path, _texts_py(path)
    for path in [ROOT / "README.md", ROOT / "SECURITY.md", *sorted((ROOT / "docs").glob("*.md"))]:
        yield path, list(enumerate(path.read_text("utf-8").splitlines(), 1))


def _resolves(where: Path, mention: str) -> bool:
    if mention.startswith("cogit/"):
        return (ROOT / mention).is_file()
    bases = [ROOT, ROOT / "cogit", ROOT / "cogit" / "store", *[p for p in where.parents if ROOT in p.parents]]
    return any((base / mention).is_file() for base in bases)


def _module_exists(name: str) -> bool:
    parts = name.split(".")
    if parts[0] != "cogit":
        parts.insert(0, "cogit")
    for i in range(len(parts), 1, -1):
        p = ROOT.joinpath(*parts[:i])
        if p.with_suffix(".py").is_file() or (p / "__init__.py").is_file():
            return i >= len(parts) - 1
    return False


def stale_mentions() -> list[str]:
    out = []
    for path, lines in _sources():
        rel = str(path.relative_to(ROOT))
        for n, line in lines:
            for m in PATH.finditer(line):
                mention = m.group(1)
                if mention.split("/")[0] in OURS and (rel, mention) not in EXAMPLES and not _resolves(path, mention):
                    out.append(f"{rel}:{n}: {mention}")
            if path.suffix == ".py":
                for m in DOTTED.finditer(line):
                    if not _module_exists(m.group(1).rstrip(".")):
                        out.append(f"{rel}:{n}: {m.group(1)}")
    return out


def test_every_module_path_named_in_comments_and_docs_exists():
    assert stale_mentions() == []


def test_every_readme_section_the_code_names_is_in_the_readme():
    headings = {h.strip() for h in re.findall(r"^#{1,6} (.+)$", (ROOT / "README.md").read_text("utf-8"), flags=re.M)}
    named = []
    for path in sorted((ROOT / "cogit").rglob("*.py")):
        for m in re.finditer(r'README(?:\'s)? "([^"]+)"', path.read_text("utf-8")):
            if m.group(1) not in headings:
                named.append(f"{path.relative_to(ROOT)}: README \"{m.group(1)}\"")
    assert named == []
