/**
 * `agentstream serve` as a user runs it (the built binary): the README's `serve ~/.agentstream/runs`
 * on a machine where no run has written there yet serves an empty list that fills as runs appear.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SessionInfo } from "../../src/server/session-facts.ts";
import type { LiveSearchAnswer } from "../../src/views/web/live-wire.ts";
import { httpGet } from "../helpers/http.ts";
import { repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const bin = join(repoRoot, "dist/cli/bin.js");
if (!existsSync(bin)) console.warn("[agentstream tests] dist/ not built: test/cli/serve.test.ts is skipped (npm run build)");

describe.skipIf(!existsSync(bin))("agentstream serve (built binary)", () => {
  it("serves a run log folder that does not exist yet, says so on stderr, and lists the runs once they appear", async () => {
    const home = tempDir("serve-home", { until: "file" });
    const runs = join(home, ".agentstream", "runs");
    const child = spawn(process.execPath, [bin, "serve", runs], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, HOME: home } });
    try {
      let stderr = "";
      child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
      const url = await Promise.race([
        new Promise<URL>((resolve) => child.stdout.once("data", (chunk: Buffer) => resolve(new URL(chunk.toString().trim())))),
        exited.then((code) => {
          throw new Error(`serve exited with ${code}: ${stderr}`);
        }),
      ]);
      const auth = { Authorization: `Bearer ${url.searchParams.get("token")}` };
      const list = async (): Promise<SessionInfo[]> => JSON.parse((await httpGet(url.origin, "/api/sessions", auth)).body) as SessionInfo[];
      expect(await list()).toEqual([]);
      expect(stderr).toContain(`agentstream serve: ${runs} does not exist yet: its sessions are listed once it appears`);
      mkdirSync(runs, { recursive: true });
      writeFileSync(join(runs, "r1.raw"), "");
      const started = { v: 1, seq: 0, time: new Date().toISOString(), type: "session.started", sessionId: "s1", cwd: "/w" };
      writeFileSync(join(runs, "r1.events.ndjson"), `${JSON.stringify(started)}\n`);
      for (let tries = 0; (await list()).length === 0 && tries < 50; tries++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await list()).toMatchObject([{ file: join(runs, "r1.events.ndjson"), live: true, status: "running" }]);
    } finally {
      child.kill("SIGTERM");
    }
  });

  it("answers GET /api/search from its worker thread, with the index in the cache folder, the list answering meanwhile", async () => {
    const home = tempDir("serve-search-home", { until: "file" });
    const logs = join(home, "logs");
    mkdirSync(logs);
    const events = [
      { type: "session.started", agent: "codex", sessionId: "s1", cwd: "/w" },
      { type: "message.completed", messageId: "u", role: "user", kind: "text", text: "where is wombatfeather used" },
      { type: "session.completed", status: "success" },
    ];
    const time = new Date().toISOString();
    writeFileSync(
      join(logs, "one.jsonl"),
      events
        .map((e, seq) => JSON.stringify({ v: 1, seq, time, ...e }))
        .join("\n")
        .concat("\n"),
    );
    const child = spawn(process.execPath, [bin, "serve", logs], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, HOME: home, XDG_CACHE_HOME: join(home, "cache") },
    });
    try {
      const url = await new Promise<URL>((resolve) =>
        child.stdout.once("data", (chunk: Buffer) => resolve(new URL(chunk.toString().trim()))),
      );
      const auth = { Authorization: `Bearer ${url.searchParams.get("token")}` };
      const [found, list] = await Promise.all([
        httpGet(url.origin, "/api/search?q=wombatfeather", auth),
        httpGet(url.origin, "/api/sessions", auth),
      ]);
      expect(found.status, found.body).toBe(200);
      const sessions = JSON.parse(list.body) as SessionInfo[];
      expect((JSON.parse(found.body) as LiveSearchAnswer).hits).toMatchObject([{ session: sessions[0]?.id, event: 1, field: "prompt" }]);
      expect(readdirSync(join(home, "cache", "agentstream")).some((name) => name.startsWith("search-"))).toBe(true);
      expect((await httpGet(url.origin, "/api/search?q=(&regex=1", auth)).status).toBe(400);
    } finally {
      child.kill("SIGTERM");
    }
  });
});
