/**
 * `convert --to otlp`: every real capture becomes OTLP/JSON that the official protobuf definitions read, with the
 * span tree docs/otel.md describes: one `invoke_agent` root per session carrying the session's usage exactly as
 * `summary --json` says it, `chat` spans whose usage adds up to it where the stream gives usage per turn or request,
 * and one `execute_tool` span per tool call. Ids are the same on every export; content only with captureContent.
 */
import { describe, expect, it } from "vitest";
import { run } from "../../../src/cli/run.ts";
import { SpanMapper } from "../../../src/formats/otlp/spans.ts";
import { traceRequest, resourceOf } from "../../../src/formats/otlp/encode.ts";
import type { FinishedSpan } from "../../../src/formats/otlp/wire.ts";
import type { AgentEvent } from "../../../src/model/events.ts";
import type { Usage } from "../../../src/model/events.ts";
import { summaryFacts } from "../../../src/otel/facts.ts";
import { serializeSpans } from "../../../src/otel/serialize.ts";
import { convertEvents } from "../../helpers/convert.ts";
import { build } from "../../helpers/events.ts";
import { fakeIo } from "../../helpers/fake-io.ts";
import { decodeJson, decodeProtobuf, type DecodedRequest, type DecodedSpan } from "../../helpers/otlp.ts";
import { readFile } from "../../helpers/read.ts";
import { listCaptures } from "../../helpers/shared.ts";

const USAGE_ATTRIBUTES: [keyof Usage, string][] = [
  ["inputTokens", "gen_ai.usage.input_tokens"],
  ["outputTokens", "gen_ai.usage.output_tokens"],
  ["cacheReadTokens", "gen_ai.usage.cache_read.input_tokens"],
  ["cacheWriteTokens", "gen_ai.usage.cache_creation.input_tokens"],
  ["reasoningTokens", "gen_ai.usage.reasoning.output_tokens"],
];

const operation = (span: DecodedSpan): unknown => span.attributes["gen_ai.operation.name"];

/** The usage a span carries, as a Usage (absent figures null). */
function usageOf(spans: readonly DecodedSpan[]): Usage {
  const out: Record<string, number | null> = {};
  for (const [field, name] of USAGE_ATTRIBUTES) {
    const values = spans.map((span) => span.attributes[name]).filter((v): v is number => typeof v === "number");
    out[field] = values.length === 0 ? null : values.reduce((a, b) => a + b, 0);
  }
  return out as unknown as Usage;
}

/** Usage compared where both sides know a figure (0 and unknown both mean "none" for a sum of chat spans). */
const known = (usage: Usage): number[] => USAGE_ATTRIBUTES.map(([field]) => usage[field] ?? 0);

function decodeLines(text: string): DecodedRequest[] {
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map(decodeJson);
}

/** The tree's invariants: one trace, every parent present, the conversation id on every span. */
function expectTree(request: DecodedRequest): DecodedSpan {
  const roots = request.spans.filter((span) => span.parentSpanId === "");
  expect(roots).toHaveLength(1);
  const root = roots[0] as DecodedSpan;
  expect(operation(root)).toBe("invoke_agent");
  expect(root.name).toBe(`invoke_agent ${String(root.attributes["gen_ai.agent.name"])}`);
  const ids = new Set(request.spans.map((span) => span.spanId));
  expect(ids.size).toBe(request.spans.length);
  for (const span of request.spans) {
    expect(span.traceId).toBe(root.traceId);
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.spanId).toMatch(/^[0-9a-f]{16}$/);
    if (span !== root) expect(ids.has(span.parentSpanId), `${span.name}'s parent`).toBe(true);
    expect(span.attributes["gen_ai.conversation.id"]).toBe(root.attributes["gen_ai.conversation.id"]);
    expect(span.end >= span.start).toBe(true);
  }
  return root;
}

const byDialect = new Map<string, string[]>();
for (const [dialect, path] of listCaptures()) byDialect.set(dialect, [...(byDialect.get(dialect) ?? []), path]);

describe.each([...byDialect.keys()])("otlp over the %s captures", (dialect) => {
  it.each(byDialect.get(dialect) ?? [])("%s: the session, its turns with summary's usage, one span per tool call", (path) => {
    const { events, summary } = readFile(path);
    const requests = decodeLines(convertEvents(events, "otlp", { sessionFacts: summaryFacts }));
    expect(requests.length).toBeGreaterThan(0);
    for (const request of requests) {
      expect(request.scope.name).toBe("agentstream");
      expect(request.resource["service.name"]).toBe("agentstream");
      expectTree(request);
    }
    const spans = requests.flatMap((request) => request.spans);
    const tools = spans.filter((span) => operation(span) === "execute_tool");
    expect(tools).toHaveLength(summary.toolCalls.length);
    expect(new Set(tools.map((span) => span.attributes["gen_ai.tool.call.id"]))).toEqual(new Set(summary.toolCalls.map((call) => call.id)));
    for (const tool of tools) {
      const call = summary.toolCalls.find((c) => c.id === tool.attributes["gen_ai.tool.call.id"]);
      expect(tool.name).toBe(`execute_tool ${String(tool.attributes["gen_ai.tool.name"])}`);
      expect(tool.status.code, tool.name).toBe(call?.status === "success" ? 0 : 2);
    }
    if (requests.length !== 1) return;
    const [request] = requests as [DecodedRequest];
    const root = request.spans.find((span) => span.parentSpanId === "") as DecodedSpan;
    expect(usageOf([root])).toEqual(summary.usage);
    const chats = spans.filter((span) => operation(span) === "chat");
    for (const chat of chats) expect(chat.name).toMatch(/^chat( |$)/);
    // Where the stream gives usage per turn or request, the turns add up to the session's.
    if (chats.some((chat) => USAGE_ATTRIBUTES.some(([, name]) => name in chat.attributes)))
      expect(known(usageOf(chats))).toEqual(known(summary.usage));
    expect(root.attributes["agentstream.session.status"]).toBe(summary.status);
    expect(root.status.code).toBe(summary.status === "error" || summary.status === "interrupted" ? 2 : 0);
    if (summary.costUsd !== null) expect(root.attributes["agentstream.cost_usd"]).toBeCloseTo(summary.costUsd, 9);
  });
});

describe("otlp: ids, content, the official transformer", () => {
  const capture = listCaptures().find(([, path]) => path.endsWith("happy_1.0.71_task_subagent_websearch_non_sdk.jsonl"));

  it.runIf(capture !== undefined)("gives the same ids on every export, and a subagent's spans nest under its Task call", () => {
    const { events } = readFile((capture as [string, string])[1]);
    const once = decodeLines(convertEvents(events, "otlp"))[0] as DecodedRequest;
    const twice = decodeLines(convertEvents(events, "otlp"))[0] as DecodedRequest;
    expect(twice.spans.map((s) => [s.traceId, s.spanId, s.parentSpanId])).toEqual(
      once.spans.map((s) => [s.traceId, s.spanId, s.parentSpanId]),
    );
    const task = once.spans.find((span) => span.attributes["gen_ai.tool.name"] === "Task") as DecodedSpan;
    const subagent = once.spans.find((span) => operation(span) === "invoke_agent" && span.parentSpanId !== "") as DecodedSpan;
    expect(subagent.parentSpanId).toBe(task.spanId);
    const inside = once.spans.filter((span) => span.parentSpanId === subagent.spanId);
    expect(inside.map(operation)).toContain("execute_tool");
  });

  it("writes no content by default; --capture-content writes it, redacted", () => {
    const secret = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789";
    const events = build([
      { type: "session.started", sessionId: "s1", agent: "claude-code", model: "claude-sonnet-4-5", time: "2026-01-01T00:00:00.000Z" },
      {
        type: "message.completed",
        sessionId: "s1",
        messageId: "u",
        role: "user",
        kind: "text",
        text: `use ${secret}`,
        time: "2026-01-01T00:00:01.000Z",
      },
      {
        type: "message.completed",
        sessionId: "s1",
        messageId: "a",
        role: "assistant",
        kind: "text",
        text: "ok",
        time: "2026-01-01T00:00:02.000Z",
      },
      {
        type: "tool.started",
        sessionId: "s1",
        toolCallId: "t1",
        name: "Bash",
        input: { command: `curl -H "Authorization: Bearer ${secret}"` },
        time: "2026-01-01T00:00:02.500Z",
      },
      {
        type: "tool.completed",
        sessionId: "s1",
        toolCallId: "t1",
        isError: false,
        output: `token=${secret}`,
        time: "2026-01-01T00:00:03.000Z",
      },
      { type: "session.completed", sessionId: "s1", status: "success", finalText: "done", time: "2026-01-01T00:00:04.000Z" },
    ]);
    const plain = convertEvents(events, "otlp");
    expect(plain).not.toContain("use ");
    for (const name of ["gen_ai.input.messages", "gen_ai.output.messages", "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"])
      expect(plain).not.toContain(name);
    const withContent = convertEvents(events, "otlp", { captureContent: true });
    expect(withContent).not.toContain(secret);
    const spans = decodeLines(withContent).flatMap((r) => r.spans);
    const tool = spans.find((span) => operation(span) === "execute_tool") as DecodedSpan;
    expect(tool.attributes["gen_ai.tool.call.arguments"]).toContain("curl");
    expect(tool.attributes["gen_ai.tool.call.result"]).toContain("[REDACTED]");
    const chat = spans.find((span) => operation(span) === "chat") as DecodedSpan;
    expect(JSON.parse(chat.attributes["gen_ai.input.messages"] as string)).toEqual([
      { role: "user", parts: [{ type: "text", content: "use [REDACTED]" }] },
    ]);
    expect(chat.start).toBe(1_767_225_601_000_000_000n);
    expect(chat.end).toBe(1_767_225_602_500_000_000n);
  });

  it("is what @opentelemetry/otlp-transformer writes for the same spans, as JSON and as protobuf", () => {
    const spans: FinishedSpan[] = [];
    const mapper = new SpanMapper({}, (span) => spans.push(span));
    const [, path] = listCaptures().find(([dialect]) => dialect === "codex") ?? ["", ""];
    for (const event of readFile(path).events as AgentEvent[]) mapper.add(event);
    mapper.end();
    const resource = resourceOf({ "deployment.environment.name": "test" });
    const ours = decodeJson(JSON.stringify(traceRequest(spans, resource)));
    expect(decodeJson(new TextDecoder().decode(serializeSpans(spans, resource, "http/json")))).toEqual(ours);
    expect(decodeProtobuf(serializeSpans(spans, resource, "http/protobuf"))).toEqual(ours);
  });

  it("drops the older gen_ai.system name under OTEL_SEMCONV_STABILITY_OPT_IN=gen_ai_latest_experimental", async () => {
    const [, path] = listCaptures().find(([dialect]) => dialect === "codex") ?? ["", ""];
    const old = fakeIo();
    expect(await run(["convert", "--to", "otlp", path], old)).toBe(0);
    expect(old.out()).toContain('"gen_ai.system"');
    const latest = fakeIo({ env: { OTEL_SEMCONV_STABILITY_OPT_IN: "http,gen_ai_latest_experimental", OTEL_SERVICE_NAME: "agents" } });
    expect(await run(["convert", "--to", "otlp", path], latest)).toBe(0);
    expect(latest.out()).not.toContain('"gen_ai.system"');
    expect(decodeLines(latest.out())[0]?.resource["service.name"]).toBe("agents");
  });
});

describe("otlp without the summary's builder (a library caller that hands none)", () => {
  it("takes the session's figures from its end record", () => {
    const events = build([
      { type: "session.started", sessionId: "lib", agent: "codex", time: "2026-01-01T00:00:00.000Z" },
      { type: "turn.started", sessionId: "lib", turnId: "1", time: "2026-01-01T00:00:01.000Z" },
      {
        type: "turn.completed",
        sessionId: "lib",
        turnId: "1",
        usage: { inputTokens: 10, outputTokens: 2, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
        time: "2026-01-01T00:00:02.000Z",
      },
      {
        type: "session.completed",
        sessionId: "lib",
        status: "error",
        error: "boom",
        costUsd: 0.5,
        usage: { inputTokens: 11, outputTokens: 3, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null },
        time: "2026-01-01T00:00:03.000Z",
      },
    ]);
    const [request] = decodeLines(convertEvents(events, "otlp"));
    const root = request?.spans.find((span) => span.parentSpanId === "") as DecodedSpan;
    expect(root.attributes).toMatchObject({
      "gen_ai.usage.input_tokens": 11,
      "gen_ai.usage.output_tokens": 3,
      "agentstream.session.status": "error",
      "agentstream.cost_usd": 0.5,
      "error.type": "agent_error",
    });
    expect(root.status).toEqual({ code: 2, message: "boom" });
    const chat = request?.spans.find((span) => operation(span) === "chat") as DecodedSpan;
    expect(chat.attributes["gen_ai.usage.input_tokens"]).toBe(10);
    expect(chat.end - chat.start).toBe(1_000_000_000n);
  });
});

describe("otlp under run (the run id until the agent names its session)", () => {
  it("a line before the agent names its session (Codex's thread id) is in that session's trace, not a trace of its own", () => {
    const events = build([
      { type: "notice", kind: "stderr", text: "Reading prompt from stdin...", time: "2026-01-01T00:00:00.000Z" },
      { type: "session.started", sessionId: "thread-1", agent: "codex", time: "2026-01-01T00:00:01.000Z" },
      { type: "tool.started", sessionId: "thread-1", toolCallId: "c1", name: "shell", time: "2026-01-01T00:00:02.000Z" },
      { type: "tool.completed", sessionId: "thread-1", toolCallId: "c1", status: "ok", time: "2026-01-01T00:00:03.000Z" },
      { type: "session.completed", sessionId: "thread-1", status: "ok", time: "2026-01-01T00:00:04.000Z" },
    ]);
    const spans: FinishedSpan[] = [];
    const mapper = new SpanMapper({ fallbackSessionId: "run-1" }, (span) => spans.push(span));
    for (const event of events) mapper.add(event);
    mapper.end();
    const roots = spans.filter((span) => span.parentSpanId === undefined);
    expect(roots.map((span) => span.name)).toEqual(["invoke_agent codex"]);
    expect(new Set(spans.map((span) => span.traceId)).size).toBe(1);
    expect(roots[0]?.startMs).toBe(Date.parse("2026-01-01T00:00:00.000Z"));
  });
});
