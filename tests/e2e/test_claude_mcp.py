"""cogit's MCP server inside the real Claude Code: `cogit install claude --mcp`, then a
scripted model that calls cogit's `search` and `remember` tools. The tools' answers must
reach the model's next request, and the remembered item must be in memory with
`Cogit-Source: agent`."""

from __future__ import annotations

import json

from .conftest import claude_result
from .test_claude_code import cogit, hooks_log  # noqa: F401  (fixture)

KNOWN = "the flaky payment test fails when TZ is not UTC"
DECIDED = "Pin TZ=UTC in the payment test fixture"


def test_claude_code_asks_and_tells_cogit_through_mcp(tmp_path, fake_anthropic, run_claude, cogit):  # noqa: F811
    cogit("init")
    cogit("add", "learning", KNOWN)
    cogit("install", "claude", "--mcp")
    registered = json.loads((cogit.home / ".claude.json").read_text())["mcpServers"]["cogit"]
    assert registered["env"] == {"COGIT_HOME": str(cogit.cogit_home)}
    fake_anthropic.script = [
        # Claude Code defers MCP tools: a model loads their schemas through ToolSearch first
        # (it waits for a server that is still connecting).
        {"tool": {"name": "ToolSearch", "input": {"query": "select:mcp__cogit__search,mcp__cogit__remember"}}},
        {"tool": {"name": "mcp__cogit__search", "input": {"query": "payment test"}}},
        {"tool": {"name": "mcp__cogit__remember", "input": {"kind": "heuristic", "text": DECIDED}}},
        "Done.",
    ]
    proc = run_claude("Why does the payment test flake? Record what we decide.", cogit.home,
                      env_extra={"COGIT_HOME": str(cogit.cogit_home)},
                      allowed="Bash mcp__cogit")  # what `cogit install claude --mcp` advises
    result = claude_result(proc)
    main = fake_anthropic.main_requests
    diag = f"{hooks_log(cogit.cogit_home)}\nclaude stderr: {proc.stderr[-2000:]}\n{fake_anthropic.dump()[-3000:]}"
    assert result["result"] == "Done.", diag
    assert len(main) == 4, diag
    assert "mcp__cogit__search" in json.dumps(main[1].body), diag  # ToolSearch loaded cogit's tools
    # The search answer (with the known learning, found by the tool) reaches the model's next request.
    assert "l-" in json.dumps(main[2].body["messages"][-1]) and KNOWN in json.dumps(main[2].body["messages"][-1]), diag
    assert "remembered" in json.dumps(main[3].body["messages"][-1]), diag
    heuristics = json.loads(cogit("show", "heuristics", "--json"))["heuristics"]
    items = heuristics["items"] if isinstance(heuristics, dict) else heuristics
    (item,) = [i for i in items if i["text"] == DECIDED]
    assert item["source"] == "agent"
    log = json.loads(cogit("log", "--json"))
    (commit,) = [e for e in log if DECIDED in e["summary"]]
    assert commit["trailers"]["Cogit-Source"] == "agent" and commit["trailers"]["Cogit-Trigger"] == "mcp"
