"""Reflection, the review inbox and tombstones, through the real CLI.

A scripted OpenAI-compatible server on 127.0.0.1 (started here) answers validly, with junk,
with a huge answer, not at all (it hangs), or proposing a tombstoned item; a closed port
stands for a model server that is not running. Real commands (python scripts, `cat`,
`false`) stand for `reflect.command`.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

VALID = {
    "insights": ["Failing Bash calls cluster right after edits"],
    "patterns": ["Read, Edit, Bash recurs"],
    "questions": ["Should the tests run after every edit?"],
    "heuristics": ["Run the tests after each edit"],
    "learnings": [{"text": "The build needs make before the tests", "category": "pattern"}],
    "avoidances": ["Editing a file without reading it first"],
    "rules": [{"text": "Read the error before retrying", "detector": "error_loop"}],
    "focus": "Ship the reflection engine",
}


class ScriptedModel:
    """An OpenAI-compatible chat-completions server; the URL path picks the behaviour:
    http://127.0.0.1:PORT/<mode>/v1 (valid, junk, huge, hang, offschema, nostructured)."""

    def __init__(self):
        self.requests: list[dict] = []
        self.answer = dict(VALID)
        self.release = threading.Event()
        model = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                mode = self.path.split("/")[1]
                model.requests.append({"path": self.path, "body": body})
                if mode == "hang":
                    model.release.wait(60)
                    return
                if mode == "trickle":  # headers, then a byte now and then: no socket timeout ever fires
                    self.send_response(200)
                    self.send_header("Content-Length", "1000000")
                    self.end_headers()
                    while not model.release.wait(0.3):
                        try:
                            self.wfile.write(b" ")
                            self.wfile.flush()
                        except OSError:
                            return
                    return
                if mode == "nostructured" and "response_format" in body:
                    return self._send(400, b'{"error": "response_format is not supported"}')
                if mode == "huge":
                    content = json.dumps({"insights": ["x" * 400] * 3, "padding": "y" * 3_000_000})
                elif mode == "junk":
                    content = "I think you are doing great! Keep testing. {not json"
                elif mode == "offschema":
                    content = json.dumps({"insights": "one long string instead of a list"})
                else:
                    content = json.dumps(model.answer)
                reply = {"id": "x", "object": "chat.completion", "model": body.get("model"),
                         "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}
                self._send(200, json.dumps(reply).encode())

            def _send(self, code, data):
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, mode: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/{mode}/v1"

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def model():
    m = ScriptedModel()
    yield m
    m.close()


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def set_config(c, **reflect):
    """A hand edit of config.yaml's reflect section, committed on this machine."""
    path = c.home / "memory" / "config.yaml"
    text = path.read_text()
    for key, value in reflect.items():
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if line.startswith(f"  {key}:") and lines.index("reflect:") < i:
                lines[i] = f"  {key}: {json.dumps(value)}"
                break
        else:
            raise AssertionError(f"no reflect.{key} in config.yaml")
        text = "\n".join(lines) + "\n"
    path.write_text(text)
    c.run("commit", "-m", "reflect settings")
    c.confirm_waiting()  # they act: a person confirms them on this machine


def trailers(c, rev="HEAD") -> dict:
    out = c.git("log", "-1", "--format=%(trailers:only,unfold)", rev)
    return dict(line.split(": ", 1) for line in out.strip().splitlines() if ": " in line)


def head(c) -> str:
    return c.git("rev-parse", "HEAD").strip()


def reflect_log(c) -> str:
    path = c.home / "runtime" / "logs" / "reflect.log"
    return path.read_text() if path.exists() else ""


def script(tmp_path, name: str, body: str) -> str:
    path = tmp_path / name
    path.write_text(body)
    return f"{sys.executable} {path}"


# --------------------------------------------------------------------------- the endpoint


def test_a_valid_answer_is_one_commit_and_proposals_wait_for_review(initialized, model):
    c = initialized
    out = c.run("reflect", "--endpoint", model.url("valid"), "--model", "qwen-local")
    # a model's insights steer the agent: they wait for review like its other proposals
    assert "0 insight(s) stored; 8 proposal(s) wait for review" in out.out
    t = trailers(c)
    assert t["Cogit-Event"] == "reflection" and t["Cogit-Source"] == "reflection"
    assert t["Cogit-Model"] == "qwen-local" and len(t["Cogit-Prompt-Hash"]) == 16
    # what was asked: chat completions, the schema as response_format, the prompt from the template
    (req,) = model.requests
    assert req["path"] == "/valid/v1/chat/completions"
    assert req["body"]["model"] == "qwen-local"
    assert req["body"]["response_format"]["type"] == "json_schema"
    assert "insights" in req["body"]["response_format"]["json_schema"]["schema"]["properties"]
    assert "## Tool statistics" in req["body"]["messages"][-1]["content"]
    assert c.json("show", "reflections")["reflections"] == []
    # proposals are not memory yet: they wait
    assert c.json("show", "heuristics")["heuristics"] == []
    waiting = c.json("review")
    assert {p["section"] for p in waiting} == {"heuristics", "learnings", "avoidances", "rules", "focus", "reflections"}
    assert {(p["kind"], p["text"]) for p in waiting if p["section"] == "reflections"} == {
        ("insight", VALID["insights"][0]), ("pattern", VALID["patterns"][0]), ("question", VALID["questions"][0])}
    assert all(p["source"] == "reflection" for p in waiting)
    assert "proposals waiting for review: 8 (run `cogit review`)" in c.run("status").out
    digest = json.loads((c.home / "runtime" / "digest" / "main.json").read_text())["text"]
    assert VALID["insights"][0] not in digest
    # accepted by a person, the insight (not the question) reaches the digest
    c.run("accept", *[p["id"] for p in waiting if p["section"] == "reflections"])
    reflections = c.json("show", "reflections")["reflections"]
    assert {(r["kind"], r["text"], r["model"]) for r in reflections} == {
        ("insight", VALID["insights"][0], "qwen-local"), ("pattern", VALID["patterns"][0], "qwen-local"),
        ("question", VALID["questions"][0], "qwen-local")}
    digest = json.loads((c.home / "runtime" / "digest" / "main.json").read_text())["text"]
    assert VALID["insights"][0] in digest and VALID["questions"][0] not in digest
    c.assert_healthy()


def test_the_same_answer_again_commits_nothing(initialized, model):
    c = initialized
    c.run("reflect", "--endpoint", model.url("valid"))
    before = head(c)
    out = c.run("reflect", "--endpoint", model.url("valid"))
    assert "Nothing new" in out.out and head(c) == before


@pytest.mark.parametrize("mode, words", [
    ("junk", "is not a JSON object"),
    ("offschema", "does not follow schemas/reflection-answer.schema.json: $.insights"),
    ("huge", "more than 262,144 bytes"),
])
def test_junk_off_schema_and_huge_answers_are_refused_and_nothing_is_committed(initialized, model, mode, words):
    c = initialized
    before = head(c)
    out = c.run("reflect", "--endpoint", model.url(mode), check=False)
    assert out.returncode == 1, out.err
    assert words in out.err and "nothing was committed" in out.err
    assert head(c) == before
    assert words in reflect_log(c) and "failed" in reflect_log(c)


@pytest.mark.parametrize("mode", ["hang", "trickle"])
def test_a_model_that_hangs_is_cut_off_by_the_time_limit(initialized, model, mode):
    c = initialized
    set_config(c, timeout_s=2)
    before = head(c)
    t0 = time.monotonic()
    out = c.run("reflect", "--endpoint", model.url(mode), check=False, timeout=30)
    assert time.monotonic() - t0 < 15
    assert out.returncode == 1 and "gave no answer within 2s" in out.err
    assert head(c) == before and "no answer within 2s" in reflect_log(c)


def test_an_unreachable_endpoint_fails_fast_with_the_next_step(initialized):
    c = initialized
    url = f"http://127.0.0.1:{closed_port()}/v1"
    set_config(c, endpoint=url, model="m")
    before = head(c)
    out = c.run("reflect", check=False)
    assert out.returncode == 1
    assert f"cannot reach the reflection endpoint {url}" in out.err and "Start your local model server" in out.err
    assert head(c) == before
    line = reflect_log(c).strip().splitlines()[-1]
    assert line[:4].isdigit() and "cannot reach" in line  # one timestamped line


def test_a_server_without_structured_output_is_asked_plainly_and_still_validated(initialized, model):
    c = initialized
    c.run("reflect", "--endpoint", model.url("nostructured"))
    assert [("response_format" in r["body"]) for r in model.requests] == [True, False]
    assert trailers(c)["Cogit-Source"] == "reflection"


def test_a_tombstoned_proposal_is_dropped_and_the_drop_recorded(initialized, model):
    c = initialized
    c.run("reflect", "--endpoint", model.url("valid"))
    avoid = next(p for p in c.json("review") if p["section"] == "avoidances")
    c.run("reject", avoid["id"])
    assert trailers(c)["Cogit-Event"] == "human.reject"
    (stone,) = c.json("review", "--tombstones")
    assert stone["reason"] == "rejected" and stone["text"] == VALID["avoidances"][0]
    # the next reflection proposes the same thing, spelled differently: dropped
    model.answer = dict(VALID, avoidances=["  editing a file WITHOUT reading it first! "], insights=["A new insight"])
    out = c.run("reflect", "--endpoint", model.url("valid"))
    assert "dropped" in out.out and "editing a file WITHOUT" in out.out
    assert "Dropped" in c.git("log", "-1", "--format=%B") and stone["id"] in c.git("log", "-1", "--format=%B")
    (stone,) = c.json("review", "--tombstones")
    assert stone["dropped"] == 1 and stone["last_dropped_at"]
    assert all(p["section"] != "avoidances" for p in c.json("review"))


# --------------------------------------------------------------------------- the inbox


def test_accept_and_reject_through_the_cli(initialized, model):
    c = initialized
    c.run("reflect", "--endpoint", model.url("valid"))
    by_section = {p["section"]: p["id"] for p in c.json("review")}
    c.run("accept", by_section["heuristics"], by_section["learnings"], by_section["rules"], by_section["focus"])
    t = trailers(c)
    assert t["Cogit-Event"] == "human.accept" and t["Cogit-Source"] == "human"
    state = c.json("show")
    assert [h["text"] for h in state["heuristics"]] == [VALID["heuristics"][0]]
    assert state["heuristics"][0]["source"] == "reflection"
    assert state["learnings"][0]["category"] == "pattern"
    assert state["rules"][0]["detector"] == "error_loop"
    assert state["focus"]["current"] == VALID["focus"]
    assert [p["id"] for p in c.json("review") if p["section"] != "reflections"] == [by_section["avoidances"]]
    # an id that is not waiting: exit 1, nothing changes
    before = head(c)
    out = c.run("accept", by_section["heuristics"], check=False)
    assert out.returncode == 1 and "no pending proposal" in out.err and head(c) == before
    c.run("reject", *[p["id"] for p in c.json("review")])
    assert c.run("review").out.startswith("Nothing waits")
    c.assert_healthy()


def test_forgetting_an_accepted_proposal_leaves_a_tombstone(initialized, model):
    c = initialized
    c.run("reflect", "--endpoint", model.url("valid"))
    hid = next(p["id"] for p in c.json("review") if p["section"] == "heuristics")
    c.run("accept", hid)
    (h,) = c.json("show", "heuristics")["heuristics"]
    c.run("forget", h["id"])
    (stone,) = c.json("review", "--tombstones")
    assert stone["reason"] == "forgotten" and stone["item"] == h["id"]
    # a person's own item leaves none
    c.run("add", "heuristic", "my own way")
    mine = c.json("show", "heuristics")["heuristics"][0]["id"]
    c.run("forget", mine)
    assert len(c.json("review", "--tombstones")) == 1
    # and the heuristic is not proposed again
    c.run("reflect", "--endpoint", model.url("valid"))  # (everything else is known or waiting)
    assert all(p["section"] != "heuristics" for p in c.json("review"))


def test_reverting_a_reflection_buries_its_insights_and_waiting_proposals(initialized, model):
    c = initialized
    c.run("reflect", "--endpoint", model.url("valid"))
    sha = head(c)
    c.run("revert", sha)
    assert c.json("show", "reflections")["reflections"] == []
    assert c.json("review") == []
    stones = c.json("review", "--tombstones")
    assert {s["reason"] for s in stones} == {"reverted"}
    assert len(stones) == 3 + 5  # three reflections, five proposals
    before = head(c)
    c.run("reflect", "--endpoint", model.url("valid"))
    # everything it says again is dropped; the commit records the drops
    assert c.json("review") == [] and c.json("show", "reflections")["reflections"] == []
    assert head(c) != before and "Dropped" in c.git("log", "-1", "--format=%B")


def test_dry_run_asks_and_validates_but_commits_nothing(initialized, model):
    c = initialized
    before = head(c)
    report = c.json("reflect", "--endpoint", model.url("valid"), "--dry-run")
    assert report["answer"]["insights"] == VALID["insights"] and report["commit"] is None
    assert "## Recent sessions" in report["prompt"]
    assert head(c) == before


# --------------------------------------------------------------------------- real commands


def test_a_command_reflector_answering_yaml(initialized, tmp_path):
    c = initialized
    cmd = script(tmp_path, "yaml_reflector.py", (
        "import sys\n"
        "prompt = sys.stdin.read()\n"
        "assert 'cogit' in prompt\n"
        "print('insights:\\n  - From a command, in YAML\\nheuristics:\\n  - Keep commits small\\n')\n"))
    c.run("reflect", "--command", cmd)
    assert trailers(c)["Cogit-Model"].startswith("command ")
    assert c.json("show", "reflections")["reflections"] == []  # a command's insights wait for review too
    assert [(p["section"], p["text"]) for p in c.json("review")] == [("reflections", "From a command, in YAML"),
                                                                     ("heuristics", "Keep commits small")]


@pytest.mark.parametrize("command, words", [
    ("cat", "does not follow schemas/reflection-answer"),  # echoes the prompt: its JSON is the schema, not an answer
    ("false", "exited with 1"),
    ("/no/such/reflector", "cannot start the reflect command"),
])
def test_failing_commands_are_refused(initialized, command, words):
    c = initialized
    before = head(c)
    out = c.run("reflect", "--command", command, check=False)
    assert out.returncode == 1 and words in out.err, out.err
    assert head(c) == before and words in reflect_log(c)


def test_a_command_that_hangs_or_floods_is_stopped(initialized, tmp_path):
    c = initialized
    set_config(c, timeout_s=2)
    sleeper = script(tmp_path, "sleeper.py", "import time\ntime.sleep(60)\n")
    t0 = time.monotonic()
    out = c.run("reflect", "--command", sleeper, check=False, timeout=30)
    assert out.returncode == 1 and "did not finish within 2s" in out.err and time.monotonic() - t0 < 15
    flood = script(tmp_path, "flood.py", "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n")
    out = c.run("reflect", "--command", flood, check=False, timeout=30)
    assert out.returncode == 1 and "more than 262,144 bytes" in out.err


def test_a_command_in_config_yaml_does_not_run_until_confirmed_here(initialized, tmp_path):
    """Whoever committed it: a commit that copies this machine's own committer identity (printed
    in every commit it pushes) is no proof, so config.yaml's command waits for `cogit confirm`."""
    c = initialized
    marker = tmp_path / "ran"
    cmd = script(tmp_path, "r.py", f"import json, pathlib\npathlib.Path({str(marker)!r}).write_text('x')\n"
                                   "print(json.dumps({'insights': ['ran']}))\n")
    path = c.home / "memory" / "config.yaml"
    path.write_text(path.read_text().replace("  command: null", f"  command: {json.dumps(cmd)}"))
    name, email = c.git("log", "-1", "--format=%cn%n%ce").split()
    c.git("-c", f"user.name={name}", "-c", f"user.email={email}", "commit", "-q", "-am", "config",
          "--author", "Other <o@x>")
    out = c.run("reflect")
    assert "reflect.command in config.yaml waits for your confirmation (cogit confirm reflect.command --expect " in out.err
    assert "Reflector: builtin" in out.out and not marker.exists()
    c.run("reflect", "--command", cmd)  # run by hand: this once
    assert marker.exists()
    marker.unlink()
    c.run("reflect")
    assert not marker.exists()  # a run by hand trusts nothing for later
    (waiting,) = c.json("confirm")
    assert waiting["key"] == "reflect.command" and waiting["synced"] == cmd and waiting["here"] is None
    c.run(*waiting["command"].split()[1:])
    c.run("reflect")
    assert marker.exists()


def test_a_command_set_on_this_machine_runs(initialized, tmp_path):
    c = initialized
    cmd = script(tmp_path, "r.py", "import json\nprint(json.dumps({'insights': ['set here']}))\n")
    set_config(c, command=cmd)
    c.run("reflect")
    assert [p["text"] for p in c.json("review")] == ["set here"]
