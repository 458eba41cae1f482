"""Reflection: step back from single sessions and learn from the pattern of many.

A reflector reads a prompt (templates/prompts/reflect.md filled with focus, heuristics,
recent learnings, avoidances, the rule ledger, tool statistics and recent sessions) and
answers JSON (or YAML) following schemas/reflection-answer.schema.json. Three kinds:

- an OpenAI-compatible chat-completions endpoint (LM Studio, Ollama, llama.cpp's server,
  vLLM), asked for `response_format` json_schema; standard library HTTP, one bounded
  deadline for the whole exchange, at most MAX_ANSWER_BYTES read;
- a command that reads the prompt on stdin and writes the answer on stdout (same bounds);
- the built-in analysis (`builtin_answer`), deterministic, offline, when neither is set.

The answer is validated; anything else (junk, partial, oversized, off-schema) is refused
and nothing is committed. An accepted answer is one commit (`Cogit-Source: reflection`,
`Cogit-Model`, `Cogit-Prompt-Hash`): insights, patterns and questions go to
`reflections.items`; proposed heuristics, learnings, avoidances, rules and focus go to the
review inbox (cogit/learn/inbox.py). Failures are appended to runtime/logs/reflect.log.
Never on a hook's path: `cogit reflect` by hand, or the detached session-end work
(cogit/learn/trigger.py).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import threading
import time
from dataclasses import dataclass

from cogit.errors import CogitError, UsageError
from cogit.paths import Home
from cogit.store.git import repo as git
from cogit.store.git.provenance import Provenance
from cogit.store.state.documents import new_id
from cogit.domain.times import now_iso
from cogit.store.write.transact import Change, State, transact

from .reflect_builtin import builtin_answer
from .reflect_gather import gather
from .reflect_log import log
from .reflect_prompt import _wire_schema, answer_schema, build_prompt, prompt_hash

MAX_ANSWER_BYTES = 256 * 1024  # read at most this much of an answer; more is refused before parsing
DEFAULTS = {"endpoint": None, "model": None, "command": None, "timeout_s": 60.0, "auto": True,
            "min_interactions": 10, "min_hours": 4.0}
MAX_TIMEOUT = 600.0
KINDS = (("insights", "insight"), ("patterns", "pattern"), ("questions", "question"))
BUILTIN_MODEL = "cogit-builtin"


class ReflectionFailed(CogitError):
    """A reflector could not be reached, failed, or answered what cogit refuses.

    Its message may quote the answer (a schema error names the value): redacted."""

    def __init__(self, message: str, hint: str | None = None):
        from cogit.redact import redact

        super().__init__(redact(message)[0], hint)


def settings(config) -> dict:
    out = dict(DEFAULTS)
    out.update({k: v for k, v in ((config or {}).get("reflect") or {}).items() if k in DEFAULTS})
    try:
        out["timeout_s"] = max(1.0, min(float(out["timeout_s"]), MAX_TIMEOUT))
    except (TypeError, ValueError):
        out["timeout_s"] = DEFAULTS["timeout_s"]
    return out


@dataclass
class Reflector:
    kind: str  # "endpoint", "command" or "builtin"
    endpoint: str | None = None
    model: str | None = None
    command: str | None = None
    timeout: float = 60.0

    @property
    def name(self) -> str:
        if self.kind == "endpoint":
            return self.model or "default-model"
        if self.kind == "command":
            return "command " + " ".join((self.command or "?").split())[:100]
        return BUILTIN_MODEL


# --------------------------------------------------------------------------- choosing


def choose(home: Home, config, *, endpoint: str | None = None, model: str | None = None,
           command: str | None = None, by_hand: bool = True) -> Reflector:
    s = settings(config)
    if endpoint and command:
        raise UsageError("give --endpoint or --command, not both")
    if command is not None:
        if not command.strip():
            raise UsageError("the command is empty", hint="Give a command that reads the prompt on stdin, e.g. --command 'llm -m mymodel'.")
        return Reflector("command", command=command, timeout=s["timeout_s"])
    if endpoint is not None:
        _check_url(endpoint)
        return Reflector("endpoint", endpoint=endpoint, model=model or s["model"], timeout=s["timeout_s"])
    if s["command"]:  # `config` is the effective one: this machine's own value (machine_settings.py)
        return Reflector("command", command=s["command"], timeout=s["timeout_s"])
    if s["endpoint"]:
        _check_url(s["endpoint"])
        return Reflector("endpoint", endpoint=s["endpoint"], model=model or s["model"], timeout=s["timeout_s"])
    return Reflector("builtin")


def _check_url(url: str) -> None:
    if not (url.startswith("http://") or url.startswith("https://")) or any(c.isspace() for c in url) or len(url) > 500:
        raise UsageError(f"not an http(s) URL: {url[:100]!r}",
                         hint="Give the OpenAI-compatible base URL, e.g. http://localhost:1234/v1 (LM Studio) or http://localhost:11434/v1 (Ollama).")


# --------------------------------------------------------------------------- asking


def _within(seconds: float, what: str, fn):
    """Run `fn` with one deadline for all of it: a server that trickles bytes, or hangs
    after the headers, is cut off too (urllib's timeout is per socket operation)."""
    box: dict = {}

    def run():
        try:
            box["value"] = fn()
        except BaseException as e:  # handed to the caller's thread
            box["error"] = e

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    if worker.is_alive():
        raise ReflectionFailed(f"{what} gave no answer within {seconds:g}s (reflect.timeout_s); nothing was committed",
                               hint="Check that the model is loaded and answering, or raise reflect.timeout_s (at most 600).")
    if "error" in box:
        raise box["error"]
    return box["value"]


def _read_bounded(stream, what: str) -> bytes:
    data = bytearray()
    while True:
        chunk = stream.read(65536)
        if not chunk:
            return bytes(data)
        data += chunk
        if len(data) > MAX_ANSWER_BYTES:
            raise ReflectionFailed(f"{what} answered more than {MAX_ANSWER_BYTES:,} bytes; refused before parsing, nothing was committed",
                                   hint="Ask for a shorter answer (a smaller max_tokens), or use another model.")


def ask_endpoint(r: Reflector, prompt: str) -> str:
    import urllib.error
    import urllib.request

    url = r.endpoint.rstrip("/") + "/chat/completions"
    deadline = time.monotonic() + r.timeout

    def request(structured: bool) -> bytes:
        body = {"model": r.model or "default", "temperature": 0.2, "max_tokens": 2000, "stream": False,
                "messages": [{"role": "system", "content": "You answer with one JSON object that follows the schema you are given, and nothing else."},
                             {"role": "user", "content": prompt}]}
        if structured:
            body["response_format"] = {"type": "json_schema", "json_schema": {"name": "cogit_reflection", "schema": _wire_schema()}}
        req = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), method="POST",
                                     headers={"Content-Type": "application/json", "Accept": "application/json"})
        # The socket's own timeout only backs up the one deadline `_within` keeps.
        with urllib.request.urlopen(req, timeout=max(0.1, deadline - time.monotonic()) + 2) as resp:  # noqa: S310 (http(s) only: checked)
            return _read_bounded(resp, f"the endpoint {r.endpoint}")

    def exchange() -> bytes:
        try:
            try:
                return request(True)
            except urllib.error.HTTPError as e:
                if e.code != 400:
                    raise
                return request(False)  # a server without structured output: ask plainly, validate anyway
        except urllib.error.HTTPError as e:
            detail = e.read(500).decode("utf-8", "replace") if e.fp else ""
            raise ReflectionFailed(f"the endpoint {url} refused the request: HTTP {e.code} {e.reason} {' '.join(detail.split())[:200]}".strip(),
                                   hint="Check reflect.model (the name your server lists under /v1/models) and the endpoint URL.") from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            if isinstance(reason, TimeoutError) or isinstance(e, TimeoutError):
                raise ReflectionFailed(f"the endpoint {r.endpoint} gave no answer within {r.timeout:g}s (reflect.timeout_s); "
                                       "nothing was committed",
                                       hint="Check that the model is loaded and answering, or raise reflect.timeout_s (at most 600).") from None
            raise ReflectionFailed(f"cannot reach the reflection endpoint {r.endpoint}: {reason}",
                                   hint="Start your local model server (LM Studio, Ollama, llama.cpp's server) or fix reflect.endpoint; "
                                        "without a model, unset it and `cogit reflect` uses the built-in analysis.") from None

    raw = _within(r.timeout, f"the endpoint {r.endpoint}", exchange)
    try:
        reply = json.loads(raw.decode("utf-8"))
        content = reply["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise ReflectionFailed(f"the endpoint {r.endpoint} did not answer as an OpenAI-compatible chat completion "
                               f"(it began {raw[:80].decode('utf-8', 'replace')!r}); nothing was committed",
                               hint="Point reflect.endpoint at the server's /v1 base URL.") from None
    if not isinstance(content, str):
        raise ReflectionFailed("the model's answer holds no text; nothing was committed")
    return content


def run_command(r: Reflector, prompt: str, cwd: str | None = None) -> str:
    try:
        argv = shlex.split(r.command or "")
    except ValueError as e:
        raise UsageError(f"cannot read the reflect command {r.command[:80]!r}: {e}") from None
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, cwd=cwd)
    except OSError as e:
        raise ReflectionFailed(f"cannot start the reflect command {argv[0]!r}: {e.strerror}",
                               hint="Give a command on PATH that reads the prompt on stdin and writes JSON or YAML.") from None
    out, err, state = bytearray(), bytearray(), {"over": False}

    def kill():
        try:
            os.killpg(proc.pid, 9)
        except OSError:
            pass

    def feed():
        try:
            proc.stdin.write(prompt.encode("utf-8"))
            proc.stdin.close()
        except OSError:
            pass  # a command that does not read its input

    def drain(stream, buf, limit, flag):
        while True:
            chunk = stream.read1(65536)
            if not chunk:
                return
            if len(buf) + len(chunk) > limit:
                if flag:
                    state["over"] = True
                    kill()
                    return
                buf[:] = buf[-4096:]  # stderr: keep the end, it says what went wrong
            buf += chunk

    threads = [threading.Thread(target=feed, daemon=True),
               threading.Thread(target=drain, args=(proc.stdout, out, MAX_ANSWER_BYTES, True), daemon=True),
               threading.Thread(target=drain, args=(proc.stderr, err, 16384, False), daemon=True)]
    for t in threads:
        t.start()
    try:
        proc.wait(r.timeout)
    except subprocess.TimeoutExpired:
        kill()
        proc.wait()
        raise ReflectionFailed(f"the reflect command {argv[0]!r} did not finish within {r.timeout:g}s (reflect.timeout_s); "
                               "it was stopped and nothing was committed",
                               hint="Check the command by hand (`echo hi | CMD`), or raise reflect.timeout_s (at most 600).") from None
    for t in threads[1:]:
        t.join(5)
    if state["over"]:
        raise ReflectionFailed(f"the reflect command {argv[0]!r} wrote more than {MAX_ANSWER_BYTES:,} bytes; refused before parsing, nothing was committed")
    if proc.returncode != 0:
        tail = " ".join(err.decode("utf-8", "replace").split())[-300:]
        raise ReflectionFailed(f"the reflect command {argv[0]!r} exited with {proc.returncode}" + (f": {tail}" if tail else "")
                               + "; nothing was committed", hint="Run it by hand with the prompt (`cogit reflect --dry-run --json` shows it).")
    return out.decode("utf-8", "replace")


# --------------------------------------------------------------------------- the answer


def parse_answer(text: str, source: str = "the answer") -> dict:
    """The answer as data, validated against schemas/reflection-answer.schema.json."""
    from jsonschema import Draft202012Validator

    from cogit.store.state import yamlio

    if len(text.encode("utf-8")) > MAX_ANSWER_BYTES:
        raise ReflectionFailed(f"{source} is over {MAX_ANSWER_BYTES:,} bytes; refused, nothing was committed")
    body = text.strip()
    if body.startswith("```"):  # a fenced block, as chat models like to write
        body = body.split("\n", 1)[1] if "\n" in body else ""
        body = body.rsplit("```", 1)[0]
    data, problem = None, None
    candidates = [body] + ([body[body.find("{"): body.rfind("}") + 1]] if "{" in body and body.find("{") > 0 else [])
    for candidate in candidates:  # JSON, also inside a line of chatter ("Sure! {...}")
        try:
            data = json.loads(candidate)
            break
        except ValueError as e:
            problem = f"not JSON ({e})"
    else:
        try:
            data = yamlio.plain(yamlio.load(body))
        except Exception as e:  # noqa: BLE001 - any parser failure means junk
            problem = f"neither JSON nor YAML ({getattr(e, 'message', None) or e})"
    from cogit.redact import clip

    head = " ".join(clip(text, 80).split())
    if data is None and problem:
        raise ReflectionFailed(f"{source} is {problem[:200]}; it began {head!r}; nothing was committed",
                               hint="The model must answer one JSON object following schemas/reflection-answer.schema.json; try another model or command.")
    if not isinstance(data, dict):
        raise ReflectionFailed(f"{source} is not a JSON object (it began {head!r}); nothing was committed",
                               hint="The model must answer one JSON object following schemas/reflection-answer.schema.json.")
    errors = sorted(Draft202012Validator(answer_schema()).iter_errors(data), key=lambda e: [str(p) for p in e.path])
    if errors:
        e = errors[0]
        where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in e.path)
        raise ReflectionFailed(f"{source} does not follow schemas/reflection-answer.schema.json: {where}: {clip(e.message, 200)}"
                               f"{f' (and {len(errors) - 1} more problems)' if len(errors) > 1 else ''}; nothing was committed",
                               hint="Nothing was stored. Try again, or another model (small models often answer off-schema).")
    return data


def proposals_of(answer: dict, model: str) -> list[dict]:
    out = []
    for text in answer.get("heuristics") or []:
        out.append({"section": "heuristics", "text": text})
    for learning in answer.get("learnings") or []:
        out.append({"section": "learnings", "text": learning["text"], "category": learning.get("category", "insight")})
    for text in answer.get("avoidances") or []:
        out.append({"section": "avoidances", "text": text})
    for rule in answer.get("rules") or []:
        out.append({"section": "rules", "text": rule["text"], "detector": rule["detector"]})
    if answer.get("focus"):
        out.append({"section": "focus", "text": answer["focus"]})
    for p in out:
        p["model"] = model
    return out


# --------------------------------------------------------------------------- reflect


def reflect(home: Home, *, endpoint: str | None = None, model: str | None = None, command: str | None = None,
            dry_run: bool = False, branch: str = git.MAIN, trigger: str = "manual", by_hand: bool = True,
            project: str = "global") -> dict:
    """Run one reflection; returns a report (see `cogit reflect --json`). Raises
    ReflectionFailed (logged to reflect.log) when the reflector fails or its answer is refused."""
    data = gather(home, branch)
    config = data["config"]
    try:
        reflector = choose(home, config, endpoint=endpoint, model=model, command=command, by_hand=by_hand)
    except ReflectionFailed as e:
        log(home, f"reflection ({trigger}) refused: {e.message}")
        raise
    # Tool statistics are global (sessions fold them into main): read them there.
    prompt_state = dict(data["state"], tools=data["tools_state"].get("tools"))
    prompt = build_prompt(prompt_state, data["sessions"], config)
    phash = prompt_hash(prompt)
    started = time.monotonic()
    try:
        if reflector.kind == "endpoint":
            answer = parse_answer(ask_endpoint(reflector, prompt), f"the answer of {reflector.endpoint}")
        elif reflector.kind == "command":
            answer = parse_answer(run_command(reflector, prompt, cwd=str(home.root) if home.root.is_dir() else None),
                                  "the reflect command's answer")
        else:
            answer = builtin_answer(prompt_state, data["past_tools"], data["evidence"])
            answer = parse_answer(json.dumps(answer), "the built-in analysis")  # the same gate for every reflector
    except ReflectionFailed as e:
        log(home, f"reflection ({trigger}, {reflector.kind} {reflector.name}) failed: {e.message}")
        raise
    # A model's answer may quote a secret (its prompt never holds one, but a model or a
    # command can say anything): what is printed, stored or proposed is the redacted answer.
    from cogit.redact import redact_tree
    from cogit.store.write.scrub import allowlist, clean_tree

    # (and without control characters: no terminal escape reaches the screen, no NUL history)
    answer = redact_tree(clean_tree(answer), [0], allowlist(config))
    report = {"reflector": reflector.kind, "model": reflector.name, "prompt_hash": phash, "answer": answer,
              "seconds": round(time.monotonic() - started, 3), "commit": None, "pending": [], "accepted": [],
              "dropped": [], "reflections": [], "dry_run": dry_run, "waiting_settings": data["waiting"]}
    if dry_run:
        report["prompt"] = prompt
        return report

    def apply(state: State) -> Change | None:
        from cogit.learn import inbox

        doc = state["reflections"]
        withdrawn = []
        if reflector.kind == "builtin":
            # Built-in insights are claims about memory as it is now: recomputed at each
            # reflection, and withdrawn when they no longer hold (the rate recovered).
            still = {inbox.normalize(t) for key, _ in KINDS for t in answer.get(key) or []}
            keep = []
            for i in doc.get("items") or []:
                if i.get("model") == BUILTIN_MODEL and i.get("kind") in ("insight", "pattern") and inbox.normalize(i.get("text", "")) not in still:
                    withdrawn.append(i)
                else:
                    keep.append(i)
            doc["items"] = keep
        have = {inbox.normalize(i.get("text", "")) for i in doc.get("items") or []}
        now = now_iso()
        added = []
        # A model's insights steer the agent (the digest shows them): from a command or an
        # endpoint they wait in the review inbox like its other proposals, unless this
        # machine's own review.auto_accept trusts reflection. The built-in analysis is
        # cogit's own deterministic reading of memory: its insights go straight in.
        reviewed = [] if reflector.kind == "builtin" else [
            {"section": "reflections", "text": text, "kind": kind} for key, kind in KINDS for text in answer.get(key) or []]
        for key, kind in KINDS:
            for text in (answer.get(key) or []) if not reviewed else []:
                norm = inbox.normalize(text)
                if not norm or norm in have:
                    continue
                if inbox.drop_if_buried(state, text) is not None:
                    report["dropped"].append(text)
                    continue
                have.add(norm)
                item = {"id": new_id("reflections", state), "text": " ".join(text.split()), "kind": kind,
                        "source": "reflection", "model": reflector.name[:200], "created_at": now, "updated_at": now}
                doc["items"].append(item)
                added.append(item["id"])
        result = inbox.add_proposals(state, [dict(p, model=reflector.name) for p in reviewed]
                                     + proposals_of(answer, reflector.name), "reflection", config)
        added += [i for i in result["accepted"] if i.startswith("rf-")]
        report.update(pending=result["pending"], accepted=result["accepted"], reflections=added)
        report["dropped"] += result["dropped"]
        report["withdrawn"] = [i["id"] for i in withdrawn]
        if not (added or result["pending"] or result["accepted"] or result["dropped"] or withdrawn):
            return None
        summary = (f"Reflection ({reflector.name}): {len(added)} insight(s), {len(result['pending'])} proposal(s) for review"
                   + (f", {len(result['dropped'])} dropped" if result["dropped"] else ""))
        lines = [f"- {i['kind']} {i['id']}: {i['text'][:200]}" for i in doc["items"] if i["id"] in added]
        lines += [f"- withdrawn {i['kind']} {i['id']} (no longer true): {i.get('text', '')[:200]}" for i in withdrawn]
        if withdrawn:
            summary += f", {len(withdrawn)} withdrawn"
        body = "\n".join(filter(None, ["\n".join(lines), inbox.describe(result)]))
        return Change(summary, body=body, trailers={"Cogit-Pruned": " ".join(i["id"] for i in withdrawn)} if withdrawn else {})

    prov = Provenance(event="reflection", source="reflection", agent="cogit-reflect", project=project,
                      trigger=trigger, model=reflector.name, extra={"Cogit-Prompt-Hash": phash})
    result = transact(home, prov, apply, branch=branch)
    report["commit"] = result.sha if result else None
    return report
