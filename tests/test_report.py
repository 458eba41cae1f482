"""`cogit report`: the HTML file, its data and its bounds, and the page in a real browser.

The memory is made as people and agents make it: real `cogit` subprocesses, agent
sessions through the real hook entrypoints (a global one and a project's), a rule that
grows from detections and a suppression, a revert, a hand edit, a sync from a second
machine, and an item whose text tries to break out of the page.

The browser test drives headless Chromium (Debian's `chromium`) through the DevTools
protocol (tests/cdp.py): it checks the rendered page at 1280 px and at a phone's 390 px,
that a mouse click on a commit shows its diff, that the keyboard alone reaches a commit
and opens it, that nothing was fetched, and that there were no console errors and no
dialog. Without Chromium it FAILS with how to install it (never a silent skip).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cdp import INSTALL_HINT, Browser, find_chromium
from conftest import Cogit, git

HOSTILE = '</script><script>alert(1)</script><img src=x onerror=alert(2)> & <!-- "x" </SCRIPT >'
ERR = "Exit code 1\nModuleNotFoundError: No module named 'widgets'"
PROJECT_URL = "https://example.com/acme/alpha.git"
TOKEN = "ghp_" + "Zx9Yw8Vu7T" * 4
# sess-2's first prompt: markup, an absolute path and a secret (prompts are hostile text).
PROMPT_2 = f"</script><b onclick=alert(3)>Check</b> /home/someone/src/alpha/app.py with {TOKEN} please"
TITLE_2 = "</script><b onclick=alert(3)>Check</b> …/app.py with [REDACTED:github-token] please"


def payload(sid: str, event: str, cwd: str, **fields) -> dict:
    base = {"session_id": sid, "transcript_path": f"/tmp/{sid}.jsonl", "cwd": cwd, "hook_event_name": event}
    base.update(fields)
    return base


def bash(sid, n, ok=True, cmd="python -m app"):
    if ok:
        return "PostToolUse", dict(tool_name="Bash", tool_input={"command": cmd},
                                   tool_response={"stdout": "ok", "stderr": "", "interrupted": False},
                                   tool_use_id=f"t{n}", duration_ms=40)
    return "PostToolUseFailure", dict(tool_name="Bash", tool_input={"command": cmd}, tool_use_id=f"t{n}",
                                      error=ERR, is_interrupt=False, duration_ms=30)


def read(n, path="/tmp/app.py"):
    return "PostToolUse", dict(tool_name="Read", tool_input={"file_path": path},
                               tool_response={"type": "text", "file": {"content": "x"}}, tool_use_id=f"r{n}", duration_ms=3)


def session(c: Cogit, sid: str, cwd: Path, calls, prompt="Fix the import of the widgets module in app.py please"):
    """One whole agent session through `cogit hook claude EVENT` subprocesses."""
    assert c.hook("SessionStart", payload(sid, "SessionStart", str(cwd), source="startup")).returncode == 0
    assert c.hook("UserPromptSubmit", payload(sid, "UserPromptSubmit", str(cwd), prompt=prompt)).returncode == 0
    for event, body in calls:
        assert c.hook(event, payload(sid, event, str(cwd), **body)).returncode == 0
    assert c.hook("SessionEnd", payload(sid, "SessionEnd", str(cwd), reason="prompt_input_exit")).returncode == 0
    c.run("finalize")


def make_memory(tmp_path: Path, c: Cogit) -> dict:
    """A memory with two scopes, four agent sessions, a rule with evidence and a revert of some,
    a reverted learning, a hand edit, a merge from a second machine, and a hostile item."""
    c.run("init")
    c.run("focus", "set", "Ship the report", "-p", "keyboard first", "-p", "no network")
    c.run("add", "learning", "Run the suite with python -m pytest -q", "--category", "insight")
    c.run("add", "heuristic", "Read the error before retrying a command")
    c.run("add", "learning", HOSTILE)
    c.run("add", "learning", "A lesson that turned out wrong")
    wrong = c.json("log", "-n", "1")[0]["sha"]
    c.run("revert", wrong)

    alpha = tmp_path / "alpha"
    alpha.mkdir()
    git(alpha, "init", "-q")
    git(alpha, "remote", "add", "origin", PROJECT_URL)
    c.run("add", "avoidance", "Editing generated files in alpha/build", "--project", str(alpha))
    # Agent sessions in the project: a loop on one error (a rule is born), a clean run that was
    # shown the rule (a suppression), another loop (a detection), and an explicit lesson.
    session(c, "sess-1", alpha, [bash("sess-1", i, ok=False) for i in range(3)] + [bash("sess-1", 9, cmd="pip install widgets"), bash("sess-1", 10)])
    session(c, "sess-2", alpha, [bash("sess-2", 1), read(2)], prompt=PROMPT_2)
    session(c, "sess-3", alpha, [bash("sess-3", i, ok=False) for i in range(3)])
    session(c, "sess-4", alpha, [read(1), bash("sess-4", 2)], prompt="remember this: alpha's tests need the widgets extra")
    rules = c.json("rules")
    assert len(rules) == 1 and rules[0]["scope"] != "global", rules
    rule = rules[0]
    branch = rule["scope"]
    log = json.loads(c.run("log", "--project", branch, "--json").out)
    (sup,) = [e for e in log if e["trailers"].get("Cogit-Event") == "rule.suppress" and e["trailers"].get("Cogit-Session") == "sess-2"]
    c.run("revert", sup["sha"], "--project", branch)

    # A hand edit of a state file, committed by `cogit commit`.
    learnings = c.home / "memory" / "learnings.yaml"
    learnings.write_text(learnings.read_text().replace("python -m pytest -q", "python -m pytest -q -x"))
    c.run("commit", "-m", "Stop at the first failure")

    # A second machine learns something; a pull merges it (a sync commit).
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    c.run("remote", "add", "origin", str(remote))
    c.run("push")
    other = Cogit(tmp_path / "other-home")
    other.run("clone", str(remote))
    other.run("add", "learning", "Learned on the laptop: the CI image has no chromium by default")
    other.run("push")
    c.run("add", "learning", "Learned on the desktop meanwhile")
    c.run("pull")
    return {"rule": rule, "branch": branch, "reverted": wrong, "suppression": sup["sha"], "alpha": alpha}


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """Made once for the module (it takes ~30 s of subprocesses), in the same isolated
    environment as every test's (tests/conftest.py `isolated_env`); tests only read it."""
    root = tmp_path_factory.mktemp("report-memory")
    (root / "userhome").mkdir()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(root / "userhome"))
        mp.setenv("XDG_CONFIG_HOME", str(root / "userhome" / ".config"))
        mp.setenv("XDG_DATA_HOME", str(root / "userhome" / ".local" / "share"))
        for key in [k for k in os.environ if k.startswith(("GIT_", "CLAUDE_CONFIG_DIR", "COGIT_"))]:
            mp.delenv(key)
        mp.setenv("COGIT_AUTHOR", "Test Person <test@example.com>")
        mp.setenv("COGIT_WITHHOLD_SEED", "off")  # no withholding draw (tests/conftest.py)
        c = Cogit(root / "cogit-home")
        return c.home, make_memory(root, c)


@pytest.fixture
def memory(made, tmp_path):
    """A private copy of the made memory (a test may add to it)."""
    home, info = made
    copy = tmp_path / "report-home"
    shutil.copytree(home, copy, symlinks=True)
    return Cogit(copy), info


def page_data(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="cogit-data">(.*?)</script>', html, re.S)
    assert m, "no data block"
    return json.loads(m.group(1))


def test_the_report_holds_every_scope_source_session_rule_and_receipt(memory, tmp_path):
    c, made = memory
    out = tmp_path / "r.html"
    summary = json.loads(c.run("report", "--out", str(out), "--json").out)
    html = out.read_text("utf-8")
    assert summary["path"] == str(out.resolve()) and summary["bytes"] == len(html.encode())
    assert out.stat().st_mode & 0o077 == 0, "memory's report is readable by its owner only"

    # Self-contained: no URL to fetch anything from, a CSP that allows only the page's own script.
    assert not re.search(r'(src|href)\s*=\s*["\']?(https?:|//)', html, re.I)
    assert "@import" not in html and "url(" not in html
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html).group(1)
    assert "default-src 'none'" in csp and "script-src 'sha256-" in csp and "style-src 'sha256-" in csp and "unsafe" not in csp

    # Hostile text cannot leave its script element: the only `</script` are the page's own two.
    assert html.lower().count("</script") == 2
    data = page_data(html)
    texts = [i["text"] for s in data["items"] for i in s["sections"]["learnings"]]
    assert HOSTILE in texts

    scopes = [s["name"] for s in data["scopes"]]
    assert scopes[0] == "global" and "example.com/acme/alpha" in scopes
    assert {c["source"] for c in data["commits"]} == {"user", "hook", "sync", "human edit"}
    assert data["total_commits"] == len(data["commits"]) and data["left_out"] == 0
    by_sha = {c["sha"]: c for c in data["commits"]}

    # The revert of a learning shows as a removal; the hand edit as a changed field.
    revert = next(c for c in data["commits"] if c["trailers"].get("Cogit-Reverts") == made["reverted"])
    assert [(ch["op"], ch["section"]) for ch in revert["changes"]] == [("-", "learnings")]
    edit = next(c for c in data["commits"] if c["source"] == "human edit")
    assert edit["changes"][0]["op"] == "~" and "pytest -q -x" in edit["changes"][0]["line"]
    merge = next(c for c in data["commits"] if c["source"] == "sync")
    assert len(merge["parents"]) == 2

    # Items now, with the commit that added them.
    alpha = next(s for s in data["items"] if s["scope"] == "example.com/acme/alpha")
    (lesson,) = [i for i in alpha["sections"]["learnings"] if "widgets extra" in i["text"]]
    assert by_sha[lesson["added_by"]]["trailers"]["Cogit-Session"] == "sess-4"
    assert by_sha[lesson["added_by"]]["source"] == "hook"
    # What a merge brought in was added by the other machine's commit, not by the merge.
    glob = next(s for s in data["items"] if s["scope"] == "global")
    (laptop,) = [i for i in glob["sections"]["learnings"] if "on the laptop" in i["text"]]
    assert by_sha[laptop["added_by"]]["trailers"]["Cogit-Event"] == "learning.add"
    assert merge["sha"] in laptop["changed_in"]

    # The rule: two detections and a suppression (sess-2's was reverted).
    (rule,) = data["rules"]
    assert (rule["detections"], rule["suppressions"]) == (2, 1)
    assert [(e["session"], e["kind"]) for e in rule["ledger"]] == [("sess-1", "detect"), ("sess-3", "detect"), ("sess-4", "suppress")]
    # sess-3 looped while shown the rule: a miss counts against it (issue 22).
    assert [round(p["confidence"], 2) for p in rule["over_time"]] == [0.33, 0.5, 0.4, 0.5, 0.5]
    assert rule["confidence"] == c.json("rules", "show", rule["id"])["confidence"]

    # Sessions and what they were shown.
    sessions = {s["id"]: s for s in data["sessions"]}
    assert {"sess-1", "sess-2", "sess-3", "sess-4"} <= set(sessions)
    assert sessions["sess-2"]["rules_shown"] == [rule["id"]]
    receipt = sessions["sess-2"]["receipts"][0]
    assert receipt["source"] == "startup" and receipt["chars"] > 0 and receipt["tokens"] > 0 and receipt["cut"] == 0
    assert receipt["commit"] and any(sha.startswith(receipt["commit"]) for sha in by_sha), receipt

    # Tool statistics (global: where session folds go).
    glob = next(t for t in data["tools"] if t["scope"] == "global")
    bash_row = next(t for t in glob["tools"] if t["name"] == "Bash")
    assert bash_row["calls"] >= 9 and bash_row["failures"] == 6


def test_the_story_tells_what_memory_did_since_the_last_report(memory, tmp_path):
    c, made = memory
    out = tmp_path / "r.html"
    c.run("report", "--out", str(out))
    story = page_data(out.read_text("utf-8"))["story"]
    # The first report on this machine tells everything.
    assert story["how"] == "all" and story["start"] == "" and not story["cut"]
    learned = {x["text"]: x for x in story["learned"]["rows"]}
    lesson = learned["alpha's tests need the widgets extra"]
    assert lesson["scope"] == "example.com/acme/alpha" and lesson["session"] == "sess-4" and lesson["kept"]
    assert lesson["title"] == "remember this: alpha's tests need the widgets extra"
    assert learned["A lesson that turned out wrong"]["kept"] is False
    assert made["rule"]["text"] in learned and learned[made["rule"]["text"]]["section"] == "rules"
    # What another machine made is told with the merge that brought it, not as learned here.
    assert not any("on the laptop" in t for t in learned)
    (merge,) = story["synced"]["rows"]
    assert merge["n_commits"] >= 1 and any("on the laptop" in a["text"] for a in merge["added"])
    removed = story["removed"]["rows"]
    assert [(x["how"], x["text"]) for x in removed] == [("reverted", "A lesson that turned out wrong")]
    assert {x["target"] for x in story["reverts"]["rows"]} == {made["reverted"], made["suppression"]}
    (rule,) = story["rules"]["rows"]
    assert rule["id"] == made["rule"]["id"] and rule["new"] and (rule["detections"], rule["suppressions"]) == (2, 1)
    assert rule["sessions_shown"] == 3
    # Its measured effect, as `cogit rules show` gives it: no session withheld it yet, so no verdict.
    assert rule["effect"]["verdict"] == "not enough data" and not rule["effect"]["enough"]
    assert "withheld: no relevant session yet" in rule["effect"]["rates"]
    assert {x["id"] for x in story["sessions"]["rows"]} == {"sess-1", "sess-2", "sess-3", "sess-4"}
    # Remembered on this machine only: the runtime folder, never the synced memory.
    assert (c.home / "runtime" / "report.json").is_file()
    assert "report.json" not in subprocess.run(["git", "-C", str(c.home / "memory"), "ls-files"], capture_output=True, text=True).stdout

    # The next report tells only what happened since; the timeline still holds everything.
    c.run("add", "learning", "Learned after the first report")
    said = c.run("report", "--out", str(out)).out
    assert "At the top: what memory did since the last report, " in said and "(1 commits)" in said, said
    data = page_data(out.read_text("utf-8"))
    story = data["story"]
    assert story["how"] == "last report" and story["start"]
    assert [x["text"] for x in story["learned"]["rows"]] == ["Learned after the first report"]
    assert story["commits"] == 1 and story["rules"]["rows"] == [] and story["synced"]["rows"] == [] and story["sessions"]["rows"] == []
    assert data["before_since"] == 0 and len(data["commits"]) == data["total_commits"]

    # What reflection proposed, and what still waits for review.
    reflector = tmp_path / "reflector.py"
    reflector.write_text("import sys\nsys.stdin.read()\n"
                         "print('insights:\\n  - Small steps went well\\nheuristics:\\n  - Keep commits small\\nlearnings:\\n  - text: The build needs make first\\n    category: pattern\\n')\n")
    c.run("reflect", "--command", f"{sys.executable} {reflector}")
    waiting = {p["text"]: p["id"] for p in c.json("review")}
    c.run("accept", waiting["Keep commits small"])
    c.run("report", "--out", str(out))
    story = page_data(out.read_text("utf-8"))["story"]
    (reflection,) = story["reflection"]["rows"]
    assert reflection["source"] == "reflection"
    assert {p["text"]: p["waiting"] for p in reflection["proposals"]} == {
        "Keep commits small": False, "The build needs make first": True, "Small steps went well": True}
    assert [x["text"] for x in story["learned"]["rows"]] == ["Keep commits small"], "accepted by a person: learned"

    # A chosen date: the story (and the timeline) from there.
    c.run("report", "--out", str(out), "--since", "2000-01-01")
    story = page_data(out.read_text("utf-8"))["story"]
    assert story["how"] == "since" and story["start"] == "2000-01-01T00:00:00Z" and len(story["learned"]["rows"]) > 1
    c.run("report", "--out", str(out), "--since", "2999-01-01")
    story = page_data(out.read_text("utf-8"))["story"]
    assert story["commits"] == 0 and story["learned"]["rows"] == []


def test_a_reflection_in_the_same_second_as_the_last_report_keeps_its_proposals(memory, tmp_path):
    # Commit times are whole seconds, a report's time is not: a reflection made in the second
    # the last report was written (before it, by the clock's fraction) is still in the period,
    # and so are the proposals it added (they were once read with the unfloored time: no row's
    # proposals then, the flake of the clean-clone run).
    from datetime import timezone

    from cogit.report_story import remember_report

    c, _ = memory
    reflector = tmp_path / "reflector.py"
    reflector.write_text("import sys\nsys.stdin.read()\nprint('insights: []\\nheuristics:\\n  - Name the failing test first\\n')\n")
    c.run("reflect", "--command", f"{sys.executable} {reflector}")
    newest = c.json("log", "-n", "1")[0]
    from datetime import datetime

    t = datetime.strptime(newest["time"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=timezone.utc).timestamp()
    remember_report(c.home / "runtime", t + 0.9)
    out = tmp_path / "r.html"
    c.run("report", "--out", str(out))
    story = page_data(out.read_text("utf-8"))["story"]
    (reflection,) = story["reflection"]["rows"]
    assert [p["text"] for p in reflection["proposals"]] == ["Name the failing test first"]


def test_sessions_are_titled_and_projects_named_never_placed(memory, tmp_path):
    c, made = memory
    # A project named by its folder (no origin remote): shown by its name, never its path.
    beta = tmp_path / "work" / "beta"
    beta.mkdir(parents=True)
    git(beta, "init", "-q")
    c.run("add", "learning", "beta keeps its fixtures in tests/data", "--project", str(beta))
    out = tmp_path / "r.html"
    c.run("report", "--out", str(out))
    html = out.read_text("utf-8")
    data = page_data(html)
    assert "beta" in [s["name"] for s in data["scopes"]]
    assert str(beta) not in html, "the absolute path of a project reached the page"
    sessions = {s["id"]: s for s in data["sessions"]}
    assert sessions["sess-1"]["title"] == "Fix the import of the widgets module in app.py please"
    assert sessions["sess-2"]["title"] == TITLE_2 and TOKEN not in html and "/home/someone" not in html
    fold = next(x for x in data["commits"] if x["trailers"].get("Cogit-Session") == "sess-2" and x["trailers"].get("Cogit-Title"))
    assert fold["trailers"]["Cogit-Title"] == TITLE_2, "the title is stored in the session's fold commit"


def test_shown_in_n_sessions_counts_every_receipt_that_held_the_rule(memory, tmp_path):
    """A receipt of any source counts: here a reflex (issue 23 part 1) in a session outside
    the project, whose digest never held the project's rule and which earns it no evidence."""
    c, made = memory
    rid = made["rule"]["id"]
    out = tmp_path / "r.html"
    c.run("report", "--out", str(out))
    (before,) = page_data(out.read_text("utf-8"))["rules"]
    assert before["sessions_shown"] == 3 and before["sessions_injected"] == 2  # sess-2's evidence was reverted

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    sid = "sess-reflex"
    assert c.hook("SessionStart", payload(sid, "SessionStart", str(elsewhere), source="startup")).returncode == 0
    assert c.hook("UserPromptSubmit", payload(sid, "UserPromptSubmit", str(elsewhere), prompt="Run the app")).returncode == 0
    assert c.hook("PostToolUse", payload(sid, "PostToolUse", str(elsewhere), **bash(sid, 1)[1])).returncode == 0
    state_file = c.home / "runtime" / "sessions" / sid / "state.json"
    state = json.loads(state_file.read_text())
    assert not any(rid in (r.get("shown") or []) for r in state["receipts"]), "the digest here must not hold the rule"
    state["receipts"].append({"t": state["last_event_at"], "source": "reflex", "branch": made["branch"], "commit": None,
                              "chars": 180, "tokens": 45, "cut": 0, "shown": [rid]})
    state_file.write_text(json.dumps(state))
    assert c.hook("SessionEnd", payload(sid, "SessionEnd", str(elsewhere), reason="prompt_input_exit")).returncode == 0
    c.run("finalize")

    c.run("report", "--out", str(out))
    data = page_data(out.read_text("utf-8"))
    (rule,) = data["rules"]
    assert rule["sessions_shown"] == 4 and sid in rule["shown_at"]
    assert (rule["detections"], rule["suppressions"]) == (2, 1), "a receipt is no evidence"
    session = next(s for s in data["sessions"] if s["id"] == sid)
    assert rid in session["rules_shown"] and "reflex" in [r["source"] for r in session["receipts"]]
    assert session["title"] == "Run the app"
    # The story counts the sessions since the last report (made above): the reflex's only.
    (story_rule,) = data["story"]["rules"]["rows"]
    assert data["story"]["how"] == "last report" and story_rule["sessions_shown"] == 1
    assert [x["id"] for x in data["story"]["sessions"]["rows"]] == [sid]


def test_bounds_since_project_and_errors(memory, tmp_path):
    c, made = memory
    out = tmp_path / "small.html"
    summary = json.loads(c.run("report", "--out", str(out), "--max-commits", "5", "--json").out)
    data = page_data(out.read_text("utf-8"))
    assert summary["commits"] == len(data["commits"]) == 5
    assert data["left_out"] == data["total_commits"] - 5 > 0
    assert "older commits left out" in c.run("report", "--out", str(out), "--max-commits", "5").out
    assert [x["sha"] for x in data["commits"]] == [x["sha"] for x in sorted(data["commits"], key=lambda x: -x["t"])]
    c.run("report", "--out", str(out))
    full = page_data(out.read_text("utf-8"))["commits"]
    pos = {x["sha"]: n for n, x in enumerate(full)}
    assert all(pos[x["sha"]] < pos[p] for x in full for p in x["parents"]), "a parent listed before its child"

    future = c.run("report", "--out", str(out), "--since", "2999-01-01", "--json")
    data = page_data(out.read_text("utf-8"))
    assert json.loads(future.out)["commits"] == 0 and data["before_since"] == data["total_commits"]

    # --project: global plus that project only.
    c.run("add", "learning", "beta's lesson", "--project", "beta")
    c.run("report", "--out", str(out), "--project", "example.com/acme/alpha")
    data = page_data(out.read_text("utf-8"))
    assert [s["name"] for s in data["scopes"]] == ["global", "example.com/acme/alpha"]
    assert not any("beta's lesson" in i["text"] for s in data["items"] for i in s["sections"]["learnings"])
    c.run("report", "--out", str(out), "--project", "global")
    data = page_data(out.read_text("utf-8"))
    assert [s["name"] for s in data["scopes"]] == ["global"] and {x["scopes"][0] for x in data["commits"]} == {"global"}

    bad = c.run("report", "--out", str(out), "--since", "yesterday-ish", check=False)
    assert bad.returncode == 2 and "YYYY-MM-DD" in bad.err
    missing = c.run("report", "--out", str(out), "--project", "project/nothing-here", check=False)
    assert missing.returncode == 1 and "cogit project list" in missing.err
    folder = c.run("report", "--out", str(tmp_path), check=False)
    assert folder.returncode == 2, folder.err


def test_the_page_is_the_same_read_through_git_or_walked(memory):
    """The commits read through the git binary (cogit/report_commits.py) make the very page
    dulwich's walk of every commit made, on this memory's scopes, sessions, receipts, rule,
    revert, hand edit and merge from another machine (tests/test_report_commits.py has the
    ordering traps)."""
    from cogit import report
    from cogit.paths import Home
    from cogit.store.scopes import resolve

    c, made = memory
    home = Home(c.home)
    alpha = resolve(home, made["branch"], str(c.home))
    for kw in ({}, {"max_commits": 4}, {"since": "2000-01-01", "max_commits": 30}, {"project": alpha}):
        with_git = json.dumps(report.build(home, now=2_000_000_000, **kw), sort_keys=True)
        assert with_git == json.dumps(report.build(home, now=2_000_000_000, use_git=False, **kw), sort_keys=True), kw
    assert json.loads(with_git)["rules"][0]["sessions_shown"] > 0


def test_open_uses_the_default_browser(initialized, tmp_path):
    c = initialized
    seen = tmp_path / "opened.txt"
    opener = tmp_path / "browser.sh"
    opener.write_text(f'#!/bin/sh\nprintf "%s" "$1" > {seen}\n')
    opener.chmod(0o755)
    out = tmp_path / "r.html"
    # Python's webbrowser honours $BROWSER (`%s` is the URL).
    c.run("report", "--out", str(out), "--open", env={"BROWSER": f"{opener} %s", "DISPLAY": "", "WAYLAND_DISPLAY": ""})
    assert seen.read_text() == out.resolve().as_uri()


def test_not_initialized_says_what_to_do(cogit, tmp_path):
    proc = cogit.run("report", "--out", str(tmp_path / "r.html"), check=False)
    assert proc.returncode == 1 and "cogit init" in proc.err


@pytest.fixture(scope="session")
def chromium() -> str:
    found = find_chromium()
    if not found:
        pytest.fail(INSTALL_HINT, pytrace=False)
    return found


def test_the_page_in_a_real_browser(chromium, memory, tmp_path):
    c, made = memory
    out = tmp_path / "report.html"
    c.run("report", "--out", str(out))
    data = page_data(out.read_text("utf-8"))
    # COGIT_REPORT_SCREENSHOTS=docs keeps the screenshots there (how docs/report.png is made).
    shots = Path(os.environ.get("COGIT_REPORT_SCREENSHOTS") or tmp_path / "shots")
    url = out.resolve().as_uri()
    with Browser(chromium, tmp_path / "profile") as b:
        b.goto(url)
        assert b.eval("document.documentElement.dataset.ready") == "1", b.problems()

        # The page as drawn: every commit in the timeline, each section filled.
        assert b.eval("document.querySelectorAll('#days button.sq').length") == len(data["commits"])
        assert b.eval("document.querySelectorAll('#days .day').length") == len({c['day'] for c in data['commits']})
        body = b.eval("document.body.innerText")
        for text in ("example.com/acme/alpha", "Ship the report", "widgets extra", made["rule"]["id"],
                     "sess-2", "Bash", "human edit", "sync", "What memory did (the first report on this machine: everything)",
                     "Lessons learned", "Reverted or forgotten", "From other machines", "What reflection proposed",
                     "shown in 3 sessions"):
            assert text in body, text
        # The story's parts, each filled from the data (a lesson, the rule, the revert, the merge).
        story = data["story"]
        parts = b.eval("Array.from(document.querySelectorAll('#story-body .story-part')).map(p => [p.querySelector('h3').textContent, p.querySelectorAll('li').length])")
        assert dict(parts)["Lessons learned"] == len(story["learned"]["rows"]) > 0
        assert dict(parts)["Rules and their measured effect"] == 1
        assert dict(parts)["Reverted or forgotten"] == len(story["reverts"]["rows"]) + len(story["removed"]["rows"])
        # The rule's effect as measured: no session withheld it yet, so the page gives no verdict.
        boxes = b.eval("Array.from(document.querySelectorAll('.effect')).map(e => e.innerText)")
        assert boxes and all(box.startswith("not enough data") for box in boxes), boxes
        # Sessions are titled by their first prompt; sess-2's (markup, a path, a secret) is text.
        titles = b.eval("Array.from(document.querySelectorAll('#sessions-body .session h3')).map(e => e.textContent)")
        assert "“" + TITLE_2 + "”" in titles and "“Fix the import of the widgets module in app.py please”" in titles
        assert b.eval("document.querySelectorAll('main b, main [onclick]').length") == 0
        # The timeline is labelled: each run of commits under its session's title or what made it.
        labels = b.eval("Array.from(document.querySelectorAll('#days .run-label')).map(e => e.textContent)")
        assert any(TITLE_2 in x and "example.com/acme/alpha" in x for x in labels), labels
        assert {"you: cogit commands", "sync: merged from another machine", "hand edit of the files"} <= set(labels), labels
        assert b.eval("document.querySelectorAll('#days .run .strip button.sq').length") == len(data["commits"])
        # The hostile item is shown as text, and nothing it holds ran or was parsed as markup.
        assert HOSTILE in b.eval("Array.from(document.querySelectorAll('#items-body li > div:first-child')).map(e => e.textContent).join('\\n')")
        assert b.eval("document.querySelectorAll('main img, main script').length") == 0
        assert b.eval("document.scripts.length") == 2
        assert b.eval("document.querySelectorAll('.rule svg.chart polyline').length") == len(data["rules"]) == 1
        assert b.eval("document.querySelectorAll('#tools-body .bar').length") >= 2

        # A mouse click on a commit shows its semantic diff: the revert of the wrong lesson.
        revert = next(x for x in data["commits"] if x["trailers"].get("Cogit-Reverts") == made["reverted"])
        b.click(f'#days button.sq[data-sha="{revert["sha"]}"]')
        detail = b.eval("document.getElementById('detail').innerText")
        assert revert["summary"] in detail and "- learning" in detail and "A lesson that turned out wrong" in detail
        assert b.eval(f'document.querySelector(\'button.sq[data-sha="{revert["sha"]}"]\').getAttribute("aria-pressed")') == "true"
        # A commit link in the items section opens that commit too.
        b.click("#items-body button.link:not([disabled])")
        assert b.eval("document.getElementById('detail').dataset.sha") != revert["sha"]

        # The keyboard alone: Tab reaches the timeline, arrows move, Enter opens the diff.
        b.goto(url)
        for _ in range(120):  # past the skip link, the sections' links and the story's commit links
            b.press("Tab")
            if b.eval("document.activeElement.matches('#days button.sq')"):
                break
        else:
            raise AssertionError("Tab never reached a commit in the timeline")
        b.press("ArrowRight")
        focused = b.eval("document.activeElement.dataset.sha")
        assert focused == b.eval("document.querySelectorAll('#days button.sq')[1].dataset.sha")
        b.press("Enter")
        assert b.eval("document.getElementById('detail').dataset.sha") == focused
        shown = next(x for x in data["commits"] if x["sha"] == focused)
        assert shown["summary"] in b.eval("document.getElementById('detail').innerText")
        b.press("End")
        assert b.eval("document.activeElement.dataset.sha") == b.eval("Array.from(document.querySelectorAll('#days button.sq')).pop().dataset.sha")

        # Readable at 1280 px and on a phone: nothing wider than the screen, the detail panel beside
        # the timeline on the desktop and below it on the phone.
        for width, height, mobile, name in ((1280, 900, False, "report.png"), (390, 844, True, "report-phone.png")):
            b.resize(width, height, mobile=mobile)
            b.goto(url)
            b.click('#days button.sq[data-sha="%s"]' % revert["sha"])
            b.eval("window.scrollTo(0, 0)")
            assert b.eval("document.documentElement.scrollWidth") <= width, f"horizontal scroll at {width} px"
            side = b.eval("(() => { const d = document.getElementById('detail').getBoundingClientRect();"
                          " const t = document.getElementById('days').getBoundingClientRect(); return d.left >= t.right ? 'beside' : 'below'; })()")
            assert side == ("beside" if width >= 1000 else "below"), (width, side)
            small = b.eval("Math.min(...Array.from(document.querySelectorAll('main *')).filter(e => e.childNodes.length && e.offsetParent)"
                           ".map(e => parseFloat(getComputedStyle(e).fontSize)))")
            assert small >= 11, f"text of {small} px at {width} px"
            png = b.screenshot(shots / name)
            assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10000
            if not mobile:  # the timeline with the revert's diff beside it
                b.eval("document.getElementById('timeline').scrollIntoView()")
                assert len(b.screenshot(shots / "report-timeline.png")) > 10000

        # A rule's measured effect, as cogit/learn/effect.py gives it (built here): the verdict, the
        # rates shown vs withheld, the interval, how it was applied; "not enough data" says so.
        from cogit.report import render
        from cogit.report_story import effect_view

        measured = {"shown": {"sessions": 30, "relevant": 20, "pattern": 4}, "withheld": {"sessions": 4, "relevant": 4, "pattern": 3},
                    "effect": 0.55, "interval": [0.2, 0.9], "enough": True, "verdict": "helps",
                    "applied": {"relevant": 24, "shown": 20, "followed": 16}, "text": "helps </script><i>x</i>"}
        early = dict(measured, enough=False, verdict="not enough data", effect=None, interval=None)
        for effect, verdict, measure in ((measured, "helps", "effect +0.55 (interval +0.20 to +0.90)"), (early, "not enough data", "measured effect")):
            with_effect = json.loads(json.dumps(data))
            with_effect["rules"][0]["effect"] = effect_view(effect)
            with_effect["story"]["rules"]["rows"][0]["effect"] = effect_view(effect)
            page = tmp_path / f"effect-{verdict.replace(' ', '-')}.html"
            page.write_text(render(with_effect), "utf-8")
            b.goto(page.resolve().as_uri())
            boxes = b.eval("Array.from(document.querySelectorAll('.effect')).map(e => e.innerText)")
            assert len(boxes) == 2, boxes  # the rule's card and the story
            for box in boxes:
                assert box.startswith(verdict + " " + measure), box
                assert "shown: the pattern in 4 of 20 relevant sessions (20%)" in box and "followed in 16" in box
            assert b.eval("document.querySelectorAll('main i').length") == 0

        # Nothing fetched but the files themselves; no console error, no exception, no CSP report, no dialog.
        assert set(b.requests()) <= {url} | {p.resolve().as_uri() for p in tmp_path.glob("effect-*.html")}, b.requests()
        assert url in b.requests()
        assert b.problems() == []
