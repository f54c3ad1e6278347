/**
 * `agentstream run --publish` as a user runs it (the built binary around fake agents) against a
 * real nats-server: what the run shows is what `tail` reads, and 20 runs at once ride out the
 * server being killed and restarted in their middle, every event once, in order per session.
 */
import { spawn } from "node:child_process";
import { createServer, type Socket } from "node:net";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "../../src/cli/run.ts";
import type { AgentEvent } from "../../src/model/events.ts";
import { fakeIo } from "../helpers/fake-io.ts";
import { freePort, natsServerPath, startNatsServer, type NatsServer } from "../helpers/nats-server.ts";
import { repoRoot } from "../helpers/shared.ts";
import { tempDir } from "../helpers/temp.ts";

const bin = join(repoRoot, "dist/cli/bin.js");
const numbered = join(repoRoot, "test/fixtures/fake-agents/numbered.mjs");
const haveBin = existsSync(bin);
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

interface Finished {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
  /** Milliseconds from its last output (stdout or stderr) to its exit. */
  readonly afterLastOutputMs: number;
}

/** Starts the CLI; `done` resolves once it has exited, `written()` is its stdout so far. */
function startCli(args: readonly string[]): { done: Promise<Finished>; written(): string } {
  const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NO_COLOR: "1" } });
  let stdout = "";
  let stderr = "";
  let lastOutputAt = performance.now();
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
    lastOutputAt = performance.now();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
    lastOutputAt = performance.now();
  });
  return {
    done: new Promise((resolve) =>
      child.on("exit", (code) => resolve({ stdout, stderr, code, afterLastOutputMs: performance.now() - lastOutputAt })),
    ),
    written: () => stdout,
  };
}

const runCli = (args: readonly string[]): Promise<Finished> => startCli(args).done;

const lines = (text: string): AgentEvent[] =>
  text
    .trim()
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as AgentEvent);

/** What `tail` reads of one host, as NDJSON events. */
async function tailHost(server: NatsServer, host: string): Promise<AgentEvent[]> {
  const io = fakeIo();
  expect(await run(["tail", server.url, "--host", host, "--since", "all", "--no-follow", "--to", "agentstream"], io)).toBe(0);
  return lines(io.out());
}

/** The run's own events, without those only a live run has (heartbeats come on a clock). */
const comparable = (events: readonly AgentEvent[]): AgentEvent[] => events.filter((e) => e.type !== "heartbeat");

describe.skipIf(!haveBin || natsServerPath === undefined)("agentstream run --publish (built binary, real nats-server)", () => {
  let server: NatsServer;
  beforeAll(async () => {
    server = await startNatsServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("every event the run writes is published once, in order, and the summary says so", async () => {
    const spool = tempDir("run-publish", { until: "file" });
    const result = await runCli([
      "run",
      "--publish",
      server.url,
      "--host",
      "one-run",
      "--spool",
      spool,
      "--to",
      "agentstream",
      "--final-summary",
      "--",
      process.execPath,
      numbered,
      "--session=single",
      "--events=50",
      "--every-ms=2",
    ]);
    expect(result.code).toBe(0);
    const [ndjson, summary] = [result.stdout.slice(0, result.stdout.indexOf("\n{\n")), result.stdout.slice(result.stdout.indexOf("\n{\n"))];
    const written = lines(ndjson);
    const report = JSON.parse(summary) as { publish: { published: number; dropped: number; waiting: number } };
    expect(report.publish).toMatchObject({ published: written.length, dropped: 0, waiting: 0 });
    expect(result.stderr).toMatch(new RegExp(`${written.length} event\\(s\\) published to AGENTSTREAM on nats://127\\.0\\.0\\.1:\\d+`));
    const tailed = await tailHost(server, "one-run");
    expect(comparable(tailed)).toEqual(comparable(written));
    // The fake agent's session id names the subject.
    const view = fakeIo({ env: { NO_COLOR: "1" } });
    await run(["tail", server.url, "--session", "single", "--since", "all", "--no-follow"], view);
    expect(view.out()).toContain("message 50");
  });

  it("20 runs at once, the server killed and restarted in their middle: every event arrives once, in order per session", async () => {
    const spool = tempDir("run-publish", { until: "file" });
    const runs = Array.from({ length: 20 }, (_, i) =>
      startCli([
        "run",
        "--publish",
        server.url,
        "--host",
        "twenty",
        "--spool",
        spool,
        "--flush-timeout",
        "30s",
        "--to",
        "agentstream",
        "--",
        process.execPath,
        numbered,
        `--session=run-${i}`,
        "--events=80",
        "--every-ms=25",
      ]),
    );
    // Every run has started and written (and published) part of its events: then the server dies.
    while (!runs.every((r) => r.written().split("\n").length > 20)) await sleep(20);
    await server.kill();
    await sleep(700);
    await server.restart();
    const finished = await Promise.all(runs.map((r) => r.done));
    for (const result of finished) {
      expect(result.code).toBe(0);
      expect(result.stderr).not.toMatch(/DROPPED|still waiting/);
    }
    const bySession = new Map<string, AgentEvent[]>();
    for (const event of await tailHost(server, "twenty")) {
      const list = bySession.get(event.sessionId ?? "") ?? [];
      list.push(event);
      bySession.set(event.sessionId ?? "", list);
    }
    expect(bySession.size).toBe(20);
    finished.forEach((result, i) => {
      expect(comparable(bySession.get(`run-${i}`) ?? [])).toEqual(comparable(lines(result.stdout)));
    });
    // At least one run noticed the outage and said where its events went.
    expect(finished.some((result) => /events go to the spool/.test(result.stderr))).toBe(true);
  });

  describe("closing never waits on a connection that is not there", () => {
    /** `run --publish <url>` of a fake agent with the view, a flush timeout of 1 s: how it ended. */
    const runTo = (url: string, events: number, spool: string) =>
      startCli([
        "run",
        "--publish",
        url,
        "--host",
        "closing",
        "--spool",
        spool,
        "--flush-timeout",
        "1s",
        "--mode",
        "none",
        "--",
        process.execPath,
        numbered,
        "--session=closing",
        `--events=${events}`,
        "--every-ms=5",
      ]);
    /** Exits right after its last line (the flush timeout is spent before it): a loose bound, CI is slow; a hang is 5 s or more. */
    const endedPromptly = (result: Finished): void => {
      expect(result.code).toBe(0);
      expect(result.stdout).toContain("message 40");
      expect(result.stderr).toMatch(/still waiting/);
      expect(result.afterLastOutputMs).toBeLessThan(2500);
    };

    it("a port nothing listens on", async () => {
      const result = await runTo(`nats://127.0.0.1:${await freePort()}`, 40, tempDir("run-publish", { until: "file" })).done;
      endedPromptly(result);
    });

    it("a server that accepts the connection and never answers (a paused or overloaded server)", async () => {
      const sockets = new Set<Socket>();
      const silent = createServer((socket) => {
        sockets.add(socket);
        socket.on("error", () => {});
      });
      await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
      const address = silent.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      try {
        const result = await runTo(`nats://127.0.0.1:${port}`, 40, tempDir("run-publish", { until: "file" })).done;
        endedPromptly(result);
      } finally {
        for (const socket of sockets) socket.destroy();
        silent.close();
      }
    });

    it("a server killed in the middle of the run, not back", async () => {
      const own = await startNatsServer();
      try {
        const started = runTo(own.url, 200, tempDir("run-publish", { until: "file" }));
        while (started.written().split("\n").length < 20) await sleep(20);
        await own.kill();
        const result = await started.done;
        expect(result.code).toBe(0);
        expect(result.stdout).toContain("message 200");
        expect(result.stderr).toMatch(/lost the connection/);
        expect(result.afterLastOutputMs).toBeLessThan(2500);
      } finally {
        await own.stop();
      }
    });
  });
});
