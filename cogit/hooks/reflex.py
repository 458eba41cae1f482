"""Reflexes: a learned rule given at the moment it is about, not only at session start.

Standard library only, no `re`, no `json` (every tool call comes through here). The rules
come from the reflex table the write path keeps beside the digest cache
(runtime/digest/<scope>.reflex.json, cogit/store/cache/reflexes.py): redacted, frame-neutral,
bounded. A session without rules pays one failed open() per tool call.

- **Before a tool call** (PreToolUse, BeforeTool, preToolUse): the command is the one an
  error_loop rule is about (the same command, or the same program with most of its words),
  or the file is one this session already read twice with no change in between and a
  repeated_read rule exists: the rule and its fix, as the agent's pre-tool context. An agent
  whose pre-tool reply reaches no model (Gemini CLI) gets it with the same call's result.
- **At a failure** (PostToolUseFailure and each agent's failure form) whose error signature
  matches an error_loop rule's (equal, or Jaccard >= 0.6 as the evidence model's "similar"):
  the rule and its fix at once, at the first failure, not after three.
- **Once per episode**: a rule is given once, then not again in the session part until a
  call it is about has worked (the episode resolved) and it fails that way again.
- **Never** for a rule id in the session's `withheld` list (measured effect: the rule is
  held back in this session on purpose), and never for a rule the session already follows
  (the command about to run is the rule's fix).
- **Block** (this machine's `reflex.block_repeats`, off by default): an exact repeat of a
  command that failed the same way, with no file written since, is denied with the fix as
  the reason.

Every reflex given is an injection receipt (`source: reflex`, `shown: [rule id]`), so the
learning loop and the report count the rule as shown in that session.
"""

import os
import time

MAX_PRE = 64
MAX_FAILS = 8
MAX_READS = 64
SIMILAR = 0.5  # word overlap of a command with the rule's command
SIG_SIMILAR = 0.6  # the evidence model's "similar signature" (learn/detectors.py _similar)
TAG = "[cogit:reflex]"
_WRAPPERS = frozenset("uv poetry pipenv hatch pdm rye npx pnpx bunx exec time env nice sudo command".split())


def table_path(home_root: str, branch: str) -> str:
    from cogit.paths import safe_name

    return os.path.join(home_root, "runtime", "digest", safe_name(branch.replace("/", "--")) + ".reflex.json")


def read_table(home_root: str, state: dict) -> tuple[str, dict] | tuple[None, None]:
    """(branch, table) for the session's scope: its project's table, else main's."""
    project = state.get("project") or {}
    branches = ([project["branch"]] if isinstance(project, dict) and isinstance(project.get("branch"), str) else []) + ["main"]
    for branch in branches:
        try:
            with open(table_path(home_root, branch), encoding="utf-8") as f:
                data = f.read(256 * 1024)
        except OSError:
            continue
        from cogit import jsonio

        try:
            doc = jsonio.loads(data)
        except ValueError:
            return None, None
        if isinstance(doc, dict) and isinstance(doc.get("rules"), list):
            return branch, doc
        return None, None
    return None, None


def _words(cmd: str) -> set:
    return set(cmd.replace("&&", " ").replace(";", " ").replace("|", " ").split())


def _prog(cmd: str) -> str:
    """The program a command runs, roughly as senses.call.program says it (past `cd x &&`,
    VAR=value and wrappers; `python -m mod` -> mod), without importing the senses."""
    for segment in cmd.replace("&&", "\n").replace("||", "\n").replace(";", "\n").replace("|", "\n").split("\n"):
        toks = [t.strip("'\"") for t in segment.split()]
        while toks and (("=" in toks[0] and not toks[0].startswith("-")) or toks[0].rsplit("/", 1)[-1] in _WRAPPERS):
            toks = toks[2:] if len(toks) > 1 and toks[1] == "run" else toks[1:]
        if toks and toks[0] not in ("cd", "pushd", "source", ".", "set", "export"):
            prog = toks[0].rsplit("/", 1)[-1]
            if prog.startswith("python") and len(toks) > 2 and toks[1] == "-m":
                return toks[2]
            return prog
    return ""


def about_command(rule: dict, cmd: str) -> bool:
    """Whether running `cmd` is what this error_loop rule is about (and not its fix)."""
    if not cmd or rule.get("detector") != "error_loop" or cmd == rule.get("fix"):
        return False
    target = rule.get("cmd")
    if isinstance(target, str) and target:
        if cmd == target:
            return True
        a, b = _words(cmd), _words(target)
        overlap = len(a & b) / len(a | b) if a and b else 0.0
        return overlap >= SIMILAR and _prog(cmd) == _prog(target)
    trigger = rule.get("trigger")
    return isinstance(trigger, str) and bool(trigger) and _prog(cmd) == trigger


def _read_key(event: dict) -> str | None:
    ti = event.get("tool_input") or {}
    path = ti.get("file_path") or ti.get("notebook_path") or ti.get("path")
    if not isinstance(path, str) or not path:
        return None
    if not os.path.isabs(path) and isinstance(event.get("cwd"), str):
        path = os.path.join(event["cwd"], path)
    return f"{os.path.normpath(path)[:300]}\0{ti.get('offset') or ''}:{ti.get('limit') or ''}"


def _kind(tool) -> str:
    if tool in ("Bash", "PowerShell"):
        return "exec"
    if tool in ("Read", "NotebookRead"):
        return "read"
    if tool in ("Edit", "Write", "MultiEdit", "NotebookEdit"):
        return "write"
    return "other"


def _mem(state: dict) -> dict:
    mem = state.get("reflex")
    if not isinstance(mem, dict):
        mem = state["reflex"] = {}
    for key in ("shown", "fails", "reads"):
        if not isinstance(mem.get(key), dict):
            mem[key] = {}
    return mem


def _usable(rule, state) -> bool:
    withheld = state.get("withheld") or []
    return isinstance(rule, dict) and isinstance(rule.get("id"), str) and isinstance(rule.get("text"), str) \
        and rule["id"] not in (withheld if isinstance(withheld, list) else [])


def _give(state: dict, branch: str, table: dict, rule: dict, text: str, mem: dict) -> str:
    from cogit.hooks import turn

    mem["shown"][rule["id"]] = {"n": state.get("n_calls", 0), "open": 1}
    turn.receipt(state, "reflex", branch, {"heads": table.get("heads") or {}}, text, 0, [rule["id"]])
    return text


def _clip(text: str, limit: int) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def before(state: dict, event: dict, home_root: str, block: bool = True, hint: bool = True) -> str | None:
    """Under the session lock, before a tool call: the reflex to give, or None. Sets
    event["deny"] when this machine blocks an exact repeat of a failure (the text is the reason).
    `block` / `hint`: whether to decide the block, the reflex (OpenClaw decides them apart)."""
    tool = event.get("tool_name")
    kind = _kind(tool)
    if kind not in ("exec", "read"):
        return None
    branch, table = read_table(home_root, state)
    if not table or not table["rules"]:
        return None
    mem = _mem(state)
    if kind == "exec":
        cmd = (event.get("tool_input") or {}).get("command")
        if not isinstance(cmd, str) or not cmd:
            return None
        cmd = cmd[:4000]
        failed = mem["fails"].get(cmd[:300])
        if failed and block and _blocks(home_root):
            rule = next((r for r in table["rules"] if _usable(r, state) and r["id"] == failed), None)
            if rule:
                event["deny"] = True
                text = (f"{TAG} Blocked: `{_clip(cmd, 120)}` failed this same way a moment ago and nothing was "
                        f"written since. Learned rule [{rule['id']}]: {rule['text']}")
                return _give(state, branch, table, rule, text, mem)
        for rule in table["rules"] if hint else ():
            if _usable(rule, state) and rule["id"] not in mem["shown"] and about_command(rule, cmd):
                text = f"{TAG} `{_clip(cmd, 120)}` is what a learned rule is about [{rule['id']}]: {rule['text']}"
                return _give(state, branch, table, rule, text, mem)
        return None
    key = _read_key(event)
    if key is None or not hint or int(mem["reads"].get(key, 0) or 0) < 2:
        return None
    for rule in table["rules"]:
        if _usable(rule, state) and rule.get("detector") == "repeated_read" and rule["id"] not in mem["shown"]:
            text = (f"{TAG} {_clip(key.split(chr(0))[0].rsplit('/', 1)[-1], 80)} was read twice already with no change "
                    f"in between. Learned rule [{rule['id']}]: {rule['text']}")
            return _give(state, branch, table, rule, text, mem)
    return None


def after(state: dict, event: dict, call, home_root: str) -> str | None:
    """Under the session lock, after a tool call: the first-failure reflex, or None; keeps
    the episode's bookkeeping (what resolved, what failed, what was read)."""
    pending = state.pop("reflex_pending", None)  # given before the call, for an agent that shows it only now
    tool = event.get("tool_name")
    kind = _kind(tool)
    mem = state.get("reflex")
    if kind == "write" and isinstance(mem, dict):
        # Something changed: a repeat is no longer an exact repeat, a re-read not unchanged.
        mem["fails"] = {}
        key = _read_key(event)
        if key and isinstance(mem.get("reads"), dict):
            stem = key.split("\0")[0] + "\0"
            mem["reads"] = {k: v for k, v in mem["reads"].items() if not k.startswith(stem)}
    if kind not in ("exec", "read"):
        return pending if isinstance(pending, str) else None
    branch, table = read_table(home_root, state)
    if not table or not table["rules"]:
        return pending if isinstance(pending, str) else None
    mem = _mem(state)
    failed = bool(event.get("failed"))
    if kind == "read":
        key = _read_key(event)
        if key and not failed and any(isinstance(r, dict) and r.get("detector") == "repeated_read" for r in table["rules"]):
            reads = mem["reads"]
            reads[key] = int(reads.get(key, 0) or 0) + 1
            if len(reads) > MAX_READS:
                for k in list(reads)[: len(reads) - MAX_READS]:
                    del reads[k]
        return pending if isinstance(pending, str) else None
    cmd = (event.get("tool_input") or {}).get("command")
    cmd = cmd[:4000] if isinstance(cmd, str) else ""
    if not failed:
        for rule in table["rules"]:
            entry = mem["shown"].get(rule.get("id")) if isinstance(rule, dict) else None
            if entry and (about_command(rule, cmd) or cmd == rule.get("fix")):
                entry["open"] = 0  # the episode is over: the next such failure is a new one
        mem["fails"].pop(cmd[:300], None)
        return pending if isinstance(pending, str) else None
    sig = (call or {}).get("sig") if isinstance(call, dict) else None
    if not isinstance(sig, str) or not sig:
        return pending if isinstance(pending, str) else None
    from cogit.senses.signature import similarity

    for rule in table["rules"]:
        if not _usable(rule, state) or rule.get("detector") != "error_loop" or not rule.get("sig"):
            continue
        if rule["sig"] != sig and similarity(rule["sig"], sig) < SIG_SIMILAR:
            continue
        if cmd:
            mem["fails"][cmd[:300]] = rule["id"]
            while len(mem["fails"]) > MAX_FAILS:
                del mem["fails"][next(iter(mem["fails"]))]
        entry = mem["shown"].get(rule["id"])
        if entry and entry.get("open"):
            break  # given in this episode already (before the call, or at its first failure)
        text = f"{TAG} This failure is one a learned rule is about [{rule['id']}]: {rule['text']}"
        text = _give(state, branch, table, rule, text, mem)
        return f"{pending}\n{text}" if isinstance(pending, str) else text
    return pending if isinstance(pending, str) else None


def _blocks(home_root: str) -> bool:
    """This machine's `reflex.block_repeats` (machine-settings.json; never the synced config)."""
    from cogit.local_settings import hook_read

    return bool((hook_read(home_root).get("reflex") or {}).get("block_repeats"))


def pre_tool(event, session, home_root, timeout, touch):
    """PreToolUse: the start time (the duration fallback) and the reflex, in one state update."""
    tid = event.get("tool_use_id") or event.get("call_key")  # Gemini CLI sends no call id: a key for timing
    out = {}

    def update(state):
        touch(state, event)
        if tid:
            pre = state.setdefault("pre", {})
            pre[tid] = time.time()
            if len(pre) > MAX_PRE:
                for key in sorted(pre, key=pre.get)[: len(pre) - MAX_PRE]:
                    del pre[key]
        if event.get("pre_context") is None:
            return  # an agent with no channel for it (OpenClaw's after_tool_call is observe-only)
        try:
            # "result" (OpenClaw): only the block here; the reflex is decided at the call's result.
            text = before(state, event, home_root, hint=event.get("pre_context") != "result")
        except Exception as e:  # a reflex bug must not cost the session's records
            from cogit.hooks import log

            log(home_root, f"reflex failed: {type(e).__name__}: {e}", exc=True)
            text = None
        if text and not event.get("pre_context") and not event.get("deny"):
            state["reflex_pending"] = text  # shown with this call's result (cogit/hooks/gemini.py)
            text = None
        out["text"] = text

    session.update(update, agent=event["agent"], timeout=timeout)
    return out.get("text")


def post_tool(state, event, call, home_root, text):
    """PostToolUse(+Failure), under the lock: the senses' text with the reflex, if any."""
    if event.get("pre_context") is None:
        return text
    try:
        if event.get("pre_context") == "result":
            # The agent has no pre-call channel (OpenClaw): the reflex about this call, decided now.
            pre = before(state, event, home_root, block=False)
            if pre:
                state["reflex_pending"] = pre
        given = after(state, event, call, home_root)
    except Exception as e:  # a reflex bug must not cost the session's records
        from cogit.hooks import log

        log(home_root, f"reflex failed: {type(e).__name__}: {e}", exc=True)
        return text
    return "\n".join(t for t in (text, given) if t) or None
