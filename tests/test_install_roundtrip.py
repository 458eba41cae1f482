"""Install, then uninstall, over the user's real settings files: every byte that cogit did
not write comes back (their hooks, comments, layout, key order, non-ASCII text), files
cogit created go, and each file has at most one backup however often cogit runs."""

from __future__ import annotations

import json
import os

# The user's own files, each in the layout a person or the agent itself wrote it.
CLAUDE_SETTINGS = """{
    "permissions": {"allow": ["Bash(npm test)"]},
    "theme": "bär — ünïcode ✓",
    "hooks": {
        "PostToolUse": [
            {"matcher": "Edit|Write", "hooks": [{"type": "command", "command": "prettier --write", "timeout": 30}]}
        ]
    },
    "empty": {}
}
"""
CLAUDE_JSON = '{"numStartups":7,"userID":"abc","mcpServers":{"github":{"type":"stdio","command":"gh-mcp"}},"tip":"日本語"}'
CODEX_HOOKS = '{\n\t"hooks": {\n\t\t"Stop": [\n\t\t\t{"hooks": [{"type": "command", "command": "notify-send ✓"}]}\n\t\t]\n\t}\n}\n'
CODEX_TOML = '# my codex config\nmodel = "gpt-6"  # the fast one\n\n[mcp_servers.github]\ncommand = "gh-mcp"\n'
GEMINI_SETTINGS = """// Gemini CLI settings: comments are allowed here
{
  /* the theme */
  "theme": "Dämmerung",
  "hooks": {
    "AfterTool": [
      // my own audit hook
      {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "audit", "timeout": 3000}]}
    ]
  },
  "mcpServers": {"docs": {"command": "docs-mcp"}} // trailing note
}
"""
CURSOR_HOOKS = '{"version":1,"hooks":{"afterFileEdit":[{"command":"./format.sh"}]}}'
OPENCLAW_JSON = '{\n  "plugins": {\n    "entries": {\n      "mine": {"enabled": true}\n    }\n  },\n  "mcp": {"servers": {"fs": {"command": "fs-mcp"}}},\n  "name": "Zoë"\n}\n'

FILES = {
    ".claude/settings.json": CLAUDE_SETTINGS,
    ".claude.json": CLAUDE_JSON,
    ".codex/hooks.json": CODEX_HOOKS,
    ".codex/config.toml": CODEX_TOML,
    ".gemini/settings.json": GEMINI_SETTINGS,
    ".cursor/hooks.json": CURSOR_HOOKS,
    ".openclaw/openclaw.json": OPENCLAW_JSON,
}


def snapshot(root):
    """Every file and folder under `root`, with the files' bytes."""
    out = {}
    for folder, dirs, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        out[rel + "/"] = None
        for name in files:
            with open(os.path.join(folder, name), "rb") as f:
                out[os.path.join(rel, name)] = f.read()
    return out


def test_install_everywhere_then_uninstall_gives_every_file_back_byte_for_byte(initialized, tmp_path):
    c = initialized
    home = tmp_path / "userhome"
    for rel, text in FILES.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_bytes(text.encode("utf-8"))
    before = snapshot(home)
    env = {"PATH": "/usr/bin:/bin"}  # the agents are found by their folders
    out = c.run("install", "--mcp", env=env).out
    assert "Agents found: Claude Code, Codex, Gemini CLI, Cursor, OpenClaw" in out
    # Installed, with the user's text kept as it was around cogit's entries.
    gemini = (home / ".gemini/settings.json").read_text("utf-8")
    for kept in ("// Gemini CLI settings: comments are allowed here", "/* the theme */", "// my own audit hook",
                 '"theme": "Dämmerung"', "// trailing note"):
        assert kept in gemini
    assert "cogit-SessionStart" in gemini and '"cogit"' in gemini
    claude = (home / ".claude/settings.json").read_text("utf-8")
    assert claude.startswith(CLAUDE_SETTINGS[:CLAUDE_SETTINGS.index('"PostToolUse"')]) and "\\u00e4" not in claude
    assert "from cogit.hooks import run" in claude
    # Run again, and again with another memory home (every entry changes): one backup per file.
    c.run("install", "--mcp", env=env)
    c.run("--home", str(tmp_path / "other-home"), "install", "--mcp", env=env)
    backups = sorted(os.path.normpath(p) for p in snapshot(home) if "cogit-backup" in p)
    # (.cursor/mcp.json is cogit's own file: its one backup is of cogit's first version)
    assert backups == sorted([f"{r}.cogit-backup" for r in FILES] + [".cursor/mcp.json.cogit-backup"])
    for rel, text in FILES.items():
        assert (home / f"{rel}.cogit-backup").read_bytes() == text.encode("utf-8")
    # `cogit uninstall` with no agent: from every agent.
    out = c.run("uninstall", env=env).out
    assert out.count("is as it was before cogit changed it") == len(FILES)
    assert "mcp.json held only cogit's entries (cogit created it): removed" in out
    assert snapshot(home) == before
    again = c.run("uninstall", env=env).out
    assert "No cogit hooks or MCP server in any agent's settings" in again and snapshot(home) == before


def test_a_file_the_user_changed_after_install_keeps_their_change(initialized, tmp_path):
    c = initialized
    path = tmp_path / "userhome" / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(GEMINI_SETTINGS, "utf-8")
    c.run("install", "gemini")
    text = path.read_text("utf-8")
    path.write_text(text.replace('"theme": "Dämmerung"', '"theme": "Dämmerung", // changed my mind\n  "vim": true'), "utf-8")
    out = c.run("uninstall", "gemini").out
    assert "backup of the file before cogit first changed it" in out
    after = path.read_text("utf-8")
    assert after == GEMINI_SETTINGS.replace('"theme": "Dämmerung"', '"theme": "Dämmerung", // changed my mind\n  "vim": true')
    assert (path.parent / "settings.json.cogit-backup").read_text("utf-8") == GEMINI_SETTINGS


def test_gemini_settings_with_comments_are_read_and_broken_ones_refused(initialized, tmp_path):
    c = initialized
    path = tmp_path / "userhome" / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text('{\n  // unterminated\n  "a": [1, 2\n}\n', "utf-8")
    proc = c.run("install", "gemini", check=False)
    assert proc.returncode == 1 and "is not valid JSON with comments (line 4, column 1" in proc.err
    assert "nothing was written" in proc.err and path.read_text("utf-8") == '{\n  // unterminated\n  "a": [1, 2\n}\n'
    # Codex reads plain JSON: a comment there is still refused.
    codex = tmp_path / "userhome" / ".codex" / "hooks.json"
    codex.parent.mkdir(parents=True)
    codex.write_text('{"hooks": {}} // no\n')
    proc = c.run("install", "codex", check=False)
    assert proc.returncode == 1 and "is not valid JSON (line 1" in proc.err


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from cogit.install import jsonc  # noqa: E402

scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), st.text(max_size=4))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=3), inner, max_size=4)), max_leaves=12)
objects = st.dictionaries(st.text(max_size=3), values, max_size=5)


@settings(max_examples=300, deadline=None)
@given(objects, objects, st.sampled_from([None, 2, 4, "\t"]))
def test_a_patched_text_reads_as_the_data_asked_for_and_patching_back_gives_the_same_bytes(a, b, indent):
    text = json.dumps(a, indent=indent, ensure_ascii=False)
    patched = jsonc.patch(text, b)
    assert jsonc.same(jsonc.loads(patched), b) and jsonc.same(json.loads(patched), b)
    # an entry added and taken out again leaves the text as it was
    added = jsonc.patch(text, {**a, "\x00cogit": {"hooks": [1, {"x": "ä"}]}})
    assert jsonc.patch(added, a) == text


def test_doctor_reads_gemini_settings_with_comments(initialized, tmp_path):
    c = initialized
    path = tmp_path / "userhome" / ".gemini" / "settings.json"
    path.parent.mkdir(parents=True)
    path.write_text(GEMINI_SETTINGS, "utf-8")
    c.run("install", "gemini")
    proc = c.run("doctor", "--json", check=False)
    gemini = [f for f in json.loads(proc.out) if "Gemini" in json.dumps(f)]
    assert gemini and all(f["status"] == "ok" for f in gemini) and "are current" in gemini[0]["detail"], gemini
