/**
 * `agentstream run --otlp` as a user runs it (the built binary around fake agents) against a receiver on 127.0.0.1:
 * spans leave while the agent works; the endpoint down at start or answering 4xx/5xx, and a slow endpoint, never
 * hold the agent back, and the drops are counted and reported; a session of 10,000 tool calls goes out batched.
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../helpers/nats-server.ts";
import { decodeProtobuf, startReceiver, type Receiver } from "../helpers/otlp.ts";
import { repoRoot } from "../helpers/shared.ts";

const bin = join(repoRoot, "dist/cli/bin.js");
const manyTools = join(repoRoot, "test/fixtures/fake-agents/many-tools.mjs");
const haveBin = existsSync(bin);

interface Finished {
  readonly stdout: string;
  readonly stderr: string;
  readonly code: number | null;
  /** When the agent's last line reached us, and when the CLI exited (ms since the epoch). */
  readonly exitedAt: number;
}

function runCli(args: readonly string[], env: Record<string, string> = {}): Promise<Finished> {
  const child = spawn(process.execPath, [bin, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", ...env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  return new Promise((resolve) => child.on("close", (code) => resolve({ stdout, stderr, code, exitedAt: Date.now() })));
}

interface OtlpReport {
  endpoint: string;
  exported: number;
  dropped: number;
  rejected: number;
  requests: number;
  lastError: string | null;
}

const reportOf = (stdout: string): { otlp: OtlpReport; toolCalls: unknown[] } =>
  JSON.parse(stdout) as { otlp: OtlpReport; toolCalls: unknown[] };
const spansOf = (r: Receiver) => r.requests().flatMap((request) => request.spans);

let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

describe.skipIf(!haveBin)("agentstream run --otlp (built binary)", () => {
  it("exports each span as it ends, while the agent still works, then the session", async () => {
    receiver = await startReceiver();
    const result = await runCli([
      "run",
      "--json",
      "--otlp",
      receiver.origin,
      "--",
      process.execPath,
      manyTools,
      "--tools=12",
      "--burst=1",
      "--every-ms=250",
    ]);
    expect(result.code).toBe(0);
    const report = reportOf(result.stdout);
    expect(report.otlp).toMatchObject({ dropped: 0, rejected: 0, lastError: null, endpoint: `${receiver.origin}/v1/traces` });
    const spans = spansOf(receiver);
    expect(spans).toHaveLength(report.otlp.exported);
    expect(spans.filter((span) => span.attributes["gen_ai.operation.name"] === "execute_tool")).toHaveLength(12);
    const root = spans.find((span) => span.parentSpanId === "");
    expect(root?.name).toBe("invoke_agent claude-code");
    expect(root?.attributes["gen_ai.conversation.id"]).toBe("many-tools");
    // The run took about 3 s: the first request came well before its end.
    expect(receiver.received[0]?.at).toBeLessThan(result.exitedAt - 1000);
    expect(receiver.received.length).toBeGreaterThan(1);
    // Receipt times: under run every span sits in the run's own time.
    for (const span of spans) expect(Number(span.start / 1_000_000n)).toBeGreaterThan(result.exitedAt - 60_000);
  }, 30_000);

  it("the endpoint down from the start: the agent runs to its end, the drops are counted and said", async () => {
    const port = await freePort();
    const result = await runCli(["run", "--json", "--otlp", `http://127.0.0.1:${port}`, "--", process.execPath, manyTools, "--tools=20"]);
    expect(result.code).toBe(0);
    const report = reportOf(result.stdout);
    expect(report.toolCalls).toHaveLength(20);
    expect(report.otlp.exported).toBe(0);
    expect(report.otlp.dropped).toBeGreaterThan(20);
    expect(result.stderr).toMatch(/agentstream run: otlp: 0 spans exported to .*, \d+ dropped \(last: .*ECONNREFUSED/);
  }, 30_000);

  it("the endpoint going down mid-run: what went before it stays sent, the rest is dropped and said", async () => {
    const live = await startReceiver((n) => {
      // The collector dies right after its first batch.
      if (n === 0) setTimeout(() => void live.close(), 20);
      return { status: 200 };
    });
    const args = ["--tools=12", "--burst=1", "--every-ms=250"];
    const result = await runCli(["run", "--json", "--otlp", live.origin, "--", process.execPath, manyTools, ...args]);
    expect(result.code).toBe(0);
    const report = reportOf(result.stdout);
    expect(report.toolCalls).toHaveLength(12);
    expect(report.otlp.exported).toBe(live.received.reduce((sum, r) => sum + decodeProtobuf(r.body).spans.length, 0));
    expect(report.otlp.exported).toBeGreaterThan(0);
    expect(report.otlp.dropped).toBeGreaterThan(0);
    expect(result.stderr).toMatch(/otlp: \d+ spans exported to .*, \d+ dropped \(last: .*ECONNREFUSED/);
  }, 30_000);

  it.each([400, 503])(
    "an endpoint answering %i: spans dropped and said, the agent's exit code kept",
    async (status) => {
      receiver = await startReceiver(() => ({ status, body: "go away" }));
      const result = await runCli(["run", "--json", "--otlp", receiver.origin, "--", process.execPath, manyTools, "--tools=3"]);
      expect(result.code).toBe(0);
      expect(reportOf(result.stdout).otlp).toMatchObject({ exported: 0, lastError: `HTTP ${status}: go away` });
      expect(result.stderr).toMatch(new RegExp(`otlp: 0 spans exported .* dropped \\(last: HTTP ${status}`));
    },
    30_000,
  );

  it("a slow endpoint never holds the agent: its whole stream is written, the run ends within the export deadline", async () => {
    receiver = await startReceiver(() => ({ status: 200, delayMs: 20_000 }));
    const started = Date.now();
    const result = await runCli(["run", "--to", "agentstream", "--otlp", receiver.origin, "--", process.execPath, manyTools, "--tools=50"]);
    expect(result.code).toBe(0);
    const completed = result.stdout.split("\n").filter((line) => line.includes('"type":"tool.completed"'));
    expect(completed).toHaveLength(50);
    expect(result.exitedAt - started).toBeLessThan(15_000);
    expect(result.stderr).toMatch(/otlp: 0 spans exported .* \d+ dropped/);
  }, 30_000);

  it("a session of 10,000 tool calls: every span sent once, in batches of at most 256", async () => {
    receiver = await startReceiver();
    // About 2,000 tool calls a second, far above any real agent's pace; a faster flood fills the queue, and the
    // spans it drops are counted (the fault tests above), never waited for.
    const args = ["--tools=10000", "--burst=20", "--every-ms=10"];
    const result = await runCli(["run", "--json", "--otlp", receiver.origin, "--", process.execPath, manyTools, ...args]);
    expect(result.code).toBe(0);
    const report = reportOf(result.stdout);
    const requests = receiver.requests();
    const spans = requests.flatMap((request) => request.spans);
    expect(spans).toHaveLength(report.otlp.exported);
    expect(report.otlp.exported + report.otlp.dropped).toBeGreaterThanOrEqual(20_001);
    expect(report.otlp.dropped).toBe(0);
    expect(new Set(spans.filter((s) => s.attributes["gen_ai.operation.name"] === "execute_tool").map((s) => s.spanId)).size).toBe(10_000);
    expect(Math.max(...requests.map((request) => request.spans.length))).toBeLessThanOrEqual(256);
  }, 60_000);
});
