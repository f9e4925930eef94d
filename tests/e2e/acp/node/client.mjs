// An ACP client on the official TypeScript SDK (2.x API), driving `agentls acp`.
// Usage: node client.mjs PLAN_JSON. The plan names the agent command, the cwd,
// whether fs/* is offered, permission answers ("allow_once", ..., "cancelled", or
// "error": a JSON-RPC error, as a client whose prompt was interrupted answers),
// the prompts, and optionally a session to load, a mode to set before the prompts,
// MCP servers, a malformed request to send first, and a file whose appearance
// triggers session/cancel. Prints one JSON report on stdout: updates, permissions
// (each with how many updates came before it), fs calls, the new/load answer,
// stop reasons.
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Readable, Writable } from "node:stream";
import { setTimeout as delay } from "node:timers/promises";
import { client, ndJsonStream, RequestError } from "@agentclientprotocol/sdk";

const plan = JSON.parse(process.argv[2]);
const report = { updates: [], permissions: [], reads: [], writes: [], stops: [], errors: [] };
const answers = [...(plan.answers ?? [])];

const agent = spawn(plan.command[0], plan.command.slice(1), {
  cwd: plan.cwd,
  stdio: ["pipe", "pipe", "inherit"],
});
agent.stdin.on("error", () => {}); // the pipe is aborted when the connection closes
const exited = new Promise((resolve) => agent.on("exit", resolve));

const app = client({ name: "agentls-e2e-typescript" })
  .onNotification("session/update", ({ params }) => {
    report.updates.push(params.update);
  })
  .onRequest("session/request_permission", async ({ params }) => {
    report.permissions.push({ ...params, updatesBefore: report.updates.length });
    const answer = answers.shift() ?? "reject_once";
    if (answer === "cancelled") return { outcome: { outcome: "cancelled" } };
    if (answer === "error") throw new RequestError(-32603, "the prompt was interrupted");
    return { outcome: { outcome: "selected", optionId: answer } };
  })
  .onRequest("fs/read_text_file", async ({ params }) => {
    report.reads.push(params.path);
    return { content: fs.readFileSync(params.path, "utf8") };
  })
  .onRequest("fs/write_text_file", async ({ params }) => {
    report.writes.push([params.path, params.content]);
    fs.writeFileSync(params.path, params.content);
    return {};
  });

async function appears(file) {
  // No event says when a command has started: poll for the file it creates.
  for (let i = 0; i < 600 && !fs.existsSync(file); i++) await delay(50);
}

const stream = ndJsonStream(Writable.toWeb(agent.stdin), Readable.toWeb(agent.stdout));
await app.connectWith(stream, async (ctx) => {
  const offered = { readTextFile: plan.fs, writeTextFile: plan.fs };
  report.initialize = await ctx.request("initialize", {
    protocolVersion: 1,
    clientCapabilities: { fs: offered },
  });
  if (plan.malformed) {
    try {
      await ctx.request("session/prompt", { sessionId: 42, prompt: "not a list" });
    } catch (error) {
      report.errors.push({ code: error.code, message: error.message });
    }
  }
  let sessionId = plan.load;
  if (sessionId) {
    report.opened = await ctx.request("session/load", {
      sessionId,
      cwd: plan.cwd,
      mcpServers: [],
    });
    report.updatesBeforeLoadAnswer = report.updates.length;
  } else {
    report.opened = await ctx.request("session/new", {
      cwd: plan.cwd,
      mcpServers: plan.mcpServers ?? [],
    });
    sessionId = report.opened.sessionId;
  }
  report.sessionId = sessionId;
  if (plan.mode) {
    await ctx.request("session/set_mode", { sessionId, modeId: plan.mode });
  }
  for (const text of plan.prompts ?? []) {
    const answer = ctx.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text }],
    });
    if (plan.cancelWhenFile) {
      await appears(path.join(plan.cwd, plan.cancelWhenFile));
      await ctx.notify("session/cancel", { sessionId });
    }
    report.stops.push((await answer).stopReason);
  }
});
agent.stdin.end();
report.exitCode = await exited;
process.stdout.write(JSON.stringify(report) + "\n");
