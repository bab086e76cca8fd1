// ACP test client: drives `hermes acp` with the official SDK's client side
// and prints one JSON summary line on stdout for the Go test to check
// (internal/cli/acp_process_test.go).
//
// usage: node client.mjs HERMES_BIN HERMES_HOME CWD
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [bin, home, cwd] = process.argv.slice(2);
if (!bin || !home || !cwd) {
  console.error("usage: node client.mjs HERMES_BIN HERMES_HOME CWD");
  process.exit(2);
}

// agent spawns one `hermes acp` and returns the SDK stream over its stdio.
function agent() {
  const child = spawn(bin, ["--home", home, "acp", "--no-autostart"], { stdio: ["pipe", "pipe", "inherit"] });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  return { child, stream };
}

// recorder collects session/update notifications and permission requests.
function recorder(answer) {
  const rec = { updates: [], permissions: [], waiters: [] };
  rec.app = acp
    .client({ name: "hermes-acp-test" })
    .onNotification("session/update", ({ params }) => {
      rec.updates.push(params.update);
      rec.waiters = rec.waiters.filter((w) => !w(params.update));
    })
    .onRequest("session/request_permission", ({ params }) => {
      rec.permissions.push(params);
      return { outcome: { outcome: "selected", optionId: answer(params) } };
    });
  // until resolves at the first update (already seen or future) matching f.
  rec.until = (f) =>
    new Promise((resolve) => {
      if (rec.updates.some(f)) return resolve();
      rec.waiters.push((u) => (f(u) ? (resolve(), true) : false));
    });
  return rec;
}

const kinds = (updates) => updates.map((u) => u.sessionUpdate);
const text = (updates, kind) =>
  updates.filter((u) => u.sessionUpdate === kind).map((u) => u.content.text).join("");

async function firstAgent(summary) {
  const { child, stream } = agent();
  const rec = recorder((p) => (p.options.some((o) => o.optionId === "deny") ? "deny" : p.options[1].optionId));
  await rec.app.connectWith(stream, async (ctx) => {
    const init = await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    summary.protocolVersion = init.protocolVersion;
    summary.loadSession = init.agentCapabilities?.loadSession === true;
    const { sessionId } = await ctx.request("session/new", { cwd, mcpServers: [] });
    summary.sessionId = sessionId;
    const turn = async (name, prompt) => {
      const from = rec.updates.length;
      const res = await ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: prompt }] });
      const ups = rec.updates.slice(from);
      summary.turns[name] = { stopReason: res.stopReason, kinds: kinds(ups), text: text(ups, "agent_message_chunk"), updates: ups };
    };
    await turn("hello", "hello acp");
    await turn("tools", "use tools");
    await turn("plan", "make a plan");
    // cancel: the model streams "partial" and never ends; cancel once it shows.
    const from = rec.updates.length;
    const pending = ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "never ends" }] });
    await rec.until((u) => u.sessionUpdate === "agent_message_chunk" && u.content.text.includes("partial"));
    await ctx.notify("session/cancel", { sessionId });
    const res = await pending;
    summary.turns.cancel = { stopReason: res.stopReason, kinds: kinds(rec.updates.slice(from)) };
  });
  summary.permissions = rec.permissions;
  child.kill();
}

async function secondAgent(summary) {
  const { child, stream } = agent();
  const rec = recorder(() => "deny");
  await rec.app.connectWith(stream, async (ctx) => {
    await ctx.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    await ctx.request("session/load", { sessionId: summary.sessionId, cwd, mcpServers: [] });
    summary.loaded = { kinds: kinds(rec.updates), user: text(rec.updates, "user_message_chunk"), agent: text(rec.updates, "agent_message_chunk") };
  });
  child.kill();
}

const summary = { turns: {} };
try {
  await firstAgent(summary);
  await secondAgent(summary);
  console.log(JSON.stringify(summary));
  process.exit(0);
} catch (err) {
  console.error("acp client failed:", err?.stack ?? err);
  console.log(JSON.stringify({ ...summary, error: String(err?.message ?? err) }));
  process.exit(1);
}
