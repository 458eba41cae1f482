// The OpenClaw plugin (templates/openclaw/index.js) loaded with a recording stand-in for
// OpenClaw's plugin API: every hook fired as OpenClaw fires it, the real
// `cogit hook openclaw` behind it, memory checked afterwards. Run by
// tests/test_openclaw_plugin.py (node --test), with COGIT_PYTHON set.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

import plugin, { HOOKS, ID } from "../../templates/openclaw/index.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const PY = process.env.COGIT_PYTHON || "python3";
const CODE = "import sys; from cogit.hooks import run; sys.exit(run(sys.argv[1:]))";

function cogit(home, ...args) {
  return execFileSync(PY, ["-m", "cogit", ...args], { env: { ...process.env, COGIT_HOME: home }, encoding: "utf8" });
}

function newHome() {
  const dir = mkdtempSync(join(tmpdir(), "cogit-openclaw-"));
  const home = join(dir, "cogit-home");
  cogit(home, "init");
  return { dir, home };
}

// What OpenClaw hands a plugin's register(): here it records what was registered.
function recordingApi(pluginConfig) {
  const handlers = new Map();
  const middlewares = [];
  return {
    id: ID,
    pluginConfig,
    logger: { info() {}, warn() {}, error() {}, debug() {} },
    registerAgentToolResultMiddleware(handler, options) {
      middlewares.push({ handler, options });
    },
    middlewares,
    // What OpenClaw's embedded runner hands the middleware for a finished call.
    result(event, ctx) {
      assert.equal(middlewares.length, 1);
      return middlewares[0].handler(event, { runtime: "openclaw", ...ctx });
    },
    on(name, handler, opts) {
      assert.equal(handlers.has(name), false, `${name} registered twice`);
      handlers.set(name, { handler, opts });
    },
    handlers,
    fire(name, event, ctx) {
      return handlers.get(name).handler(event, ctx);
    },
  };
}

async function until(check, ms = 20000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 150));
  }
  return check();
}

test("the manifest and package.json are what OpenClaw reads", () => {
  const root = join(HERE, "..", "..", "templates", "openclaw");
  const manifest = JSON.parse(readFileSync(join(root, "openclaw.plugin.json"), "utf8"));
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
  assert.equal(manifest.id, ID);
  assert.equal(manifest.configSchema.type, "object");
  assert.deepEqual(pkg.openclaw.extensions, ["./index.js"]);
  assert.equal(plugin.id, ID);
  assert.equal(typeof plugin.register, "function");
});

test("register() hooks the session lifecycle, the prompt, tool calls and agent_end, and the result middleware", () => {
  const api = recordingApi({});
  plugin.register(api);
  assert.deepEqual([...api.handlers.keys()].sort(), [...HOOKS].sort());
  assert.equal(api.handlers.has("before_tool_call"), true); // only ever a block; fails open on its own bound
  assert.equal(api.handlers.has("before_agent_start"), false); // deprecated: "unknown typed hook"
  assert.deepEqual(api.middlewares.map((m) => m.options), [{ runtimes: ["openclaw"] }]);
  const manifest = JSON.parse(readFileSync(join(HERE, "..", "..", "templates", "openclaw", "openclaw.plugin.json"), "utf8"));
  assert.deepEqual(manifest.contracts.agentToolResultMiddleware, ["openclaw"]); // OpenClaw refuses it otherwise
  // An OpenClaw without the middleware API: the hooks register all the same.
  const old = recordingApi({});
  delete old.registerAgentToolResultMiddleware;
  plugin.register(old);
  assert.deepEqual([...old.handlers.keys()].sort(), [...HOOKS].sort());
});

test("a session through every hook: digest, per-turn update, tool calls and lessons in memory", async () => {
  const { dir, home } = newHome();
  cogit(home, "add", "learning", "Restart the gateway after config edits");
  const api = recordingApi({ command: [PY, "-E", "-P", "-c", CODE, "openclaw"], home, timeoutMs: 15000 });
  plugin.register(api);
  const ctx = { agentId: "main", sessionKey: "agent:main:main", sessionId: "oc-session-1", workspaceDir: dir };

  assert.equal(await api.fire("session_start", { sessionId: "oc-session-1", sessionKey: "agent:main:main" }, ctx), undefined);
  const first = await api.fire("before_prompt_build", { prompt: "hello", messages: [{ role: "user", content: "hello" }] }, ctx);
  assert.deepEqual(Object.keys(first), ["appendSystemContext"]);
  assert.match(first.appendSystemContext, /^<cogit-memory>/);
  assert.match(first.appendSystemContext, /Restart the gateway after config edits/);

  for (let i = 0; i < 3; i++) {
    const out = await api.fire("after_tool_call", {
      toolName: "exec", params: { command: "npm test" }, toolCallId: `call-${i}`,
      error: "Exit code 1\nnpm ERR! Missing script: \"test\"", durationMs: 40,
    }, { ...ctx, toolName: "exec", toolCallId: `call-${i}` });
    assert.equal(out, undefined); // observe-only
  }

  const second = await api.fire("before_prompt_build", { prompt: "remember this: the gateway listens on port 18789" }, ctx);
  assert.equal(second.appendSystemContext, first.appendSystemContext); // kept for the session's later turns
  assert.equal(second.prependContext, 'cogit: noted for memory as a feedback learning: "the gateway listens on port 18789"');

  // A lesson from elsewhere (another session, a pull) reaches the next turn, once.
  cogit(home, "add", "learning", "Pulled from the laptop: staging is read-only on Fridays");
  const third = await api.fire("before_prompt_build", { prompt: "go on" }, ctx);
  assert.match(third.prependContext, /^<cogit-memory-update>/);
  assert.equal(third.prependContext.split("staging is read-only on Fridays").length, 2);
  assert.doesNotMatch(third.prependContext, /18789/); // its own lesson is not told back
  const fourth = await api.fire("before_prompt_build", { prompt: "and then?" }, ctx);
  assert.deepEqual(fourth, { appendSystemContext: first.appendSystemContext });

  await api.fire("agent_end", { success: true, durationMs: 1200, messages: [] }, ctx);
  await api.fire("before_compaction", { messageCount: 12, tokenCount: 9000 }, ctx);
  await api.fire("session_end", { sessionId: "oc-session-1", messageCount: 12, durationMs: 60000, reason: "new" }, ctx);

  const folded = () => JSON.parse(cogit(home, "log", "--session", "oc-session-1", "--json"))
    .find((c) => c.trailers["Cogit-Event"] === "session.end");
  assert.ok(await until(() => folded() !== undefined), "the session was folded into memory");
  const end = folded();
  assert.equal(end.trailers["Cogit-Agent"], "openclaw");
  assert.match(end.trailers["Cogit-Digest"], /^startup [0-9a-f]{12} .*; turn [0-9a-f]{12} /);
  const tools = JSON.parse(cogit(home, "show", "tools", "--json")).tools.tools;
  assert.equal(tools.Bash.calls, 3);
  assert.equal(tools.Bash.failures, 3);
  const learnings = JSON.parse(cogit(home, "show", "learnings", "--json")).learnings.map((l) => l.text);
  assert.ok(learnings.includes("the gateway listens on port 18789"));
  // After session_end the plugin forgets the session's system context.
  const again = await api.fire("before_prompt_build", { prompt: "new session, same id" }, ctx);
  assert.equal(again.appendSystemContext === first.appendSystemContext, false);
});

test("fails open: no binary, a hang past the bound, garbage on stdout", async () => {
  const ctx = { sessionId: "oc-x", workspaceDir: tmpdir() };
  for (const [command, timeoutMs] of [[["/nonexistent/cogit"], 5000], [["sh", "-c", "sleep 5"], 300], [["sh", "-c", "echo not json"], 5000]]) {
    const api = recordingApi({ command, timeoutMs });
    plugin.register(api);
    const started = Date.now();
    assert.deepEqual(await api.fire("before_prompt_build", { prompt: "hi" }, ctx), {});
    assert.equal(await api.fire("after_tool_call", { toolName: "exec", params: {}, result: "x" }, ctx), undefined);
    assert.ok(Date.now() - started < 3000, `${command} took ${Date.now() - started} ms`);
  }
  // The hooks a tool call waits for: their own bound (1.5 s by default, far under OpenClaw's
  // 15 s past which it blocks the tool), no change on a hang, garbage, a reply of the wrong shape.
  // With the block on here, or before_tool_call would not run the command at all.
  const home = join(mkdtempSync(join(tmpdir(), "cogit-openclaw-")), "home");
  mkdirSync(home);
  writeFileSync(join(home, "machine-settings.json"), JSON.stringify({ reflex: { block_repeats: true } }));
  for (const command of [["/nonexistent/cogit"], ["sh", "-c", "sleep 5"], ["sh", "-c", "echo not json"],
    ["sh", "-c", "echo '{\"block\": \"yes\", \"blockReason\": 3, \"appendText\": 5}'"], ["sh", "-c", "echo '[1]'"]]) {
    const api = recordingApi({ command, home });
    plugin.register(api);
    const started = Date.now();
    assert.equal(await api.fire("before_tool_call", { toolName: "exec", params: { command: "ls" }, toolCallId: "t1" }, ctx), undefined);
    const res = { content: [{ type: "text", text: "x" }], details: {} };
    assert.equal(await api.result({ toolName: "exec", toolCallId: "t1", args: {}, result: res }, ctx), undefined);
    assert.ok(Date.now() - started < 3600, `${command} took ${Date.now() - started} ms`);
  }
});

test("before_tool_call runs no cogit process unless this machine's reflex.block_repeats is exactly true", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cogit-openclaw-"));
  const home = join(dir, "home");
  mkdirSync(home);
  const spawned = join(dir, "spawned");
  // A stand-in for cogit that notes each hook it is run for, and asks for a block.
  const command = ["sh", "-c", `echo "$0" >> '${spawned}'; echo '{"block": true, "blockReason": "no"}'`];
  const ctx = { sessionId: "oc-gate", workspaceDir: dir };
  const settings = join(home, "machine-settings.json");
  const runs = () => (existsSync(spawned) ? readFileSync(spawned, "utf8").split("\n").filter(Boolean) : []);
  const cases = [
    [null, false], // no file: the default, off
    ['{"reflex": {"block_repeats": false}}', false],
    ['{"reflex": {"block_repeats": "true"}}', false], // exactly true, as cogit/local_settings.py reads it
    ['{"reflex": {"block_repeats": 1}}', false],
    ['{"reflex": true}', false],
    ['[{"reflex": {"block_repeats": true}}]', false],
    ['{"reflex": {"block_repeats": true}', false], // not JSON
    [Buffer.concat([Buffer.from('{"reflex": {"block_repeats": true}, "x": "'), Buffer.from([0xff]), Buffer.from('"}')]), false], // not UTF-8
    [`{"reflex": {"block_repeats": true}, "pad": "${"x".repeat(64 * 1024)}"}`, false], // over 64 KiB: not read
    ["dir", false], // not a regular file
    ['{"reflex": {"block_repeats": true}}', true],
  ];
  for (const [i, [content, on]] of cases.entries()) {
    rmSync(settings, { recursive: true, force: true });
    if (content === "dir") mkdirSync(settings);
    else if (content !== null) writeFileSync(settings, content);
    const api = recordingApi({ command, home });
    plugin.register(api);
    const before = runs().length;
    const gate = await api.fire("before_tool_call", { toolName: "exec", params: { command: "ls" }, toolCallId: `g${i}` }, ctx);
    assert.equal(runs().length - before, on ? 1 : 0, `case ${i}: ${String(content).slice(0, 60)}`);
    assert.deepEqual(gate, on ? { block: true, blockReason: "no" } : undefined, `case ${i}`);
  }
  assert.deepEqual(runs(), ["before_tool_call"]);
  // The home is config.home, else $COGIT_HOME (what the spawned hook gets), else ~/.cogit.
  const saved = process.env.COGIT_HOME;
  process.env.COGIT_HOME = home;
  try {
    const api = recordingApi({ command });
    plugin.register(api);
    await api.fire("before_tool_call", { toolName: "exec", params: { command: "ls" }, toolCallId: "genv" }, ctx);
    assert.equal(runs().length, 2);
  } finally {
    if (saved === undefined) delete process.env.COGIT_HOME;
    else process.env.COGIT_HOME = saved;
  }
});

// What the real exec tool returns for a command that ran and exited 1 (openclaw agent --local).
function execResult(code, text) {
  const aggregated = code === 0 ? text : `${text}\n\n(Command exited with code ${code})`;
  return {
    content: [{ type: "text", text: aggregated }],
    details: { status: "completed", exitCode: code, exitSignal: null, exitReason: "exit", durationMs: 20, aggregated, cwd: "/tmp" },
  };
}

test("a command's exit code in the tool result counts; the word error in a success does not", async () => {
  const { dir, home } = newHome();
  const api = recordingApi({ command: [PY, "-E", "-P", "-c", CODE, "openclaw"], home, timeoutMs: 15000 });
  plugin.register(api);
  const ctx = { agentId: "main", sessionKey: "agent:main:explicit:oc-exit", sessionId: "oc-exit", workspaceDir: dir };
  await api.fire("before_prompt_build", { prompt: "fix the widgets import" }, ctx);
  const err = "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nModuleNotFoundError: No module named 'widgets'";
  for (const [i, [code, text]] of [[1, err], [0, "error: fine"], [1, err]].entries()) {
    await api.fire("after_tool_call", { toolName: "exec", params: { command: "python3 -m app" }, toolCallId: `call_${i}|fc_${i}`,
                                        result: execResult(code, text), durationMs: 30 }, { ...ctx, toolName: "exec" });
  }
  const state = JSON.parse(readFileSync(join(home, "runtime", "sessions", "oc-exit", "state.json"), "utf8"));
  assert.equal(state.agg.tools.Bash.calls, 3);
  assert.equal(state.agg.tools.Bash.failures, 2);
  assert.equal(state.owner.pid, process.pid); // the process the session runs in
});

test("the sessions a process ran end when it exits (openclaw agent --local sends no session_end)", async () => {
  const { dir, home } = newHome();
  // A separate node process stands in for `openclaw agent --local`: one turn, then exit.
  const child = `
    import plugin from ${JSON.stringify(join(HERE, "..", "..", "templates", "openclaw", "index.js"))};
    const handlers = new Map();
    plugin.register({ pluginConfig: ${JSON.stringify({ command: [PY, "-E", "-P", "-c", CODE, "openclaw"], home, timeoutMs: 15000 })},
                      on: (name, fn) => handlers.set(name, fn), logger: console });
    const ctx = { agentId: "main", sessionKey: "agent:main:explicit:oc-local", sessionId: "oc-local", workspaceDir: ${JSON.stringify(dir)} };
    await handlers.get("before_prompt_build")({ prompt: "list the files please" }, ctx);
    await handlers.get("after_tool_call")({ toolName: "exec", params: { command: "ls" }, toolCallId: "c1", result: "a b" }, ctx);
    await handlers.get("agent_end")({ success: true, durationMs: 10 }, ctx);
    process.exit(0);
  `;
  const started = Date.now();
  execFileSync(process.execPath, ["--input-type=module", "-e", child], { encoding: "utf8", timeout: 60000 });
  const sessions = join(home, "runtime", "sessions", "oc-local");
  // Watched with git: a cogit command would itself fold a session whose process is gone.
  const ends = () => execFileSync("git", ["-C", join(home, "memory"), "log", "--all", "--format=%s"], { encoding: "utf8" })
    .split("\n").filter((s) => s.startsWith("Session oc-local ended: 1 tool calls (0 failed), 1 prompts"));
  assert.ok(await until(() => ends().length === 1), "the session was folded after the process exited");
  assert.ok(Date.now() - started < 30000);
  assert.ok(await until(() => !existsSync(sessions)), "nothing of the session is left behind");
});

// A session through the plugin loops on a failing command, then finds the fix: cogit learns a rule.
async function loopingSession(api, ctx, tries) {
  await api.fire("before_prompt_build", { prompt: "make the app run" }, ctx);
  const out = [];
  for (const [i, cmd] of tries.entries()) {
    const id = `${ctx.sessionId}-${i}`;
    const c = { ...ctx, toolName: "exec", toolCallId: id };
    const gate = await api.fire("before_tool_call", { toolName: "exec", params: { command: cmd }, toolCallId: id }, c);
    const code = cmd === FIX || cmd === "ls" ? 0 : 1;
    const res = execResult(code, code ? TRACE : "app ran");
    const shown = gate ? gate : await api.result({ toolName: "exec", toolCallId: id, args: { command: cmd }, result: res, isError: false }, c);
    await api.fire("after_tool_call", { toolName: "exec", params: { command: cmd }, toolCallId: id, result: res, durationMs: 20 }, c);
    out.push({ gate, shown, res });
  }
  await api.fire("session_end", { sessionId: ctx.sessionId, reason: "new" }, ctx);
  return out;
}

const CMD = "python3 src/app.py";
const FIX = "PYTHONPATH=src python3 src/app.py";
const TRACE = "Traceback (most recent call last):\n  File \"src/app.py\", line 1, in <module>\nModuleNotFoundError: No module named 'dih_helpers'";

async function withRule() {
  const { dir, home } = newHome();
  const config = { command: [PY, "-E", "-P", "-c", CODE, "openclaw"], home, timeoutMs: 15000, reflexTimeoutMs: 15000 };
  const api = recordingApi(config);
  plugin.register(api);
  const ctx = { agentId: "main", sessionKey: "agent:main:main", workspaceDir: dir };
  const first = await loopingSession(api, { ...ctx, sessionId: "oc-r1" }, [CMD, CMD, CMD, FIX]);
  assert.ok(first.every((s) => s.gate === undefined));
  const rules = () => JSON.parse(cogit(home, "rules", "--json"));
  assert.ok(await until(() => rules().length === 1, 60000), "the loop became a rule");
  const [rule] = rules();
  assert.match(rule.text, /PYTHONPATH=src python3 src\/app.py/);
  return { home, dir, api, ctx, rule, config };
}

test("a learned rule reaches the model with the result of the call it is about, once", async () => {
  const { home, api, ctx, rule } = await withRule();
  const later = await loopingSession(api, { ...ctx, sessionId: "oc-r2" }, ["ls", CMD, CMD, FIX]);
  assert.deepEqual(later.map((s) => s.gate), [undefined, undefined, undefined, undefined]); // no block: off by default
  assert.equal(later[0].shown, undefined); // silent for other commands
  const { result } = later[1].shown;
  assert.equal(result.content.length, 2);
  assert.deepEqual(result.content[0], later[1].res.content[0]); // the tool's own output, untouched
  assert.match(result.content[1].text, /^\[cogit:reflex\] `python3 src\/app.py` is what a learned rule is about/);
  assert.ok(result.content[1].text.includes(`[${rule.id}]`) && result.content[1].text.includes(FIX));
  assert.equal(result.details, later[1].res.details);
  assert.ok(!JSON.stringify(later[2].shown ?? "").includes("[cogit:reflex]")); // once per episode
  const log = join(home, "runtime", "logs", "hooks.log");
  assert.ok(!existsSync(log) || readFileSync(log, "utf8") === "");
  // Recorded once (by the middleware; after_tool_call skipped the calls it saw), with the receipt.
  const end = () => JSON.parse(cogit(home, "log", "--session", "oc-r2", "--json")).find((c) => c.trailers["Cogit-Event"] === "session.end");
  assert.ok(await until(() => end() !== undefined, 60000));
  assert.match(end().summary, /4 tool calls \(2 failed\)/);
});

test("reflex.block_repeats blocks the exact repeat with the rule as the reason", async () => {
  const { home, api, ctx, rule } = await withRule();
  writeFileSync(join(home, "machine-settings.json"), JSON.stringify({ reflex: { block_repeats: true } }));
  const later = await loopingSession(api, { ...ctx, sessionId: "oc-r3" }, [CMD, CMD, FIX]);
  assert.equal(later[0].gate, undefined);
  assert.match(later[0].shown.result.content[1].text, /\[cogit:reflex\]/);
  assert.equal(later[1].gate.block, true);
  assert.ok(later[1].gate.blockReason.includes(`[${rule.id}]`) && later[1].gate.blockReason.includes(FIX));
  assert.equal(later[2].gate, undefined); // the fix runs
});
