/**
 * The live exporter of `run --otlp` against a receiver on 127.0.0.1: spans leave as they end, in batches; the
 * endpoint down at start or in the middle, 4xx/5xx, partial success and a slow endpoint are counted and reported,
 * never waited on by whoever adds spans; a session of 10,000 tool calls goes out in bounded batches.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent, AgentEventDraft } from "../../src/model/events.ts";
import { otlpExportConfig } from "../../src/otel/config.ts";
import { createLiveExport, SpanExporter } from "../../src/otel/exporter.ts";
import type { FinishedSpan } from "../../src/formats/otlp/wire.ts";
import type { RetryPolicy } from "../../src/otel/send.ts";
import { build } from "../helpers/events.ts";
import { freePort } from "../helpers/nats-server.ts";
import { partialSuccessBody, startReceiver, type Receiver } from "../helpers/otlp.ts";

const FAST: RetryPolicy = { attempts: 3, initialBackoffMs: 5, maxBackoffMs: 20 };
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function spanNumber(n: number): FinishedSpan {
  return {
    traceId: "0af7651916cd43dd8448eb211c80319c",
    spanId: n.toString(16).padStart(16, "0"),
    name: `execute_tool t${n}`,
    kind: 1,
    startMs: 1_767_225_600_000 + n,
    endMs: 1_767_225_600_001 + n,
    attributes: { "gen_ai.operation.name": "execute_tool" },
    status: { code: 0 },
  };
}

const received = (r: Receiver): number => r.requests().reduce((sum, request) => sum + request.spans.length, 0);

async function until(check: () => boolean, ms = 5000): Promise<void> {
  for (let waited = 0; !check() && waited < ms; waited += 10) await sleep(10);
}

/** A session whose tool calls end one after another; `tools` of them. */
function toolSession(tools: number): AgentEvent[] {
  const drafts: AgentEventDraft[] = [{ type: "session.started", sessionId: "live", agent: "claude-code", model: "claude-sonnet-4-5" }];
  for (let i = 0; i < tools; i++) {
    drafts.push({ type: "tool.started", sessionId: "live", toolCallId: `t${i}`, name: "Bash", input: { command: `echo ${i}` } });
    drafts.push({ type: "tool.completed", sessionId: "live", toolCallId: `t${i}`, isError: false, output: `${i}` });
  }
  drafts.push({ type: "session.completed", sessionId: "live", status: "success" });
  return build(drafts);
}

describe("SpanExporter", () => {
  it("exports each span when it ends, before the session does", async () => {
    receiver = await startReceiver();
    const live = createLiveExport(
      otlpExportConfig({ endpoint: receiver.origin }, {}),
      { "service.name": "t" },
      {},
      { delayMs: 20, retry: FAST },
    );
    const events = toolSession(1);
    for (const event of events.slice(0, 3)) live.add(event);
    await until(() => receiver !== undefined && received(receiver) >= 2);
    const names = receiver.requests().flatMap((request) => request.spans.map((span) => span.name));
    expect(names).toContain("execute_tool Bash");
    expect(names.some((name) => name.startsWith("invoke_agent"))).toBe(false);
    for (const event of events.slice(3)) live.add(event);
    const report = await live.close(2000);
    expect(report).toMatchObject({ dropped: 0, rejected: 0, lastError: null });
    expect(received(receiver)).toBe(report.exported);
    expect(receiver.requests().flatMap((request) => request.spans.map((span) => span.name))).toContain("invoke_agent claude-code");
  });

  it("counts every span as dropped when the endpoint is down from the start, and ends within its deadline", async () => {
    const port = await freePort();
    const exporter = new SpanExporter(
      otlpExportConfig({ endpoint: `http://127.0.0.1:${port}` }, {}),
      {},
      { delayMs: 5, maxQueue: 100, retry: FAST },
    );
    for (let i = 0; i < 250; i++) exporter.add(spanNumber(i));
    const report = await exporter.close(1000);
    expect(report.exported).toBe(0);
    expect(report.dropped).toBe(250);
    expect(report.lastError).toMatch(/ECONNREFUSED/);
  });

  it("drops the batch an outage in the middle swallows, and sends the rest once the endpoint is back", async () => {
    receiver = await startReceiver((n) => (n >= 1 && n <= 3 ? { status: 503 } : { status: 200 }));
    const exporter = new SpanExporter(otlpExportConfig({ endpoint: receiver.origin }, {}), {}, { delayMs: 5, batchSize: 10, retry: FAST });
    for (let i = 0; i < 10; i++) exporter.add(spanNumber(i));
    await until(() => exporter.report().requests >= 1 && exporter.report().exported === 10);
    for (let i = 10; i < 20; i++) exporter.add(spanNumber(i));
    await until(() => exporter.report().requests >= 2 && exporter.report().dropped === 10);
    for (let i = 20; i < 30; i++) exporter.add(spanNumber(i));
    const report = await exporter.close(2000);
    expect(report).toMatchObject({ exported: 20, dropped: 10, lastError: "HTTP 503" });
    expect(received(receiver)).toBe(20);
  });

  it.each([400, 500])("reports a final %i: those spans dropped, the reason kept", async (status) => {
    receiver = await startReceiver(() => ({ status, body: "no" }));
    const exporter = new SpanExporter(otlpExportConfig({ endpoint: receiver.origin }, {}), {}, { delayMs: 5, retry: FAST });
    for (let i = 0; i < 3; i++) exporter.add(spanNumber(i));
    const report = await exporter.close(2000);
    expect(report).toMatchObject({ exported: 0, dropped: 3, requests: 1 });
    expect(report.lastError).toBe(`HTTP ${status}: no`);
  });

  it("counts the spans a partial success rejected", async () => {
    receiver = await startReceiver(() => ({ status: 200, body: partialSuccessBody(2, "attribute too long") }));
    const exporter = new SpanExporter(otlpExportConfig({ endpoint: receiver.origin }, {}), {}, { delayMs: 5, retry: FAST });
    for (let i = 0; i < 5; i++) exporter.add(spanNumber(i));
    const report = await exporter.close(2000);
    expect(report).toMatchObject({ exported: 3, rejected: 2, dropped: 0, lastError: "partial success: attribute too long" });
  });

  it("never holds back a caller behind a slow endpoint: a full queue drops and counts", async () => {
    receiver = await startReceiver(() => ({ status: 200, delayMs: 300 }));
    const exporter = new SpanExporter(
      otlpExportConfig({ endpoint: receiver.origin }, {}),
      {},
      { delayMs: 1, batchSize: 50, maxQueue: 100, retry: FAST },
    );
    // add() is synchronous: all 1,000 are taken (or dropped) before the first answer can come.
    for (let i = 0; i < 1000; i++) exporter.add(spanNumber(i));
    expect(exporter.report().exported).toBe(0);
    const report = await exporter.close(3000);
    expect(report.exported + report.dropped).toBe(1000);
    expect(report.dropped).toBeGreaterThanOrEqual(850);
    expect(received(receiver)).toBe(report.exported);
  });

  it("ends within its deadline when the endpoint never answers in time: what was unsent is dropped", async () => {
    receiver = await startReceiver(() => ({ status: 200, delayMs: 5000 }));
    const exporter = new SpanExporter(
      otlpExportConfig({ endpoint: receiver.origin, timeout: "10000" }, {}),
      {},
      { delayMs: 1, retry: FAST },
    );
    for (let i = 0; i < 10; i++) exporter.add(spanNumber(i));
    const report = await exporter.close(200);
    expect(report).toMatchObject({ exported: 0, dropped: 10 });
  });

  it("sends a session of 10,000 tool calls in bounded batches, every span once", async () => {
    receiver = await startReceiver();
    const live = createLiveExport(
      otlpExportConfig({ endpoint: receiver.origin }, {}),
      {},
      {},
      { delayMs: 5, batchSize: 512, maxQueue: 2048, retry: FAST },
    );
    const events = toolSession(10_000);
    // As an agent writes them: a few hundred events, then the event loop turns (the exporter sends meanwhile).
    for (let at = 0; at < events.length; at += 200) {
      for (const event of events.slice(at, at + 200)) live.add(event);
      await sleep(1);
    }
    const report = await live.close(10_000);
    const requests = receiver.requests();
    expect(report.dropped).toBe(0);
    expect(received(receiver)).toBe(report.exported);
    const tools = requests
      .flatMap((request) => request.spans)
      .filter((span) => span.attributes["gen_ai.operation.name"] === "execute_tool");
    expect(new Set(tools.map((span) => span.spanId)).size).toBe(10_000);
    expect(Math.max(...requests.map((request) => request.spans.length))).toBeLessThanOrEqual(512);
  });
});
