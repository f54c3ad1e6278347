/**
 * `agentstream serve` lists and streams a running `agentstream run --serve` on the same machine,
 * found through the per-user registry (src/server/registry.ts), with the built binary.
 */
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/model/events.ts";
import { createCatalog } from "../../src/server/catalog.ts";
import { startServer } from "../../src/server/http-server.ts";
import { registeredRuns, registerRun, registryDir } from "../../src/server/registry.ts";
import { SessionFeed } from "../../src/server/session-feed.ts";
import type { SessionInfo } from "../../src/server/session-facts.ts";
import { httpGet, openSse } from "../helpers/http.ts";
import { repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const bin = join(repoRoot, "dist/cli/bin.js");
const built = existsSync(bin) && existsSync(join(repoRoot, "dist/web/app.js"));
if (!built) console.warn("[agentstream tests] dist/ not built: test/server/registry.test.ts is skipped (npm run build)");
const secret = `ghp_${"a1B2c3D4e5".repeat(4)}`;
const runtime = tempDir("runtime");

describe("the run registry", () => {
  it("ignores files others could write, and files of processes that are gone", () => {
    const dir = join(runtime, "unit");
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const run = { runId: "r", pid: process.pid, origin: "http://127.0.0.1:1", token: "t", command: "claude" };
    writeFileSync(join(dir, "ok.json"), JSON.stringify(run), { mode: 0o600 });
    writeFileSync(join(dir, "open.json"), JSON.stringify({ ...run, runId: "open" }), { mode: 0o644 });
    chmodSync(join(dir, "open.json"), 0o644);
    writeFileSync(join(dir, "gone.json"), JSON.stringify({ ...run, runId: "gone", pid: 2 ** 22 + 12345 }), { mode: 0o600 });
    writeFileSync(join(dir, "far.json"), JSON.stringify({ ...run, runId: "far", origin: "http://evil.example:80" }), { mode: 0o600 });
    expect(registeredRuns(dir).map((r) => r.runId)).toEqual(["r"]);
    expect(existsSync(join(dir, "gone.json"))).toBe(false);
  });
});

describe("a registered run streamed by serve", () => {
  it("is let go when the server closes (an open stream would keep a stopping server alive until that run ends)", async () => {
    const upstreamCatalog = await createCatalog({ paths: [], read: { dialect: "auto", redact: true } });
    const upstream = await startServer({ catalog: upstreamCatalog, assets: { script: "", css: "" } });
    const feed = new SessionFeed("live-run", { file: null, live: true });
    upstreamCatalog.add(feed);
    feed.push({ v: 1, seq: 0, type: "heartbeat", idleMs: 0 } as AgentEvent);
    const dir = join(runtime, "closing");
    const unregister = registerRun(dir, {
      runId: "live-run",
      pid: process.pid,
      origin: upstream.origin,
      token: upstream.token,
      command: "cat",
    });
    const catalog = await createCatalog({ paths: [], read: { dialect: "auto", redact: true }, registry: dir });
    await catalog.list();
    const settle = async (viewers: number): Promise<number> => {
      for (let tries = 0; upstream.viewers() !== viewers && tries < 100; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
      return upstream.viewers();
    };
    expect(await settle(1)).toBe(1);
    catalog.close();
    expect(await settle(0)).toBe(0);
    unregister();
    await upstream.close();
  });
});

describe.skipIf(!built)("serve finds run --serve", () => {
  it("lists a running run --serve, streams its events as they come (redacted again), and sees it end", async () => {
    const env = { ...process.env, XDG_RUNTIME_DIR: runtime };
    const child = spawn(process.execPath, [bin, "run", "--serve", "--no-redact", "--from", "claude", "--mode", "none", "--", "cat"], {
      stdio: ["pipe", "ignore", "pipe"],
      env,
    });
    const closed = new Promise((resolve) => child.on("close", resolve));
    await new Promise<void>((resolve) => {
      let stderr = "";
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes("watch it at")) resolve();
      });
    });
    const dir = registryDir(env);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const [file] = readdirSync(dir);
    expect(statSync(join(dir, file ?? "")).mode & 0o777).toBe(0o600);

    const catalog = await createCatalog({ paths: [], read: { dialect: "auto", redact: true }, registry: dir, rescanMs: 0 });
    const server = await startServer({ catalog, assets: { script: "", css: "" } });
    const auth = { Authorization: `Bearer ${server.token}` };
    const list = JSON.parse((await httpGet(server.origin, "/api/sessions", auth)).body) as SessionInfo[];
    expect(list).toMatchObject([{ live: true, status: "running", file: null }]);
    const stream = openSse(server.origin, `/api/sessions/${list[0]?.id}/events`, auth);
    const say = (record: object): void => void child.stdin?.write(`${JSON.stringify(record)}\n`);
    say({ type: "system", subtype: "init", session_id: "live", cwd: "/work/live", model: "m", tools: [] });
    say({
      type: "assistant",
      session_id: "live",
      message: { id: "m1", role: "assistant", content: [{ type: "text", text: `hello ${secret}` }] },
    });
    const answer = await stream.waitFor((f) => f.event === "message" && (JSON.parse(f.data) as AgentEvent).type === "message.completed");
    // That run shows secrets (--no-redact); this server does not.
    expect(answer.data).not.toContain(secret);
    expect(answer.data).toContain("[REDACTED:github-token]");
    say({ type: "result", subtype: "success", session_id: "live", result: "hello", is_error: false });
    child.stdin?.end();
    await stream.waitFor((f) => f.event === "end");
    await closed;
    const after = JSON.parse((await httpGet(server.origin, "/api/sessions", auth)).body) as SessionInfo[];
    expect(after).toMatchObject([{ live: false, status: "success", cwd: "/work/live", agent: "claude-code" }]);
    expect(readdirSync(dir)).toEqual([]); // the run took its file away
    await server.close();
  });
});
