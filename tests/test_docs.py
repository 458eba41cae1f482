"""The README and docs/ stay whole: short README, two set-up commands first, every link lands,
and every command, exit code, config key and environment variable the code has is documented.

Issue 21, part 5 moved the manual out of the README into docs/; these checks keep it from
drifting as the code grows (a new command, key or variable with no line in the docs fails here).
"""
import re
from pathlib import Path

from cogit.cli import COMMANDS
from cogit.errors import ExitCode

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, ROOT / "SECURITY.md", *sorted(DOCS.glob("*.md"))]


def text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def all_docs() -> str:
    return "\n".join(text(p) for p in PAGES)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    h = re.sub(r"`|\*\*", "", heading.strip().lower())
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h)
    h = re.sub(r"[^\w\- ]", "", h)
    return h.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    body = re.sub(r"```.*?```", "", text(path), flags=re.S)
    return {slug(m) for m in re.findall(r"^#{1,6} (.+)$", body, flags=re.M)}


def links(path: Path) -> list[str]:
    body = re.sub(r"```.*?```", "", text(path), flags=re.S)
    found = re.findall(r"\]\(([^)\s]+)\)", body) + re.findall(r'src="([^"]+)"', body)
    return [u for u in found if not re.match(r"[a-z]+:", u)]


def test_the_readme_is_short_and_starts_with_the_two_set_up_commands():
    lines = text(README).splitlines()
    assert len(lines) <= 300, f"README.md has {len(lines)} lines; the manual belongs in docs/"
    first_block = text(README).split("```", 2)[1]
    commands = [l for l in first_block.splitlines()[1:] if l.strip() and not l.lstrip().startswith("#")]
    assert commands == ["python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/cogit demo",
                        "bash .ci/run"]
    # nothing before them but the title and what cogit is
    before = text(README).split("```", 1)[0]
    assert before.count("\n## ") <= 1 and "cogit" in before.splitlines()[0]


def test_every_relative_link_and_anchor_lands():
    broken = []
    for page in PAGES:
        for url in links(page):
            target, _, anchor = url.partition("#")
            dest = (page.parent / target).resolve() if target else page
            if not dest.exists():
                broken.append(f"{page.relative_to(ROOT)}: {url} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
                broken.append(f"{page.relative_to(ROOT)}: {url} (no such heading)")
    assert not broken, "\n".join(broken)


def test_the_index_links_every_page():
    index = text(DOCS / "index.md")
    missing = [p.name for p in DOCS.glob("*.md") if p.name != "index.md" and f"]({p.name}" not in index]
    assert not missing, f"docs/index.md does not link {missing}"
    assert "](docs/index.md)" in text(README)


def test_every_command_has_a_line_in_the_commands_page():
    page = text(DOCS / "commands.md")
    missing = [name for name in COMMANDS if f"`cogit {name}" not in page]
    assert not missing, f"docs/commands.md does not describe {missing}"


def test_every_exit_code_is_in_the_tables():
    for page in (README, DOCS / "commands.md"):
        rows = set(re.findall(r"^\| (\d+) \|", text(page), flags=re.M))
        codes = {str(int(c)) for c in ExitCode} | {"130"}
        assert codes <= rows, f"{page.name}: exit codes {sorted(codes - rows)} have no row"


def config_keys(node, prefix=""):
    for key, value in node.items():
        name = f"{prefix}{key}"
        yield name
        if isinstance(value, dict) and key not in ("overrides",):
            yield from config_keys(value, name + ".")


def test_every_config_key_is_documented():
    import json

    schema = json.loads((ROOT / "schemas" / "config.schema.json").read_text())
    docs = all_docs()

    def walk(props, prefix=""):
        for key, sub in props.items():
            name = f"{prefix}{key}"
            yield name, key
            if sub.get("type") == "object" and "properties" in sub:
                yield from walk(sub["properties"], name + ".")

    missing = [full for full, key in walk(schema["properties"])
               if full not in docs and f"`{key}`" not in docs and f"{key}:" not in docs and key != "schema_version"]
    assert not missing, f"config keys no page mentions: {missing}"


def test_every_environment_variable_is_documented():
    used = set()
    for folder in ("cogit", "bench", ".ci", "tests"):
        for path in (ROOT / folder).rglob("*"):
            if path.is_file() and path.suffix in ("", ".py", ".mjs", ".js", ".sh") and "__pycache__" not in path.parts:
                used |= set(re.findall(r"\bCOGIT_[A-Z0-9_]*[A-Z0-9]\b", path.read_text(errors="replace")))
    docs = all_docs()
    missing = sorted(v for v in used if v not in docs)
    assert not missing, f"environment variables no page mentions: {missing}"
