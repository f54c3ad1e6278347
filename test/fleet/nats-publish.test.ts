/**
 * `agentstream publish` of long sessions against a real nats-server, as a user runs it (the built
 * binary): a session of 20k events published once and in order without going through the spool
 * (the file is read no faster than NATS takes it), the flush timeout kept when the server is gone,
 * and the process gone right after its last line when the server stopped answering. Skips with one
 * line when nats-server is not installed.
 */
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFleet } from "../../src/fleet/reader.ts";
import { freePort, NATS_SKIP_REASON, natsServerPath, startNatsServer, type NatsServer } from "../helpers/nats-server.ts";
import { repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

if (natsServerPath === undefined) console.warn(`[agentstream tests] ${NATS_SKIP_REASON}`);
const bin = join(repoRoot, "dist/cli/bin.js");

/** A Claude stream-json session of `answers` one-line answers: 1 + 2 × answers events (started, then each answer's start and end). */
function writeSession(path: string, sessionId: string, answers: number): number {
  const lines = [JSON.stringify({ type: "system", subtype: "init", session_id: sessionId, model: "m", tools: [] })];
  for (let i = 1; i <= answers; i++)
    lines.push(
      JSON.stringify({
        type: "assistant",
        session_id: sessionId,
        message: { id: `msg_${i}`, role: "assistant", content: [{ type: "text", text: `answer ${i}` }] },
      }),
    );
  writeFileSync(path, `${lines.join("\n")}\n`);
  return 1 + 2 * answers;
}

interface Finished {
  readonly code: number | null;
  readonly stderr: string;
  /** Milliseconds from the start to the exit. */
  readonly ms: number;
  /** Milliseconds from the report line (the last line) to the exit. */
  readonly afterLastLineMs: number;
}

function publish(args: readonly string[]): Promise<Finished> {
  const started = performance.now();
  const child = spawn(process.execPath, [bin, "publish", ...args], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  let lastLineAt = Number.NaN;
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    if (/event\(s\) published/.test(stderr) && Number.isNaN(lastLineAt)) lastLineAt = performance.now();
  });
  return new Promise((resolve) =>
    child.on("close", (code) => {
      const now = performance.now();
      resolve({ code, stderr, ms: now - started, afterLastLineMs: now - lastLineAt });
    }),
  );
}

describe.skipIf(natsServerPath === undefined || !existsSync(bin))("publish of long sessions with a real nats-server", () => {
  let server: NatsServer;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    server.resume();
    await server.stop();
  });

  it("one session of 20k events: every event published once, in order, none through the spool", async () => {
    const dir = tempDir("publish");
    const file = join(dir, "session.jsonl");
    const count = writeSession(file, "long-session", 10_000);
    const done = await publish([server.url, "--host", "long", "--spool", join(dir, "spool"), "--flush-timeout", "60s", file]);
    expect(done.stderr).toMatch(new RegExp(`^agentstream publish: ${count} event\\(s\\) published to AGENTSTREAM`, "m"));
    // Read no faster than NATS takes it: the events never wait on disk.
    expect(done.stderr).not.toMatch(/spool/);
    expect(done.code).toBe(0);
    const seqs: number[] = [];
    for await (const { event } of readFleet({
      connection: { servers: server.url },
      stream: "AGENTSTREAM",
      filter: { host: "long" },
      since: { kind: "all" },
      follow: false,
    }))
      seqs.push(event.seq);
    expect(seqs).toEqual(Array.from({ length: count }, (_, i) => i));
  });

  it("the server gone: the flush timeout is kept and the events stay in the spool", async () => {
    const dir = tempDir("publish");
    const file = join(dir, "session.jsonl");
    const count = writeSession(file, "nowhere-session", 10_000);
    const url = `nats://127.0.0.1:${await freePort()}`;
    const done = await publish([url, "--host", "gone", "--spool", join(dir, "spool"), "--flush-timeout", "1s", file]);
    expect(done.stderr).toMatch(new RegExp(`${count} still waiting`));
    expect(done.code).toBe(3);
    // Reading, then 1 s: not the minutes the ack timeouts and reconnect attempts could add (a loose bound, CI is slow).
    expect(done.ms).toBeLessThan(15_000);
  });

  it("a server that stopped answering, an adopted spool, the stream there: the process ends right after its last line", async () => {
    const dir = tempDir("publish");
    const spool = join(dir, "spool");
    const file = join(dir, "session.jsonl");
    const count = writeSession(file, "paused-session", 10_000);
    // A spool left by a publisher that could not reach the server.
    const down = await publish([
      `nats://127.0.0.1:${await freePort()}`,
      "--host",
      "paused",
      "--spool",
      spool,
      "--flush-timeout",
      "0s",
      file,
    ]);
    expect(down.stderr).toMatch(new RegExp(`${count} still waiting`));
    server.pause();
    try {
      const done = await publish([server.url, "--host", "paused", "--spool", spool, "--flush-timeout", "1s", file]);
      expect(done.stderr).toMatch(/found 1 spool file/);
      expect(done.stderr).toMatch(/still waiting/);
      // Not held until the server answers again (the client keeps a socket to it open).
      expect(done.afterLastLineMs).toBeLessThan(3_000);
    } finally {
      server.resume();
    }
  });
});
