"""OpenClaw's per-tool-call cost with reflexes on (issue 23): what cogit's plugin makes the agent
wait for, per tool call, as ratios against `python -c pass` in one run.

OpenClaw runs plugins in its own node process and awaits a plugin's before_tool_call before
the tool runs, and its agent-tool-result middleware before the model reads the result
(after_tool_call only observes, and the plugin sends nothing there for a call the middleware
saw). So one node process loads the plugin (templates/openclaw/index.js) with a stand-in for
OpenClaw's plugin API, as tests/openclaw/plugin.test.mjs does, with the exact command `cogit
install openclaw` writes, and times round robin, each awaited as OpenClaw awaits it:

- `python -c pass` spawned by that node process and waited for (the reference: the floor of
  any hook that is a process),
- before_tool_call with reflex.block_repeats off (the default: it spawns nothing),
- before_tool_call with it on (a command that is not a repeat: cogit runs and lets it pass),
- before_tool_call blocking the exact repeat of a failure (the failure is fed first, untimed),
- the result middleware for a call with nothing to say (`ls` succeeded),
- the result middleware for a failure that matches a learned rule (the reflex is given there),
- the same failure in a memory without rules (what the reflex itself costs, target 1.2x),
- a whole tool call with the default settings (before_tool_call + the middleware), and with the
  block on (two processes: what every call cost before before_tool_call spawned nothing with it off),
- the same middleware with `python -c pass` in cogit's place (the plugin's own cost, target 1.1x).

A fresh session each round (a reflex is given once per episode). Target: each event at most
1.5x `python -c pass`, like every other hook event (bench/hooks.py, bench/reflexes.py). The
plugin's own bound on these hooks (1.5 s) is raised to 10 s here, so a slow run is measured,
not cut.

    python bench/run --only openclaw_calls      (or python bench/openclaw_calls.py, which does that)
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

DRIVER = r"""
import { spawn } from "node:child_process";
const spec = JSON.parse(process.argv[2]);
const plugin = (await import(spec.plugin)).default;
const hr = () => Number(process.hrtime.bigint()) / 1e6;

function instance(config) {
  const handlers = new Map();
  const mws = [];
  plugin.register({ id: "cogit", pluginConfig: config, logger: { info() {}, warn() {}, error() {}, debug() {} },
                    on: (name, fn) => handlers.set(name, fn), registerAgentToolResultMiddleware: (fn) => mws.push(fn) });
  return { before: (e, c) => handlers.get("before_tool_call")(e, c), result: (e, c) => mws[0](e, { runtime: "openclaw", ...c }) };
}

function execResult(code, text) {
  const aggregated = code === 0 ? text : `${text}\n\n(Command exited with code ${code})`;
  return { content: [{ type: "text", text: aggregated }],
           details: { status: "completed", exitCode: code, exitSignal: null, exitReason: "exit", durationMs: 20, aggregated, cwd: "/tmp" } };
}

function passOnce() {
  return new Promise((resolve) => {
    const child = spawn(spec.python, ["-c", "pass"], { stdio: ["pipe", "pipe", "ignore"] });
    child.on("close", resolve);
    child.stdin.end("{}");
  });
}

const plugins = Object.fromEntries(Object.entries(spec.configs).map(([k, c]) => [k, instance(c)]));
let seq = 0;
// One tool call's events; returns what the timed part returned. `n`: the round (a fresh session).
async function call(v, n, timed) {
  const p = plugins[v.config];
  const sid = `bench-oc-${v.key}-${n}`;
  const id = `c${++seq}`;
  const ctx = { agentId: "main", sessionKey: `agent:main:${sid}`, sessionId: sid, workspaceDir: "/tmp", toolName: "exec", toolCallId: id };
  const ev = { toolName: "exec", params: { command: v.command }, toolCallId: id };
  const res = execResult(v.code, v.code ? spec.trace : "ok");
  const mw = { toolName: "exec", toolCallId: id, args: { command: v.command }, result: res, isError: false };
  if (v.setup) {  // the failure before the repeat, untimed
    const sid0 = `${id}-0`;
    await p.before({ ...ev, toolCallId: sid0 }, { ...ctx, toolCallId: sid0 });
    await p.result({ ...mw, toolCallId: sid0, result: execResult(1, spec.trace) }, { ...ctx, toolCallId: sid0 });
  }
  const t0 = hr();
  let out;
  if (v.what === "pass") out = await passOnce();
  if (v.what === "before" || v.what === "call") out = await p.before(ev, ctx);
  if (v.what === "result" || (v.what === "call" && !out)) out = await p.result(mw, ctx);
  const ms = hr() - t0;
  if (timed !== undefined) timed.push(ms);
  return out;
}

const checks = {};
for (const v of spec.variants) checks[v.key] = JSON.stringify((await call(v, "check")) ?? null);
const times = Object.fromEntries(spec.variants.map((v) => [v.key, []]));
for (let n = 0; n < spec.warmup + spec.rounds; n++) {
  for (const v of spec.variants) await call(v, n, n >= spec.warmup ? times[v.key] : undefined);
}
process.stdout.write(JSON.stringify({ checks, times }));
process.exit(0);
"""

REFLEX = "[cogit:reflex]"


def figures(homes: dict, quick: bool) -> list[dict]:
    """bench/run's interface (it does not use the shared homes: it needs one that learned a rule)."""
    import compileall
    import importlib.util
    import statistics

    import timing as t
    from reflexes import CMD, ERR, learn

    from cogit.launch import hook_argv

    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not on PATH (OpenClaw's plugins run in node)")
    compileall.compile_dir(str(Path(importlib.util.find_spec("cogit").origin).parent), quiet=1)
    py = sys.executable
    work = Path(tempfile.mkdtemp(prefix="cogit-bench-openclaw-"))
    learned = learn(work / "learned", py)
    blocking = t.copy(learned, work / "blocking")
    (blocking / "machine-settings.json").write_text(json.dumps({"reflex": {"block_repeats": True}}))
    bare = work / "bare"
    t.run(t.cogit_argv() + ["init"], t.clean_env(bare))
    argv = hook_argv("openclaw", "", py)[:-1]  # what `cogit install openclaw` writes
    configs = {name: {"command": argv, "home": str(home), "timeoutMs": 10000, "reflexTimeoutMs": 10000}
               for name, home in (("learned", learned), ("blocking", blocking), ("bare", bare))}
    configs["pypass"] = dict(configs["bare"], command=[py, "-c", "pass"])
    plugin = Path(importlib.util.find_spec("cogit.templates").origin).parent / "openclaw" / "index.js"
    # key, figure, what is timed, plugin config, command, its exit code, fed a failure first, what the check wants
    variants = [
        ("pass", "`python -c pass`, spawned and waited for by the same node process", "pass", "bare", "", 0, False, None),
        ("off", "before_tool_call, reflex.block_repeats off (the default)", "before", "learned", CMD, 0, False, "null"),
        ("on", "before_tool_call, block_repeats on, not a repeat", "before", "blocking", CMD, 0, False, "null"),
        ("block", "before_tool_call, block_repeats on, blocking the exact repeat", "before", "blocking", CMD, 1, True, '"block":true'),
        ("quiet", "tool-result middleware, nothing to say (`ls` succeeded)", "result", "learned", "ls -la", 0, False, "null"),
        ("reflex", "tool-result middleware, a failure a learned rule is about (the reflex)", "result", "learned", CMD, 1, False, REFLEX),
        ("bare", "tool-result middleware, the same failure in a memory without rules", "result", "bare", CMD, 1, False, "null"),
        ("call", "a whole tool call, default settings (before_tool_call + middleware, nothing to say)", "call", "learned",
         "ls -la", 0, False, "null"),
        # What every call cost before before_tool_call learned to spawn nothing with the block off.
        ("call2", "a whole tool call, block_repeats on (two cogit processes, as every call cost before)", "call",
         "blocking", "ls -la", 0, False, "null"),
        # The plugin's own cost: the same middleware with `python -c pass` in cogit's place.
        ("plugin", "the plugin's tool-result middleware running `python -c pass` instead of cogit", "result", "pypass",
         "ls -la", 0, False, "null"),
    ]
    rounds, warmup = (3, 1) if quick else (30, 2)
    trace = ERR.split("\n", 1)[1]
    spec = {"plugin": plugin.as_uri(), "python": py, "trace": trace, "configs": configs, "rounds": rounds, "warmup": warmup,
            "variants": [{"key": k, "what": w, "config": c, "command": cmd, "code": code, "setup": setup}
                         for k, _, w, c, cmd, code, setup, _ in variants]}
    script = work / "driver.mjs"
    script.write_text(DRIVER)
    proc = subprocess.run([node, str(script), json.dumps(spec)], capture_output=True, env=t.clean_env(), cwd=tempfile.gettempdir(),
                          timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"the node driver exited {proc.returncode}: {proc.stderr.decode(errors='replace')[-800:]}")
    out = json.loads(proc.stdout)
    # Each variant must do what its name says, once, before it is timed.
    for key, name, *_, wants in variants:
        got = out["checks"][key]
        if wants is not None and (got != "null" if wants == "null" else wants not in got):
            raise RuntimeError(f"{name}: unexpected reply {got[:300]}")
    log = learned / "runtime" / "logs" / "hooks.log"
    if log.exists() and log.read_text().strip():
        raise RuntimeError(f"the hooks logged errors: {log.read_text()[-500:]}")
    names = {k: name for k, name, *_ in variants}
    times = {names[k]: v for k, v in out["times"].items()}
    ref = names["pass"]
    base = statistics.median(times[ref])
    rows = []
    for key in ("off", "on", "block", "quiet", "reflex", "bare", "call"):
        rows.append(t.row(f"OpenClaw {names[key]} vs `python -c pass`", t.med(times[names[key]]), base, 1.5,
                          method=t.method(times, [ref, names[key]], warmup,
                                          "timed in node around the awaited hook, as OpenClaw awaits it; the command `cogit "
                                          "install openclaw` writes; a memory that learned one error_loop rule; a fresh "
                                          "session each round")))
    rows.append(t.row(f"OpenClaw {names['call2']} vs `python -c pass`", t.med(times[names["call2"]]), base, None,
                      method=t.method(times, [ref, names["call2"]], warmup, "for comparison: two events, one process each")))
    rows.append(t.row(f"OpenClaw {names['plugin']} vs `python -c pass`", t.med(times[names["plugin"]]), base, 1.1,
                      method=t.method(times, [ref, names["plugin"]], warmup,
                                      "what the plugin adds around a process: the payload, the spawn, the reply")))
    rows.append(t.row(f"OpenClaw {names['reflex']} vs {names['bare']}", t.med(times[names["reflex"]]), t.med(times[names["bare"]]),
                      1.2, method=t.method(times, [names["bare"], names["reflex"]], warmup,
                                           "the reflex's own cost: the table read, the match, the receipt")))
    shutil.rmtree(work, ignore_errors=True)
    return rows


if __name__ == "__main__":
    # The table comes from bench/run.
    sys.exit(subprocess.call([sys.executable, str(Path(__file__).with_name("run")), "--only", "openclaw_calls", *sys.argv[1:]]))
