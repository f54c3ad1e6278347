/**
 * Load: concurrent fake agents publishing from 4 processes at once (bench/fleet-load-worker.mjs,
 * the built publisher) → no loss, no duplicate, each session in order. Reduced to 4 × 25 agents ×
 * 100 events to stay at a few seconds of CPU; the full 4 × 25 × 10 000 is `npm run bench:fleet`
 * (docs/fleet.md has the figure).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFleet } from "../../src/fleet/reader.ts";
import { natsServerPath, startNatsServer, type NatsServer } from "../helpers/nats-server.ts";
import { repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const worker = join(repoRoot, "bench/fleet-load-worker.mjs");
const built = existsSync(join(repoRoot, "dist/fleet/publisher.js"));
if (!built) console.warn("[agentstream tests] dist/ not built: test/fleet/nats-load.test.ts is skipped (npm run build)");

const PROCESSES = 4;
const AGENTS = 25;
const EVENTS = 100;

function publishFrom(url: string, host: string, spool: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    process.execPath,
    [worker, url, "--host", host, "--agents", String(AGENTS), "--events", String(EVENTS), "--spool", spool],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe.skipIf(!built || natsServerPath === undefined)("fleet load: 4 processes × 25 concurrent agents", () => {
  let server: NatsServer;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("every event stored once, each session complete and in order", async () => {
    const spool = tempDir("load");
    const results = await Promise.all(Array.from({ length: PROCESSES }, (_, p) => publishFrom(server.url, `load-${p}`, spool)));
    for (const result of results) {
      expect(result.code).toBe(0);
      const { report } = JSON.parse(result.stdout) as {
        report: { published: number; duplicates: number; dropped: number; waiting: number };
      };
      expect(report).toMatchObject({ published: AGENTS * EVENTS, duplicates: 0, dropped: 0, waiting: 0 });
    }
    const bySession = new Map<string, number[]>();
    let total = 0;
    for await (const { event, address } of readFleet({
      connection: { servers: server.url },
      stream: "AGENTSTREAM",
      filter: {},
      since: { kind: "all" },
      follow: false,
    })) {
      total++;
      const seqs = bySession.get(address.session) ?? [];
      seqs.push(event.seq);
      bySession.set(address.session, seqs);
    }
    expect(total).toBe(PROCESSES * AGENTS * EVENTS);
    expect(bySession.size).toBe(PROCESSES * AGENTS);
    const inOrder = Array.from({ length: EVENTS }, (_, i) => i);
    for (const seqs of bySession.values()) expect(seqs).toEqual(inOrder);
  });
});
