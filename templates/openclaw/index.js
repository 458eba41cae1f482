// cogit memory for OpenClaw: every hook calls `cogit hook openclaw HOOK` with
// {"event", "ctx"} as JSON on stdin, bounded in time, and fails open (no memory this
// turn, never a broken turn). The digest goes in as appendSystemContext at the session's
// first before_prompt_build and is kept for its later turns (system context is rebuilt
// every turn); later turns get only what changed in memory, as prependContext. The
// user's MEMORY.md is never written.
//
// The nox-cognitive seed's lifecycle maps onto it: session_start, before_agent_start
// (now before_prompt_build), after_tool_call, agent_end, session_end.
//
// A session ends at OpenClaw's session_end, or when this process goes away: `openclaw
// agent --local` runs one turn and exits without a session_end, so at the process's
// exit every session it ran that did not end is ended (synchronously, bounded: an exit
// handler cannot wait for anything else). Each payload carries this process's pid, so
// cogit can also tell a session whose process died without a word (killed) from a live one.
//
// Reflexes (cogit docs/reflexes.md): OpenClaw has no way to add context before a tool call
// (before_tool_call may change params, block or ask approval), so before_tool_call only
// blocks an exact repeat of a failure when this machine asks for it (reflex.block_repeats),
// and the learned rule about a call comes with that call's result: the agent-tool-result
// middleware replaces the result the model reads next. Both fail open: a bound of their own
// (1.5 s, far under OpenClaw's 15 s, past which it blocks the tool) resolves to "no change",
// nothing here throws (a throw blocks the tool, or replaces its result by an error), and
// the reply is JSON (cogit frames its text; JSON.parse cannot be ended early by it).
//
// With the block off (the default) before_tool_call can never change anything, so it spawns
// nothing: the plugin reads this machine's own settings file ($COGIT_HOME/machine-settings.json,
// never in the memory repository, so nothing pulled or synced can write it) with the same strict
// reading as the hooks (cogit/local_settings.py): a regular file of at most 64 KiB, UTF-8 JSON, an
// object whose `reflex.block_repeats` is exactly true. Anything else, or any error, is "off" (fail
// open: no spawn, no block). On, cogit still decides the block itself from the same file, so a
// difference between the two readings can only ever cost a spawn or a block, never make one.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, constants as FS, fstatSync, openSync, readSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";

export const ID = "cogit";
export const HOOKS = ["session_start", "before_prompt_build", "before_tool_call", "after_tool_call", "agent_end", "before_compaction",
  "session_end"];
const DEFAULT_TIMEOUT_MS = 5000;
const REFLEX_TIMEOUT_MS = 1500; // before_tool_call and the result middleware: the tool waits for them
const MAX_SEEN = 256;
const MAX_STDOUT = 256 * 1024;
const MAX_TEXT = 64 * 1024;
const EXIT_TIMEOUT_MS = 3000; // for all the session ends at process exit together
const SETTINGS_FILE = "machine-settings.json"; // cogit/local_settings.py FILE
const MAX_SETTINGS = 64 * 1024; // cogit/local_settings.py MAX_BYTES

// The memory home the hooks run with, resolved as cogit/paths.py home_dir does:
// config.home (what the child gets as COGIT_HOME), else $COGIT_HOME, else ~/.cogit.
function homeOf(config) {
  let home = typeof config.home === "string" && config.home ? config.home : process.env.COGIT_HOME || join("~", ".cogit");
  if (home === "~" || home.startsWith("~/")) home = join(homedir(), home.slice(1));
  return resolve(home);
}

// This machine's reflex.block_repeats, read strictly; false on any doubt (see the top).
export function blocksRepeats(config) {
  let fd;
  try {
    // Non-blocking open: a FIFO in the file's place must not hang the tool call.
    fd = openSync(join(homeOf(config), SETTINGS_FILE), FS.O_RDONLY | (FS.O_NONBLOCK || 0));
    const st = fstatSync(fd);
    if (!st.isFile() || st.size > MAX_SETTINGS) return false;
    const buf = Buffer.alloc(MAX_SETTINGS + 1);
    let n = 0;
    for (let r; n < buf.length && (r = readSync(fd, buf, n, buf.length - n, null)) > 0;) n += r;
    if (n > MAX_SETTINGS) return false;
    const doc = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(buf.subarray(0, n)));
    const reflex = doc && typeof doc === "object" && !Array.isArray(doc) ? doc.reflex : undefined;
    return Boolean(reflex) && typeof reflex === "object" && !Array.isArray(reflex) && reflex.block_repeats === true;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) try { closeSync(fd); } catch {}
  }
}

function cut(value) {
  if (typeof value === "string") return value.length > MAX_TEXT ? value.slice(0, MAX_TEXT) : value;
  return value;
}

// What a hook sends: the event's own fields that cogit reads, never the conversation.
function pick(hook, event = {}, ctx = {}) {
  const c = {};
  for (const k of ["agentId", "sessionKey", "sessionId", "workspaceDir", "toolName", "toolCallId", "runId"]) {
    if (typeof ctx[k] === "string") c[k] = ctx[k];
  }
  const e = {};
  const keys = {
    session_start: ["sessionId", "sessionKey", "resumedFrom"],
    before_prompt_build: ["prompt"],
    before_tool_call: ["toolName", "params", "toolCallId"],
    tool_result: ["toolName", "params", "toolCallId", "result", "isError", "durationMs"],
    after_tool_call: ["toolName", "params", "toolCallId", "result", "error", "durationMs"],
    agent_end: ["success", "error", "durationMs"],
    before_compaction: ["messageCount", "tokenCount"],
    session_end: ["sessionId", "sessionKey", "messageCount", "durationMs", "reason"],
  }[hook] || [];
  for (const k of keys) if (event[k] !== undefined) e[k] = cut(event[k]);
  if (e.error && typeof e.error === "object") e.error = cut(String(e.error.message ?? e.error));
  return { event: e, ctx: c, process: { pid: process.pid } };
}

function serialize(payload) {
  try {
    return JSON.stringify(payload);
  } catch {
    // A result that cannot be serialized (a cycle, a BigInt): send what can be.
    const { event, ctx } = payload;
    return JSON.stringify({ event: { ...event, params: undefined, result: undefined }, ctx, process: payload.process });
  }
}

// Run the hook; resolve to its JSON reply, or null on any failure or past the time bound.
// `reflex`: a hook the tool call waits for. Its own shorter bound, and past it the hook is
// left to finish (it still records the call) while the call goes on unchanged.
export function runHook(config, hook, payload, reflex = false) {
  const argv = argvOf(config);
  const timeoutMs = reflex
    ? (Number.isInteger(config.reflexTimeoutMs) ? config.reflexTimeoutMs : REFLEX_TIMEOUT_MS)
    : (Number.isInteger(config.timeoutMs) ? config.timeoutMs : DEFAULT_TIMEOUT_MS);
  return new Promise((resolve) => {
    let done = false;
    let out = "";
    const finish = (value) => {
      if (!done) {
        done = true;
        clearTimeout(timer);
        resolve(value);
      }
    };
    let child;
    try {
      const env = { ...process.env };
      if (typeof config.home === "string" && config.home) env.COGIT_HOME = config.home;
      child = spawn(argv[0], [...argv.slice(1), hook], { env, stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      return resolve(null);
    }
    const timer = setTimeout(() => {
      if (!reflex) {
        try { child.kill("SIGKILL"); } catch {}
      }
      finish(null);
    }, timeoutMs);
    child.on("error", () => finish(null));
    child.stdout.on("data", (chunk) => {
      out += chunk;
      if (out.length > MAX_STDOUT) {
        try { child.kill("SIGKILL"); } catch {}
        finish(null);
      }
    });
    child.on("close", () => {
      if (!out.trim()) return finish(null);
      try {
        const reply = JSON.parse(out);
        finish(reply && typeof reply === "object" && !Array.isArray(reply) ? reply : null);
      } catch {
        finish(null);
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(serialize(payload));
  });
}

function sessionOf(event = {}, ctx = {}) {
  return ctx.sessionId || event.sessionId || ctx.sessionKey || event.sessionKey || "";
}

// Sessions this process ran that have not ended: session -> {config, ctx}. One map and one
// exit handler per process, however often OpenClaw calls register().
const live = new Map();
let exitHooked = false;
// Per process, on globalThis: OpenClaw 2026.9.6 loads this module twice in one process (its
// hooks from one load, its result middleware from another, seen in tests/e2e), and the two
// must share what calls the middleware recorded.
const shared = (globalThis[Symbol.for("cogit.openclaw.calls")] ??= { started: new Map(), seen: new Map() });
const started = shared.started; // toolCallId -> when before_tool_call saw it (the call's duration)
const seen = shared.seen; // toolCallIds the result middleware recorded (after_tool_call skips them)

function argvOf(config) {
  return Array.isArray(config.command) && config.command.length ? config.command : ["cogit", "hook", "openclaw"];
}

export function endAtExit() {
  const deadline = Date.now() + EXIT_TIMEOUT_MS;
  for (const [key, { config, ctx }] of live) {
    live.delete(key);
    const left = deadline - Date.now();
    if (left <= 0) break;
    const argv = argvOf(config);
    const env = { ...process.env };
    if (typeof config.home === "string" && config.home) env.COGIT_HOME = config.home;
    try {
      spawnSync(argv[0], [...argv.slice(1), "session_end"], {
        env, input: serialize({ event: { reason: "process_exit" }, ctx, process: { pid: process.pid } }),
        stdio: ["pipe", "ignore", "ignore"], timeout: left, killSignal: "SIGKILL",
      });
    } catch {}
  }
}

function track(config, hook, event, ctx) {
  const key = sessionOf(event, ctx);
  if (!key) return;
  if (hook === "session_end") {
    live.delete(key);
    return;
  }
  const c = pick(hook, {}, ctx).ctx;
  live.set(key, { config, ctx: { ...(live.get(key)?.ctx || {}), ...c, toolName: undefined, toolCallId: undefined } });
  if (!exitHooked) {
    exitHooked = true;
    process.once("exit", endAtExit);
  }
}

// The result with cogit's text added as one more text block (a copy: the original is not touched).
function withText(result, text) {
  const content = Array.isArray(result && result.content) ? result.content : [];
  return { ...result, content: [...content, { type: "text", text: text.slice(0, MAX_TEXT) }] };
}

function remember(map, key, value) {
  map.set(key, value);
  if (map.size > MAX_SEEN) map.delete(map.keys().next().value);
}

export function register(api) {
  const config = (api && api.pluginConfig) || {};
  const systemBySession = new Map(); // session -> the digest injected at its first turn

  const observe = (hook) => async (event, ctx) => {
    track(config, hook, event, ctx);
    await runHook(config, hook, pick(hook, event, ctx));
  };

  api.on("session_start", observe("session_start"));
  api.on("after_tool_call", async (event, ctx) => {
    track(config, "after_tool_call", event, ctx);
    const id = (event && event.toolCallId) || (ctx && ctx.toolCallId);
    if (id && seen.delete(id)) return; // recorded with its result (and any reflex) by the middleware
    await runHook(config, "after_tool_call", pick("after_tool_call", event, ctx));
  });
  // A throw or OpenClaw's own timeout here blocks the tool: every path resolves, to
  // undefined (no change) unless cogit asks for a block of an exact repeat.
  api.on("before_tool_call", async (event, ctx) => {
    try {
      track(config, "before_tool_call", event, ctx);
      const id = (event && event.toolCallId) || (ctx && ctx.toolCallId);
      if (typeof id === "string") remember(started, id, Date.now());
      if (!blocksRepeats(config)) return undefined; // nothing here could block: no cogit process
      const reply = await runHook(config, "before_tool_call", pick("before_tool_call", event, ctx), true);
      if (reply && reply.block === true && typeof reply.blockReason === "string" && reply.blockReason) {
        return { block: true, blockReason: reply.blockReason.slice(0, MAX_TEXT) };
      }
    } catch {}
    return undefined;
  });
  // The result the model reads next: the call is recorded here, and cogit's text for it (a
  // learned rule about this call, a sense's note) is added. A throw here would replace the
  // result by an error, so every path resolves, to the unchanged result on any doubt.
  if (api && typeof api.registerAgentToolResultMiddleware === "function") {
    try {
      api.registerAgentToolResultMiddleware(async (event, mctx) => {
        try {
          const id = event && typeof event.toolCallId === "string" ? event.toolCallId : undefined;
          if (id) remember(seen, id, true);
          const key = (mctx && (mctx.sessionId || mctx.sessionKey)) || "";
          const known = (key && live.get(key)?.ctx) || {};
          const ctx = { ...known, ...(mctx || {}), toolName: event.toolName, toolCallId: id };
          if (!ctx.workspaceDir && typeof event.cwd === "string") ctx.workspaceDir = event.cwd;
          const t0 = id ? started.get(id) : undefined;
          if (id) started.delete(id);
          const ev = { toolName: event.toolName, params: event.args, toolCallId: id, result: event.result,
            isError: event.isError === true, ...(t0 ? { durationMs: Date.now() - t0 } : {}) };
          const reply = await runHook(config, "tool_result", pick("tool_result", ev, ctx), true);
          if (reply && typeof reply.appendText === "string" && reply.appendText) {
            return { result: withText(event.result, reply.appendText) };
          }
        } catch {}
        return undefined;
      }, { runtimes: ["openclaw"] });
    } catch {}
  }
  api.on("agent_end", observe("agent_end"));
  api.on("before_compaction", observe("before_compaction"));
  api.on("session_end", async (event, ctx) => {
    track(config, "session_end", event, ctx);
    systemBySession.delete(sessionOf(event, ctx));
    await runHook(config, "session_end", pick("session_end", event, ctx));
  });
  api.on("before_prompt_build", async (event, ctx) => {
    const key = sessionOf(event, ctx);
    track(config, "before_prompt_build", event, ctx);
    const reply = await runHook(config, "before_prompt_build", pick("before_prompt_build", event, ctx));
    if (reply && typeof reply.appendSystemContext === "string") systemBySession.set(key, reply.appendSystemContext);
    const result = {};
    if (systemBySession.has(key)) result.appendSystemContext = systemBySession.get(key);
    if (reply && typeof reply.prependContext === "string" && reply.prependContext) result.prependContext = reply.prependContext;
    return result;
  });
}

// The object definePluginEntry (openclaw/plugin-sdk/plugin-entry) would build, written out:
// OpenClaw loads entries with require(), so no top-level await (no dynamic import of the
// SDK), and the plugin has no dependency to install. The config schema is the manifest's.
export default {
  id: ID,
  name: "cogit memory",
  description: "Git-backed, versioned memory for the agent.",
  register,
};
