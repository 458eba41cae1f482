"""`cogit mcp`: the real server as a subprocess, driven by the official SDK's own client over
stdio. Every write is a commit with `Cogit-Source: agent`; bad arguments are tool errors."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters


def connect(c, folder, **env):
    params = StdioServerParameters(command=sys.executable, args=["-E", "-P", "-m", "cogit", "mcp", "--folder", str(folder)],
                                   env=dict(os.environ, COGIT_HOME=str(c.home), **env), cwd=str(folder))
    return Client(params, read_timeout_seconds=60)


def session(c, folder, steps, **env):
    """Run `steps(client)` (a coroutine function) against a fresh server."""
    async def main():
        async with connect(c, folder, **env) as client:
            return await steps(client)

    return asyncio.run(main())


def text(result) -> str:
    return "".join(getattr(part, "text", "") for part in result.content)


def payload(result):
    assert not result.is_error, text(result)
    return json.loads(text(result))


def test_tools_are_listed_with_bounded_input_schemas(initialized, tmp_path):
    async def steps(client):
        return (await client.list_tools()).tools

    tools = {t.name: t for t in session(initialized, tmp_path, steps)}
    assert set(tools) == {"search", "show", "why", "rules", "remember", "forget"}
    schema = tools["remember"].input_schema
    assert schema["properties"]["text"]["maxLength"] == 2000
    assert schema["properties"]["kind"]["enum"] == ["learning", "heuristic", "avoidance"]
    assert tools["search"].input_schema["properties"]["limit"]["maximum"] == 50


def test_remember_show_why_and_rules_through_the_store(initialized, tmp_path):
    c = initialized
    c.run("add", "rule", "Read the error message before running the command again", "--detector", "error_loop")

    async def steps(client):
        out = {}
        out["remember"] = payload(await client.call_tool("remember", {
            "kind": "learning", "text": "The payment test is flaky because of the timezone; token ghp_" + "a1B2" * 9,
            "category": "mistake", "session_id": "sess-42"}))
        out["again"] = payload(await client.call_tool("remember", {"kind": "learning", "text": out["remember"]["summary"].split(": ", 1)[1]}))
        item_id = out["remember"]["summary"].split()[2].rstrip(":")
        out["show"] = payload(await client.call_tool("show", {"item_id": item_id}))
        out["section"] = payload(await client.call_tool("show", {"section": "learnings"}))
        out["why"] = payload(await client.call_tool("why", {"item_id": item_id}))
        out["rules"] = payload(await client.call_tool("rules", {}))
        out["rule"] = payload(await client.call_tool("rules", {"rule_id": out["rules"][0]["id"]}))
        out["digest"] = (await client.read_resource("cogit://digest")).contents[0].text
        out["resource"] = json.loads((await client.read_resource("cogit://section/learnings")).contents[0].text)
        return out

    out = session(c, tmp_path, steps)
    assert out["remember"]["status"] == "remembered" and out["remember"]["redacted_secrets"] == 1
    assert out["again"]["status"] == "already in memory: evidence added"  # no second item (docs/scopes.md "No duplicates")
    (item,) = c.json("show", "learnings")["learnings"]
    assert item["source"] == "agent" and item["category"] == "mistake" and "ghp_" not in item["text"]
    first = [e for e in c.json("log") if e["trailers"].get("Cogit-Event") == "learning.add"][0]
    trailers = first["trailers"]
    assert (trailers["Cogit-Source"], trailers["Cogit-Session"], trailers["Cogit-Trigger"]) == ("agent", "sess-42", "mcp")
    assert out["show"]["item"]["id"] == item["id"] and out["show"]["scope"] == "global"
    assert out["show"]["provenance"][0]["trailers"]["Cogit-Source"] == "agent"
    assert [i["id"] for i in out["section"]["learnings"]] == [item["id"]]
    assert out["why"]["history"][-1]["commit"] == first["sha"]
    assert out["rules"][0]["detector"] == "error_loop" and "ledger" in out["rule"]
    assert item["id"] in out["digest"] and out["resource"]["learnings"][0]["id"] == item["id"]
    assert "ghp_" not in c.git("log", "-p", "--all")
    c.assert_healthy()


def test_bad_arguments_are_tool_errors_and_the_server_keeps_serving(initialized, tmp_path):
    async def steps(client):
        results = [
            await client.call_tool("remember", {"kind": "secret", "text": "x"}),
            await client.call_tool("remember", {"kind": "learning", "text": "x" * 2001}),
            await client.call_tool("remember", {"kind": "learning"}),
            await client.call_tool("why", {"item_id": "../../etc/passwd"}),
            await client.call_tool("why", {"item_id": "l-abcdef"}),
            await client.call_tool("show", {"section": "config"}),
            await client.call_tool("rules", {"rule_id": "ru-ffff"}),
            await client.call_tool("remember", {"kind": "heuristic", "text": "x", "category": "mistake"}),
            await client.call_tool("forget", {"item_id": "l-abcdef"}),
        ]
        alive = await client.call_tool("show", {"section": "focus"})
        return results, alive

    results, alive = session(initialized, tmp_path, steps)
    assert all(r.is_error for r in results), [text(r) for r in results]
    assert "no history" in text(results[4]) and "search tool" in text(results[4])
    assert "mcp.allow_forget" in text(results[8])
    assert not alive.is_error
    assert len(initialized.git("log", "--format=%H").split()) == 1  # nothing was written


def test_forget_only_when_config_allows_it(initialized, tmp_path):
    c = initialized
    c.run("add", "avoidance", "Never force-push to main")
    (item,) = c.json("show", "avoidances")["avoidances"]

    async def steps(client):
        return await client.call_tool("forget", {"item_id": item["id"], "session_id": "s1"})

    assert session(c, tmp_path, steps).is_error
    config = (c.home / "memory" / "config.yaml").read_text()
    (c.home / "memory" / "config.yaml").write_text(config.replace("allow_forget: false", "allow_forget: true"))
    c.run("commit", "-m", "Let the agent forget")
    assert session(c, tmp_path, steps).is_error  # a permission: only this machine grants it
    assert c.confirm_waiting() == ["mcp.allow_forget"]
    out = payload(session(c, tmp_path, steps))
    assert out["status"] == "forgotten"
    assert c.json("show", "avoidances")["avoidances"] == []
    assert c.json("log", "-n", "1")[0]["trailers"]["Cogit-Source"] == "agent"


def test_a_project_folder_sees_global_and_project_and_writes_to_the_project(initialized, tmp_path):
    from conftest import git

    c = initialized
    proj = tmp_path / "proj"
    proj.mkdir()
    git(proj, "init", "-q")
    git(proj, "remote", "add", "origin", "https://github.com/acme/widgets.git")
    c.run("add", "learning", "Global: run the linter before committing")

    async def steps(client):
        added = payload(await client.call_tool("remember", {"kind": "heuristic", "text": "In widgets, run make check"}))
        shown = payload(await client.call_tool("show", {}))
        return added, shown

    added, shown = session(c, proj, steps)
    assert added["scope"] == "github.com/acme/widgets"
    scopes = {i["scope"] for s in ("learnings", "heuristics") for i in shown[s]}
    assert scopes == {"global", "github.com/acme/widgets"}
    assert c.json("show", "heuristics")["heuristics"] == []  # global memory untouched
    assert "In widgets" in c.git("show", "project/github.com-acme-widgets:heuristics.yaml")


def test_a_busy_store_is_a_quick_tool_error_not_a_hang(initialized, tmp_path):
    """The server waits for the memory lock a bounded time, then says what to do."""
    from cogit.paths import Home
    from cogit.store.write.transact import memory_lock

    c = initialized
    held = threading.Event()
    release = threading.Event()

    def hold():
        with memory_lock(Home(c.home)):
            held.set()
            release.wait(60)

    t = threading.Thread(target=hold)
    t.start()
    held.wait(10)
    try:
        async def steps(client):
            start = time.monotonic()
            result = await client.call_tool("remember", {"kind": "learning", "text": "written while busy"})
            return result, time.monotonic() - start

        result, took = session(c, tmp_path, steps)
    finally:
        release.set()
        t.join()
    assert result.is_error and "busy" in text(result) and "try again" in text(result).lower()
    assert took < 20
    assert c.json("show", "learnings")["learnings"] == []


def test_without_memory_the_command_says_what_to_do(cogit, tmp_path):
    out = cogit.run("mcp", "--folder", str(tmp_path), check=False, input="")
    assert out.returncode == 1 and "cogit init" in out.err


@pytest.mark.parametrize("payload_text", ["not json\n", '{"jsonrpc": "2.0", "id": 1, "method": "nope"}\n'])
def test_garbage_on_stdin_does_not_crash_it(initialized, tmp_path, payload_text):
    out = initialized.run("mcp", "--folder", str(tmp_path), check=False, input=payload_text, timeout=60)
    assert out.returncode == 0, out.err
    assert "crashed" not in out.err


def test_install_registers_the_server_beside_the_users_own_and_uninstall_removes_only_it(initialized, tmp_path):
    c = initialized
    user = tmp_path / "userhome"
    config = user / ".claude.json"
    mine = {"numStartups": 7, "mcpServers": {"github": {"type": "stdio", "command": "gh-mcp", "args": []}}}
    config.write_text(json.dumps(mine))
    out = c.run("install", "claude", "--mcp")
    assert "Registered cogit's MCP server in" in out.out
    assert "headless runs (`claude -p`): allow the memory tools with `--allowedTools mcp__cogit`" in out.out
    data = json.loads(config.read_text())
    assert data["numStartups"] == 7 and data["mcpServers"]["github"] == mine["mcpServers"]["github"]
    entry = data["mcpServers"]["cogit"]
    assert entry["args"][:2] == ["-E", "-P"] and entry["env"] == {"COGIT_HOME": str(c.home)}
    assert list(user.glob(".claude.json.cogit-backup"))
    # The registered command really starts a server that answers.
    async def steps(client):
        return [t.name for t in (await client.list_tools()).tools]

    async def main():
        params = StdioServerParameters(command=entry["command"], args=entry["args"], env=dict(os.environ, **entry["env"]), cwd=str(tmp_path))
        async with Client(params, read_timeout_seconds=60) as client:
            return await steps(client)

    assert "remember" in asyncio.run(main())
    assert "nothing changed" in c.run("install", "claude", "--mcp").out  # idempotent
    c.run("uninstall", "claude")
    assert json.loads(config.read_text()) == mine
    # Someone else's server named "cogit" is never replaced or removed.
    config.write_text(json.dumps({"mcpServers": {"cogit": {"command": "other"}}}))
    bad = c.run("install", "claude", "--mcp", check=False)
    assert bad.returncode == 1 and "not cogit's" in bad.err
    c.run("uninstall", "claude")
    assert json.loads(config.read_text()) == {"mcpServers": {"cogit": {"command": "other"}}}
    config.write_text("{not json")
    bad = c.run("install", "claude", "--mcp", check=False)
    assert bad.returncode == 1 and "not valid JSON" in bad.err and config.read_text() == "{not json"


def test_install_for_a_project_writes_its_mcp_json(initialized, tmp_path):
    proj = tmp_path / "proj"
    proj.mkdir()
    initialized.run("install", "claude", "--mcp", "--project", str(proj))
    assert json.loads((proj / ".mcp.json").read_text())["mcpServers"]["cogit"]["type"] == "stdio"
    initialized.run("uninstall", "claude", "--project", str(proj))
    assert not (proj / ".mcp.json").exists() and proj.is_dir()  # cogit created it: it goes, the folder stays


def test_search_finds_current_items_and_with_history_removed_ones(initialized, tmp_path):
    c = initialized
    c.run("add", "learning", "The flaky payment test fails when TZ is not UTC")
    c.run("add", "avoidance", "Never mock the payment gateway clock")
    (gone,) = c.json("show", "avoidances")["avoidances"]
    c.run("forget", gone["id"])

    async def steps(client):
        now = payload(await client.call_tool("search", {"query": "payment"}))
        past = payload(await client.call_tool("search", {"query": "payment", "history": True}))
        none = payload(await client.call_tool("search", {"query": "zebra"}))
        return now, past, none

    now, past, none = session(c, tmp_path, steps)
    assert [h["section"] for h in now] == ["learnings"] and now[0]["scope"] == "global"
    removed = [h for h in past if h["status"] == "removed"]
    assert [h["id"] for h in removed] == [gone["id"]] and removed[0]["how"] == "forgotten" and removed[0]["commit"]
    assert none == []


def test_remember_waits_for_review_when_config_wants_agent_proposals_approved(initialized, tmp_path):
    c = initialized
    config = (c.home / "memory" / "config.yaml").read_text()
    assert "auto_accept: [agent]" in config or "- agent" in config, config
    (c.home / "memory" / "config.yaml").write_text(config.replace("auto_accept: [agent]", "auto_accept: []").replace("  - agent\n", ""))
    c.run("commit", "-m", "Agent proposals need approval")
    assert c.confirm_waiting() == ["review.auto_accept"]

    async def steps(client):
        return payload(await client.call_tool("remember", {"kind": "avoidance", "text": "Never run the migrations on prod by hand"}))

    out = session(c, tmp_path, steps)
    assert out["status"] == "pending review"
    assert c.json("show", "avoidances")["avoidances"] == []
    (pending,) = c.json("review")
    assert pending["text"] == "Never run the migrations on prod by hand"
    c.run("accept", pending["id"])
    assert [a["text"] for a in c.json("show", "avoidances")["avoidances"]] == [pending["text"]]


def test_install_registers_the_server_with_codex_gemini_cursor_and_openclaw_and_uninstall_removes_only_it(initialized, tmp_path):
    """Codex keeps MCP servers in config.toml tables, Gemini CLI and Cursor in JSON
    `mcpServers`: each gets exactly one `cogit` entry beside the user's, and loses only it."""
    import tomllib

    c = initialized
    user = tmp_path / "userhome"
    env = {"CODEX_HOME": str(user / ".codex"), "GEMINI_CLI_HOME": str(user), "OPENCLAW_STATE_DIR": str(user / ".openclaw")}
    (user / ".codex").mkdir()
    toml = user / ".codex" / "config.toml"
    mine = 'model = "gpt-6"\n\n[mcp_servers.github]\ncommand = "gh-mcp"\nargs = ["--stdio"]\n\n[profiles.fast]\nmodel = "gpt-6-mini"\n'
    toml.write_text(mine)
    (user / ".gemini").mkdir()
    gemini = user / ".gemini" / "settings.json"
    gemini.write_text(json.dumps({"theme": "dark", "mcpServers": {"docs": {"command": "docs-mcp"}}}))
    (user / ".openclaw").mkdir()
    claw = user / ".openclaw" / "openclaw.json"
    claw.write_text(json.dumps({"mcp": {"sessionIdleTtlMs": 5, "servers": {"fs": {"command": "fs-mcp"}}}}))
    for agent in ("codex", "gemini", "cursor", "openclaw"):
        c.run("install", agent, "--mcp", env=env)
        assert "nothing changed" in c.run("install", agent, "--mcp", env=env).out  # idempotent
    data = tomllib.loads(toml.read_text())
    assert data["model"] == "gpt-6" and data["profiles"] == {"fast": {"model": "gpt-6-mini"}}
    assert data["mcp_servers"]["github"] == {"command": "gh-mcp", "args": ["--stdio"]}
    ours = data["mcp_servers"]["cogit"]
    assert ours["args"][:2] == ["-E", "-P"] and ours["env"] == {"COGIT_HOME": str(c.home)}
    g = json.loads(gemini.read_text())
    assert g["theme"] == "dark" and g["mcpServers"]["docs"] == {"command": "docs-mcp"} and "type" not in g["mcpServers"]["cogit"]
    assert "hooks" in g  # the hooks beside it
    cursor = json.loads((user / ".cursor" / "mcp.json").read_text())
    assert cursor["mcpServers"]["cogit"]["command"] == ours["command"]
    oc = json.loads(claw.read_text())["mcp"]
    assert oc["sessionIdleTtlMs"] == 5 and oc["servers"]["fs"] == {"command": "fs-mcp"}
    assert oc["servers"]["cogit"]["transport"] == "stdio" and oc["servers"]["cogit"]["args"][:2] == ["-E", "-P"]
    for agent in ("codex", "gemini", "cursor", "openclaw"):
        c.run("uninstall", agent, env=env)
    assert toml.read_text() == mine
    g = json.loads(gemini.read_text())
    assert g["mcpServers"] == {"docs": {"command": "docs-mcp"}} and "hooks" not in g
    assert not (user / ".cursor" / "mcp.json").exists()  # cogit created it: it goes
    assert json.loads(claw.read_text())["mcp"] == {"sessionIdleTtlMs": 5, "servers": {"fs": {"command": "fs-mcp"}}}
    toml.write_text('[mcp_servers.cogit]\ncommand = "someone-elses"\n')
    bad = c.run("install", "codex", "--mcp", check=False, env=env)
    assert bad.returncode == 1 and "not cogit's" in bad.err and toml.read_text() == '[mcp_servers.cogit]\ncommand = "someone-elses"\n'
    toml.write_text("this is = not [toml")
    bad = c.run("install", "codex", "--mcp", check=False, env=env)
    assert bad.returncode == 1 and "not valid TOML" in bad.err
